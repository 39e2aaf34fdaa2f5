// The organization platform reference server: express app, bearer authentication, OpenAPI
// validation, handlers, and every error as a JSON:API error document.
import type { Request, Response } from "express";
import { answerWith, serviceApp } from "../shared/express-app.ts";
import { express, loadBundle, openApiValidator, routesOf, validationProblems, type ValidationProblem } from "../shared/openapi.ts";
import { requestPipeline } from "../shared/pipeline.ts";
import { DEFAULT_WORLD } from "./default-world.ts";
import { ApiError, INVALID_INCLUDE, MAX_ERRORS, notFound, type ErrorObject } from "./domain/errors.ts";
import { loadWorld, type WorldFile } from "./domain/world.ts";
import { runOrgPlatformOperation, type OrgPlatformContext } from "./handlers/index.ts";
import { JSON_API } from "./http/body.ts";
import { OrgPlatformService } from "./service.ts";
import { operationTable } from "../../generated/org-platform/operations.ts";
import type { operations } from "../../generated/org-platform/schema.ts";
import { MemoryOrgPlatformStore, type OrgPlatformStore } from "./store/store.ts";
import { checkWorldFile } from "./world-file.ts";
import { jsonApiBody, unsupportedMediaType } from "./http/body.ts";
import { canonicalRequestPath, noSuchPath } from "./http/canonical.ts";
import { openDurableStore } from "./store/durable.ts";
import { corsFromEnv } from "../shared/cors.ts";
import { declaresBody } from "../shared/json-body.ts";
import { matchedRoute, operationHandler, operationMatch, RouteTable, type OperationRoute } from "../shared/operation-router.ts";
import { under, type Stage } from "../shared/stages.ts";
import { AnswerMemo } from "../shared/answer-memo.ts";
import { RETRY_AFTER_SECONDS } from "../shared/bounds.ts";
import { StorageUnavailableError } from "../shared/data-dir.ts";

export const ORG_PLATFORM_BASE_PATH = "/api/v2";
/** What the platform's API answered in TFP-API-Version and X-RateLimit-Limit in 2022. */
const API_VERSION = "2.5";
const RATE_LIMIT = "30";

export interface OrgPlatformAppOptions {
  /** The world to start with (checked against world.schema.json); the default world when absent. */
  world?: WorldFile;
  /** A store to use as it is, instead of one built from `world`. */
  store?: OrgPlatformStore;
  /** Response validation; on unless turned off. */
  validateResponses?: boolean;
  /** Request and response validation as a whole; on unless turned off. */
  validate?: boolean;
  /**
   * A data directory (ORG_PLATFORM_DATA_DIR) to keep state in across restarts. An empty directory is
   * seeded from `world`; a directory with data ignores it.
   */
  dataDir?: string;
}

export interface OrgPlatformApp {
  app: express.Express;
  service: OrgPlatformService;
  /** Set when the state is kept in a data directory: whether it was created now, and how to close it. */
  data?: { path: string; created: boolean; close(): void };
}

