// Tokens and what they may do. The root token holds the `root` policy (every capability, `sudo`
// included); the world file adds tokens with narrower policies. A request without a token, with an
// unknown one, or lacking a capability the operation needs is refused with 403 `permission denied`.
import { Acl, ROOT_POLICY, type Capability, type Policy } from "./policy.ts";
import { PermissionDeniedError } from "../errors.ts";
import type { World } from "../world.ts";

export interface TokenEntry {
  id: string;
  accessor: string;
  policies: string[];
  displayName: string;
  acl: Acl;
}

export class AccessControl {
  readonly #tokens = new Map<string, TokenEntry>();
  readonly #policies = new Map<string, Policy>();

  constructor(rootToken: string, world: World, newAccessor: () => string) {
    for (const policy of world.policies) this.#policies.set(policy.name, policy);
    this.#add(rootToken, [ROOT_POLICY], "root", newAccessor());
    for (const token of world.tokens) {
      if (token.id === rootToken) throw new Error(`world token "${token.id}" is the root token`);
      this.#add(token.id, token.policies, token.display_name ?? "token", newAccessor());
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

  #add(id: string, policies: string[], displayName: string, accessor: string): void {
    const resolved = policies.map((name) => (name === ROOT_POLICY ? { name, path: {} } : this.#policies.get(name)!));
    this.#tokens.set(id, { id, accessor, policies, displayName, acl: new Acl(resolved) });
  }
}
