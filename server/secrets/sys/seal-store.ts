// The cluster's key material in its storage, under `core/` (never replicated): the seal state and
// the backup of PGP-encrypted shares a rekey with `backup` keeps.
import type { SealState } from "./seal.ts";
import { StoredRecord } from "../store/records.ts";
import type { Storage } from "../store/storage.ts";

const SEAL_KEY = "core/seal";
const BACKUP_KEY = "core/unseal-keys-backup";

export interface RekeyBackupRecord {
  nonce: string;
  /** Hex-encoded PGP messages by the fingerprint of the key they were encrypted to, in key order. */
  keys: Record<string, string[]>;
}

export class SealStore {
  readonly #seal: StoredRecord<SealState>;
  readonly #backup: StoredRecord<RekeyBackupRecord>;

  constructor(storage: Storage) {
    this.#seal = new StoredRecord(storage, SEAL_KEY);
    this.#backup = new StoredRecord(storage, BACKUP_KEY);
  }

  get(): SealState {
    const state = this.#seal.get();
    if (!state) throw new Error("the cluster has no seal: it was not initialized");
    return state;
  }

  put(state: SealState): void {
    this.#seal.put(state);
  }

  backup(): RekeyBackupRecord | undefined {
    return this.#backup.get();
  }

  putBackup(backup: RekeyBackupRecord): void {
    this.#backup.put(backup);
  }

  deleteBackup(): void {
    this.#backup.delete();
  }
}
