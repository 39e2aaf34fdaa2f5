// ACL tokens: list (optionally by policy, role or auth method), read (by accessor, or the request's
// own), create, update, clone, delete (agent/acl_endpoint.go, agent/consul/acl_endpoint.go):
// expirations, accessor and secret IDs, partitions.
import { randomUUID } from "node:crypto";
import type { Authorizer } from "../domain/acl.ts";
import { checkPartitionName } from "../domain/names.ts";
import { DurationInputError, durationText } from "../domain/durations.ts";
import { DurationError, formatDuration, parseDuration } from "../../shared/go-duration.ts";
import { MeshHttpError } from "../errors.ts";
import type { AclTokenRecord } from "../store/acl-store.ts";
import {
  AclBase,
  aclNotFound,
  badRequest,
  byAccessor,
  checkTokenNamespace,
  refused,
  ANONYMOUS_ID,
  RESERVED_PREFIX,
  ROOT_SECRETS,
  UUID,
  type AclTokenView,
  type TokenInput,
} from "./base.ts";

export type { AclTokenView, TokenInput } from "./base.ts";

const MIN_TTL_NS = 60e9;
const MAX_TTL_NS = 24 * 3600e9;

export class AclTokens extends AclBase {
  list(authorizer: Authorizer | undefined, filter: { policy?: string; role?: string; authMethod?: string }): AclTokenView[] {
    this.requireTokenApi(authorizer, "read");
    const given = [filter.policy, filter.role, filter.authMethod].filter(Boolean).length;
    if (given > 1) refused("can only filter by one of policy, role, or authmethod at once");
    const tokens = this.store.tokens.all().filter((token) => {
      if (this.expired(token)) return false;
      if (filter.policy) return token.Policies.some((link) => link.ID === filter.policy);
      if (filter.role) return token.Roles.some((link) => link.ID === filter.role);
      return !filter.authMethod; // no token here comes from an auth method
    });
    return byAccessor(tokens).map((token) => this.tokenView(token, !this.showsSecret(authorizer, token)));
  }

  read(authorizer: Authorizer | undefined, accessorId: string): AclTokenView {
    this.requireTokenApi(authorizer, "read");
    const token = this.store.tokens.get(accessorId);
    if (!token || this.expired(token)) aclNotFound();
    return this.tokenView(token, !this.showsSecret(authorizer, token));
  }

  /**
   * A token's secret is shown to a caller that may write ACLs where the token lives (its namespace:
   * a caller's rules apply in its own namespace only, a management token's everywhere); every other
   * reader sees `<hidden>` (agent/consul/acl_endpoint.go redacts without acl:write).
   */
  private showsSecret(authorizer: Authorizer | undefined, token: AclTokenRecord): boolean {
    return this.allows(authorizer, token.Namespace, { type: "acl" }, "write");
  }

  /** The token of the request itself, by its secret: no permission needed (agent/acl_endpoint.go ACLTokenSelf). */
  readSelf(secret: string | undefined): AclTokenView {
    this.requireTokenApiEnabled();
    const token = secret ? this.store.tokens.getBy(secret) : undefined;
    if (!token || this.expired(token)) aclNotFound();
    return this.tokenView(token, false);
  }

  create(authorizer: Authorizer | undefined, input: TokenInput, namespace: string): AclTokenView {
    this.requireTokenApiEnabled();
    const ttl = this.ttlOf(input.ExpirationTTL);
    this.requireAcl(authorizer, "write");
    this.checkPartition(input.Partition);
    if (input.Namespace) checkTokenNamespace(input.Namespace);
    const accessor = input.AccessorID || randomUUID();
    if (input.AccessorID) this.checkNewId("AccessorID", input.AccessorID);
    const secret = input.SecretID || randomUUID();
    if (input.SecretID) this.checkNewId("SecretID", input.SecretID);
    // One moment for both: the expiration is the creation time plus the TTL, to the nanosecond.
    const created = this.now();
    let expiration: string | undefined;
    const given = expirationOf(input.ExpirationTime);
    if (ttl) {
      if (ttl < 0) refused(`Token Expiration TTL '${formatDuration(ttl)}' should be > 0`);
      if (given) refused("Token Expiration TTL and Expiration Time cannot both be set");
      expiration = this.checkedExpiration(created, new Date(created.getTime() + ttl / 1e6), ttl);
    } else if (given) {
      // An expiration time given as such is held to the same bounds (agent/consul/acl_endpoint.go tokenSetInternal).
      expiration = this.checkedExpiration(created, given);
    }
    const fields = this.tokenFields(input, "token");
    return this.tokenView(
      this.putToken({
        ...fields,
        AccessorID: accessor,
        SecretID: secret,
        Description: input.Description ?? "",
        Local: input.Local ?? false,
        Namespace: input.Namespace || namespace,
        CreateTime: created.toISOString(),
        ExpirationTime: expiration,
      }),
      false,
    );
  }

