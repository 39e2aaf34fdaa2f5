// The mesh's ACL system: the management and anonymous tokens, tokens from MESH_ACL_FILE, and the
// real ACL API of policies, roles and tokens (list, create, read, update, clone, delete) and of
// legacy tokens, with the real endpoints' statuses and texts (agent/acl_endpoint.go,
// agent/consul/acl_endpoint.go, and their _legacy files).
import { randomUUID } from "node:crypto";
import type { components, operations } from "../../generated/mesh/schema.ts";
import {
  describePermission,
  isAllowed,
  mergeRules,
  type Access,
  type AclResource,
  type AclRules,
  type Authorizer,
} from "./domain/acl.ts";
import { AclRulesError, parseAclRules } from "./domain/acl-rules.ts";
import { DurationError, formatDuration, parseDuration } from "../shared/go-duration.ts";
import { DEFAULT_NAMESPACE } from "./domain/entries.ts";
import { checkNamespaceName, checkPartitionName } from "./domain/names.ts";
import { DurationInputError, durationText } from "./domain/durations.ts";
import { MeshHttpError } from "./errors.ts";
import {
  MemoryAclStore,
  type AclLink,
  type AclPolicy,
  type AclRole,
  type AclTokenRecord,
  type NodeIdentity,
  type ServiceIdentity,
} from "./store/acl-store.ts";

/** A token declared in MESH_ACL_FILE (or given to createMeshApp). */
export interface DeclaredToken {
  SecretID: string;
  AccessorID?: string;
  Description?: string;
  Namespace?: string;
  /** Rules of the token itself, HCL or JSON text, or the JSON structure. */
  Rules?: string | Record<string, unknown>;
  /** Names of policies (created via the API or built in). */
  Policies?: string[];
}

export interface AclSettings {
  /** The server's datacenter: where service and node identities with datacenters apply. */
  datacenter: string;
  /** When set, ACLs are enforced and this secret is a management token. */
  managementToken?: string;
  tokens: DeclaredToken[];
  /** The legacy token API (/acl/create, /acl/info, /acl/destroy) exists: servers before 1.11. */
  legacyApi: boolean;
  /** Policies, roles and tokens API exists: servers from 1.4 on. */
  tokenApi: boolean;
  /**
   * Refusals name the token's accessor and the permission it lacks (servers from 1.11 on,
   * acl.PermissionDeniedByACL); before, every refusal is the bare `Permission denied`.
   */
  detailedDenials?: boolean;
}

type Schemas = components["schemas"];

/** A legacy token as written (servers before 1.4 knew no other kind): its secret is its ID. */
export type LegacyTokenInput = Schemas["LegacyAclTokenInput"];
/** A legacy token as the API returns it. */
export type LegacyToken = Schemas["LegacyAclToken"];
export type PolicyInput = Schemas["AclPolicyInput"];
export type RoleInput = Schemas["AclRoleInput"];
/** A token as written; `ExpirationTTL` is a duration string or a number of nanoseconds. */
export type TokenInput = Schemas["AclTokenInput"];
/** A token as the API returns it. */
export type AclTokenView = Schemas["AclToken"];
/** A policy as lists show it: without its rules. */
export type AclPolicyStub = Schemas["AclPolicyStub"];
/** What the legacy writes answer: the token's secret, which is its ID there. */
export type LegacyTokenId = operations["createLegacyAclToken"]["responses"][200]["content"]["application/json"];

/** The built-in policy that grants everything, as in the real system. */
const GLOBAL_MANAGEMENT: Omit<AclPolicy, "CreateIndex" | "ModifyIndex"> = {
  ID: "00000000-0000-0000-0000-000000000001",
  Name: "global-management",
  Description: "Builtin Policy that grants unlimited access",
  Rules: 'acl = "write"\noperator = "write"\nservice_prefix "" { policy = "write" }',
};
/** The anonymous token: what a request without a token acts as (agent/structs ACLTokenAnonymousID). */
const ANONYMOUS_ID = "00000000-0000-0000-0000-000000000002";
const ANONYMOUS_SECRET = "anonymous";
/** IDs the real system keeps for its built-in objects (agent/structs ACLReservedPrefix). */
const RESERVED_PREFIX = "00000000-0000-0000-0000-0000000000";
/** What go-uuid's ParseUUID accepts. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const POLICY_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const ROLE_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const IDENTITY_NAME = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const MIN_TTL_NS = 60e9;
const MAX_TTL_NS = 24 * 3600e9;
/** What a token's secret reads as to a caller without acl:write. */
const REDACTED = "<hidden>";
/** Secrets the real system refuses to store, as they name its root authorizers. */
const ROOT_SECRETS = new Set(["allow", "deny", "manage"]);

