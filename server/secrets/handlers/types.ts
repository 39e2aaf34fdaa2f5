// What a secrets handler is: parse the request, call the cluster, answer.
import type { Request, Response } from "express";
import type { SecretsCluster } from "../cluster.ts";
import type { operations } from "../../../generated/secrets/schema.ts";

export type Handler = (cluster: SecretsCluster, req: Request, res: Response) => void | Promise<void>;

/** Members of a body with null taken out: dispatch (app.ts) reads every null the description allows as its zero value. */
type NullsRead<T> = { [K in keyof T]: Exclude<T[K], null> };

/** The JSON body of an operation as its handler gets it: validated against the description, nulls read. */
export type RequestBody<O extends keyof operations> = operations[O] extends { requestBody?: { content: { "application/json": infer B } } }
  ? NullsRead<NonNullable<B>>
  : never;

/** Answers 204 No Content, for operations that return no body. */
export function noContent(res: Response): void {
  res.status(204).end();
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

/** The real system's answer for nothing there: 404 with an empty error list. */
export function nothing(res: Response): void {
  res.status(404).json({ errors: [] });
}
