// Which storage keys replication ships, and which mount or namespace a key belongs to (for
// paths filters).
//
// Replicated: every key outside `core/` (service configuration under `sys/`, engines under
// `logical/<mount uuid>/`, identity and MFA data), plus `core/seal`: as in the real system, a
// secondary takes the primary's seal configuration and keys, so after activation it is the
// primary's unseal (or recovery) key shares that authorize key operations on it (DR operation
// token generation). The rest of `core/` is the cluster's own and never leaves it.
//
// Mount of a key: `logical/<id>/...` belongs to the mount whose storage id is `<id>`: the engines'
// name-based UUID of (engine, mount path) (server/secrets/engines/mount-storage.ts), or the mount
// path itself; an id that names no known mount is taken as a mount path. Namespace of a key: the
// `namespace_path` of an object stored under `identity/` (MFA methods); "" (the root) otherwise.
import { mountUuid } from "../../engines/mount-storage.ts";
import type { StoredValue } from "../../store/storage.ts";

export const SEAL_KEY = "core/seal";

export function isReplicatedKey(key: string): boolean {
  return !key.startsWith("core/") || key === SEAL_KEY;
}

export interface MountEntry {
  path: string;
  engine: string;
}

/** Maps storage keys to the mount (and namespace) they belong to. */
export class MountIndex {
  readonly #byId = new Map<string, string>();

  constructor(mounts: Iterable<MountEntry>) {
    for (const { path, engine } of mounts) {
      this.#byId.set(path, path);
      this.#byId.set(mountUuid(engine, path), path);
    }
  }

  /** The mount path a storage key belongs to (without slashes at the ends), or undefined. */
  mountOf(key: string): string | undefined {
    if (!key.startsWith("logical/")) return undefined;
    const id = key.slice("logical/".length).split("/")[0];
    if (!id) return undefined;
    return this.#byId.get(id) ?? id;
  }

  /** The namespace a stored value belongs to ("" for the root namespace). */
  namespaceOf(key: string, value: StoredValue | undefined): string {
    if (!key.startsWith("identity/") || !value || typeof value !== "object" || Array.isArray(value)) return "";
    const namespace = value.namespace_path;
    return typeof namespace === "string" ? namespace : "";
  }
}