/**
 * Errors of the ACL RPC layer (agent/consul/acl_endpoint.go returns them with fmt.Errorf): the
 * agent's HTTP layer answers every such error with 500 and its text (agent/http.go handleErr).
 */
function refused(message: string): never {
  throw new MeshHttpError(500, message);
}
/** The agent's BadRequestError: 400 with the reason. */
function badRequest(message: string): never {
  throw new MeshHttpError(400, message);
}
/** acl.ErrNotFound, which handleErr answers with 403. */
function aclNotFound(): never {
  throw new MeshHttpError(403, "ACL not found");
}

export class MeshAcl {
  private readonly parsedRules = new Map<string, AclRules>();

  constructor(
    private readonly settings: AclSettings,
    private readonly store = new MemoryAclStore(),
    private readonly now: () => Date = () => new Date(),
  ) {
    // On a data directory these rows may exist already: they are written again only when they changed.
    if (!sameFields(this.store.policies.get(GLOBAL_MANAGEMENT.ID), GLOBAL_MANAGEMENT)) {
      this.store.policies.put(GLOBAL_MANAGEMENT.ID, GLOBAL_MANAGEMENT);
    }
    if (settings.managementToken) {
      // The anonymous token, as the leader creates it; one an operator changed is kept as it is.
      if (this.store.tokens.get(ANONYMOUS_ID)?.SecretID !== ANONYMOUS_SECRET) {
        this.putToken({ AccessorID: ANONYMOUS_ID, SecretID: ANONYMOUS_SECRET, Description: "Anonymous Token", Legacy: true });
      }
      const existing = this.store.tokens.getBy(settings.managementToken);
      this.putToken({
        AccessorID: existing?.AccessorID ?? randomUUID(),
        SecretID: settings.managementToken,
        Description: "Initial Management Token",
        Policies: [{ ID: GLOBAL_MANAGEMENT.ID, Name: GLOBAL_MANAGEMENT.Name }],
        Management: true,
        Legacy: true,
      });
    }
    for (const declared of settings.tokens) {
      const rules = typeof declared.Rules === "object" ? JSON.stringify(declared.Rules) : declared.Rules;
      if (rules !== undefined) this.rulesOf(rules); // refuse bad rules at start
      if (declared.Namespace !== undefined) checkTokenNamespace(declared.Namespace);
      // A restart on a data directory finds the token declared last time: same accessor, no duplicate.
      const existing = this.store.tokens.getBy(declared.SecretID);
      this.putToken({
        AccessorID: declared.AccessorID ?? existing?.AccessorID ?? randomUUID(),
        SecretID: declared.SecretID,
        Description: declared.Description ?? "",
        Namespace: declared.Namespace,
        Rules: rules,
        Policies: (declared.Policies ?? []).map((Name) => this.link("policy", { Name })),
      });
    }
  }

  /** Moves with every write of a policy, role or token. */
  currentIndex(): number {
    return this.store.currentIndex();
  }

  get enabled(): boolean {
    return Boolean(this.settings.managementToken);
  }

  /** What a request may do; undefined when ACLs are off. No secret is the anonymous token. */
  resolve(secret: string | undefined): Authorizer | undefined {
    if (!this.enabled) return undefined;
    const token = this.store.tokens.getBy(secret || ANONYMOUS_SECRET);
    if (!token || this.expired(token)) aclNotFound();
    const roles = token.Roles.map((link) => this.store.roles.get(link.ID)).filter((role): role is AclRole => role !== undefined);
    const policies = [...token.Policies, ...roles.flatMap((role) => role.Policies)]
      .map((link) => this.store.policies.get(link.ID))
      .filter((policy): policy is AclPolicy => policy !== undefined);
    return {
      management: Boolean(token.Management) || policies.some((p) => p.ID === GLOBAL_MANAGEMENT.ID),
      namespace: token.Namespace,
      accessorId: token.AccessorID,
      rules: mergeRules([
        ...(token.Rules ? [this.rulesOf(token.Rules)] : []),
        ...policies.map((p) => this.rulesOf(p.Rules)),
        ...[token, ...roles].flatMap((holder) => this.identityRules(holder)),
      ]),
    };
  }