  update(authorizer: Authorizer | undefined, accessorId: string, input: TokenInput): AclTokenView {
    this.requireTokenApiEnabled();
    if (input.AccessorID && input.AccessorID !== accessorId) badRequest("Token Accessor ID in URL and payload do not match");
    const ttl = this.ttlOf(input.ExpirationTTL);
    this.requireAcl(authorizer, "write");
    this.checkPartition(input.Partition);
    if (!UUID.test(accessorId)) refused("AccessorID is not a valid UUID");
    if (input.SecretID && ROOT_SECRETS.has(input.SecretID)) throw new MeshHttpError(403, "Permission denied: Cannot modify root ACL");
    const existing = this.store.tokens.get(accessorId);
    if (!existing || this.expired(existing)) refused(`Cannot find token ${JSON.stringify(accessorId)}`);
    if (input.SecretID && input.SecretID !== existing.SecretID) refused("Changing a tokens SecretID is not permitted");
    if ((input.Local ?? false) !== existing.Local) refused(`cannot toggle local mode of ${accessorId}`);
    if (ttl) refused(`Cannot change expiration time of ${accessorId}`);
    // A client writing back what it read repeats the expiration time: only a different one is a change.
    const given = expirationOf(input.ExpirationTime);
    if (given && (existing.ExpirationTime === undefined || Date.parse(existing.ExpirationTime) !== given.getTime())) {
      refused(`Cannot change expiration time of ${accessorId}`);
    }
    const fields = this.tokenFields(input, "token");
    // Updating through this API makes a legacy token a token of policies: its own rules go.
    const { Rules: _rules, Management: _management, Legacy: _legacy, ...kept } = existing;
    return this.tokenView(this.putToken({ ...kept, ...fields, Description: input.Description ?? "" }), false);
  }

  clone(authorizer: Authorizer | undefined, accessorId: string, input: Pick<TokenInput, "Description">): AclTokenView {
    this.requireTokenApi(authorizer, "write");
    const source = this.store.tokens.get(accessorId);
    if (!source || this.expired(source)) aclNotFound();
    if (source.Rules) refused("Cannot clone a legacy ACL with this endpoint");
    const created = this.now();
    if (source.ExpirationTime !== undefined) this.checkedExpiration(created, new Date(source.ExpirationTime));
    const { Rules: _rules, Management: _management, Legacy: _legacy, CreateIndex: _c, ModifyIndex: _m, ...copied } = source;
    return this.tokenView(
      this.putToken({
        ...copied,
        AccessorID: randomUUID(),
        SecretID: randomUUID(),
        Description: input.Description || source.Description,
        CreateTime: created.toISOString(),
      }),
      false,
    );
  }

  delete(authorizer: Authorizer | undefined, accessorId: string): void {
    this.requireTokenApi(authorizer, "write");
    if (!UUID.test(accessorId)) refused("Accessor ID is missing or an invalid UUID");
    if (accessorId === ANONYMOUS_ID) refused("Delete operation not permitted on the anonymous token");
    const token = this.store.tokens.get(accessorId);
    if (!token) return; // nothing to do, and that is a success
    if (authorizer?.accessorId === token.AccessorID) refused("Deletion of the request's authorization token is not permitted");
    this.store.tokens.delete(accessorId);
  }

  private checkNewId(field: "AccessorID" | "SecretID", id: string): void {
    if (!UUID.test(id)) refused(`Invalid Token: ${field} is not a valid UUID`);
    if (this.store.tokens.get(id) || this.store.tokens.getBy(id)) refused(`Invalid Token: ${field} is already in use`);
    if (id.startsWith(RESERVED_PREFIX)) refused(`Invalid Token: UUIDs with the prefix ${JSON.stringify(RESERVED_PREFIX)} are reserved`);
  }

  private checkPartition(partition: string | undefined): void {
    if (!partition) return;
    const problem = checkPartitionName(partition);
    if (problem) badRequest(`Invalid Token: ${problem}`);
    if (partition !== "default") badRequest(`Invalid Token: partition ${JSON.stringify(partition)} does not exist`);
  }

  /** ExpirationTTL in nanoseconds, decoded as the token's JSON decoder does (a duration string or a number). */
  private ttlOf(raw: string | number | undefined): number | undefined {
    if (raw === undefined) return undefined;
    try {
      return parseDuration(durationText(raw));
    } catch (error) {
      if (error instanceof DurationError || error instanceof DurationInputError) badRequest(`Token decoding failed: ${error.message}`);
      throw error;
    }
  }

  /** An expiration within the server's bounds (1m to 24h from creation), as an ISO time. */
  private checkedExpiration(created: Date, expires: Date, exactNs?: number): string {
    const inNs = exactNs ?? (expires.getTime() - created.getTime()) * 1e6;
    if (inNs < 0) refused("ExpirationTime cannot be before CreateTime");
    if (inNs > MAX_TTL_NS) refused(`ExpirationTime cannot be more than 24h0m0s in the future (was ${formatDuration(inNs)})`);
    if (inNs < MIN_TTL_NS) refused(`ExpirationTime cannot be less than 1m0s in the future (was ${formatDuration(inNs)})`);
    return expires.toISOString();
  }
}

/**
 * A given expiration time, or undefined for none: absent, `null` or Go's zero time, which
 * HasExpirationTime counts as none (agent/structs/acl.go).
 */
function expirationOf(value: string | null | undefined): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = new Date(value);
  return date.getTime() === GO_ZERO_TIME ? undefined : date;
}

/** Go's zero time.Time, 0001-01-01T00:00:00Z, in milliseconds since the epoch. */
const GO_ZERO_TIME = Date.parse("0001-01-01T00:00:00Z");
