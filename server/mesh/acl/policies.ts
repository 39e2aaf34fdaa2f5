// ACL policies: list, read (by ID or name), create, update, delete (agent/acl_endpoint.go,
// agent/consul/acl_endpoint.go), and the built-in global-management policy's protections.
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/mesh/schema.ts";
import { AclRulesError, parseAclRules } from "../domain/acl-rules.ts";
import type { Authorizer } from "../domain/acl.ts";
import type { AclPolicy } from "../store/acl-store.ts";
import { AclBase, aclNotFound, badRequest, byId, GLOBAL_MANAGEMENT, refused, UUID } from "./base.ts";

export type PolicyInput = components["schemas"]["AclPolicyInput"];
/** A policy as lists show it: without its rules. */
export type AclPolicyStub = components["schemas"]["AclPolicyStub"];

const POLICY_NAME = /^[A-Za-z0-9_-]{1,128}$/;

export class AclPolicies extends AclBase {
  list(authorizer: Authorizer | undefined): AclPolicyStub[] {
    this.requireTokenApi(authorizer, "read");
    return byId(this.store.policies.all()).map(({ Rules: _rules, ...stub }) => stub);
  }

  read(authorizer: Authorizer | undefined, id: string): AclPolicy {
    this.requireTokenApi(authorizer, "read");
    return this.store.policies.get(id) ?? aclNotFound();
  }

  readByName(authorizer: Authorizer | undefined, name: string): AclPolicy {
    this.requireTokenApi(authorizer, "read");
    return this.store.policies.all().find((policy) => policy.Name === name) ?? aclNotFound();
  }

  create(authorizer: Authorizer | undefined, input: PolicyInput): AclPolicy {
    this.requireTokenApiEnabled();
    if (input.ID) badRequest("Cannot specify the ID when creating a new policy");
    return this.set(authorizer, undefined, input);
  }

  update(authorizer: Authorizer | undefined, id: string, input: PolicyInput): AclPolicy {
    this.requireTokenApiEnabled();
    if (input.ID && input.ID !== id) badRequest("Policy ID in URL and payload do not match");
    return this.set(authorizer, id, input);
  }

  delete(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    // Deleting what does not exist succeeds (agent/consul/acl_endpoint.go PolicyDelete).
    if (!this.store.policies.get(id)) return;
    if (id === GLOBAL_MANAGEMENT.ID) refused("Delete operation not permitted on the builtin global-management policy");
    this.store.policies.delete(id);
  }

  private set(authorizer: Authorizer | undefined, id: string | undefined, input: PolicyInput): AclPolicy {
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
        // `null` is Go's nil slice, which the check lets through; `[]` is not nil (agent/consul/acl_endpoint.go PolicySet).
        if (input.Datacenters !== undefined && input.Datacenters !== null) refused("Changing the Datacenters of the builtin global-management policy is not permitted");
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
}
