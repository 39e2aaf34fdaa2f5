// The lease table of one cluster: registers the leases of issued secrets, renews and revokes them,
// and revokes each at its expiry. Entries live in the cluster's storage under `sys/expire/id/`, so
// they last as long as the storage does; `restore()` sets the timers again from storage at start.
// What renewing and revoking a secret means is up to its engine (LeaseBackend, per secret type).
// Operations on one lease run one after the other, as the real system locks per lease.
import { randomBytes } from "node:crypto";
import { InvalidRequestError } from "../errors.ts";
import { isStoredObject, storedWhere, StoredRecords } from "../store/records.ts";
import type { Storage } from "../store/storage.ts";
import { MAX_TIMER_MS, systemClock, type Clock } from "./clock.ts";
import {
  calculateTtl,
  LEASE_PREFIX,
  lookupView,
  MAX_REVOKE_ATTEMPTS,
  renewProblem,
  revokeRetryDelay,
  type InternalValue,
  type LeaseEntry,
  type LeaseLookup,
} from "./lease.ts";

/** What an engine does when one of its secrets is renewed or revoked. */
export interface LeaseBackend {
  /** The engine's TTL and maximum TTL for the secret now (seconds), or why it refuses the renewal. */
  renew(entry: LeaseEntry): Promise<{ ttl: number; maxTtl: number } | { error: string }>;
  /** Makes the secret stop working; throws when it could not. */
  revoke(entry: LeaseEntry): Promise<void>;
}

export interface LeaseRequest {
  /** The path the secret was issued at (`<mount>/creds/<role>`): the lease id is this plus a random part. */
  path: string;
  mount: string;
  secretType: string;
  renewable: boolean;
  /** The engine's TTL and maximum TTL, seconds (0: the mount's default and maximum). */
  ttl: number;
  maxTtl: number;
  internal: Record<string, InternalValue>;
}

export interface IssuedLease {
  lease_id: string;
  lease_duration: number;
  renewable: boolean;
  warnings: string[];
}

export interface RenewedLease {
  lease_id: string;
  lease_duration: number;
  renewable: boolean;
  warnings: string[];
}

export class LeaseManager {
  /** The lease entries by lease id, under sys/expire/id/. */
  readonly #leases: StoredRecords<LeaseEntry>;
  readonly #backends: Record<string, LeaseBackend>;
  #clock: Clock;
  readonly #timers = new Map<string, unknown>();
  /** The running operation of each lease, so that the next one waits for it. */
  readonly #locks = new Map<string, Promise<unknown>>();
  #stopped = false;

  /** Whether this cluster revokes at expiry now (a replication secondary leaves it to its primary). */
  readonly #active: () => boolean;

  constructor(storage: Storage, backends: Record<string, LeaseBackend>, clock: Clock = systemClock, active: () => boolean = () => true) {
    this.#leases = new StoredRecords(storage, LEASE_PREFIX, storedWhere(isStoredObject));
    this.#backends = backends;
    this.#clock = clock;
    this.#active = active;
  }

  /** Another clock (tests): the timers are set again on it. */
  useClock(clock: Clock): void {
    this.#clearTimers();
    this.#clock = clock;
    this.restore();
  }

  /** Sets a timer for every stored lease (at start, on storage that already holds leases). */
  restore(): void {
    this.#stopped = false;
    for (const leaseId of this.#leases.names()) {
      const entry = this.#load(leaseId);
      if (entry && entry.revoke_err === "") this.#schedule(entry);
    }
  }

  /** Stops every timer (the server is closing); stored leases stay. */
  stop(): void {
    this.#stopped = true;
    this.#clearTimers();
  }

