// The mesh's ACL system: the management and anonymous tokens, tokens from MESH_ACL_FILE, token
// resolution (secret -> token -> policies and roles -> rules), and the real ACL API, one object
// kind a file under acl/: policies, roles, tokens and legacy tokens, with the real endpoints'
// statuses and texts (agent/acl_endpoint.go, agent/consul/acl_endpoint.go, and their _legacy files).
import { randomUUID } from "node:crypto";
import { mergeRules, type AclRules, type Authorizer } from "./domain/acl.ts";
import { AclRulesError, parseAclRules } from "./domain/acl-rules.ts";
import { MeshHttpError } from "./errors.ts";
import { MemoryAclStore, type AclTableName, type AclPolicy, type AclRole, type NodeIdentity, type ServiceIdentity } from "./store/acl-store.ts";
import { AclBase, ANONYMOUS_ID, ANONYMOUS_SECRET, aclNotFound, checkTokenNamespace, GLOBAL_MANAGEMENT, type AclSettings } from "./acl/base.ts";
import { AclPolicies } from "./acl/policies.ts";
import { AclRoles } from "./acl/roles.ts";
import { AclTokens } from "./acl/tokens.ts";
import { LegacyAclTokens } from "./acl/legacy.ts";

export type { AclSettings, DeclaredToken } from "./acl/base.ts";

export class MeshAcl extends AclBase {
  private readonly parsedRules = new Map<string, AclRules>();
  readonly policies: AclPolicies;
  readonly roles: AclRoles;
  readonly tokens: AclTokens;
  /** The legacy token API (servers before 1.11). */
  readonly legacy: LegacyAclTokens;

  constructor(settings: AclSettings, store = new MemoryAclStore(), now: () => Date = () => new Date()) {
    super(settings, store, now);
    this.policies = new AclPolicies(settings, store, now);
    this.roles = new AclRoles(settings, store, now);
    this.tokens = new AclTokens(settings, store, now);
    this.legacy = new LegacyAclTokens(settings, store, now);
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

  /**
   * A read of one ACL table as a blocking query answers it: the value, the table's index (never 0,
   * as agent/consul/rpc.go blockingQuery sets it), and the table whose writes can change it (the
   * state store's tables: acl-policies, acl-roles, acl-tokens).
   */
  indexed<T>(table: AclTableName, read: () => T): { value: T; index: number; watches: (key: string) => boolean } {
    const value = read();
    const rows = table === "acl-policies" ? this.store.policies : table === "acl-roles" ? this.store.roles : this.store.tokens;
    return { value, index: Math.max(1, rows.currentIndex()), watches: (key) => key === table };
  }

  /** Calls the listener with the table of every ACL write (blocking reads wait on it). */
  subscribe(listener: (table: string) => void): () => void {
    return this.store.subscribe(listener);
  }

  /** Moves with every write of a policy, role or token. */
  currentIndex(): number {
    return this.store.currentIndex();
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
}

function sameFields(stored: object | undefined, fields: object): boolean {
  if (!stored) return false;
  return Object.entries(fields).every(([key, value]) => JSON.stringify((stored as Record<string, unknown>)[key]) === JSON.stringify(value));
}
