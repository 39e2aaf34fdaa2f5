// Leases of the secrets the engines issue, as the real system's expiration manager keeps them
// (vault/expiration.go, sdk/framework/lease.go at the 1.14 release): one entry per secret under
// `sys/expire/id/<lease id>` in the cluster's storage, its expiry computed from the engine's TTL and
// maximum TTL and the mount's limits, renewable up to its maximum, revoked at expiry or on demand.
// Pure functions and types: no storage, no timers.
import type { Schemas } from "../wire.ts";

/** The mount's default and maximum lease TTL (the real system's defaults, 768h = 32 days), in seconds. */
export const MOUNT_DEFAULT_LEASE_TTL = 768 * 3600;
export const MOUNT_MAX_LEASE_TTL = 768 * 3600;

/** How many times revocation at expiry is tried before the lease is marked irrevocable, and the first wait (ms). */
export const MAX_REVOKE_ATTEMPTS = 6;
export const REVOKE_RETRY_BASE_MS = 10_000;

export type InternalValue = string | number | boolean | null;

/** A lease as stored (plain JSON). Times are milliseconds since the epoch. */
export interface LeaseEntry {
  lease_id: string;
  /** The path the secret was issued at, e.g. `aws/creds/web`. */
  path: string;
  /** Which engine's secret type revokes and renews it: `<engine>/<type>`. */
  secret_type: string;
  /** The mount the secret came from. */
  mount: string;
  renewable: boolean;
  /** What the engine needs to renew and revoke it (never returned to clients). */
  internal: Record<string, InternalValue>;
  /** The engine's TTL and maximum TTL for the secret, in seconds (0: the mount's). */
  ttl: number;
  max_ttl: number;
  issue_time: number;
  expire_time: number;
  /** 0 until the first renewal. */
  last_renewal_time: number;
  /** Set once revocation at expiry has failed every attempt: the lease is irrevocable. */
  revoke_err: string;
  /** Revocation attempts at expiry that failed so far. */
  revoke_attempts: number;
}

/** The storage key of a lease. */
export function leaseKey(leaseId: string): string {
  return `sys/expire/id/${leaseId}`;
}

export const LEASE_PREFIX = "sys/expire/id/";

export type TtlResult = { ttl: number; warnings: string[] } | { error: string };

/**
 * The TTL (seconds) a lease gets when issued or renewed, as framework.CalculateTTL computes it: the
 * increment asked for, else the engine's TTL, else the mount's default; never past the issue time
 * plus the maximum (the engine's maximum when below the mount's).
 */
export function calculateTtl(input: { now: number; issueTime: number; increment: number; backendTtl: number; backendMaxTtl: number }): TtlResult {
  const now = Math.floor(input.now / 1000);
  const start = Math.floor(input.issueTime / 1000);
  let maxTtl = MOUNT_MAX_LEASE_TTL;
  if (input.backendMaxTtl > 0 && input.backendMaxTtl < maxTtl) maxTtl = input.backendMaxTtl;
  let ttl = input.increment > 0 ? input.increment : input.backendTtl > 0 ? input.backendTtl : MOUNT_DEFAULT_LEASE_TTL;
  const warnings: string[] = [];
  const maxValid = start + maxTtl - now;
  if (maxValid <= 0) return { error: "past the max TTL, cannot renew" };
  if (maxValid - ttl < 0) {
    warnings.push(`TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(maxValid)}"; TTL value is capped accordingly`);
    ttl = maxValid;
  }
  return { ttl, warnings };
}

/** Why a lease cannot be renewed now (leaseEntry.renewable), or undefined when it can. */
export function renewProblem(entry: LeaseEntry | undefined, now: number): string | undefined {
  if (!entry) return "lease not found";
  if (entry.revoke_err !== "") return "lease is expired and has failed previous revocation attempts";
  if (entry.expire_time === 0) return "lease is not renewable";
  if (entry.expire_time < now) return "lease expired";
  if (!entry.renewable) return "lease is not renewable";
  return undefined;
}

/** What PUT /sys/leases/lookup answers in `data`. */
export type LeaseLookup = Schemas["LeaseLookup"];

export function lookupView(entry: LeaseEntry, now: number): LeaseLookup {
  return {
    id: entry.lease_id,
    issue_time: new Date(entry.issue_time).toISOString(),
    expire_time: entry.expire_time ? new Date(entry.expire_time).toISOString() : null,
    last_renewal: entry.last_renewal_time ? new Date(entry.last_renewal_time).toISOString() : null,
    renewable: renewProblem(entry, now) === undefined,
    // As the real system: whole seconds from now (rounded to the second) to the expiry.
    ttl: entry.expire_time ? Math.trunc((entry.expire_time - Math.round(now / 1000) * 1000) / 1000) : 0,
  };
}

/** The wait before the next revocation attempt at expiry: 10s, 20s, 40s... (the real system adds jitter). */
export function revokeRetryDelay(attempt: number): number {
  return 2 ** attempt * REVOKE_RETRY_BASE_MS;
}

/** A duration in seconds as Go prints it, without zero parts (`1h`, `1h30m`, `45s`). */
export function humanDuration(seconds: number): string {
  if (seconds === 0) return "0s";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  let text = `${h > 0 ? `${h}h` : ""}${h > 0 || m > 0 ? `${m}m` : ""}${s}s`;
  if (text.endsWith("m0s")) text = text.slice(0, -2);
  const idx = text.indexOf("h0m");
  if (idx > 0) text = text.slice(0, idx + 1) + text.slice(idx + 3);
  return text;
}
