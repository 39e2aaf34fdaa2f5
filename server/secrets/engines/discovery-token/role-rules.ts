// The discovery-token engine's roles: which parameters a backend version accepts, what a client role
// needs, and how a role is read back. Pure functions (no storage, no network), so that the version
// rules are a table that tests can walk.
import { DurationError, formatDuration, parseDuration } from "../../../shared/go-duration.ts";
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

const at = (text: string): Version => parseVersion(text)!;

/** The backend versions a role parameter exists in: from `since` (inclusive) and before `until`. */
export interface Availability {
  since?: string;
  until?: string;
  /** What to use instead, once the parameter is gone. */
  instead?: string;
}

/** The seed's version rules, as a table. Parameters not listed exist in every version. */
export const PARAMETER_VERSIONS: Readonly<Record<string, Availability>> = {
  policy: { until: "1.11", instead: "policies or catalog_roles" },
  lease: { until: "1.4", instead: "ttl" },
  policies: { since: "1.4" },
  local: { since: "1.4" },
  catalog_roles: { since: "1.5" },
  catalog_namespace: { since: "1.7" },
  partition: { since: "1.11" },
};

export function parameterAvailable(parameter: string, version: Version): boolean {
  const rule = PARAMETER_VERSIONS[parameter];
  if (!rule) return true;
  if (rule.since && compareVersions(version, at(rule.since)) < 0) return false;
  if (rule.until && compareVersions(version, at(rule.until)) >= 0) return false;
  return true;
}

/** What a `client` role must have at least one of, by backend version. */
export function clientRequirement(version: Version): (keyof StoredRole)[] {
  return ["policy", "policies", "catalog_roles"].filter((parameter) => parameterAvailable(parameter, version)) as (keyof StoredRole)[];
}

/**
 * Which token API issues a role's tokens at a backend version: the legacy one below 1.4, and for
 * client roles with a legacy policy while the backend still has it (below 1.11); else the token API.
 * A problem when the role cannot issue tokens from this version.
 */
export function tokenApiFor(role: StoredRole, versionText: string): "legacy" | "token" | { problem: string } {
  const version = parseVersion(versionText);
  if (!version) return { problem: `the discovery backend reported a version this engine cannot read: "${versionText}"` };
  const client = role.token_type === "client";
  if (compareVersions(version, at("1.4")) < 0) {
    if (client && role.policy === "") {
      return { problem: `has no legacy policy, which a client token needs from the backend (${versionText}, below 1.4): write the role again with policy` };
    }
    return "legacy";
  }
  if (client && role.policy !== "") {
    if (parameterAvailable("policy", version)) return "legacy";
    return { problem: `has a legacy policy, which the backend (${versionText}) no longer accepts: write the role again with policies or catalog_roles` };
  }
  return "token";
}

export type Checked<T> = { value: T } | { problems: string[] };

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A role write checked against the backend's version: the stored role, or every problem found
 * (one message each). `versionText` is the version as the backend reported it.
 */
