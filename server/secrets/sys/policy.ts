// Policies and the capabilities they grant, as the real system evaluates them.
//
// A policy maps path patterns (relative to /v1) to capabilities. A pattern is a path, optionally
// ending in `*` (any rest, also inside a segment: `sys/rek*`), with `+` standing for exactly one path
// segment. The policies of a token are merged pattern by pattern (capabilities added up; `deny`
// wins); for a request path, the most specific matching pattern decides, by the real system's
// priority rules (https://developer.hashicorp.com/vault/docs/concepts/policies#priority-matching):
// a pattern is less specific when its first wildcard comes earlier, when it ends in `*` and the
// other does not, when it has more `+` segments, when it is shorter, and when it sorts lower.

export const CAPABILITIES = ["create", "read", "update", "patch", "delete", "list", "sudo", "deny"] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface PathRule {
  capabilities: Capability[];
}

export interface Policy {
  name: string;
  path: Record<string, PathRule>;
}

/** The name of the policy that grants everything, held by the root token. */
export const ROOT_POLICY = "root";

interface CompiledRule {
  pattern: string;
  capabilities: Set<Capability>;
  matcher: RegExp;
  /** Index of the first `+` or `*` (Infinity when there is none). */
  firstWildcard: number;
  glob: boolean;
  plusSegments: number;
}

/** Capabilities of a set of policies on request paths. */
export class Acl {
  readonly #root: boolean;
  readonly #rules: CompiledRule[];

  constructor(policies: Policy[]) {
    this.#root = policies.some((policy) => policy.name === ROOT_POLICY);
    const merged = new Map<string, Set<Capability>>();
    for (const policy of policies) {
      for (const [pattern, rule] of Object.entries(policy.path)) {
        const capabilities = merged.get(pattern) ?? new Set<Capability>();
        for (const capability of rule.capabilities) capabilities.add(capability);
        merged.set(pattern, capabilities);
      }
    }
    // A pattern denied by one policy is denied whatever the others grant it: capabilities() grants
    // nothing on a path whose deciding pattern holds `deny`.
    this.#rules = [...merged].map(([pattern, capabilities]) => compile(pattern, capabilities));
  }

  /** The capabilities granted on a path (relative to /v1, without a leading slash). */
  capabilities(path: string): Set<Capability> {
    if (this.#root) return new Set(CAPABILITIES.filter((c) => c !== "deny"));
    const matching = this.#rules.filter((rule) => rule.matcher.test(path));
    if (matching.length === 0) return new Set();
    const best = matching.reduce((a, b) => (morePrecise(a, b) ? a : b));
    return best.capabilities.has("deny") ? new Set() : new Set(best.capabilities);
  }

  /** Whether every one of the capabilities is granted on the path. */
  allows(path: string, required: readonly Capability[]): boolean {
    const granted = this.capabilities(path);
    return required.every((capability) => granted.has(capability));
  }
}

function compile(pattern: string, capabilities: Set<Capability>): CompiledRule {
  const glob = pattern.endsWith("*");
  const body = glob ? pattern.slice(0, -1) : pattern;
  const source = body
    .split("/")
    .map((segment) => (segment === "+" ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  const segments = body.split("/");
  let firstWildcard = glob ? body.length : Infinity;
  let offset = 0;
  for (const segment of segments) {
    if (segment === "+") {
      firstWildcard = Math.min(firstWildcard, offset);
      break;
    }
    offset += segment.length + 1;
  }
  return {
    pattern,
    capabilities,
    matcher: new RegExp(`^${source}${glob ? ".*" : ""}$`),
    firstWildcard,
    glob,
    plusSegments: segments.filter((segment) => segment === "+").length,
  };
}

/** Whether rule a takes priority over rule b (both match the path). */
function morePrecise(a: CompiledRule, b: CompiledRule): boolean {
  if (a.firstWildcard !== b.firstWildcard) return a.firstWildcard > b.firstWildcard;
  if (a.glob !== b.glob) return !a.glob;
  if (a.plusSegments !== b.plusSegments) return a.plusSegments < b.plusSegments;
  if (a.pattern.length !== b.pattern.length) return a.pattern.length > b.pattern.length;
  return a.pattern > b.pattern;
}

/** Checks a policy as read from a file; returns the problems found (empty when none). */
export function policyProblems(name: string, raw: unknown): string[] {
  if (name === ROOT_POLICY) return [`policy "${ROOT_POLICY}" is built in and cannot be declared`];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [`policy "${name}" must be a map with a "path" map`];
  const problems: string[] = [];
  const extra = Object.keys(raw).filter((key) => key !== "path");
  if (extra.length > 0) problems.push(`policy "${name}": unknown keys ${extra.map((k) => `"${k}"`).join(", ")}`);
  const paths = (raw as { path?: unknown }).path;
  if (typeof paths !== "object" || paths === null || Array.isArray(paths)) {
    problems.push(`policy "${name}" must have a "path" map of path patterns to capabilities`);
    return problems;
  }
  for (const [pattern, rule] of Object.entries(paths)) {
    const capabilities = (rule as { capabilities?: unknown } | null)?.capabilities;
    if (pattern.startsWith("/")) problems.push(`policy "${name}": path "${pattern}" must be relative to /v1 (no leading slash)`);
    if (pattern.slice(0, -1).includes("*")) problems.push(`policy "${name}": path "${pattern}" may only end in "*"`);
    if (!Array.isArray(capabilities)) {
      problems.push(`policy "${name}": path "${pattern}" needs a "capabilities" list`);
      continue;
    }
    for (const capability of capabilities) {
      if (!(CAPABILITIES as readonly unknown[]).includes(capability)) {
        problems.push(`policy "${name}": path "${pattern}": unknown capability ${JSON.stringify(capability)} (known: ${CAPABILITIES.join(", ")})`);
      }
    }
  }
  return problems;
}
