// The secrets reference server: express app, token and policy checks, OpenAPI validation,
// handlers, and the `{"errors": [...]}` envelope. One app serves one cluster.
//
// A request goes through, in order:
//   1. JSON decoding of the body whatever its Content-Type (a missing POST/PUT body counts as {});
//   2. dispatch: `list` (LIST or GET ?list=true) read; the token checked (403); the operation found
//      from method and path (404 no route, 405 unsupported); its capabilities checked (403); PUT and
//      POST aliased to the described one;
//   3. express-openapi-validator: the request against the description (400), and every JSON answer;
//   4. the operation's handler.
import type { NextFunction, Request, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { express, loadBundle, validationProblems, type OpenApiDocument, type ValidationProblem } from "../shared/openapi.ts";
import "../shared/validator-route-cache.ts";
import { SecretsCluster, type ClusterOptions } from "./cluster.ts";
import { composeMounts, mountsOf, type Mount } from "./domain/mounts.ts";
import { InvalidRequestError, isSecretsError, NotFoundError, Refusal, UnsupportedOperationError } from "./errors.ts";
import { secretsHandlers, type Handler } from "./handlers/index.ts";
import { OperationIndex, type RequestMethod, type SecretsOperation } from "./operations.ts";
import { apiRouter } from "./replication/cluster-app.ts";

export const SECRETS_BASE_PATH = "/v1";
export const TOKEN_HEADER = "X-Secrets-Token";

export interface SecretsAppOptions extends ClusterOptions {
  /** A cluster to serve as it is (otherwise one is created from the options). */
  cluster?: SecretsCluster;
  /** The mount table; the description's default mounts when absent. */
  mounts?: Mount[];
  /** Response validation; on unless turned off. */
  validateResponses?: boolean;
  /** Request and response validation as a whole; on unless turned off. */
  validate?: boolean;
}

export interface SecretsApp {
  app: express.Express;
  cluster: SecretsCluster;
  /** The description as served: the bundle with the engines at the served mounts. */
  document: OpenApiDocument;
  operations: OperationIndex;
}

/** What dispatch found out about a request, for the handlers (in res.locals.secrets). */
export interface RequestContext {
  operation: SecretsOperation;
  token: string;
}

export async function createSecretsApp(options: SecretsAppOptions = {}): Promise<SecretsApp> {
  const cluster = options.cluster ?? (await SecretsCluster.create(options));
  const bundle = loadBundle("secrets");
  const mounts = options.mounts ?? mountsOf(bundle);
  const document = composeMounts(bundle, mounts);
  cluster.replication.useMounts(mounts);
  const operations = new OperationIndex(document);
  const handlers = secretsHandlers as Record<string, Handler>;
  for (const operation of operations.operations()) {
    if (!handlers[operation.operationId]) throw new Error(`no handler for operation ${operation.operationId}`);
  }

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  // The real system decodes every body as JSON whatever its Content-Type (32 MiB at most).
  app.use(express.json({ type: () => true, limit: "32mb" }));
  app.use(treatBodyAsJson);
  // Cluster-to-cluster: a secondary unwraps its activation credentials (openapi/secrets/internal/).
  app.use(SECRETS_BASE_PATH, apiRouter(cluster.replication));
  app.use(SECRETS_BASE_PATH, dispatch(cluster, operations));
  if (options.validate !== false) app.use(validator(document, options.validateResponses !== false));
  for (const operation of operations.operations()) {
    const handler = handlers[operation.operationId]!;
    app[operation.describedMethod](SECRETS_BASE_PATH + operation.expressPath, async (req, res, next) => {
      try {
        await handler(cluster, req, res);
      } catch (error) {
        next(error);
      }
    });
  }
  app.use((req: Request, _res: Response, next: NextFunction) => next(routeNotFound(req.path)));
  app.use(renderError);
  return { app, cluster, document, operations };
}

/** A missing POST/PUT body is {}; any body is JSON, so the validator checks it against the schema. */
function treatBodyAsJson(req: Request, _res: Response, next: NextFunction): void {
  if (req.body === undefined && (req.method === "POST" || req.method === "PUT")) req.body = {};
  if (req.body !== undefined) req.headers["content-type"] = "application/json";
  next();
}

function dispatch(cluster: SecretsCluster, operations: OperationIndex) {
  return (req: Request, res: Response, next: NextFunction): void => {
    try {
      const list = listFlag(req);
      const token = req.get(TOKEN_HEADER);
      cluster.auth.authenticate(token);
      const method: RequestMethod = req.method === "GET" && list ? "list" : (req.method.toLowerCase() as RequestMethod);
      const resolution = operations.resolve(method, req.path);
      // A DR secondary serves only sys/replication/*; a performance secondary does not take writes.
      cluster.replication.admit(method, req.path.slice(1), "operation" in resolution ? resolution.operation.mount : undefined);
      if ("problem" in resolution) {
        throw resolution.problem === "not-found" ? routeNotFound(req.path) : new UnsupportedOperationError();
      }
      const { operation } = resolution;
      cluster.auth.authorize(token, req.path.slice(1), operation.capabilities);
      // The described method (PUT for POST and the other way round) and a canonical `list`.
      req.method = operation.describedMethod.toUpperCase();
      req.url = withListParameter(req.url, method === "list");
      res.locals.secrets = { operation, token: token! } satisfies RequestContext;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The `list` query parameter, read with the real system's boolean spellings; 400 when unreadable. */
function listFlag(req: Request): boolean {
  const raw = req.query.list;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return false;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(String(value))) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(String(value))) return false;
  throw new InvalidRequestError(`query parameter "list" must be a boolean (true or false), not ${JSON.stringify(value)}`);
}

/** The URL with `list=true` when listing, and no `list` parameter otherwise. */
function withListParameter(url: string, list: boolean): string {
  const question = url.indexOf("?");
  if (question === -1) return list ? `${url}?list=true` : url;
  const params = url
    .slice(question + 1)
    .split("&")
    .filter((param) => param !== "" && param.split("=")[0] !== "list");
  if (list) params.push("list=true");
  return params.length > 0 ? `${url.slice(0, question)}?${params.join("&")}` : url.slice(0, question);
}

function routeNotFound(path: string): NotFoundError {
  const relative = path.replace(/^\/v1\/?/, "").replace(/^\//, "");
  return new NotFoundError(`no handler for route "${relative}". route entry not found.`);
}

function validator(document: OpenApiDocument, validateResponses: boolean) {
  const apiSpec = structuredClone({ ...document, servers: [{ url: SECRETS_BASE_PATH }] });
  return OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: true },
    validateResponses: validateResponses ? { allErrors: false } : false,
    validateSecurity: false,
    validateFormats: true,
  });
}

