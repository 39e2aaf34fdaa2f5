// The world file (SECRETS_WORLD): tokens and the policies they hold, so that a server can be started
// with narrower tokens than the root token. JSON or YAML:
//
//   policies:
//     rekey-operator:
//       path:
//         "sys/rekey/*": { capabilities: [read, update, delete, sudo] }
//     rekey-reader:
//       path:
//         "sys/rekey/init": { capabilities: [read] }
//   tokens:
//     - id: operator-token          # what clients send in X-Secrets-Token
//       policies: [rekey-operator]
//       display_name: operator      # optional
//
// A problem in the file stops the server from starting, with the entry named. The identity keys
// (`namespaces`, `mfa_methods`, `mfa_login_enforcements`) are read by identity/world.ts.
import { policyProblems, type Capability, type Policy } from "./sys/policy.ts";
import type { IdentitySettings } from "./push-mfa/methods.ts";
import { IDENTITY_WORLD_KEYS, parseIdentityWorld } from "./push-mfa/world.ts";
import { parseCloudWorld, type CloudWorld } from "./engines/cloud-credentials/cloud-world.ts";

export interface WorldToken {
  id: string;
  policies: string[];
  display_name?: string;
}

export interface World {
  policies: Policy[];
  tokens: WorldToken[];
  /** Namespaces, push-MFA methods and MFA login enforcements; none when absent. */
  identity?: IdentitySettings;
  /** The simulated cloud provider's account (engines/cloud-credentials/cloud-world.ts); the default one when absent. */
  cloud?: CloudWorld;
}

export const EMPTY_WORLD: World = { policies: [], tokens: [] };

const WORLD_KEYS: string[] = ["policies", "tokens", "cloud", ...IDENTITY_WORLD_KEYS];
const TOKEN_KEYS = ["id", "policies", "display_name"];

export function parseWorld(raw: unknown, source = "world"): World {
  if (raw === null || raw === undefined) return EMPTY_WORLD;
  const fail = (message: string): never => {
    throw new Error(`${source}: ${message}`);
  };
  if (typeof raw !== "object" || Array.isArray(raw)) fail('expected a map with "policies" and "tokens"');
  const data = raw as Record<string, unknown>;
  const unknown = Object.keys(data).filter((key) => !WORLD_KEYS.includes(key));
  if (unknown.length > 0) fail(`unknown keys ${unknown.map((k) => `"${k}"`).join(", ")} (known: ${WORLD_KEYS.join(", ")})`);

  const rawPolicies = data.policies ?? {};
  if (typeof rawPolicies !== "object" || rawPolicies === null || Array.isArray(rawPolicies)) fail('"policies" must be a map of policy names to policies');
  const policies: Policy[] = [];
  for (const [name, policy] of Object.entries(rawPolicies as Record<string, unknown>)) {
    const problems = policyProblems(name, policy);
    if (problems.length > 0) fail(problems.join("; "));
    const paths = (policy as { path: Record<string, { capabilities: Capability[] }> }).path;
    policies.push({
      name,
      path: Object.fromEntries(Object.entries(paths).map(([pattern, rule]) => [pattern, { capabilities: [...rule.capabilities] }])),
    });
  }

  const rawTokens = data.tokens ?? [];
  if (!Array.isArray(rawTokens)) fail('"tokens" must be a list');
  const names = new Set(policies.map((policy) => policy.name));
  const seen = new Set<string>();
  const tokens = (rawTokens as unknown[]).map((entry, i): WorldToken => {
    const token = entry as Partial<WorldToken> | null;
    if (typeof token !== "object" || token === null) return fail(`token [${i}] must be a map`);
    const extra = Object.keys(token).filter((key) => !TOKEN_KEYS.includes(key));
    if (extra.length > 0) fail(`token [${i}]: unknown keys ${extra.map((k) => `"${k}"`).join(", ")} (known: ${TOKEN_KEYS.join(", ")})`);
    if (typeof token.id !== "string" || token.id === "") fail(`token [${i}] needs an "id" (the token clients send)`);
    if (seen.has(token.id!)) fail(`token [${i}]: id "${token.id}" is declared twice`);
    seen.add(token.id!);
    const tokenPolicies = token.policies ?? [];
    if (!Array.isArray(tokenPolicies) || tokenPolicies.some((p) => typeof p !== "string")) fail(`token [${i}]: "policies" must be a list of policy names`);
    for (const name of tokenPolicies) {
      if (name === "root") fail(`token [${i}]: the "root" policy is only for the root token (SECRETS_ROOT_TOKEN)`);
      if (!names.has(name)) fail(`token [${i}]: unknown policy "${name}"`);
    }
    return { id: token.id!, policies: [...tokenPolicies], ...(token.display_name ? { display_name: String(token.display_name) } : {}) };
  });
  const cloud = data.cloud === undefined ? undefined : parseCloudWorld(data.cloud, `${source}: cloud`);
  return { policies, tokens, identity: parseIdentityWorld(data, fail), ...(cloud ? { cloud } : {}) };
}
