// The legacy token API of servers before 1.11 (agent/acl_endpoint_legacy.go,
// agent/consul/acl_endpoint_legacy.go): a token's secret is its ID; create, update, clone, list,
// read and destroy; every call needs acl:write but the read, where knowing the secret is the permission.
import { randomUUID } from "node:crypto";
import type { components, operations } from "../../../generated/mesh/schema.ts";
import { AclRulesError, parseAclRules } from "../domain/acl-rules.ts";
import type { Authorizer } from "../domain/acl.ts";
import { MeshHttpError } from "../errors.ts";
import type { AclTokenRecord } from "../store/acl-store.ts";
import { AclBase, ANONYMOUS_SECRET, badRequest, byAccessor, refused, ROOT_SECRETS } from "./base.ts";

/** A legacy token as written (servers before 1.4 knew no other kind): its secret is its ID. */
export type LegacyTokenInput = components["schemas"]["LegacyAclTokenInput"];
/** A legacy token as the API returns it. */
export type LegacyToken = components["schemas"]["LegacyAclToken"];
/** What the legacy writes answer: the token's secret, which is its ID there. */
export type LegacyTokenId = operations["createLegacyAclToken"]["responses"][200]["content"]["application/json"];

export class LegacyAclTokens extends AclBase {
  /** Create or, for an ID that exists, update a legacy token (the RPC is one upsert). */
  create(authorizer: Authorizer | undefined, input: LegacyTokenInput): LegacyTokenId {
    this.requireLegacy(authorizer);
    return this.apply(input.ID || randomUUID(), input);
  }

  update(authorizer: Authorizer | undefined, input: LegacyTokenInput): LegacyTokenId {
    this.requireLegacyEnabled();
    if (!input.ID) badRequest("ACL ID must be set");
    this.requireLegacy(authorizer);
    return this.apply(input.ID, input);
  }

  /** A new legacy token with the name, type and rules of another; an unknown one is `403 Permission denied`. */
  clone(authorizer: Authorizer | undefined, secret: string): LegacyTokenId {
    this.requireLegacyEnabled();
    const [source] = this.info(authorizer, secret);
    if (!source) throw new MeshHttpError(403, "Permission denied");
    this.requireLegacy(authorizer);
    return this.apply(randomUUID(), { Name: source.Name, Type: source.Type, Rules: source.Rules });
  }

  /** Every token the legacy API can show, sorted by accessor; needs acl:write. */
  list(authorizer: Authorizer | undefined): LegacyToken[] {
    this.requireLegacy(authorizer);
    return byAccessor(this.store.tokens.all().filter((token) => token.Legacy || token.Rules !== undefined)).map(legacyView);
  }

  /** The legacy read: an array with the token, or an empty array. Knowing the secret is the permission. */
  info(_authorizer: Authorizer | undefined, secret: string): LegacyToken[] {
    this.requireLegacyEnabled();
    const token = this.store.tokens.getBy(secret);
    if (!token || !(token.Legacy || token.Rules !== undefined)) return [];
    return [legacyView(token)];
  }

  /** The legacy delete: succeeds whether or not the token exists. */
  destroy(authorizer: Authorizer | undefined, secret: string): void {
    this.requireLegacy(authorizer);
    if (secret === ANONYMOUS_SECRET) throw new MeshHttpError(403, "Permission denied: Cannot delete anonymous token");
    const token = this.store.tokens.getBy(secret);
    if (token) this.store.tokens.delete(token.AccessorID);
  }

  private apply(secret: string, input: LegacyTokenInput): LegacyTokenId {
    const existing = this.store.tokens.getBy(secret);
    if (existing && existing.Policies.length > 0) refused("Cannot use legacy endpoint to modify a non-legacy token");
    if (ROOT_SECRETS.has(secret)) throw new MeshHttpError(403, "Permission denied: Cannot modify root ACL");
    try {
      if (input.Rules) parseAclRules(input.Rules);
    } catch (error) {
      if (error instanceof AclRulesError) refused(`ACL rule compilation failed: ${error.message}`);
      throw error;
    }
    this.putToken({
      ...(existing ?? {}),
      AccessorID: existing?.AccessorID ?? randomUUID(),
      SecretID: secret,
      Description: input.Name ?? "",
      Rules: input.Rules ?? "",
      Management: (input.Type ?? "client") === "management",
      Legacy: true,
    });
    return { ID: secret };
  }
}

function legacyView(token: AclTokenRecord): LegacyToken {
  const { SecretID, Description, Rules, Management, CreateIndex, ModifyIndex } = token;
  return { ID: SecretID, Name: Description, Type: Management ? "management" : "client", Rules: Rules ?? "", CreateIndex, ModifyIndex };
}