function renderError(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const { status, messages } = describeError(error, req.path);
  if (status >= 500) console.error(`secrets: ${req.method} ${req.originalUrl}: ${messages.join("; ")}`);
  if (res.headersSent) return;
  res.status(status).json({ errors: messages });
}

function describeProblem({ location, field, message }: ValidationProblem): string {
  const missing = /^must have required property '(.+)'$/.exec(message)?.[1];
  if (location === "body" && missing) {
    // The real system's words for a missing field, naming it where it sits.
    const where = field.endsWith(missing) ? field : field ? `${field}.${missing}` : missing;
    return `'${where}' must be specified in request body as JSON`;
  }
  if (location === "body") return field ? `${field}: ${message}` : message;
  return `${location} parameter ${JSON.stringify(field)}: ${message}`;
}

function describeError(error: unknown, requestPath: string): { status: number; messages: string[] } {
  if (error instanceof Refusal) return { status: error.status, messages: error.messages };
  if (isSecretsError(error)) return { status: error.status, messages: [error.message] };
  const { status = 500, type, message = "internal error" } = (error ?? {}) as { status?: number; type?: string; message?: string };
  if (type === "entity.parse.failed") return { status: 400, messages: [`failed to parse JSON input: ${message}`] };
  if (type === "entity.too.large") return { status: 413, messages: ["http: request body too large"] };
  const problems = validationProblems(error, requestPath);
  // The validator refuses a body that is not JSON with 415; the real system answers bad input with 400.
  if (problems && (status === 400 || status === 415)) return { status: 400, messages: problems.map(describeProblem) };
  if (status === 405) return { status, messages: ["unsupported operation"] };
  if (status === 404) return { status, messages: [routeNotFound(requestPath).message] };
  return { status: 500, messages: [status === 500 ? message : `${status}: ${message}`] };
}
