// A request's query as Express parses it, parsed once a request. Express 5's `req.query` is a getter
// that parses the query string again at every read, and the stages before the description's check
// read several parameters each (the mesh: token, wait, index, ns, dc, partition): profiled, a few
// microseconds a request went to parsing the same string again.
import type { Request } from "express";

const parsedQueries = new WeakMap<Request, Request["query"]>();

/** The request's query parameters, parsed at the first read (the stages that read them run before the description's check coerces any). */
export function queryOf(req: Request): Request["query"] {
  let query = parsedQueries.get(req);
  if (query === undefined) {
    query = req.query;
    parsedQueries.set(req, query);
  }
  return query;
}