  /** Waits until no lease operation (an expiry's revocation included) is running. */
  async idle(): Promise<void> {
    while (this.#locks.size > 0) await Promise.allSettled([...this.#locks.values()]);
  }

  /**
   * Registers the lease of a secret just issued. When the lease cannot be stored (storage full),
   * the secret is revoked at once and the refusal passed on, as the real system's Register does:
   * no credential may live without a lease.
   */
  async register(request: LeaseRequest): Promise<IssuedLease> {
    if (!this.#backends[request.secretType]) throw new Error(`no lease backend for secret type ${request.secretType}`);
    const now = this.#clock.now();
    const computed = calculateTtl({ now, issueTime: now, increment: 0, backendTtl: request.ttl, backendMaxTtl: request.maxTtl });
    if ("error" in computed) throw new InvalidRequestError(computed.error);
    const entry: LeaseEntry = {
      lease_id: `${request.path}/${leaseSuffix()}`,
      path: request.path,
      secret_type: request.secretType,
      mount: request.mount,
      renewable: request.renewable,
      internal: request.internal,
      ttl: request.ttl,
      max_ttl: request.maxTtl,
      issue_time: now,
      expire_time: now + computed.ttl * 1000,
      last_renewal_time: 0,
      revoke_err: "",
      revoke_attempts: 0,
    };
    try {
      this.#persist(entry);
    } catch (error) {
      await this.#backend(entry)
        .revoke(entry)
        .catch((revokeError: unknown) => console.error(`secrets: revoking a secret whose lease could not be stored (${entry.path}): ${messageOf(revokeError)}`));
      throw error;
    }
    this.#schedule(entry);
    return { lease_id: entry.lease_id, lease_duration: computed.ttl, renewable: entry.renewable, warnings: computed.warnings };
  }

  /** PUT /sys/leases/lookup */
  lookup(leaseId: string): LeaseLookup {
    const entry = this.#load(leaseId);
    if (!entry) throw new InvalidRequestError("invalid lease");
    return lookupView(entry, this.#clock.now());
  }

  /** PUT /sys/leases/renew: `increment` in seconds (0: the engine's TTL). */
  renew(leaseId: string, increment: number): Promise<RenewedLease> {
    return this.#locked(leaseId, async () => {
      const entry = this.#load(leaseId);
      const problem = renewProblem(entry, this.#clock.now());
      if (problem) throw new InvalidRequestError(problem);
      const answer = await this.#backend(entry!).renew(entry!);
      if ("error" in answer) throw new InvalidRequestError(`failed to renew entry: ${answer.error}`);
      const now = this.#clock.now();
      const computed = calculateTtl({ now, issueTime: entry!.issue_time, increment, backendTtl: answer.ttl, backendMaxTtl: answer.maxTtl });
      if ("error" in computed) throw new InvalidRequestError(computed.error);
      const renewed: LeaseEntry = { ...entry!, ttl: answer.ttl, max_ttl: answer.maxTtl, expire_time: now + computed.ttl * 1000, last_renewal_time: now };
      this.#persist(renewed);
      this.#schedule(renewed);
      return { lease_id: leaseId, lease_duration: computed.ttl, renewable: renewed.renewable, warnings: computed.warnings };
    });
  }

  /**
   * PUT /sys/leases/revoke: the secret stops working and the lease is gone. Nothing to do for an
   * unknown lease. With `force`, the lease is forgotten even when its engine fails to revoke.
   */
  revoke(leaseId: string, { force = false } = {}): Promise<void> {
    return this.#locked(leaseId, async () => {
      const entry = this.#load(leaseId);
      if (!entry) return;
      try {
        await this.#backend(entry).revoke(entry);
      } catch (error) {
        if (!force) throw new InvalidRequestError(`failed to revoke entry: ${messageOf(error)}`);
        console.error(`secrets: revoke-force of ${leaseId}: the engine failed (${messageOf(error)}); the lease is forgotten`);
      }
      this.#forget(entry);
    });
  }

  /** PUT /sys/leases/revoke-prefix and revoke-force: every lease under the prefix, one by one. */
  async revokePrefix(prefix: string, options: { force?: boolean } = {}): Promise<void> {
    for (const leaseId of this.list(asFolder(prefix))) await this.revoke(leaseId, options);
  }

  /**
   * LIST /sys/leases/lookup/<prefix>: what lies directly under a prefix of lease ids, sorted (a
   * segment with `/` where more follow, else a lease's own suffix), as the real server lists its
   * lease storage.
   */
  children(prefix: string): string[] {
    const folder = asFolder(prefix);
    const keys = new Set<string>();
    for (const leaseId of this.list(folder)) {
      const rest = leaseId.slice(folder.length);
      const slash = rest.indexOf("/");
      keys.add(slash === -1 ? rest : rest.slice(0, slash + 1));
    }
    return [...keys].sort();
  }

  /** Ids of the stored leases under a prefix (for tests and the docs' curious). */
  list(prefix = ""): string[] {
    return this.#leases.names(prefix);
  }

  /** The stored entry of a lease (internal data included: never for clients). */
  entry(leaseId: string): LeaseEntry | undefined {
    return this.#load(leaseId);
  }

  // ---- expiry ----