  authorize(authorizer: Authorizer | undefined, namespace: string, resource: AclResource, access: Access): void {
    if (authorizer && !isAllowed(authorizer, namespace, resource, access)) {
      const detail = this.settings.detailedDenials ? `: ${describePermission(authorizer.accessorId, resource, access)}` : "";
      throw new MeshHttpError(403, `Permission denied${detail}`);
    }
  }

  allows(authorizer: Authorizer | undefined, namespace: string, resource: AclResource, access: Access): boolean {
    return !authorizer || isAllowed(authorizer, namespace, resource, access);
  }

  // --- policies ---

  listPolicies(authorizer: Authorizer | undefined): AclPolicyStub[] {
    this.requireTokenApi(authorizer, "read");
    return byId(this.store.policies.all()).map(({ Rules: _rules, ...stub }) => stub);
  }

  readPolicy(authorizer: Authorizer | undefined, id: string): AclPolicy {
    this.requireTokenApi(authorizer, "read");
    return this.store.policies.get(id) ?? aclNotFound();
  }

  readPolicyByName(authorizer: Authorizer | undefined, name: string): AclPolicy {
    this.requireTokenApi(authorizer, "read");
    return this.store.policies.all().find((policy) => policy.Name === name) ?? aclNotFound();
  }

  createPolicy(authorizer: Authorizer | undefined, input: PolicyInput): AclPolicy {
    this.requireTokenApiEnabled();
    if (input.ID) badRequest("Cannot specify the ID when creating a new policy");
    return this.setPolicy(authorizer, undefined, input);
  }

  updatePolicy(authorizer: Authorizer | undefined, id: string, input: PolicyInput): AclPolicy {
    this.requireTokenApiEnabled();
    if (input.ID && input.ID !== id) badRequest("Policy ID in URL and payload do not match");
    return this.setPolicy(authorizer, id, input);
  }

  deletePolicy(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    // Deleting what does not exist succeeds (agent/consul/acl_endpoint.go PolicyDelete).
    if (!this.store.policies.get(id)) return;
    if (id === GLOBAL_MANAGEMENT.ID) refused("Delete operation not permitted on the builtin global-management policy");
    this.store.policies.delete(id);
  }

  // --- roles ---

  listRoles(authorizer: Authorizer | undefined, policyId: string | undefined): AclRole[] {
    this.requireTokenApi(authorizer, "read");
    const roles = this.store.roles.all().filter((role) => !policyId || role.Policies.some((link) => link.ID === policyId));
    return byId(roles).map((role) => this.roleView(role));
  }

  /** A missing role is `404` with an empty body (agent/acl_endpoint.go ACLRoleRead). */
  readRole(authorizer: Authorizer | undefined, id: string): AclRole {
    this.requireTokenApi(authorizer, "read");
    const role = this.store.roles.get(id) ?? roleNotFound();
    return this.roleView(role);
  }

  readRoleByName(authorizer: Authorizer | undefined, name: string): AclRole {
    this.requireTokenApi(authorizer, "read");
    const role = this.store.roles.all().find((row) => row.Name === name) ?? roleNotFound();
    return this.roleView(role);
  }

  createRole(authorizer: Authorizer | undefined, input: RoleInput): AclRole {
    this.requireTokenApiEnabled();
    if (input.ID) badRequest("Role ID in URL and payload do not match");
    return this.setRole(authorizer, undefined, input);
  }

  updateRole(authorizer: Authorizer | undefined, id: string, input: RoleInput): AclRole {
    this.requireTokenApiEnabled();
    if (input.ID && input.ID !== id) badRequest("Role ID in URL and payload do not match");
    return this.setRole(authorizer, id, input);
  }

  deleteRole(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    this.store.roles.delete(id); // a role that does not exist is deleted already
  }

  // --- tokens ---

  listTokens(authorizer: Authorizer | undefined, filter: { policy?: string; role?: string; authMethod?: string }): AclTokenView[] {
    this.requireTokenApi(authorizer, "read");
    const given = [filter.policy, filter.role, filter.authMethod].filter(Boolean).length;
    if (given > 1) refused("can only filter by one of policy, role, or authmethod at once");
    const redact = !this.allows(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, "write");
    const tokens = this.store.tokens.all().filter((token) => {
      if (this.expired(token)) return false;
      if (filter.policy) return token.Policies.some((link) => link.ID === filter.policy);
      if (filter.role) return token.Roles.some((link) => link.ID === filter.role);
      return !filter.authMethod; // no token here comes from an auth method
    });
    return byAccessor(tokens).map((token) => this.tokenView(token, redact));
  }

