// What every kind of ACL object shares: the settings, the store, the checks that guard the API
// (enabled, which version has it, acl:read/write), and the links, identities and views that
// roles and tokens have in common. Each kind (policies.ts, roles.ts, tokens.ts, legacy.ts) extends it.
import type { components } from "../../../generated/mesh/schema.ts";
import { describePermission, isAllowed, type Access, type AclResource, type Authorizer } from "../domain/acl.ts";
import { DEFAULT_NAMESPACE } from "../domain/entries.ts";
import { checkNamespaceName } from "../domain/names.ts";
import { MeshHttpError } from "../errors.ts";
import {
  MemoryAclStore,
  type AclLink,
  type AclPolicy,
  type AclRole,
  type AclTokenRecord,
  type NodeIdentity,
  type ServiceIdentity,
} from "../store/acl-store.ts";

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

/** A token as written; `ExpirationTTL` is a duration string or a number of nanoseconds. */
export type TokenInput = components["schemas"]["AclTokenInput"];
/** A token as the API returns it. */
export type AclTokenView = components["schemas"]["AclToken"];

/** The built-in policy that grants everything, as in the real system. */
export const GLOBAL_MANAGEMENT: Omit<AclPolicy, "CreateIndex" | "ModifyIndex"> = {
  ID: "00000000-0000-0000-0000-000000000001",
  Name: "global-management",
  Description: "Builtin Policy that grants unlimited access",
  Rules: 'acl = "write"\noperator = "write"\nservice_prefix "" { policy = "write" }',
};
/** The anonymous token: what a request without a token acts as (agent/structs ACLTokenAnonymousID). */
export const ANONYMOUS_ID = "00000000-0000-0000-0000-000000000002";
export const ANONYMOUS_SECRET = "anonymous";
/** IDs the real system keeps for its built-in objects (agent/structs ACLReservedPrefix). */
export const RESERVED_PREFIX = "00000000-0000-0000-0000-0000000000";
/** What go-uuid's ParseUUID accepts. */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const IDENTITY_NAME = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
/** What a token's secret reads as to a caller without acl:write. */
export const REDACTED = "<hidden>";
/** Secrets the real system refuses to store, as they name its root authorizers. */
export const ROOT_SECRETS = new Set(["allow", "deny", "manage"]);

/**
 * Errors of the ACL RPC layer (agent/consul/acl_endpoint.go returns them with fmt.Errorf): the
 * agent's HTTP layer answers every such error with 500 and its text (agent/http.go handleErr).
 */
export function refused(message: string): never {
  throw new MeshHttpError(500, message);
}
/** The agent's BadRequestError: 400 with the reason. */
export function badRequest(message: string): never {
  throw new MeshHttpError(400, message);
}
/** acl.ErrNotFound, which handleErr answers with 403. */
export function aclNotFound(): never {
  throw new MeshHttpError(403, "ACL not found");
}

export class AclBase {
  constructor(
    protected readonly settings: AclSettings,
    protected readonly store = new MemoryAclStore(),
    protected readonly now: () => Date = () => new Date(),
  ) {}

  /** The legacy token API exists (servers before 1.11). */
  legacyApiServed(): boolean {
    return this.settings.legacyApi;
  }

  /** The policy, role and token API exists (servers from 1.4 on). */
  tokenApiServed(): boolean {
    return this.settings.tokenApi;
  }

  get enabled(): boolean {
    return Boolean(this.settings.managementToken);
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

  protected requireLegacyEnabled(): void {
    if (!this.settings.legacyApi) {
      throw new MeshHttpError(404, "The legacy ACL token API was removed in 1.11: use /v1/acl/token");
    }
    if (!this.enabled) throw new MeshHttpError(401, "ACL support disabled");
  }

  /** The legacy endpoints need acl:write and answer the legacy `Permission denied`. */
  protected requireLegacy(authorizer: Authorizer | undefined): void {
    this.requireLegacyEnabled();
    if (!this.allows(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, "write")) {
      throw new MeshHttpError(403, "Permission denied");
    }
  }

  /** The policies, roles and tokens API, which servers before 1.4 do not have; 401 while ACLs are off. */
  protected requireTokenApiEnabled(): void {
    if (!this.settings.tokenApi) {
      throw new MeshHttpError(404, "The ACL policy, role and token API exists from 1.4: use /v1/acl/create");
    }
    if (!this.enabled) throw new MeshHttpError(401, "ACL support disabled");
  }

  protected requireTokenApi(authorizer: Authorizer | undefined, access: Access): void {
    this.requireTokenApiEnabled();
    this.requireAcl(authorizer, access);
  }

  protected requireAcl(authorizer: Authorizer | undefined, access: Access): void {
    this.authorize(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, access);
  }

  protected putToken(fields: Partial<AclTokenRecord> & Pick<AclTokenRecord, "AccessorID" | "SecretID">): AclTokenRecord {
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

  /** Links by ID or name made into links by ID (deduplicated), and identities checked and merged. */
  protected tokenFields(
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

  protected link(kind: "policy" | "role", link: Partial<AclLink>): AclLink {
    const table = kind === "policy" ? this.store.policies : this.store.roles;
    const found = link.ID ? table.get(link.ID) : table.all().find((row) => row.Name === link.Name);
    if (!found) {
      const by = link.ID ? `ID ${JSON.stringify(link.ID)}` : `name ${JSON.stringify(link.Name ?? "")}`;
      refused(`No such ACL ${kind} with ${by}`);
    }
    return { ID: found.ID, Name: found.Name };
  }

  /** Links carry the current names of what they link; links to deleted objects are gone. */
  protected currentLinks(links: AclLink[], table: "policies" | "roles"): AclLink[] {
    return links.flatMap((link) => {
      const row = this.store[table].get(link.ID);
      return row ? [{ ID: row.ID, Name: row.Name }] : [];
    });
  }

  protected roleView(role: AclRole): AclRole {
    return { ...role, Policies: this.currentLinks(role.Policies, "policies") };
  }

  protected tokenView(token: AclTokenRecord, redact: boolean): AclTokenView {
    const { Rules: _rules, Management: _management, Legacy: _legacy, ...view } = token;
    return {
      ...view,
      SecretID: redact ? REDACTED : token.SecretID,
      Policies: this.currentLinks(token.Policies, "policies"),
      Roles: this.currentLinks(token.Roles, "roles"),
    };
  }

  /** Expired strictly after its expiration time, as `ExpirationTime.Before(now)` says (agent/structs/acl.go IsExpired). */
  protected expired(token: AclTokenRecord): boolean {
    return token.ExpirationTime !== undefined && Date.parse(token.ExpirationTime) < this.now().getTime();
  }
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

export function byId<T extends { ID: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.ID < b.ID ? -1 : a.ID > b.ID ? 1 : 0));
}

export function byAccessor<T extends { AccessorID: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => (a.AccessorID < b.AccessorID ? -1 : a.AccessorID > b.AccessorID ? 1 : 0));
}

export function checkTokenNamespace(namespace: string): void {
  const problem = checkNamespaceName(namespace);
  if (problem) throw new MeshHttpError(400, `Invalid Token: ${problem}`);
}
