// ACL decisions for the mesh, following the real system's rule semantics: an exact `service` rule
// beats any `service_prefix` rule, the longest prefix wins among prefixes, `write` implies `read`,
// and anything without a matching rule is denied (default policy deny). When several policies
// apply, `deny` wins over everything and `write` over `read`. A token's rules apply only inside its
// own namespace; a management token may do everything everywhere.

export type AccessLevel = "deny" | "read" | "write";
export type Access = "read" | "write";

export interface AclRules {
  service?: Record<string, AccessLevel>;
  service_prefix?: Record<string, AccessLevel>;
  agent?: Record<string, AccessLevel>;
  agent_prefix?: Record<string, AccessLevel>;
  operator?: AccessLevel;
  acl?: AccessLevel;
}

/** Resource kinds named by a label (`service "web"`), each with its `_prefix` form. */
type LabeledKind = "service" | "agent";

/** What one request may do: the merged rules of its token, in the token's namespace. */
export interface Authorizer {
  management: boolean;
  namespace: string;
  rules: AclRules;
  /** The AccessorID of the request's token (a token may not delete itself). */
  accessorId?: string;
}

export type AclResource = { type: LabeledKind; name: string } | { type: "operator" } | { type: "acl" };

/** What the token lacks, in the words of acl.PermissionDeniedError (its ResourceID quoted as Go's %q). */
export function describePermission(accessorId: string | undefined, resource: AclResource, access: Access): string {
  const token = accessorId ? `token with AccessorID '${accessorId}'` : "provided token";
  return "name" in resource
    ? `${token} lacks permission '${resource.type}:${access}' on ${JSON.stringify(resource.name)}`
    : `${token} lacks permission '${resource.type}:${access}'`;
}

export function isAllowed(authorizer: Authorizer, namespace: string, resource: AclResource, access: Access): boolean {
  if (authorizer.management) return true;
  if (authorizer.namespace !== namespace) return false;
  const { rules } = authorizer;
  const level = "name" in resource ? labeledLevel(rules, resource.type, resource.name) : rules[resource.type];
  return grants(level, access);
}

const PRECEDENCE: Record<AccessLevel, number> = { read: 1, write: 2, deny: 3 };

function stronger(a: AccessLevel | undefined, b: AccessLevel | undefined): AccessLevel | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return PRECEDENCE[a] >= PRECEDENCE[b] ? a : b;
}

function mergeMaps(
  a: Record<string, AccessLevel> | undefined,
  b: Record<string, AccessLevel> | undefined,
): Record<string, AccessLevel> | undefined {
  if (!a || !b) return a ?? b;
  const merged = { ...a };
  for (const [name, level] of Object.entries(b)) merged[name] = stronger(merged[name], level)!;
  return merged;
}

/** The rules of several policies as one set. */
export function mergeRules(all: AclRules[]): AclRules {
  return all.reduce<AclRules>(
    (merged, rules) => ({
      service: mergeMaps(merged.service, rules.service),
      service_prefix: mergeMaps(merged.service_prefix, rules.service_prefix),
      agent: mergeMaps(merged.agent, rules.agent),
      agent_prefix: mergeMaps(merged.agent_prefix, rules.agent_prefix),
      operator: stronger(merged.operator, rules.operator),
      acl: stronger(merged.acl, rules.acl),
    }),
    {},
  );
}

function labeledLevel(rules: AclRules, kind: LabeledKind, name: string): AccessLevel | undefined {
  const exactRules = rules[kind];
  const exact = exactRules && Object.hasOwn(exactRules, name) ? exactRules[name] : undefined;
  if (exact) return exact;
  let best: { prefix: string; level: AccessLevel } | undefined;
  for (const [prefix, level] of Object.entries(rules[`${kind}_prefix`] ?? {})) {
    if (name.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { prefix, level };
  }
  return best?.level;
}

function grants(level: AccessLevel | undefined, access: Access): boolean {
  if (level === "write") return true;
  return level === "read" && access === "read";
}
