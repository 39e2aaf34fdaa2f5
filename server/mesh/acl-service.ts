// The mesh's ACL system: the management token, tokens from MESH_ACL_FILE, and the part of the
// real ACL API that credential engines call: policies, roles and tokens (create, read, delete).
import { randomUUID } from "node:crypto";
import type { components } from "../../generated/mesh/schema.ts";
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
import { DurationError, parseDuration } from "../shared/go-duration.ts";
import { DEFAULT_NAMESPACE } from "./domain/entries.ts";
import { checkNamespaceName, checkPartitionName } from "./domain/names.ts";
import { DurationInputError, durationText } from "./domain/durations.ts";
import { MeshHttpError } from "./errors.ts";
import { MemoryAclStore, type AclLink, type AclPolicy, type AclRole, type AclTokenRecord } from "./store/acl-store.ts";

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
  /** When set, ACLs are enforced and this secret is a management token. */
  managementToken?: string;
  tokens: DeclaredToken[];
  /** The legacy token API (/acl/create, /acl/info, /acl/destroy) exists: servers before 1.11. */
  legacyApi: boolean;
  /** Policies, roles and tokens API exists: servers from 1.4 on. */
  tokenApi: boolean;
}

/** A legacy token (servers before 1.4 knew no other kind): its secret is its ID. */
export interface LegacyTokenInput {
  ID?: string;
  Name?: string;
  Type?: "client" | "management";
  Rules?: string;
}

/** A legacy token as the API returns it. */
export type LegacyToken = components["schemas"]["LegacyAclToken"];

export interface PolicyInput {
  Name: string;
  Description?: string;
  Rules?: string;
}

export interface RoleInput {
  Name: string;
  Description?: string;
  Policies?: Partial<AclLink>[];
}

export interface TokenInput {
  AccessorID?: string;
  SecretID?: string;
  Description?: string;
  Policies?: Partial<AclLink>[];
  Roles?: Partial<AclLink>[];
  Local?: boolean;
  Namespace?: string;
  /** Admin partition (1.11+); this server has only the `default` partition. */
  Partition?: string;
  /** A duration string, or a number of nanoseconds. */
  ExpirationTTL?: string | number;
}

/** A token as the API returns it. */
export type AclTokenView = Omit<AclTokenRecord, "Rules" | "Management">;

