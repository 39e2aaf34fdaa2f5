// ACL roles: list (optionally by policy), read (by ID or name), create, update, delete
// (agent/acl_endpoint.go, agent/consul/acl_endpoint.go).
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/mesh/schema.ts";
import type { Authorizer } from "../domain/acl.ts";
import { MeshHttpError } from "../errors.ts";
import type { AclRole } from "../store/acl-store.ts";
import { AclBase, badRequest, byId, refused, UUID } from "./base.ts";

export type RoleInput = components["schemas"]["AclRoleInput"];

const ROLE_NAME = /^[A-Za-z0-9_-]{1,256}$/;

export class AclRoles extends AclBase {
  list(authorizer: Authorizer | undefined, policyId: string | undefined): AclRole[] {
    this.requireTokenApi(authorizer, "read");
    const roles = this.store.roles.all().filter((role) => !policyId || role.Policies.some((link) => link.ID === policyId));
    return byId(roles).map((role) => this.roleView(role));
  }

  /** A missing role is `404` with an empty body (agent/acl_endpoint.go ACLRoleRead). */
  read(authorizer: Authorizer | undefined, id: string): AclRole {
    this.requireTokenApi(authorizer, "read");
    const role = this.store.roles.get(id) ?? roleNotFound();
    return this.roleView(role);
  }

  readByName(authorizer: Authorizer | undefined, name: string): AclRole {
    this.requireTokenApi(authorizer, "read");
    const role = this.store.roles.all().find((row) => row.Name === name) ?? roleNotFound();
    return this.roleView(role);
  }

  create(authorizer: Authorizer | undefined, input: RoleInput): AclRole {
    this.requireTokenApiEnabled();
    if (input.ID) badRequest("Role ID in URL and payload do not match");
    return this.set(authorizer, undefined, input);
  }

  update(authorizer: Authorizer | undefined, id: string, input: RoleInput): AclRole {
    this.requireTokenApiEnabled();
    if (input.ID && input.ID !== id) badRequest("Role ID in URL and payload do not match");
    return this.set(authorizer, id, input);
  }

  delete(authorizer: Authorizer | undefined, id: string): void {
    this.requireTokenApi(authorizer, "write");
    this.store.roles.delete(id); // a role that does not exist is deleted already
  }

  private set(authorizer: Authorizer | undefined, id: string | undefined, input: RoleInput): AclRole {
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
}

function roleNotFound(): never {
  throw new MeshHttpError(404, "");
}
