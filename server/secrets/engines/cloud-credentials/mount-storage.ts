// The part of the cluster's storage that belongs to one mount of the engine, `logical/<mount uuid>/`
// (the uuid from ../mount-storage.ts, shared by the engines), as one typed view per kind of record:
// the root and lease configurations, the roles, and the legacy entries earlier versions stored.
import { isStoredObject, StoredRecord, StoredRecords } from "../../store/records.ts";
import type { Storage, StoredValue } from "../../store/storage.ts";
import { mountStoragePrefix } from "../mount-storage.ts";
import { normalizeStoredRole, type RoleEntry } from "./roles.ts";

/** The engine's name in the mount table (`x-secrets-engine`). */
export const CLOUD_CREDENTIALS_ENGINE = "cloud-credentials";

/** The root configuration as stored (config/root). */
export interface RootConfig {
  access_key: string;
  secret_key: string;
  region: string;
  iam_endpoint: string;
  sts_endpoint: string;
  max_retries: number;
}

/** The lease configuration as stored (config/lease): Go durations in nanoseconds, as decimal text (negative ones too). */
export interface StoredLeaseConfig {
  lease: string;
  lease_max: string;
}

/** Members of a stored object; none of anything else. */
function membersOf(stored: StoredValue): { [key: string]: StoredValue | undefined } {
  return isStoredObject(stored) ? stored : {};
}

/** A stored root configuration, whatever an earlier version left out (missing fields are empty). */
function readRootConfig(value: StoredValue): RootConfig | undefined {
  if (!value) return undefined;
  const stored = membersOf(value);
  const text = (v: StoredValue | undefined) => (typeof v === "string" ? v : "");
  return {
    access_key: text(stored.access_key),
    secret_key: text(stored.secret_key),
    region: text(stored.region),
    iam_endpoint: text(stored.iam_endpoint),
    sts_endpoint: text(stored.sts_endpoint),
    max_retries: typeof stored.max_retries === "number" ? stored.max_retries : -1,
  };
}

function readLeaseConfig(value: StoredValue): StoredLeaseConfig | undefined {
  if (!value) return undefined;
  const stored = membersOf(value);
  const text = (v: StoredValue | undefined) => (typeof v === "string" ? v : "");
  return { lease: text(stored.lease), lease_max: text(stored.lease_max) };
}

/** A legacy entry holds the raw data of the write (a policy document or an ARN). */
function readLegacyEntry(stored: StoredValue): string {
  return typeof stored === "string" ? stored : JSON.stringify(stored);
}

export class MountStorage {
  readonly prefix: string;
  readonly rootConfig: StoredRecord<RootConfig>;
  readonly leaseConfig: StoredRecord<StoredLeaseConfig>;
  /** Roles by name (role/<name>), read whatever an earlier version stored. */
  readonly roles: StoredRecords<RoleEntry>;
  /** Roles an earlier version stored as `policy/<name>` holding the raw data; upgraded when written again. */
  readonly legacyRoles: StoredRecords<string>;

  constructor(
    readonly storage: Storage,
    readonly mountPath: string,
  ) {
    this.prefix = mountStoragePrefix(CLOUD_CREDENTIALS_ENGINE, mountPath);
    this.rootConfig = new StoredRecord(storage, `${this.prefix}config/root`, readRootConfig);
    this.leaseConfig = new StoredRecord(storage, `${this.prefix}config/lease`, readLeaseConfig);
    this.roles = new StoredRecords(storage, `${this.prefix}role/`, normalizeStoredRole);
    this.legacyRoles = new StoredRecords(storage, `${this.prefix}policy/`, readLegacyEntry);
  }
}
