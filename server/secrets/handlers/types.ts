// What a secrets handler is: its operation's validated input and the request's context (the
// cluster, the caller's token, the mount reached) to one of the operation's documented replies.
import type { Handler, HandlerTable, Input } from "../../shared/contract.ts";
import type { SecretsCluster } from "../cluster.ts";
import { leasesOf } from "../leases/index.ts";
import type { LeaseRequest } from "../leases/manager.ts";
import type { operations } from "../../../generated/secrets/schema.ts";
import type { NullsRead } from "../wire.ts";

/** What a handler acts on besides its input: found by dispatch (app.ts) before the handler runs. */
export interface SecretsContext {
  cluster: SecretsCluster;
  /** The caller's token, authenticated and authorized for this operation on its canonical path. */
  token: string;
  /** The mount an engine operation was reached at (`aws`, `consul`, or another the mount table names); none for the others. */
  mount: string | undefined;
}


/**
 * A request body as a secrets handler gets it: a write's body is never absent (dispatch reads no body,
 * and a `null` one, as {}), and its nulls are read as zero values. None where the operation has none.
 */
type BodyRead<B> = [B] extends [undefined] ? undefined : NullsRead<NonNullable<B>>;

/** What a handler of one operation gets. */
export type SecretsInput<K extends keyof operations> = Omit<Input<operations[K]>, "body"> & { body: BodyRead<Input<operations[K]>["body"]> };

/** The input of every operation: the InputOf map of the service's HandlerTable. */
export type SecretsInputs = { [K in keyof operations]: SecretsInput<K> };

/** One handler for every operation of the description. */
export type SecretsHandlerTable = HandlerTable<operations, SecretsContext, SecretsInputs>;

/** A handler of one operation. */
export type SecretsHandler<K extends keyof operations> = Handler<operations[K], SecretsContext, SecretsInput<K>>;

/** The JSON body of an operation as its handler gets it. */
export type RequestBody<K extends keyof operations> = SecretsInput<K>["body"];

/** The mount an engine operation was reached at: every engine operation is described under one. */
export function mountOf(context: SecretsContext): string {
  if (context.mount === undefined) throw new Error("an engine operation reached without a mount");
  return context.mount;
}

/** The reply of an operation done with nothing to say. */
export const NO_CONTENT = { status: 204 } as const;

/** The real system's answer for nothing there: 404 with an empty error list. */
export function nothing(): { status: 404; body: { errors: string[] } } {
  return { status: 404, body: { errors: [] } };
}

/** The service's standard response envelope around `data`, as the real system sends logical responses. */
export function envelope<T>(cluster: SecretsCluster, data: T) {
  return {
    request_id: cluster.newRequestId(),
    lease_id: "",
    renewable: false,
    lease_duration: 0,
    data,
    wrap_info: null,
    warnings: null,
    auth: null,
  };
}

/**
 * A secret an engine issued, answered with the lease it is registered under (its id, duration and
 * whether it renews, in the envelope as the real server puts them; the lease's warnings too).
 */
export async function leasedSecret<T>(context: SecretsContext, secretType: string, issued: { data: T; lease: Omit<LeaseRequest, "mount" | "secretType"> }) {
  const { cluster } = context;
  const registered = await leasesOf(cluster).register({ ...issued.lease, mount: mountOf(context), secretType });
  return {
    status: 200 as const,
    body: {
      ...envelope(cluster, issued.data),
      lease_id: registered.lease_id,
      renewable: registered.renewable,
      lease_duration: registered.lease_duration,
      warnings: registered.warnings.length > 0 ? registered.warnings : null,
    },
  };
}

const REQUEST_ID_AT = Buffer.byteLength('{"request_id":"');
const UUID_LENGTH = 36;

/**
 * A kept envelope (server/shared/answer-memo.ts) sent again with a request id of its own, as every
 * answer has; other bodies as they are.
 */
export function withNewRequestId(cluster: SecretsCluster): (body: Buffer) => Buffer {
  return (body) => {
    if (body.toString("latin1", 0, REQUEST_ID_AT) !== '{"request_id":"' || body[REQUEST_ID_AT + UUID_LENGTH] !== 0x22) return body;
    const fresh = Buffer.from(body);
    fresh.write(cluster.newRequestId(), REQUEST_ID_AT, UUID_LENGTH, "latin1");
    return fresh;
  };
}
