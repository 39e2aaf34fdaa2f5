// Type tests: the organization platform's real handlers are bound to its description. Checked by
// `tsc --noEmit`; an `@ts-expect-error` with no error under it fails tsc.
import { expectTypeOf } from "vitest";
import type { components, operations } from "../../generated/org-platform/schema.ts";
import type { Reply } from "../../server/shared/contract.ts";
import { bindHandlers } from "../../server/shared/handler-binding.ts";
import {
  orgPlatformHandlers,
  type OrgPlatformContext,
  type OrgPlatformHandlerTable,
  type OrgPlatformInputs,
} from "../../server/org-platform/handlers/index.ts";
import type { OAuthClientCreateInput, ResourceIdentifierInput } from "../../server/org-platform/domain/oauth-clients.ts";
import type { TeamCreateInput, TeamInput } from "../../server/org-platform/domain/teams.ts";
import type { OperationQueryName, SentQuery } from "../../server/org-platform/http/sent-query.ts";
import type { OrgPlatformService } from "../../server/org-platform/service.ts";

type Schemas = components["schemas"];

// The table is the real one, and what its handlers answer is what the description documents.
expectTypeOf(orgPlatformHandlers).toMatchTypeOf<OrgPlatformHandlerTable>();
expectTypeOf<ReturnType<typeof orgPlatformHandlers.readTeam>>().toMatchTypeOf<Reply<operations["readTeam"]>>();
expectTypeOf<ReturnType<typeof orgPlatformHandlers.deleteTeam>>().toEqualTypeOf<{ status: 204 }>();

// The domain's inputs are the description's request schemas, not copies of them.
expectTypeOf<TeamCreateInput>().toEqualTypeOf<Schemas["TeamCreateRequest"]["data"]["attributes"]>();
expectTypeOf<TeamInput["visibility"]>().toEqualTypeOf<Schemas["TeamVisibility"] | undefined>();
expectTypeOf<ResourceIdentifierInput>().toEqualTypeOf<Schemas["ProjectIdentifierInput"]>();
// The create attributes are an object with their members (the provider rule beside them does not erase them).
expectTypeOf<OAuthClientCreateInput["attributes"]["oauth-token-string"]>().toEqualTypeOf<string>();
expectTypeOf<OAuthClientCreateInput["attributes"]["private-key"]>().toEqualTypeOf<string | null | undefined>();

// The service answers the wire documents: a handler's body is checked against its status's schema.
expectTypeOf<ReturnType<OrgPlatformService["createTeam"]>>().toEqualTypeOf<Schemas["TeamDocument"]>();

// Query parameters are read under their wire names, those the description gives the operation.
expectTypeOf<OperationQueryName<operations["listTeams"]>>().toEqualTypeOf<
  "q" | "filter[names]" | "page[number]" | "page[size]" | "include"
>();
expectTypeOf<OperationQueryName<operations["readTeam"]>>().toEqualTypeOf<"include">();
expectTypeOf<OperationQueryName<operations["deleteTeam"]>>().toEqualTypeOf<never>();
declare const teamQuery: SentQuery<OperationQueryName<operations["listTeams"]>>;
// @ts-expect-error listTeams has page[number] and page[size], not page[offset]
void teamQuery.get("page[offset]");
// @ts-expect-error filter is sent with its bracket, filter[names]
void teamQuery.get("filter");

// A created team is a 200 on the platform: a handler answering 201 is refused.
export const createdTeam201 = {
  ...orgPlatformHandlers,
  // @ts-expect-error 201 is not a documented status of createTeam
  createTeam: ({ params, body }, { service, caller }) => ({ status: 201, body: service.createTeam(caller, params.organization_name, body.data.attributes, []) }),
} satisfies OrgPlatformHandlerTable;

// A team document where an OAuth client document is due.
export const wrongDocument = {
  ...orgPlatformHandlers,
  // @ts-expect-error readOAuthClient's 200 is an OAuthClientDocument
  readOAuthClient: ({ params }, { service, caller }) => ({ status: 200, body: service.readTeam(caller, params.oauth_client_id, []) }),
} satisfies OrgPlatformHandlerTable;

// A body member the description does not have, and a path parameter of another operation.
export const undescribed = {
  ...orgPlatformHandlers,
  updateTeam: ({ params, body }, { service, caller }) => {
    // @ts-expect-error a team's attributes have no title
    void body.data.attributes?.title;
    // @ts-expect-error updateTeam's path has team_id, not organization_name
    void params.organization_name;
    return { status: 200, body: service.updateTeam(caller, params.team_id, {}, []) };
  },
} satisfies OrgPlatformHandlerTable;

// A table missing an operation, or with one the description does not have, cannot be bound.
const { ping: _ping, ...withoutPing } = orgPlatformHandlers;
// @ts-expect-error ping is missing
export const missing = bindHandlers<operations, OrgPlatformContext, OrgPlatformInputs>(withoutPing);
export const unknown = {
  ...orgPlatformHandlers,
  // @ts-expect-error listWorkspaces is not an operation of the description
  listWorkspaces: orgPlatformHandlers.ping,
} satisfies OrgPlatformHandlerTable;