/** The built-in policy that grants everything, as in the real system. */
const GLOBAL_MANAGEMENT: Omit<AclPolicy, "CreateIndex" | "ModifyIndex"> = {
  ID: "00000000-0000-0000-0000-000000000001",
  Name: "global-management",
  Description: "Builtin Policy that grants unlimited access",
  Rules: 'acl = "write"\noperator = "write"\nservice_prefix "" { policy = "write" }',
};
const NAME = /^[A-Za-z0-9_-]{1,128}$/;
const MIN_TTL_NS = 60e9;
const MAX_TTL_NS = 24 * 3600e9;
const ANONYMOUS: Authorizer = { management: false, namespace: DEFAULT_NAMESPACE, rules: {} };

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
      this.putToken({
        AccessorID: "00000000-0000-0000-0000-000000000002",
        SecretID: settings.managementToken,
        Description: "Initial management token",
        Policies: [{ ID: GLOBAL_MANAGEMENT.ID, Name: GLOBAL_MANAGEMENT.Name }],
        Management: true,
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
    if (!secret) return ANONYMOUS;
    const token = this.store.tokens.getBy(secret);
    if (!token || this.expired(token)) throw new MeshHttpError(403, "ACL not found");
    const policies = [...token.Policies, ...token.Roles.flatMap((link) => this.store.roles.get(link.ID)?.Policies ?? [])]
      .map((link) => this.store.policies.get(link.ID))
      .filter((policy): policy is AclPolicy => policy !== undefined);
    return {
      management: Boolean(token.Management) || policies.some((p) => p.ID === GLOBAL_MANAGEMENT.ID),
      namespace: token.Namespace,
      rules: mergeRules([...(token.Rules ? [this.rulesOf(token.Rules)] : []), ...policies.map((p) => this.rulesOf(p.Rules))]),
    };
  }

  authorize(authorizer: Authorizer | undefined, namespace: string, resource: AclResource, access: Access): void {
    if (authorizer && !isAllowed(authorizer, namespace, resource, access)) {
      throw new MeshHttpError(403, `Permission denied: ${describePermission(resource, access)}`);
    }
  }

  allows(authorizer: Authorizer | undefined, namespace: string, resource: AclResource, access: Access): boolean {
    return !authorizer || isAllowed(authorizer, namespace, resource, access);
  }

  createPolicy(authorizer: Authorizer | undefined, input: PolicyInput): AclPolicy {
    this.requireTokenApi(authorizer, "write");
    this.checkName("Policy", input.Name, this.store.policies.all());
    this.rulesOf(input.Rules ?? "");
    const id = randomUUID();
    return this.store.policies.put(id, { ID: id, Name: input.Name, Description: input.Description ?? "", Rules: input.Rules ?? "" });
  }

  readPolicy(authorizer: Authorizer | undefined, id: string): AclPolicy {
    this.requireTokenApi(authorizer, "read");
    return this.store.policies.get(id) ?? notFound("ACL policy not found");
  }

  deletePolicy(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    if (id === GLOBAL_MANAGEMENT.ID) throw new MeshHttpError(400, "Delete of builtin global-management policy not allowed");
    if (!this.store.policies.delete(id)) notFound("ACL policy not found");
  }

  createRole(authorizer: Authorizer | undefined, input: RoleInput): AclRole {
    this.requireTokenApi(authorizer, "write");
    this.checkName("Role", input.Name, this.store.roles.all());
    const policies = (input.Policies ?? []).map((link) => this.link("policy", link));
    const id = randomUUID();
    return this.store.roles.put(id, { ID: id, Name: input.Name, Description: input.Description ?? "", Policies: policies });
  }

  readRole(authorizer: Authorizer | undefined, id: string): AclRole {
    this.requireTokenApi(authorizer, "read");
    return this.store.roles.get(id) ?? notFound("ACL role not found");
  }

  deleteRole(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    if (!this.store.roles.delete(id)) notFound("ACL role not found");
  }

  createToken(authorizer: Authorizer | undefined, input: TokenInput, namespace: string): AclTokenView {
    this.requireTokenApi(authorizer, "write");
    if (input.Partition) {
      const problem = checkPartitionName(input.Partition);
      if (problem) throw new MeshHttpError(400, `Invalid Token: ${problem}`);
      if (input.Partition !== "default") {
        throw new MeshHttpError(400, `Invalid Token: partition ${JSON.stringify(input.Partition)} does not exist`);
      }
    }
    if (input.Namespace) checkTokenNamespace(input.Namespace);
    const policies = (input.Policies ?? []).map((link) => this.link("policy", link));
    const roles = (input.Roles ?? []).map((link) => this.link("role", link));
    const accessor = input.AccessorID ?? randomUUID();
    if (this.store.tokens.get(accessor)) throw new MeshHttpError(400, "Invalid Token: AccessorID is already in use");
    if (input.SecretID && this.store.tokens.getBy(input.SecretID) !== undefined) {
      throw new MeshHttpError(400, "Invalid Token: SecretID is already in use");
    }
    // One moment for both: the expiration is the creation time plus the TTL, to the nanosecond.
    const created = this.now();
    return view(
      this.putToken({
        AccessorID: accessor,
        SecretID: input.SecretID ?? randomUUID(),
        Description: input.Description ?? "",
        Policies: policies,
        Roles: roles,
        Local: input.Local ?? false,
        Namespace: input.Namespace || namespace,
        CreateTime: created.toISOString(),
        ExpirationTime: this.expiration(input.ExpirationTTL, created),
      }),
    );
  }

  readToken(authorizer: Authorizer | undefined, accessorId: string): AclTokenView {
    this.requireTokenApi(authorizer, "read");
    const token = this.store.tokens.get(accessorId);
    if (!token || this.expired(token)) notFound("ACL not found");
    return view(token);
  }

  deleteToken(authorizer: Authorizer | undefined, accessorId: string): void {
    this.requireTokenApi(authorizer, "write");
    const token = this.store.tokens.get(accessorId) ?? notFound("ACL not found");
    if (token.Management && token.SecretID === this.settings.managementToken) {
      throw new MeshHttpError(400, "Deletion of the initial management token is not allowed");
    }
    this.store.tokens.delete(accessorId);
  }

  createLegacyToken(authorizer: Authorizer | undefined, input: LegacyTokenInput): { ID: string } {
    this.requireLegacy(authorizer);
    if (input.Rules) this.rulesOf(input.Rules);
    const secret = input.ID || randomUUID();
    if (this.store.tokens.getBy(secret) !== undefined) throw new MeshHttpError(400, "ACL ID is already in use");
    this.putToken({
      AccessorID: randomUUID(),
      SecretID: secret,
      Description: input.Name ?? "",
      Rules: input.Rules ?? "",
      Management: input.Type === "management",
    });
    return { ID: secret };
  }

  /** The legacy read: an array with the token, or an empty array. */
  legacyTokenInfo(authorizer: Authorizer | undefined, secret: string): LegacyToken[] {
    this.requireLegacy(authorizer);
    const token = this.store.tokens.getBy(secret);
    if (!token) return [];
    const { Description, Rules, Management, CreateIndex, ModifyIndex } = token;
    return [{ ID: secret, Name: Description, Type: Management ? "management" : "client", Rules: Rules ?? "", CreateIndex, ModifyIndex }];
  }

  /** The legacy delete: succeeds whether or not the token exists. */
  destroyLegacyToken(authorizer: Authorizer | undefined, secret: string): void {
    this.requireLegacy(authorizer);
    if (secret === this.settings.managementToken) throw new MeshHttpError(400, "Deletion of the initial management token is not allowed");
    const token = this.store.tokens.getBy(secret);
    if (token) this.store.tokens.delete(token.AccessorID);
  }

  private requireLegacy(authorizer: Authorizer | undefined): void {
    if (!this.settings.legacyApi) {
      throw new MeshHttpError(404, "The legacy ACL token API was removed in 1.11: use /v1/acl/token");
    }
    this.requireAcl(authorizer, "write");
  }

  /** The policies, roles and tokens API, which servers before 1.4 do not have. */
  private requireTokenApi(authorizer: Authorizer | undefined, access: Access): void {
    if (!this.settings.tokenApi) {
      throw new MeshHttpError(404, "The ACL policy, role and token API exists from 1.4: use /v1/acl/create");
    }
    this.requireAcl(authorizer, access);
  }

  private requireAcl(authorizer: Authorizer | undefined, access: Access): void {
    if (!this.enabled) throw new MeshHttpError(401, "ACL support disabled");
    this.authorize(authorizer, authorizer?.namespace ?? DEFAULT_NAMESPACE, { type: "acl" }, access);
  }

  private putToken(fields: Partial<AclTokenRecord> & Pick<AclTokenRecord, "AccessorID" | "SecretID">): AclTokenRecord {
    return this.store.tokens.put(fields.AccessorID, {
      Description: "",
      Policies: [],
      Roles: [],
      Local: false,
      CreateTime: this.now().toISOString(),
      ...fields,
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
      const by = link.ID ? `ID "${link.ID}"` : `name "${link.Name ?? ""}"`;
      throw new MeshHttpError(400, `No such ACL ${kind} with ${by}`);
    }
    return { ID: found.ID, Name: found.Name };
  }

  private checkName(kind: "Policy" | "Role", name: string, existing: { Name: string }[]): void {
    if (!NAME.test(name)) throw new MeshHttpError(400, `Invalid ${kind}: invalid Name ${JSON.stringify(name)}`);
    if (existing.some((row) => row.Name === name)) {
      throw new MeshHttpError(400, `Invalid ${kind}: A ${kind} with Name ${JSON.stringify(name)} already exists`);
    }
  }

  private expiration(raw: string | number | undefined, created: Date): string | undefined {
    if (!raw) return undefined;
    let ns: number;
    let ttl: string;
    try {
      ttl = durationText(raw) as string;
      ns = parseDuration(ttl);
    } catch (error) {
      if (error instanceof DurationError || error instanceof DurationInputError) {
        throw new MeshHttpError(400, `Invalid Token: ExpirationTTL: ${error.message}`);
      }
      throw error;
    }
    if (ns < MIN_TTL_NS || ns > MAX_TTL_NS) {
      throw new MeshHttpError(400, `Invalid Token: ExpirationTTL must be between 1m0s and 24h0m0s, not ${ttl}`);
    }
    return new Date(created.getTime() + ns / 1e6).toISOString();
  }

  /** Expired strictly after its expiration time, as `ExpirationTime.Before(now)` says (agent/structs/acl.go IsExpired). */
  private expired(token: AclTokenRecord): boolean {
    return token.ExpirationTime !== undefined && Date.parse(token.ExpirationTime) < this.now().getTime();
  }
}

function checkTokenNamespace(namespace: string): void {
  const problem = checkNamespaceName(namespace);
  if (problem) throw new MeshHttpError(400, `Invalid Token: ${problem}`);
}

function sameFields(stored: object | undefined, fields: object): boolean {
  if (!stored) return false;
  return Object.entries(fields).every(([key, value]) => JSON.stringify((stored as Record<string, unknown>)[key]) === JSON.stringify(value));
}

function notFound(message: string): never {
  throw new MeshHttpError(404, message);
}

function view({ Rules: _rules, Management: _management, ...token }: AclTokenRecord): AclTokenView {
  return token;
}