export function checkRole(input: RoleInput, versionText: string): Checked<StoredRole> {
  const version = parseVersion(versionText);
  if (!version) return { problems: [`the discovery backend reported a version this engine cannot read: "${versionText}"`] };
  const problems: string[] = [];

  for (const parameter of Object.keys(PARAMETER_VERSIONS)) {
    if (!isGiven((input as Record<string, unknown>)[parameter]) || parameterAvailable(parameter, version)) continue;
    const rule = PARAMETER_VERSIONS[parameter]!;
    if (rule.since && compareVersions(version, at(rule.since)) < 0) {
      problems.push(`${parameter} needs backend version ${rule.since} or later (the backend runs ${versionText})`);
    } else if (parameter === "lease") {
      problems.push(`lease is for backend versions below ${rule.until} (the backend runs ${versionText}): use ${rule.instead}`);
    } else {
      problems.push(`${parameter} was removed in backend version ${rule.until} (the backend runs ${versionText}): use ${rule.instead}`);
    }
  }

  const tokenType = input.token_type ?? "client";
  if (tokenType !== "client" && tokenType !== "management") problems.push(`token_type must be "client" or "management"`);

  let policy = "";
  if (isGiven(input.policy)) {
    const decoded = decodeBase64(input.policy!);
    if (typeof decoded === "string") policy = decoded;
    else problems.push(`error decoding policy base64: ${decoded.error}`);
  }
  const policies = nameList(input.policies);
  const catalogRoles = nameList(input.catalog_roles);

  if (isGiven(input.lease) && isGiven(input.ttl)) problems.push("lease is the old name of ttl: send one of them");
  const ttl = seconds("ttl", isGiven(input.ttl) ? input.ttl : input.lease, problems);
  const maxTtl = seconds("max_ttl", input.max_ttl, problems);
  if (ttl !== undefined && maxTtl !== undefined && ttl > 0 && maxTtl > 0 && ttl > maxTtl) {
    problems.push(`ttl (${formatDuration(ttl * 1e9)}) is greater than max_ttl (${formatDuration(maxTtl * 1e9)})`);
  }
  for (const field of ["catalog_namespace", "partition"] as const) {
    const value = input[field];
    if (isGiven(value) && !NAME.test(value!)) problems.push(`${field} must be a name of letters, digits, "-" and "_" (at most 64), not ${JSON.stringify(value)}`);
  }

  if (tokenType === "client") {
    const needed = clientRequirement(version);
    const has = { policy: policy !== "", policies: policies.length > 0, catalog_roles: catalogRoles.length > 0 } as Record<string, boolean>;
    if (!needed.some((parameter) => has[parameter])) {
      problems.push(`a client token needs ${orList(needed)} (backend version ${versionText}); only token_type management needs none`);
    }
  }

  if (problems.length > 0) return { problems };
  return {
    value: {
      token_type: tokenType,
      policy,
      policies,
      catalog_roles: catalogRoles,
      local: input.local ?? false,
      ttl: ttl ?? 0,
      max_ttl: maxTtl ?? 0,
      catalog_namespace: input.catalog_namespace ?? "",
      partition: input.partition ?? "",
    },
  };
}

/** The role as the read answers it. */
export function roleView(role: StoredRole) {
  return {
    token_type: role.token_type,
    ...(role.policy !== "" ? { policy: Buffer.from(role.policy, "utf8").toString("base64") } : {}),
    policies: [...role.policies],
    catalog_roles: [...role.catalog_roles],
    local: role.local,
    ttl: role.ttl,
    max_ttl: role.max_ttl,
    lease: formatDuration(role.ttl * 1e9),
    catalog_namespace: role.catalog_namespace,
    partition: role.partition,
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

/** A parameter counts as given when present and not empty ("", [], false, 0, null). */
export function isGiven(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === false || value === 0) return false;
  return !Array.isArray(value) || value.length > 0;
}

/** A comma-separated string or a list of names: trimmed, without empties, each name once. */
export function nameList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : value.split(",");
  return [...new Set(items.map((item) => item.trim()).filter((item) => item !== ""))];
}

/** A duration field: whole seconds, as a number, a string of digits or a duration string. */
export function parseSeconds(value: string | number): number | { error: string } {
  if (typeof value === "number") {
    return Number.isInteger(value) && value >= 0 ? value : { error: `must be a whole number of seconds, not ${value}` };
  }
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  try {
    const ns = parseDuration(text);
    if (ns < 0) return { error: `must not be negative, not ${JSON.stringify(value)}` };
    return Math.floor(ns / 1e9);
  } catch (error) {
    if (error instanceof DurationError) return { error: error.message };
    throw error;
  }
}

function seconds(field: string, value: string | number | undefined, problems: string[]): number | undefined {
  if (value === undefined || value === "") return undefined;
  const parsed = parseSeconds(value);
  if (typeof parsed === "number") return parsed;
  problems.push(`${field}: ${parsed.error}`);
  return undefined;
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

function orList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}
