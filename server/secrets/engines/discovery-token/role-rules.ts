// The discovery-token engine's roles: what a role write must hold, which token API issues a role's
// tokens, and how a role is read back. Pure functions (no storage, no network). The parameters a
// backend version has are the backend's business: it refuses them when a token is issued, as in the
// real system, where the engine checks no version (builtin/logical/consul/path_roles.go).
import { commaStringSlice, lenientBoolean, lenientDuration } from "../../framework-fields.ts";
import type { BodyRead } from "../../wire.ts";

export type TokenType = "client" | "management";

/** A role as the engine stores it. */
export interface StoredRole {
  token_type: TokenType;
  /** The legacy ACL policy, decoded from base64 (rules text); "" for none. */
  policy: string;
  policies: string[];
  catalog_roles: string[];
  local: boolean;
  /** Seconds; 0: the mount's default. */
  ttl: number;
  /** Seconds; 0: the mount's maximum. */
  max_ttl: number;
  catalog_namespace: string;
  partition: string;
}

/** A role write's body as it arrives (after the description's schema check). */
export type RoleInput = BodyRead<"DiscoveryTokenRoleInput">;

/** A dotted release version, compared number by number ("1.10.3", "1.16.0+ent", "v1.4.0-rc1"). */
export type Version = readonly [number, number, number];

export function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * Which token API issues a role's tokens, as the real engine decides it (builtin/logical/consul/
 * path_token.go, pathTokenRead): a client role with a legacy policy uses the legacy API, any other
 * client role the token API; the backend refuses what its version does not have. A management role
 * is the one case where the backend's version decides (the legacy API below 1.4; from 1.4 on the
 * token API with the built-in global-management policy, as the description's role table has it for
 * 1.4 and later), so only then is `version` needed; a problem when it cannot be read.
 */
export function tokenApiFor(role: StoredRole, versionText?: string): "legacy" | "token" | { problem: string } {
  if (role.token_type === "client") return role.policy !== "" ? "legacy" : "token";
  const version = parseVersion(versionText ?? "");
  if (!version) return { problem: `the discovery backend reported a version this engine cannot read: ${JSON.stringify(versionText ?? "")}` };
  return compareVersions(version, [1, 4, 0]) < 0 ? "legacy" : "token";
}

/** The API the real engine would call for a role (path_token.go, pathTokenRead), for messages when the backend is not reached. */
export function realEngineApi(role: StoredRole): "legacy" | "token" {
  const legacy = (role.policy !== "" && role.token_type === "client") || (role.policy === "" && role.token_type === "management");
  return legacy ? "legacy" : "token";
}

export type Checked<T> = { value: T } | { problem: string };

/**
 * A role write checked as the real engine checks it (builtin/logical/consul/path_roles.go,
 * pathRolesWrite, after the framework's field conversion): the stored role, or the first problem.
 * No backend version is involved: what a backend version does not have is refused by the backend
 * when a token is issued.
 */
export function checkRole(input: RoleInput): Checked<StoredRole> {
  // The framework converted the duration fields before the handler ran (LenientDuration).
  const durations: Record<string, number | undefined> = {};
  for (const field of ["ttl", "max_ttl", "lease"] as const) {
    const value = input[field];
    if (value !== undefined && value !== null) durations[field] = lenientDuration(value, 0);
  }

  const tokenType: string = input.token_type ?? "client";
  const policyText = input.policy ?? "";
  const policies = commaStringSlice(input.policies);
  const catalogRoles = commaStringSlice(input.catalog_roles);
  if (tokenType === "client") {
    if (policyText === "" && policies.length === 0 && catalogRoles.length === 0) {
      return { problem: "Use either a policy document, a list of policies, or a list of roles, depending on your Consul version" };
    }
  } else if (tokenType !== "management") {
    return { problem: 'token_type must be "client" or "management"' };
  }

  const policy = decodeBase64(policyText);
  if (typeof policy !== "string") return { problem: `Error decoding policy base64: ${policy.error}` };

  return {
    value: {
      token_type: tokenType as TokenType,
      policy,
      policies,
      catalog_roles: catalogRoles,
      local: lenientBoolean(input.local, false),
      // ttl wins over its old name lease when both are sent (pathRolesWrite reads lease only without ttl).
      ttl: durations.ttl ?? durations.lease ?? 0,
      max_ttl: durations.max_ttl ?? 0,
      catalog_namespace: input.catalog_namespace ?? "",
      partition: input.partition ?? "",
    },
  };
}

/**
 * The role as the read answers it (path_roles.go, pathRolesRead): `lease` is `ttl` again, in
 * seconds; `policy` (base64), `policies` and `catalog_roles` only when the role has them.
 */
export function roleView(role: StoredRole) {
  return {
    lease: role.ttl,
    ttl: role.ttl,
    max_ttl: role.max_ttl,
    token_type: role.token_type,
    local: role.local,
    catalog_namespace: role.catalog_namespace,
    partition: role.partition,
    ...(role.policy !== "" ? { policy: Buffer.from(role.policy, "utf8").toString("base64") } : {}),
    ...(role.policies.length > 0 ? { policies: [...role.policies] } : {}),
    ...(role.catalog_roles.length > 0 ? { catalog_roles: [...role.catalog_roles] } : {}),
  };
}

/** The real system's default lease TTL and maximum (768h), the mount's when the role sets none. */
export const MOUNT_DEFAULT_TTL = 768 * 3600;
export const MOUNT_MAX_TTL = 768 * 3600;

/** The lease duration (seconds) of a token issued from a role. */
export function leaseDuration(role: Pick<StoredRole, "ttl" | "max_ttl">): number {
  const max = Math.min(role.max_ttl > 0 ? role.max_ttl : MOUNT_MAX_TTL, MOUNT_MAX_TTL);
  return Math.min(role.ttl > 0 ? role.ttl : MOUNT_DEFAULT_TTL, max);
}

/** Strict standard base64 (Go's StdEncoding): the decoded text, or where it fails. */
export function decodeBase64(text: string): string | { error: string } {
  const invalid = /[^A-Za-z0-9+/=]/.exec(text);
  if (invalid) return { error: `illegal base64 data at input byte ${invalid.index}` };
  const padding = text.indexOf("=");
  if (text.length % 4 !== 0 || (padding !== -1 && (padding < text.length - 2 || /[^=]/.test(text.slice(padding))))) {
    const at = padding !== -1 ? padding : text.length - (text.length % 4);
    return { error: `illegal base64 data at input byte ${at}` };
  }
  return Buffer.from(text, "base64").toString("utf8");
}
