// Type tests: the compiler refuses each kind of drift between a handler and the description.
// Checked by `tsc --noEmit` (npm test's lint): an `@ts-expect-error` with no error under it fails
// tsc, and test/types/contract-drift.test.ts removes every directive and checks that the compiler
// then reports an error on each line that follows one.
import { expectTypeOf } from "vitest";
import type { Handler, HandlerTable, Input, Reply } from "../../server/shared/contract.ts";
import type { components as secretsComponents, operations as secretsOperations } from "../../generated/secrets/schema.ts";
import type { components as orgComponents, operations as orgOperations } from "../../generated/org-platform/schema.ts";
import type { operations as meshOperations } from "../../generated/mesh/schema.ts";

type StartRekey = secretsOperations["startRekey"];
type CancelRekey = secretsOperations["cancelRekey"];
type ListTeams = orgOperations["listTeams"];
type ReadChain = meshOperations["readDiscoveryChain"];

// What a handler gets: the request body, path and query parameters as the description types them.
expectTypeOf<Input<StartRekey>["body"]>().toEqualTypeOf<secretsComponents["schemas"]["RekeyInitRequest"]>();
expectTypeOf<Input<CancelRekey>["body"]>().toEqualTypeOf<undefined>();
expectTypeOf<Input<ListTeams>["params"]["organization_name"]>().toEqualTypeOf<string>();
expectTypeOf<Input<ListTeams>["body"]>().toEqualTypeOf<undefined>();
expectTypeOf<Input<ReadChain>["params"]["service_name"]>().toEqualTypeOf<string>();

// What it may answer: the documented statuses, each with its own body.
expectTypeOf<Reply<StartRekey>["status"]>().toEqualTypeOf<200 | 400 | 403 | 413 | 431 | 503>();
expectTypeOf<Extract<Reply<ListTeams>, { status: 200 }>["body"]>().toEqualTypeOf<orgComponents["schemas"]["TeamListDocument"]>();
expectTypeOf<Extract<Reply<CancelRekey>, { status: 204 }>["body"]>().toEqualTypeOf<undefined>();

declare const status: secretsComponents["schemas"]["RekeyStatus"];

// A status the description does not list for the operation.
// @ts-expect-error 418 is not a documented status of startRekey
export const undocumentedStatus: Handler<StartRekey, void> = () => ({ status: 418, body: status });

// A body that does not match its status's schema.
// @ts-expect-error a 200 of startRekey is a RekeyStatus, not an error list
export const wrongBody: Handler<StartRekey, void> = () => ({ status: 200, body: { errors: ["no"] } });

// A 204 carries no body.
// @ts-expect-error cancelRekey's 204 has no content
export const bodyOnNoContent: Handler<CancelRekey, void> = () => ({ status: 204, body: status });

// A request body member the description does not have.
export const renamedMember: Handler<StartRekey, void> = ({ body }) => {
  // @ts-expect-error the description names it secret_shares
  void body.secretShares;
  return { status: 200, body: status };
};

// A path parameter the operation does not have.
export const unknownParameter: Handler<ListTeams, void> = ({ params }) => {
  // @ts-expect-error listTeams has organization_name, not team_id
  void params.team_id;
  return { status: 404, body: { errors: [{ status: "404", title: "not found" }] } };
};

// A query parameter of an operation that describes none.
export const queryOfNone: Handler<CancelRekey, void> = ({ query }) => {
  // @ts-expect-error cancelRekey describes no query parameter
  void query.force;
  return { status: 204 };
};

// A table missing an operation, or holding one the description does not have.
type Secrets = HandlerTable<secretsOperations, void>;
declare const all: Secrets;
// @ts-expect-error startRekey is missing
export const missing: Secrets = (({ startRekey: _left, ...rest }) => rest)(all);
// @ts-expect-error startRekeying is not an operation of the description
export const unknown: Secrets = { ...all, startRekeying: all.startRekey };
