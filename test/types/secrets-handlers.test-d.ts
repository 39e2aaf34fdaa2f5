// Type tests of the secrets service's handler table (server/secrets/handlers/): its real handlers are
// bound to the description, so a drift of any of them fails tsc. Checked by `tsc --noEmit`;
// test/types/contract-drift.test.ts proves each `@ts-expect-error` is needed.
import { expectTypeOf } from "vitest";
import type { components } from "../../generated/secrets/schema.ts";
import { secretsHandlers } from "../../server/secrets/handlers/index.ts";
import { leaseHandlers } from "../../server/secrets/leases/handlers.ts";
import type { SecretsHandler, SecretsHandlerTable, SecretsInput } from "../../server/secrets/handlers/types.ts";
import type { LeaseEntry } from "../../server/secrets/leases/lease.ts";
import type { StoredRecords } from "../../server/secrets/store/records.ts";

// The table is the whole description, each entry typed by its operation.
expectTypeOf(secretsHandlers).toExtend<SecretsHandlerTable>();

// Nulls the description allows are read as zero values before a handler runs: it never sees null.
expectTypeOf<SecretsInput<"startRekey">["body"]["backup"]>().toEqualTypeOf<boolean | undefined>();
expectTypeOf<SecretsInput<"renewLease">["body"]["increment"]>().toEqualTypeOf<number | string | undefined>();
// A write whose body the description makes optional still gets one (dispatch reads none as {}).
expectTypeOf<SecretsInput<"revokeLeasePrefix">["body"]>().toEqualTypeOf<{ sync?: components["schemas"]["LenientBoolean"] }>();
// An operation without a body gets none; header parameters are keyed in lower case, as Node gives them.
expectTypeOf<SecretsInput<"readPushMfaMethod">["body"]>().toEqualTypeOf<undefined>();
expectTypeOf<SecretsInput<"readPushMfaMethod">["headers"]["x-secrets-namespace"]>().toEqualTypeOf<string | undefined>();
expectTypeOf<SecretsInput<"listLeasesUnderPrefix">["params"]["prefix"]>().toEqualTypeOf<string>();

// @ts-expect-error a handler never gets null for a member the description makes nullable
export const nullMember: SecretsInput<"startRekey">["body"]["pgp_keys"] = null;

// A real handler answering a status its operation does not document (revokeLease: 202, 204, errors).
export const undocumentedStatus: SecretsHandlerTable = {
  ...secretsHandlers,
  // @ts-expect-error 200 is not a documented status of revokeLease
  revokeLease: async () => ({ status: 200 }),
};

// A real handler put under another operation: its body breaks that operation's 200 schema.
export const swapped: SecretsHandlerTable = {
  ...secretsHandlers,
  // @ts-expect-error readDiscoveryTokenRole answers a role, not a list of method ids
  listPushMfaMethods: secretsHandlers.readDiscoveryTokenRole,
};

// A 200 whose body is not the operation's schema.
export const wrongBody: SecretsHandler<"readRekeyStatus"> = (_input, { cluster }) =>
  // @ts-expect-error readRekeyStatus answers the status itself, not an envelope around it
  ({ status: 200, body: { data: cluster.rekey.status() } });

// A 204 carries no body.
// @ts-expect-error deleteRekeyBackup's 204 has no content
export const bodyOnNoContent: SecretsHandler<"deleteRekeyBackup"> = () => ({ status: 204, body: { errors: [] } });

// A body member or parameter the description does not have.
export const unknownMember: SecretsHandler<"renewLease"> = ({ body, params }) => {
  // @ts-expect-error the description names it increment
  void body.ttl;
  // @ts-expect-error renewLease has no path parameter
  void params.lease_id;
  return { status: 400, body: { errors: [] } };
};

// A slice naming an operation the description does not have.
export const unknownInSlice = {
  ...leaseHandlers,
  // @ts-expect-error revokeLeases is not an operation of the description
  revokeLeases: leaseHandlers.revokeLease,
} satisfies Partial<SecretsHandlerTable>;

// The table missing an operation.
// @ts-expect-error generateDiscoveryToken is missing
export const missing: SecretsHandlerTable = (({ generateDiscoveryToken: _left, ...rest }) => rest)(secretsHandlers);

// What the real handlers answer is the generated wire type.
type ReadRole = Extract<Awaited<ReturnType<typeof secretsHandlers.readCloudCredentialsRole>>, { status: 200 }>;
expectTypeOf<ReadRole["body"]["data"]>().toExtend<components["schemas"]["CloudCredentialsRole"]>();

// Storage records are typed per kind (server/secrets/store/records.ts): a view stores its kind's
// records only, and only records that are JSON.
declare const leases: StoredRecords<LeaseEntry>;
expectTypeOf(leases.get("aws/creds/deploy/x")).toEqualTypeOf<LeaseEntry | undefined>();
// @ts-expect-error a lease view stores leases, not MFA methods
leases.put("x", { id: "x", type: "pushmfa" });
declare const counters: StoredRecords<{ count: bigint }>;
// @ts-expect-error a bigint is no JSON: such a record cannot be stored
counters.put("x", { count: 1n });
