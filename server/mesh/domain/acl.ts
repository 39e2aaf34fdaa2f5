// ACL decisions for the mesh, following the real system's rule semantics: an exact `service` rule
// beats any `service_prefix` rule, the longest prefix wins among prefixes, `write` implies `read`,
// and anything without a matching rule is denied (default policy deny). A token's rules apply only
// inside its own namespace; the management token may do everything everywhere.

export type AccessLevel = "deny" | "read" | "write";
export type Access = "read" | "write";

export interface AclRules {
  service?: Record<string, AccessLevel>;
  service_prefix?: Record<string, AccessLevel>;
  operator?: AccessLevel;
}

export interface AclToken {
  AccessorID: string;
  SecretID: string;
  Description?: string;
  Namespace: string;
  Management?: boolean;
  Rules?: AclRules;
}

export type AclResource = { type: "service"; name: string } | { type: "operator" };

export function describePermission(resource: AclResource, access: Access): string {
  return resource.type === "service"
    ? `token lacks permission 'service:${access}' on "${resource.name}"`
    : `token lacks permission 'operator:${access}'`;
}

export function isAllowed(token: AclToken, namespace: string, resource: AclResource, access: Access): boolean {
  if (token.Management) return true;
  if (token.Namespace !== namespace) return false;
  const level = resource.type === "service" ? serviceLevel(token.Rules, resource.name) : token.Rules?.operator;
  return grants(level, access);
}

function serviceLevel(rules: AclRules | undefined, service: string): AccessLevel | undefined {
  const exact = rules?.service?.[service];
  if (exact) return exact;
  let best: { prefix: string; level: AccessLevel } | undefined;
  for (const [prefix, level] of Object.entries(rules?.service_prefix ?? {})) {
    if (service.startsWith(prefix) && (!best || prefix.length > best.prefix.length)) best = { prefix, level };
  }
  return best?.level;
}

function grants(level: AccessLevel | undefined, access: Access): boolean {
  if (level === "write") return true;
  return level === "read" && access === "read";
}
