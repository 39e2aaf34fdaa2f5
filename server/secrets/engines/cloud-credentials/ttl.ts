// How long credentials last. Pure functions of the role, the request and the lease configuration,
// following the real engine: STS credentials take the requested `ttl`, else the role's
// `default_sts_ttl`, else 3600 seconds, cut to the role's `max_sts_ttl`, else to the mount's maximum
// lease (the service default, 768h). The provider then applies its own limits (see simulation.ts).
// IAM users get the configured lease, else the service's default lease, never above the maximum.

/** STS TTL when neither the request nor the role gives one. */
export const DEFAULT_STS_TTL = 3600;
/** The service's default and maximum lease TTL of a mount (the real system's 768h). */
export const SYSTEM_DEFAULT_LEASE_TTL = 768 * 3600;
export const SYSTEM_MAX_LEASE_TTL = 768 * 3600;

export interface StsTtlInput {
  /** The request's `ttl`, in seconds, when it gave one. */
  requested?: number;
  /** The role's `default_sts_ttl` (0: unset). */
  defaultStsTtl: number;
  /** The role's `max_sts_ttl` (0: unset). */
  maxStsTtl: number;
  /** The mount's maximum lease TTL. */
  mountMaxTtl?: number;
}

/** The duration asked of the provider for STS credentials, in seconds. */
export function stsTtl({ requested, defaultStsTtl, maxStsTtl, mountMaxTtl = SYSTEM_MAX_LEASE_TTL }: StsTtlInput): number {
  const ttl = requested !== undefined ? requested : defaultStsTtl > 0 ? defaultStsTtl : DEFAULT_STS_TTL;
  const max = maxStsTtl > 0 ? maxStsTtl : mountMaxTtl;
  return Math.min(ttl, max);
}

export interface LeaseConfig {
  /** Seconds (0: unset). */
  lease: number;
  /** Seconds (0: unset). */
  leaseMax: number;
}

/** The lease of new IAM-user credentials, in seconds. */
export function iamUserLeaseTtl(config: LeaseConfig | undefined, mountMaxTtl = SYSTEM_MAX_LEASE_TTL): number {
  const ttl = config && config.lease > 0 ? config.lease : SYSTEM_DEFAULT_LEASE_TTL;
  const max = config && config.leaseMax > 0 ? Math.min(config.leaseMax, mountMaxTtl) : mountMaxTtl;
  return Math.min(ttl, max);
}
