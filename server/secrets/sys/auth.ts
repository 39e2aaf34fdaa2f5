// Tokens and what they may do. The root token holds the `root` policy (every capability, `sudo`
// included); the world file adds tokens with narrower policies. A request without a token, with an
// unknown one, or lacking a capability the operation needs is refused with 403 `permission denied`.
// Every other token may also read auth/token/lookup-self, as the real system's built-in `default`
// policy grants it (vault/policy_store.go defaultPolicy): the world's tokens do not hold `default`,
// so that one rule is added to each (a policy of the world can still deny it).
import { Acl, ROOT_POLICY, type Capability, type Policy } from "./policy.ts";
import { PermissionDeniedError } from "../errors.ts";
import type { World } from "../world.ts";

export interface TokenEntry {
  id: string;
  accessor: string;
  policies: string[];
  displayName: string;
  /** Where the token was made: `auth/token/root` for the root token, `auth/token/create` for the world's. */
  path: string;
  /** When the token table was made (the server's start), in seconds since the Unix epoch. */
  creationTime: number;
  acl: Acl;
}

/** The rule of the real `default` policy that lets a token look itself up (vault/policy_store.go defaultPolicy). */
const SELF_LOOKUP: Policy = { name: "(self lookup)", path: { "auth/token/lookup-self": { capabilities: ["read"] } } };

export class AccessControl {
  readonly #tokens = new Map<string, TokenEntry>();
  readonly #policies = new Map<string, Policy>();

  readonly #creationTime: number;

  constructor(rootToken: string, world: World, newAccessor: () => string, creationTime = Math.floor(Date.now() / 1000)) {
    this.#creationTime = creationTime;
    for (const policy of world.policies) this.#policies.set(policy.name, policy);
    // The root token as the real system makes it at initialization (vault/token_store.go rootToken).
    this.#add(rootToken, [ROOT_POLICY], "root", "auth/token/root", newAccessor());
    for (const token of world.tokens) {
      if (token.id === rootToken) throw new Error(`world token "${token.id}" is the root token`);
      // As a token the root token made with no parent and no TTL at auth/token/create (orphan).
      this.#add(token.id, token.policies, token.display_name ?? "token", "auth/token/create", newAccessor());
    }
  }

  lookup(token: string | undefined): TokenEntry | undefined {
    return token ? this.#tokens.get(token) : undefined;
  }

  /** The token's entry when it has every capability on the path (relative to /v1); else 403. */
  authorize(token: string | undefined, path: string, capabilities: readonly Capability[]): TokenEntry {
    const entry = this.lookup(token);
    if (!entry || !entry.acl.allows(path, capabilities)) throw new PermissionDeniedError();
    return entry;
  }

  /** The token's entry when the token exists; else 403. */
  authenticate(token: string | undefined): TokenEntry {
    const entry = this.lookup(token);
    if (!entry) throw new PermissionDeniedError();
    return entry;
  }

  #add(id: string, declared: string[], displayName: string, path: string, accessor: string): void {
    // Stored sorted and without repeats, as the real token store keeps them (policyutil.SanitizePolicies).
    const policies = [...new Set(declared)].sort();
    const resolved = policies.map((name) => (name === ROOT_POLICY ? { name, path: {} } : this.#policies.get(name)!));
    const acl = new Acl(policies.includes(ROOT_POLICY) ? resolved : [...resolved, SELF_LOOKUP]);
    this.#tokens.set(id, { id, accessor, policies, displayName, path, creationTime: this.#creationTime, acl });
  }
}