  #schedule(entry: LeaseEntry): void {
    this.#unschedule(entry.lease_id);
    if (this.#stopped) return;
    const wait = entry.expire_time - this.#clock.now();
    const step = Math.min(Math.max(0, wait), MAX_TIMER_MS);
    const handle = this.#clock.setTimer(step, () => {
      this.#timers.delete(entry.lease_id);
      if (step < wait) {
        // A wait longer than one timer can hold: set the next part.
        const current = this.#load(entry.lease_id);
        if (current) this.#schedule(current);
        return;
      }
      this.#expireFromTimer(entry.lease_id);
    });
    this.#timers.set(entry.lease_id, handle);
  }

  #expire(leaseId: string): Promise<void> {
    return this.#locked(leaseId, async () => {
      const entry = this.#load(leaseId);
      if (!entry || entry.revoke_err !== "") return;
      // Renewed meanwhile: its new timer is set.
      if (entry.expire_time > this.#clock.now()) return this.#schedule(entry);
      // A secondary holds its primary's leases (replicated) but leaves their revocation to the
      // primary; it looks again later, in case it has been promoted meanwhile.
      if (!this.#active()) return this.#retryLater(leaseId, INACTIVE_RECHECK_MS);
      try {
        await this.#backend(entry).revoke(entry);
        this.#forget(entry);
      } catch (error) {
        const attempts = entry.revoke_attempts + 1;
        if (attempts >= MAX_REVOKE_ATTEMPTS) {
          // As the real system: kept, marked irrevocable, for an operator to look at.
          this.#persist({ ...entry, revoke_attempts: attempts, revoke_err: `lease expired and revocation failed ${attempts} times: ${messageOf(error)}` });
          console.error(`secrets: lease ${leaseId} could not be revoked after ${attempts} attempts: ${messageOf(error)}`);
          return;
        }
        this.#persist({ ...entry, revoke_attempts: attempts });
        this.#retryLater(leaseId, revokeRetryDelay(attempts));
      }
    });
  }

  /**
   * An expiry run from a timer: a failure to keep its outcome (the data directory's disk full or
   * locked: StorageUnavailableError) is logged and tried again later, never left as an unhandled
   * rejection that would stop the process.
   */
  #expireFromTimer(leaseId: string): void {
    this.#expire(leaseId).catch((error: unknown) => {
      console.error(`secrets: lease ${leaseId}: ${messageOf(error)}; trying again in ${INACTIVE_RECHECK_MS / 1000} s`);
      this.#retryLater(leaseId, INACTIVE_RECHECK_MS);
    });
  }

  #retryLater(leaseId: string, ms: number): void {
    if (this.#stopped) return;
    this.#unschedule(leaseId);
    const handle = this.#clock.setTimer(ms, () => {
      this.#timers.delete(leaseId);
      this.#expireFromTimer(leaseId);
    });
    this.#timers.set(leaseId, handle);
  }

  // ---- inside ----

  #backend(entry: LeaseEntry): LeaseBackend {
    const backend = this.#backends[entry.secret_type];
    if (!backend) throw new InvalidRequestError(`no backend for secret type ${JSON.stringify(entry.secret_type)}`);
    return backend;
  }

  #locked<T>(leaseId: string, run: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(leaseId) ?? Promise.resolve();
    const result = before.then(run, run);
    const tail = result.catch(() => undefined);
    this.#locks.set(leaseId, tail);
    void tail.then(() => {
      if (this.#locks.get(leaseId) === tail) this.#locks.delete(leaseId);
    });
    return result;
  }

  #load(leaseId: string): LeaseEntry | undefined {
    return this.#leases.get(leaseId);
  }

  #persist(entry: LeaseEntry): void {
    this.#leases.put(entry.lease_id, entry);
  }

  #forget(entry: LeaseEntry): void {
    this.#unschedule(entry.lease_id);
    this.#leases.delete(entry.lease_id);
  }

  #unschedule(leaseId: string): void {
    const handle = this.#timers.get(leaseId);
    if (handle !== undefined) this.#clock.clearTimer(handle);
    this.#timers.delete(leaseId);
  }

  #clearTimers(): void {
    for (const handle of this.#timers.values()) this.#clock.clearTimer(handle);
    this.#timers.clear();
  }
}

/** How often a secondary looks again at the leases it holds past their end. */
const INACTIVE_RECHECK_MS = 60_000;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 24 random base62 characters, the real system's lease id suffix. */
function leaseSuffix(): string {
  let text = "";
  while (text.length < 24) {
    for (const byte of randomBytes(32)) if (byte < 248 && text.length < 24) text += BASE62[byte % 62];
  }
  return text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A prefix as the real server reads it: "" is every lease, anything else ends in "/". */
function asFolder(prefix: string): string {
  return prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
}
