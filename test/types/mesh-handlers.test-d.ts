// Type tests: the mesh's real handlers are bound to the description. Checked by `tsc --noEmit`;
// test/types/contract-drift.test.ts removes every `@ts-expect-error` here and checks that the
// compiler then reports an error on each line that follows one.
import { expectTypeOf } from "vitest";
import type { components, operations } from "../../generated/mesh/schema.ts";
import type { HandlerTable, Input, Reply } from "../../server/shared/contract.ts";
import type { MeshAcl } from "../../server/mesh/acl-service.ts";
import type { EntryKind } from "../../server/mesh/domain/entries.ts";
import { aclPolicyHandlers, aclRoleHandlers, agentHandlers, meshHandlers, type MeshContext } from "../../server/mesh/handlers/index.ts";

type Schemas = components["schemas"];
type Mesh = HandlerTable<operations, MeshContext>;
type Slice = Partial<Mesh>;

// The table is the description's: one handler per operation, each typed by its operation.
expectTypeOf(meshHandlers).toExtend<Mesh>();
expectTypeOf<Parameters<typeof meshHandlers.createAclPolicy>[0]>().toEqualTypeOf<Input<operations["createAclPolicy"]>>();
expectTypeOf<Parameters<typeof meshHandlers.createAclPolicy>[0]["body"]>().toEqualTypeOf<Schemas["AclPolicyInput"]>();
expectTypeOf<Parameters<typeof meshHandlers.cloneAclToken>[0]["body"]>().toEqualTypeOf<{ Description?: string } | undefined>();
// The path's kind is any text (the service answers an unknown one in its own words).
expectTypeOf<Parameters<typeof meshHandlers.readConfigEntry>[0]["params"]["kind"]>().toEqualTypeOf<string>();
// A read may block (a promise of the reply): what it settles to is a described reply.
expectTypeOf<Awaited<ReturnType<typeof meshHandlers.readAclPolicy>>>().toExtend<Reply<operations["readAclPolicy"]>>();

// The kinds the service knows (ENTRY_KINDS, a list it checks at run time) are the described ones.
expectTypeOf<EntryKind>().toEqualTypeOf<Schemas["ConfigEntry"]["Kind"]>();

// The ACL service answers in the described wire forms, so the compiler checks the bodies it returns.
expectTypeOf<ReturnType<MeshAcl["tokens"]["read"]>>().toEqualTypeOf<Schemas["AclToken"]>();
expectTypeOf<ReturnType<MeshAcl["policies"]["list"]>>().toEqualTypeOf<Schemas["AclPolicyStub"][]>();
expectTypeOf<ReturnType<MeshAcl["legacy"]["info"]>>().toEqualTypeOf<Schemas["LegacyAclToken"][]>();

// A missing role is a documented 404 without a body.
export const roleNotFound = { ...aclRoleHandlers, readAclRole: () => ({ status: 404 as const }) } satisfies Slice;

// A status the description does not list for the operation.
// @ts-expect-error 410 is not a documented status of readAclRole
export const undocumentedStatus = { ...aclRoleHandlers, readAclRole: () => ({ status: 410 as const }) } satisfies Slice;

// A body on a status that has none.
// @ts-expect-error readAclRole's 404 has no content
export const bodyOnNotFound = { ...aclRoleHandlers, readAclRole: () => ({ status: 404 as const, body: "" }) } satisfies Slice;

// A body that breaks its status's schema.
export const agentSelf = {
  ...agentHandlers,
  // @ts-expect-error AgentSelf's Config has more required members than Datacenter
  readAgentSelf: () => ({ status: 200 as const, body: { Config: { Datacenter: "dc1" } } }),
} satisfies Slice;

// A request body member the description does not have.
export const renamedMember = {
  ...aclPolicyHandlers,
  createAclPolicy: ({ body }, { service, caller }) => {
    // @ts-expect-error the description names it Rules
    void body.Rule;
    return { status: 200, body: service.acl.policies.create(caller.authorizer, body) };
  },
} satisfies Slice;

// The token is the context's (resolved once, before the body is read), not a described parameter.
export const tokenParameter = {
  ...aclPolicyHandlers,
  readAclPolicy: ({ params, query }, { service, caller }) => {
    // @ts-expect-error readAclPolicy describes no query parameter: the caller comes in the context
    void query.token;
    return { status: 200, body: service.acl.policies.read(caller.authorizer, params.id) };
  },
} satisfies Slice;

// A path parameter the operation does not have.
export const unknownParameter = {
  ...aclRoleHandlers,
  readAclRoleByName: ({ params }, { service, caller }) => {
    // @ts-expect-error readAclRoleByName has name, not id
    void params.id;
    return { status: 200, body: service.acl.roles.readByName(caller.authorizer, params.name) };
  },
} satisfies Slice;

// A slice holding an operation the description does not have.
// @ts-expect-error readAclPolicies is not an operation of the description (listAclPolicies is)
export const unknownOperation = { readAclPolicies: meshHandlers.listAclPolicies } satisfies Slice;

// A table missing an operation.
// @ts-expect-error readAgentSelf is missing
export const missing: Mesh = (({ readAgentSelf: _gone, ...rest }) => rest)(meshHandlers);
