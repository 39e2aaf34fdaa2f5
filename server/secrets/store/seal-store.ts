// The cluster's key material in its storage, under `core/` (never replicated): the seal state and
// the backup of PGP-encrypted shares a rekey with `backup` keeps.
import type { SealState } from "../domain/seal.ts";
import type { Storage, StoredValue } from "./storage.ts";

const SEAL_KEY = "core/seal";
const BACKUP_KEY = "core/unseal-keys-backup";

export interface RekeyBackupRecord {
  nonce: string;
  /** Hex-encoded PGP messages by the fingerprint of the key they were encrypted to, in key order. */
  keys: Record<string, string[]>;
}

export class SealStore {
  constructor(private readonly storage: Storage) {}

  get(): SealState {
    const state = this.storage.get(SEAL_KEY) as unknown as SealState | undefined;
    if (!state) throw new Error("the cluster has no seal: it was not initialized");
    return state;
  }

  put(state: SealState): void {
    this.storage.put(SEAL_KEY, state as unknown as StoredValue);
  }

  backup(): RekeyBackupRecord | undefined {
    return this.storage.get(BACKUP_KEY) as unknown as RekeyBackupRecord | undefined;
  }

  putBackup(backup: RekeyBackupRecord): void {
    this.storage.put(BACKUP_KEY, backup as unknown as StoredValue);
  }

  deleteBackup(): void {
    this.storage.delete(BACKUP_KEY);
  }
}
