// Where a service's typed handlers (server/shared/contract.ts) meet Express: the one place that
// reads a request as a handler's input and writes a handler's reply. The request has been matched,
// authenticated, authorized and validated against the description before this runs, so its
// parameters and body are the ones the handler's input type says.
import type { Request, Response } from "express";
import type { AnyReply, HandlerTable, Input } from "./contract.ts";

/** How a service writes a reply's JSON body (its media type, its JSON writer). */
export type BodyWriter = (res: Response, body: unknown) => void;

/** res.json: the JSON writer of the service app, checked against the description before it is sent. */
export const writeJson: BodyWriter = (res, body) => {
  res.json(body);
};

/** The reply as the service writes it: its headers, its status, its body (none for a reply without one). */
export function writeReply(res: Response, reply: AnyReply, writeBody: BodyWriter): void {
  if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.status(reply.status);
  if (reply.body === undefined) res.end();
  else writeBody(res, reply.body);
}

/** A service's handler table bound to Express: runs the request's operation and writes its reply. */
export type BoundHandlers<Context> = (operationId: string, req: Request, res: Response, context: Context) => void | Promise<void>;

/**
 * The table's handlers as one function of an operationId. The handler gets the request's validated
 * path parameters, query, headers and body (the one place they are taken as their described types);
 * a handler that answers synchronously is written synchronously (no promise hop on the common path).
 */
export function bindHandlers<Operations, Context, InputOf extends { [K in keyof Operations]: unknown } = { [K in keyof Operations]: Input<Operations[K]> }>(
  table: HandlerTable<Operations, Context, InputOf>,
  writeBody: BodyWriter = writeJson,
): BoundHandlers<Context> {
  const handlers = table as unknown as Record<string, ((input: unknown, context: Context) => AnyReply | Promise<AnyReply>) | undefined>;
  return (operationId, req, res, context) => {
    const handler = handlers[operationId];
    if (handler === undefined) throw new Error(`no handler for operation ${operationId}`);
    const reply = handler({ params: req.params, query: req.query, headers: req.headers, body: req.body }, context);
    if (reply instanceof Promise) return reply.then((answer) => writeReply(res, answer, writeBody));
    writeReply(res, reply, writeBody);
  };
}
