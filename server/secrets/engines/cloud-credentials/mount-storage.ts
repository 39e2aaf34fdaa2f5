// The part of the cluster's storage that belongs to one mount of the engine, `logical/<mount uuid>/`
// (the uuid from ../mount-storage.ts, shared by the engines), seen with keys relative to it.
import type { Storage, StoredValue } from "../../store/storage.ts";
import { mountStoragePrefix } from "../mount-storage.ts";

/** The engine's name in the mount table (`x-secrets-engine`). */
export const CLOUD_CREDENTIALS_ENGINE = "cloud-credentials";

export class MountStorage {
  readonly prefix: string;

  constructor(
    readonly storage: Storage,
    readonly mountPath: string,
  ) {
    this.prefix = mountStoragePrefix(CLOUD_CREDENTIALS_ENGINE, mountPath);
  }

  get<T extends StoredValue = StoredValue>(key: string): T | undefined {
    return this.storage.get<T>(this.prefix + key);
  }

  put(key: string, value: StoredValue): void {
    this.storage.put(this.prefix + key, value);
  }

  delete(key: string): void {
    this.storage.delete(this.prefix + key);
  }

  /** Keys under a relative prefix, relative to it, sorted. */
  list(prefix: string): string[] {
    return this.storage.list(this.prefix + prefix).map((key) => key.slice(this.prefix.length + prefix.length));
  }
}