  readToken(authorizer: Authorizer | undefined, accessorId: string): AclTokenView {
    this.requireTokenApi(authorizer, "read");
    const token = this.store.tokens.get(accessorId);
    if (!token || this.expired(token)) aclNotFound();
    return this.tokenView(token, !this.allows(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, "write"));
  }

  /** The token of the request itself, by its secret: no permission needed (agent/acl_endpoint.go ACLTokenSelf). */
  readTokenSelf(secret: string | undefined): AclTokenView {
    this.requireTokenApiEnabled();
    const token = secret ? this.store.tokens.getBy(secret) : undefined;
    if (!token || this.expired(token)) aclNotFound();
    return this.tokenView(token, false);
  }

  createToken(authorizer: Authorizer | undefined, input: TokenInput, namespace: string): AclTokenView {
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
    if (ttl !== undefined) {
      if (ttl < 0) refused(`Token Expiration TTL '${formatDuration(ttl)}' should be > 0`);
      if (ttl > 0) expiration = this.checkedExpiration(created, new Date(created.getTime() + ttl / 1e6), ttl);
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

  updateToken(authorizer: Authorizer | undefined, accessorId: string, input: TokenInput): AclTokenView {
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
    const fields = this.tokenFields(input, "token");
    // Updating through this API makes a legacy token a token of policies: its own rules go.
    const { Rules: _rules, Management: _management, Legacy: _legacy, ...kept } = existing;
    return this.tokenView(this.putToken({ ...kept, ...fields, Description: input.Description ?? "" }), false);
  }

  cloneToken(authorizer: Authorizer | undefined, accessorId: string, input: Pick<TokenInput, "Description">): AclTokenView {
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

  deleteToken(authorizer: Authorizer | undefined, accessorId: string): void {
    this.requireTokenApi(authorizer, "write");
    if (!UUID.test(accessorId)) refused("Accessor ID is missing or an invalid UUID");
    if (accessorId === ANONYMOUS_ID) refused("Delete operation not permitted on the anonymous token");
    const token = this.store.tokens.get(accessorId);
    if (!token) return; // nothing to do, and that is a success
    if (authorizer?.accessorId === token.AccessorID) refused("Deletion of the request's authorization token is not permitted");
    this.store.tokens.delete(accessorId);
  }

  // --- the legacy token API (agent/acl_endpoint_legacy.go, agent/consul/acl_endpoint_legacy.go) ---

  /** Create or, for an ID that exists, update a legacy token (the RPC is one upsert). */
  createLegacyToken(authorizer: Authorizer | undefined, input: LegacyTokenInput): LegacyTokenId {
    this.requireLegacy(authorizer);
    return this.applyLegacy(input.ID || randomUUID(), input);
  }

  updateLegacyToken(authorizer: Authorizer | undefined, input: LegacyTokenInput): LegacyTokenId {
    this.requireLegacyEnabled();
    if (!input.ID) badRequest("ACL ID must be set");
    this.requireLegacy(authorizer);
    return this.applyLegacy(input.ID, input);
  }

  /** A new legacy token with the name, type and rules of another; an unknown one is `403 Permission denied`. */
  cloneLegacyToken(authorizer: Authorizer | undefined, secret: string): LegacyTokenId {
    this.requireLegacyEnabled();
    const [source] = this.legacyTokenInfo(authorizer, secret);
    if (!source) throw new MeshHttpError(403, "Permission denied");
    this.requireLegacy(authorizer);
    return this.applyLegacy(randomUUID(), { Name: source.Name, Type: source.Type, Rules: source.Rules });
  }

  /** Every token the legacy API can show, sorted by accessor; needs acl:write. */
  listLegacyTokens(authorizer: Authorizer | undefined): LegacyToken[] {
    this.requireLegacy(authorizer);
    return byAccessor(this.store.tokens.all().filter((token) => token.Legacy || token.Rules !== undefined)).map(legacyView);
  }

  /** The legacy read: an array with the token, or an empty array. Knowing the secret is the permission. */
  legacyTokenInfo(_authorizer: Authorizer | undefined, secret: string): LegacyToken[] {
    this.requireLegacyEnabled();
    const token = this.store.tokens.getBy(secret);
    if (!token || !(token.Legacy || token.Rules !== undefined)) return [];
    return [legacyView(token)];
  }

  /** The legacy delete: succeeds whether or not the token exists. */
  destroyLegacyToken(authorizer: Authorizer | undefined, secret: string): void {
    this.requireLegacy(authorizer);
    if (secret === ANONYMOUS_SECRET) throw new MeshHttpError(403, "Permission denied: Cannot delete anonymous token");
    const token = this.store.tokens.getBy(secret);
    if (token) this.store.tokens.delete(token.AccessorID);
  }

  private applyLegacy(secret: string, input: LegacyTokenInput): LegacyTokenId {
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

  private setPolicy(authorizer: Authorizer | undefined, id: string | undefined, input: PolicyInput): AclPolicy {
    this.requireAcl(authorizer, "write");
    if (!input.Name) refused("Invalid Policy: no Name is set");
    if (!POLICY_NAME.test(input.Name)) refused("Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    const named = this.store.policies.all().find((row) => row.Name === input.Name);
    let existing: AclPolicy | undefined;
    if (id === undefined) {
      if (named) refused(`Invalid Policy: A Policy with Name ${JSON.stringify(input.Name)} already exists`);
    } else {
      if (!UUID.test(id)) refused("Policy ID invalid UUID");
      existing = this.store.policies.get(id) ?? refused(`cannot find policy ${id}`);
      if (existing.Name !== input.Name && named) refused(`Invalid Policy: A policy with name ${JSON.stringify(input.Name)} already exists`);
      if (id === GLOBAL_MANAGEMENT.ID) {
        if (input.Datacenters !== undefined) refused("Changing the Datacenters of the builtin global-management policy is not permitted");
        if ((input.Rules ?? "") !== existing.Rules) refused("Changing the Rules for the builtin global-management policy is not permitted");
      }
    }
    try {
      parseAclRules(input.Rules ?? "");
    } catch (error) {
      if (error instanceof AclRulesError) refused(error.message);
      throw error;
    }
    const policyId = id ?? randomUUID();
    return this.store.policies.put(policyId, {
      ID: policyId,
      Name: input.Name,
      Description: input.Description ?? "",
      Rules: input.Rules ?? "",
      ...(input.Datacenters?.length ? { Datacenters: input.Datacenters } : {}),
    });
  }

  private setRole(authorizer: Authorizer | undefined, id: string | undefined, input: RoleInput): AclRole {
    this.requireAcl(authorizer, "write");
    if (!input.Name) refused("Invalid Role: no Name is set");
    if (!ROLE_NAME.test(input.Name)) refused("Invalid Role: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    const named = this.store.roles.all().find((row) => row.Name === input.Name);
    let existing: AclRole | undefined;
    if (id === undefined) {
      if (named) refused(`Invalid Role: A Role with Name ${JSON.stringify(input.Name)} already exists`);
    } else {
      if (!UUID.test(id)) refused("Role ID invalid UUID");
      existing = this.store.roles.get(id) ?? refused(`cannot find role ${id}`);
      if (existing.Name !== input.Name && named) refused(`Invalid Role: A role with name ${JSON.stringify(input.Name)} already exists`);
    }
    const fields = this.tokenFields({ Policies: input.Policies, ServiceIdentities: input.ServiceIdentities, NodeIdentities: input.NodeIdentities }, "role");
    const roleId = id ?? randomUUID();
    const { Roles: _roles, ...linked } = fields;
    return this.roleView(this.store.roles.put(roleId, { ID: roleId, Name: input.Name, Description: input.Description ?? "", ...linked }));
  }

  /** Links by ID or name made into links by ID (deduplicated), and identities checked and merged. */
  private tokenFields(
    input: Pick<TokenInput, "Policies" | "Roles" | "ServiceIdentities" | "NodeIdentities" | "Local">,
    holder: "token" | "role",
  ): Pick<AclTokenRecord, "Policies" | "Roles" | "ServiceIdentities" | "NodeIdentities"> {
    const policies = dedupeLinks((input.Policies ?? []).map((link) => this.link("policy", link)));
    const roles = dedupeLinks((input.Roles ?? []).map((link) => this.link("role", link)));
    for (const identity of input.ServiceIdentities ?? []) {
      if (!identity.ServiceName) refused(`Service identity is missing the service name field on this ${holder}`);
      if (holder === "token" && input.Local && identity.Datacenters?.length) {
        refused(`Service identity ${JSON.stringify(identity.ServiceName)} cannot specify a list of datacenters on a local token`);
      }
      if (!validIdentityName(identity.ServiceName)) {
        refused(`Service identity ${JSON.stringify(identity.ServiceName)} has an invalid name. Only alphanumeric characters, '-' and '_' are allowed`);
      }
    }
    for (const identity of input.NodeIdentities ?? []) {
      if (!identity.NodeName) refused(`Node identity is missing the node name field on this ${holder}`);
      if (!identity.Datacenter) refused(`Node identity is missing the datacenter field on this ${holder}`);
      if (!validIdentityName(identity.NodeName)) refused("Node identity has an invalid name. Only alphanumeric characters, '-' and '_' are allowed");
    }
    const services = dedupeServiceIdentities(input.ServiceIdentities ?? []);
    const nodes = dedupeNodeIdentities(input.NodeIdentities ?? []);
    return {
      Policies: policies,
      Roles: roles,
      ...(services.length ? { ServiceIdentities: services } : {}),
      ...(nodes.length ? { NodeIdentities: nodes } : {}),
    };
  }

  /** The rules a service or node identity stands for, where it applies (agent/structs/acl.go SyntheticPolicy). */
  private identityRules(holder: { ServiceIdentities?: ServiceIdentity[]; NodeIdentities?: NodeIdentity[] }): AclRules[] {
    const here = this.settings.datacenter;
    const services = (holder.ServiceIdentities ?? [])
      .filter((identity) => !identity.Datacenters?.length || identity.Datacenters.includes(here))
      .map((identity): AclRules => ({
        service: { [identity.ServiceName]: "write", [`${identity.ServiceName}-sidecar-proxy`]: "write" },
        service_prefix: { "": "read" },
      }));
    const nodes = (holder.NodeIdentities ?? [])
      .filter((identity) => identity.Datacenter === here)
      .map((): AclRules => ({ service_prefix: { "": "read" } }));
    return [...services, ...nodes];
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

  private requireLegacyEnabled(): void {
    if (!this.settings.legacyApi) {
      throw new MeshHttpError(404, "The legacy ACL token API was removed in 1.11: use /v1/acl/token");
    }
    if (!this.enabled) throw new MeshHttpError(401, "ACL support disabled");
  }

  /** The legacy endpoints need acl:write and answer the legacy `Permission denied`. */
  private requireLegacy(authorizer: Authorizer | undefined): void {
    this.requireLegacyEnabled();
    if (!this.allows(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, "write")) {
      throw new MeshHttpError(403, "Permission denied");
    }
  }

  /** The policies, roles and tokens API, which servers before 1.4 do not have; 401 while ACLs are off. */
  private requireTokenApiEnabled(): void {
    if (!this.settings.tokenApi) {
      throw new MeshHttpError(404, "The ACL policy, role and token API exists from 1.4: use /v1/acl/create");
    }
    if (!this.enabled) throw new MeshHttpError(401, "ACL support disabled");
  }

  private requireTokenApi(authorizer: Authorizer | undefined, access: Access): void {
    this.requireTokenApiEnabled();
    this.requireAcl(authorizer, access);
  }

  private requireAcl(authorizer: Authorizer | undefined, access: Access): void {
    this.authorize(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, access);
  }

  private putToken(fields: Partial<AclTokenRecord> & Pick<AclTokenRecord, "AccessorID" | "SecretID">): AclTokenRecord {
    const { CreateIndex: _c, ModifyIndex: _m, ...row } = fields;
    return this.store.tokens.put(fields.AccessorID, {
      Description: "",
      Policies: [],
      Roles: [],
      Local: false,
      CreateTime: this.now().toISOString(),
      ...row,
      Namespace: fields.Namespace || DEFAULT_NAMESPACE,
    });
  }

  private rulesOf(text: string): AclRules {
    let rules = this.parsedRules.get(text);
    if (!rules) {
      try {
        rules = parseAclRules(text);
      } catch (error) {
        if (error instanceof AclRulesError) throw new MeshHttpError(400, error.message);
        throw error;
      }
      this.parsedRules.set(text, rules);
    }
    return rules;
  }

  private link(kind: "policy" | "role", link: Partial<AclLink>): AclLink {
    const table = kind === "policy" ? this.store.policies : this.store.roles;
    const found = link.ID ? table.get(link.ID) : table.all().find((row) => row.Name === link.Name);
    if (!found) {
      const by = link.ID ? `ID ${JSON.stringify(link.ID)}` : `name ${JSON.stringify(link.Name ?? "")}`;
      refused(`No such ACL ${kind} with ${by}`);
    }
    return { ID: found.ID, Name: found.Name };
  }

  /** Links carry the current names of what they link; links to deleted objects are gone. */
  private currentLinks(links: AclLink[], table: "policies" | "roles"): AclLink[] {
    return links.flatMap((link) => {
      const row = this.store[table].get(link.ID);
      return row ? [{ ID: row.ID, Name: row.Name }] : [];
    });
  }

  private roleView(role: AclRole): AclRole {
    return { ...role, Policies: this.currentLinks(role.Policies, "policies") };
  }

  private tokenView(token: AclTokenRecord, redact: boolean): AclTokenView {
    const { Rules: _rules, Management: _management, Legacy: _legacy, ...view } = token;
    return {
      ...view,
      SecretID: redact ? REDACTED : token.SecretID,
      Policies: this.currentLinks(token.Policies, "policies"),
      Roles: this.currentLinks(token.Roles, "roles"),
    };
  }

  /** Expired strictly after its expiration time, as `ExpirationTime.Before(now)` says (agent/structs/acl.go IsExpired). */
  private expired(token: AclTokenRecord): boolean {
    return token.ExpirationTime !== undefined && Date.parse(token.ExpirationTime) < this.now().getTime();
  }
}

function roleNotFound(): never {
  throw new MeshHttpError(404, "");
}

function validIdentityName(name: string): boolean {
  return name.length <= 256 && IDENTITY_NAME.test(name);
}

function dedupeLinks(links: AclLink[]): AclLink[] {
  const seen = new Set<string>();
  return links.filter((link) => !seen.has(link.ID) && seen.add(link.ID));
}

/** One identity per service; datacenters merged, and one that applies everywhere wins (dedupeServiceIdentities). */
function dedupeServiceIdentities(identities: ServiceIdentity[]): ServiceIdentity[] {
  const byName = new Map<string, ServiceIdentity>();
  for (const identity of identities) {
    const known = byName.get(identity.ServiceName);
    if (!known) {
      byName.set(identity.ServiceName, { ServiceName: identity.ServiceName, ...(identity.Datacenters?.length ? { Datacenters: [...identity.Datacenters] } : {}) });
    } else if (!known.Datacenters || !identity.Datacenters?.length) {
      delete known.Datacenters;
    } else {
      known.Datacenters = [...new Set([...known.Datacenters, ...identity.Datacenters])];
    }
  }
  return [...byName.values()].sort((a, b) => (a.ServiceName < b.ServiceName ? -1 : a.ServiceName > b.ServiceName ? 1 : 0));
}

function dedupeNodeIdentities(identities: NodeIdentity[]): NodeIdentity[] {
  const seen = new Set<string>();
  return identities
    .filter((identity) => {
      const key = `${identity.NodeName}\u0000${identity.Datacenter}`;
      return !seen.has(key) && seen.add(key);
    })
    .map(({ NodeName, Datacenter }) => ({ NodeName, Datacenter }));
}

function byId<T extends { ID: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.ID < b.ID ? -1 : a.ID > b.ID ? 1 : 0));
}

function byAccessor<T extends { AccessorID: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.AccessorID < b.AccessorID ? -1 : a.AccessorID > b.AccessorID ? 1 : 0));
}

function legacyView(token: AclTokenRecord): LegacyToken {
  const { SecretID, Description, Rules, Management, CreateIndex, ModifyIndex } = token;
  return { ID: SecretID, Name: Description, Type: Management ? "management" : "client", Rules: Rules ?? "", CreateIndex, ModifyIndex };
}

function checkTokenNamespace(namespace: string): void {
  const problem = checkNamespaceName(namespace);
  if (problem) throw new MeshHttpError(400, `Invalid Token: ${problem}`);
}

function sameFields(stored: object | undefined, fields: object): boolean {
  if (!stored) return false;
  return Object.entries(fields).every(([key, value]) => JSON.stringify((stored as Record<string, unknown>)[key]) === JSON.stringify(value));
}

