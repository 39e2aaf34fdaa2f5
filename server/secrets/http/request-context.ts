// What dispatch (app.ts) found out about a request, for the handlers: kept in res.locals.secrets.
// Its own module, so that handlers do not import the app that imports them.
import type { Response } from "express";
import type { SecretsOperation } from "../operations.ts";

export interface RequestContext {
  operation: SecretsOperation;
  /** The request token ("" when an operation served without one is sent none). */
  token: string;
  /** The canonical path relative to /v1, as policies saw it (a list's ends in `/`). */
  path: string;
  /** The operation's path parameters, decoded from that path. */
  params: Record<string, string>;
}

export function requestContext(res: Response): RequestContext {
  return res.locals.secrets as RequestContext;
}