export function createOrgPlatformApp(options: OrgPlatformAppOptions = {}): OrgPlatformApp {
  // A given world is checked against its schema; the built-in one is known to pass (test/org-platform/world.test.ts).
  const seed = () => loadWorld(options.world ? checkWorldFile(options.world, "the world") : DEFAULT_WORLD);
  let data: OrgPlatformApp["data"];
  let store = options.store;
  if (!store && options.dataDir) {
    const durable = openDurableStore(options.dataDir, seed);
    store = durable.store;
    data = { path: options.dataDir, created: durable.created, close: durable.close };
  }
  store ??= new MemoryOrgPlatformStore(seed());
  const service = new OrgPlatformService(store);
  const bundle = loadBundle("org-platform");

  const app = serviceApp();
  const routes = new RouteTable(routesOf(operationTable, ORG_PLATFORM_BASE_PATH));
  const answers = new AnswerMemo({ version: () => store.version() });
  const validator =
    options.validate === false
      ? undefined
      : openApiValidator(bundle, {
          basePath: ORG_PLATFORM_BASE_PATH,
          validateResponses: options.validateResponses !== false,
          // Clients send parameters of other versions (show_affected_workspaces...): ignored, not refused.
          allowUnknownQueryParameters: true,
        });
  const underApi = (stage: Stage): Stage => under(ORG_PLATFORM_BASE_PATH, stage);
  const stages = requestPipeline(
    {
      prepare: [
        corsFromEnv(), // CORS_ORIGINS (server/shared/cors.ts): preflights answered before authentication
        canonicalRequestPath,
        underApi((_req, res, next) => {
          // Every answer of the API says its version and rate limit; clients read them from GET /ping.
          res.setHeader("TFP-API-Version", API_VERSION);
          res.setHeader("X-RateLimit-Limit", RATE_LIMIT);
          next();
        }),
      ],
      match: operationMatch(routes, validator !== undefined),
      // Without a valid token nothing else is looked at (but the ping).
      authenticate: underApi((req, res, next) => {
        if (matchedRoute<OperationRoute>(res)?.operationId === "ping") return next();
        res.locals.caller = service.authenticate(bearerToken(req));
        next();
      }),
      // What the request acts on, from its path: a caller who may not act on it gets the 404 before
      // its query or body are looked at. A path or method the API does not have: 404 or 405.
      authorize: underApi((req, res, next) => {
        const route = matchedRoute<OperationRoute>(res);
        if (!route) throw routes.methodsFor(req.path).length > 0 ? methodNotAllowed() : noSuchPath();
        if (route.operationId !== "ping") service.authorize(res.locals.caller, route.operationId as keyof operations, req.params as Record<string, string>);
        next();
      }),
      // Media type, size and depth are checked before the body is parsed.
      readBody: underApi(jsonApiBody()),
      // A read answered before goes out again as it was sent, until the state moves (the handler keeps it).
      kept: (req, res, next) => {
        if (req.method === "GET" && answers.sendKept(req, res)) return;
        next();
      },
      handle: operationHandler(routes, (route, req, res) => {
        const context: OrgPlatformContext = {
          service,
          caller: res.locals.caller,
          origin: `${req.protocol}://${req.get("host")}`,
          sent: { path: req.path, query: req.originalUrl.split("?")[1] ?? "" },
        };
        const answer = () => runOrgPlatformOperation(route.operationId, req, res, context);
        // Reads are answered again from the memo until the state moves (the caller was authenticated
        // in the step before; what it may see is decided by the state).
        return req.method === "GET" ? answers.serve(req, res, answer) : answer();
      }),
      notFound: (_req, _res, next) => next(noSuchPath()),
    },
    validator,
  );
  answerWith(app, stages, (error: unknown, req: Request, res: Response) => {
    // RFC 9110: a 405 says which methods the path has.
    if ((error as { status?: number })?.status === 405 && !res.headersSent) res.set("Allow", routes.methodsFor(req.path).join(", "));
    renderError(error, req, res);
  });
  return { app, service, ...(data && { data }) };
}

/** A method the path does not have (the Allow header is set by the error handler). */
function methodNotAllowed(): Error & { status: number } {
  return Object.assign(new Error("method not allowed"), { status: 405 });
}

function bearerToken(req: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
}

function renderError(error: unknown, req: Request, res: Response): void {
  // A client that went away is not answered, and it is not a failure of the server.
  if (req.destroyed && !req.complete) return;
  const { status, errors } = describeError(error, req);
  if (status === 503) {
    if (error instanceof StorageUnavailableError) console.error(`org-platform: ${req.method} ${req.path}: ${error.message} (${error.code})`);
  } else if (status >= 500) {
    // Only the place and the validator's words: never a request or response body (it may hold secrets).
    console.error(`org-platform: ${req.method} ${req.path}: ${errors.map((e) => e.detail ?? e.title).join("; ")}`);
  }
  if (res.headersSent) return;
  // Out of room (the body budget, a disk that refuses writes): the client may try again shortly.
  if (status === 503) res.set("Retry-After", String(RETRY_AFTER_SECONDS));
  // Errors are sent as strings so the response validator does not look at them again.
  res.status(status).type(JSON_API).send(JSON.stringify({ errors }));
}

const NOISE = new Set(["must match a schema in anyOf", "must NOT be valid", 'must match "then" schema']);

