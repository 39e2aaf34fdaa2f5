// One Express middleware that hands a request to its operation's handler.
//
// Why not one app.get/app.put per operation: Express walks its layers in order and matches every
// one's expression until a route fits, so a request to the fortieth operation paid forty matches
// (and the router's bookkeeping for each), on every request (profiled with bench/profile.ts). Here
// the operation is found once (operationMatch): from the validator, which matched the request against
// the description (req.openapi), or, when a service does not validate, from this table, with Express's
// own matching rules (case-insensitive, an optional trailing slash, parameters one segment each,
// decoded once). The table also answers the refusals: which methods a path has (405's Allow).
import type { NextFunction, Request, Response } from "express";
import { matchedOperation } from "./openapi.ts";

export interface OperationRoute {
  method: string;
  /** Express path of the operation, base path included, e.g. /v1/discovery-chain/:service_name */
  path: string;
  operationId: string;
}

export interface RouteMatch<R extends OperationRoute> {
  route: R;
  params: Record<string, string>;
}

interface CompiledRoute<R> {
  route: R;
  regexp: RegExp;
  keys: string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The expression Express 5 (path-to-regexp 8) builds for a path of literal segments and `:name` parameters. */
function compile(path: string): { regexp: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = path.replace(/:([A-Za-z_$][\w$]*)|([^:]+)/g, (_all, name: string | undefined, literal: string | undefined) => {
    if (name === undefined) return escapeRegExp(literal!);
    keys.push(name);
    return "([^/]+?)";
  });
  return { regexp: new RegExp(`^${source}(?:/$)?$`, "i"), keys };
}

/** A path parameter Express could not decode is a bad request (its router says 400 too). */
export class ParameterDecodeError extends Error {
  readonly status = 400;
  constructor(readonly value: string) {
    super(`Failed to decode param '${value}'`);
  }
}

export class RouteTable<R extends OperationRoute> {
  readonly #byMethod = new Map<string, CompiledRoute<R>[]>();
  /** "GET /v1/x/:name" → route */
  readonly #byKey = new Map<string, R>();

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const method = route.method.toUpperCase();
      let list = this.#byMethod.get(method);
      if (!list) this.#byMethod.set(method, (list = []));
      list.push({ route, ...compile(route.path) });
      this.#byKey.set(`${method} ${route.path}`, route);
    }
  }

  /** The request's match (below), by its method and path. */
  matchRequest(req: Request): RouteMatch<R> | undefined {
    return this.match(req.method, req.path);
  }

  /** The first route of the method (GET for HEAD, as Express) whose expression matches the path; parameters decoded. */
  match(method: string, path: string): RouteMatch<R> | undefined {
    const upper = method.toUpperCase();
    const found = this.#find(upper, path) ?? (upper === "HEAD" ? this.#find("GET", path) : undefined);
    if (!found) return undefined;
    const [compiled, match] = found;
    const params: Record<string, string> = {};
    compiled.keys.forEach((key, i) => {
      const raw = match[i + 1]!;
      try {
        params[key] = decodeURIComponent(raw);
      } catch {
        throw new ParameterDecodeError(raw);
      }
    });
    return { route: compiled.route, params };
  }

  /** The methods some route takes this path with (HEAD with GET), for the `Allow` of a 405. */
  methodsFor(path: string): string[] {
    const methods = [...this.#byMethod].filter(([, routes]) => routes.some(({ regexp }) => regexp.test(path))).map(([method]) => method);
    if (methods.includes("GET") && !methods.includes("HEAD")) methods.push("HEAD");
    return methods.sort();
  }

  /**
   * The methods of the most specific routes that take this path (fewest parameters), as a mux that
   * picks the endpoint by path first and checks the method second (Go's ServeMux) sees them:
   * `/acl/token/self` is its own endpoint, not `/acl/token/:id`. Empty when no route takes the path.
   */
  endpointMethods(path: string): string[] {
    let fewest = Infinity;
    const methods = new Set<string>();
    for (const [method, routes] of this.#byMethod) {
      for (const { regexp, keys } of routes) {
        if (!regexp.test(path) || keys.length > fewest) continue;
        if (keys.length < fewest) methods.clear();
        fewest = keys.length;
        methods.add(method);
      }
    }
    return [...methods].sort();
  }

  /** The route of a method and an Express path, as the validator names the one it matched. */
  described(method: string, path: string): R | undefined {
    return this.#byKey.get(`${method.toUpperCase()} ${path}`);
  }

  #find(method: string, path: string): [CompiledRoute<R>, RegExpExecArray] | undefined {
    for (const compiled of this.#byMethod.get(method) ?? []) {
      const match = compiled.regexp.exec(path);
      if (match) return [compiled, match];
    }
    return undefined;
  }
}

/** Where the match stage (operationMatch) keeps a request's operation. */
const MATCHED = Symbol("matched operation");

/** The operation the match stage found for this request; undefined when it matched none. */
export function matchedRoute<R extends OperationRoute>(res: Response): R | undefined {
  return (res.locals as { [MATCHED]?: R })[MATCHED];
}

/**
 * The stage that records the request's operation, found once: the one the validator matched
 * (req.openapi, set by its metadata stage just before) when the service validates, or else this
 * table's. req.params are its path parameters. A request that matches none goes on without one:
 * each service refuses it in its own words and order.
 */
export function operationMatch<R extends OperationRoute>(table: RouteTable<R>, validated: boolean): (req: Request, res: Response, next: NextFunction) => void {
  return function operationMatch(req, res, next) {
    let route: R | undefined;
    if (validated) {
      const operation = matchedOperation(req);
      route = operation && table.described(req.method, operation.expressRoute);
    } else {
      const match = table.matchRequest(req); // a path parameter that does not decode throws: 400
      if (match) req.params = match.params;
      route = match?.route;
    }
    (res.locals as { [MATCHED]?: R })[MATCHED] = route;
    next();
  };
}

/** The stage calling `invoke` with the request's operation (found by operationMatch). A request without one goes on. */
export function operationHandler<R extends OperationRoute>(
  _table: RouteTable<R>,
  invoke: (route: R, req: Request, res: Response, next: NextFunction) => unknown,
): (req: Request, res: Response, next: NextFunction) => unknown {
  return function operation(req, res, next) {
    const route = matchedRoute<R>(res);
    if (!route) return next();
    // A handler's throw or rejected promise goes to whoever runs this stage (stages.ts).
    return invoke(route, req, res, next);
  };
}