function describeError(error: unknown, req: Request): { status: number; errors: ErrorObject[] } {
  if (error instanceof ApiError) return { status: error.status, errors: error.errors };
  if (error instanceof StorageUnavailableError) return { status: 503, errors: [{ status: "503", title: "service unavailable", detail: error.message }] };
  const status = (error as { status?: number })?.status ?? 500;
  const type = (error as { type?: string })?.type;
  if (status === 415 || type === "encoding.unsupported" || type === "charset.unsupported") {
    // The validator says 415 for a missing body too: that is a malformed request (422).
    if (!declaresBody(req)) {
      return unprocessable([{ title: "invalid document", detail: "A request body is required: a JSON:API document with data.", source: { pointer: "/data" } }]);
    }
    const refusal = unsupportedMediaType();
    return { status: refusal.status, errors: refusal.errors };
  }
  const problems = validationProblems(error, req.path, { leaveOut: NOISE, limit: MAX_ERRORS });
  if (problems && status === 400) {
    const notInPath = problems.filter((p) => p.location !== "path");
    // An id or name in the path that breaks its schema (over 255 characters) names nothing.
    if (notInPath.length === 0) return { status: 404, errors: notFound().errors };
    return fromValidation(notInPath, req.body);
  }
  if (status === 404) return { status, errors: notFound().errors };
  if (status === 405) return { status, errors: [{ status: "405", title: "method not allowed", detail: `${req.method} is not allowed on this path.` }] };
  const message = problems?.map((p) => `${p.location} ${p.field} ${p.message}`).join("; ") ?? (error as Error)?.message ?? "unknown error";
  return { status: 500, errors: [{ status: "500", title: "internal server error", detail: message }] };
}

function unprocessable(errors: Omit<ErrorObject, "status">[]): { status: number; errors: ErrorObject[] } {
  return { status: 422, errors: errors.map((e) => ({ status: "422", ...e })) };
}

/** Body problems are 422 with a pointer; query and path problems are 400 naming the parameter. */
function fromValidation(problems: ValidationProblem[], body: unknown): { status: number; errors: ErrorObject[] } {
  const errors = problems.map((p): ErrorObject => {
    if (p.location === "body" && p.field === "" && /^must have required property .body.$/.test(p.message)) {
      return { status: "422", title: "invalid document", detail: "A request body is required: a JSON:API document with data.", source: { pointer: "/data" } };
    }
    if (p.location === "body") {
      const pointer = toPointer(p.field);
      return { status: "422", title: "invalid attribute", detail: bodyDetail(pointer, p.message, atPointer(body, pointer)), source: { pointer } };
    }
    if (p.location === "header") {
      return { status: "400", title: "invalid header", detail: `${p.field} ${p.message}`, source: { header: p.field } };
    }
    const parameter = toParameter(p.field);
    // go-tfe recognizes this title (ErrInvalidIncludeValue).
    if (parameter === "include") return { status: "400", title: INVALID_INCLUDE, detail: `include: ${p.message}`, source: { parameter } };
    // The platform answers a page number or size out of range with 422, as an invalid attribute:
    // {"status":"422","title":"invalid attribute","detail":"page[size] must be between 1 and 100"}.
    if (parameter === "page[size]") return { status: "422", title: "invalid attribute", detail: "page[size] must be between 1 and 100" };
    if (parameter === "page[number]") return { status: "422", title: "invalid attribute", detail: "page[number] must be a positive integer" };
    return { status: "400", title: "invalid query parameter", detail: `${parameter}: ${p.message}`, source: { parameter } };
  });
  // One HTTP status for the response: 400 when a parameter is wrong, else 422 (JSON:API: the most general).
  return { status: errors.some((e) => e.status === "400") ? 400 : 422, errors };
}

/** The validator's words, said of the member: "oauth-token-string is required". */
function bodyDetail(pointer: string, message: string, value: unknown): string {
  const required = /^must have required property '(.+)'$/.exec(message);
  if (required) return `${required[1]} is required`;
  const member = pointer.split("/").filter((s) => s !== "" && !/^\d+$/.test(s)).pop();
  // null is "not given": where a rule needs the member (private-key of vcs_c_server), it is missing.
  if (value === null && /^must be \w+$/.test(message)) return `${member ?? "the document"} is required`;
  const together = /^must have property (.+) when property (.+) is present$/.exec(message);
  if (together) return `${together[1]} is required together with ${together[2]}`;
  return `${member ?? "the document"} ${message}`;
}

/** page.size → page[size] (its name on the wire); include[1] → include */
function toParameter(field: string): string {
  const [name = "", ...keys] = field.replace(/\[\d+\]/g, "").split(".");
  return name + keys.map((k) => `[${k}]`).join("");
}

/** The value a JSON Pointer names in a document (undefined when it names nothing). */
function atPointer(document: unknown, pointer: string): unknown {
  let value = document;
  for (const token of pointer.split("/").slice(1)) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return value;
}

/** data.attributes.name → /data/attributes/name; data[0].id → /data/0/id */
function toPointer(field: string): string {
  if (field === "") return "";
  return "/" + field.replace(/\[(\d+)\]/g, ".$1").split(".").filter((p) => p !== "").map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}
