// The organization platform reference server: express app, bearer authentication, OpenAPI
// validation, handlers, and every error as a JSON:API error document.
import type { NextFunction, Request, Response } from "express";
import { express, loadBundle, openApiValidator, routesOf, validationProblems, type ValidationProblem } from "../shared/openapi.ts";
import { DEFAULT_WORLD } from "./default-world.ts";
import { ApiError, type ErrorObject } from "./domain/errors.ts";
import { loadWorld, type WorldFile } from "./domain/world.ts";
import { JSON_API, orgPlatformHandlers, type Handler } from "./handlers/index.ts";
import { OrgPlatformService } from "./service.ts";
import { MemoryOrgPlatformStore, type OrgPlatformStore } from "./store/store.ts";
import { checkWorldFile } from "./world-file.ts";

export const ORG_PLATFORM_BASE_PATH = "/api/v2";

export interface OrgPlatformAppOptions {
  /** The world to start with (checked against world.schema.json); the default world when absent. */
  world?: WorldFile;
  /** A store to use as it is, instead of one built from `world`. */
  store?: OrgPlatformStore;
  /** Response validation; on unless turned off. */
  validateResponses?: boolean;
  /** Request and response validation as a whole; on unless turned off. */
  validate?: boolean;
}

export interface OrgPlatformApp {
  app: express.Express;
  service: OrgPlatformService;
}

export function createOrgPlatformApp(options: OrgPlatformAppOptions = {}): OrgPlatformApp {
  const store = options.store ?? new MemoryOrgPlatformStore(loadWorld(checkWorldFile(options.world ?? DEFAULT_WORLD, "the world")));
  const service = new OrgPlatformService(store);
  const bundle = loadBundle("org-platform");

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Authentication comes first: without a valid token nothing else is looked at.
  app.use(ORG_PLATFORM_BASE_PATH, (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.caller = service.authenticate(bearerToken(req));
      next();
    } catch (error) {
      next(error);
    }
  });
  // JSON-ish bodies (and bodies without a Content-Type) are parsed; any other media type is left
  // for the validator to refuse as such.
  app.use(express.json({ type: (req) => isJsonLike(req.headers["content-type"]), limit: "1mb" }));
  if (options.validate !== false) {
    app.use(openApiValidator(bundle, { basePath: ORG_PLATFORM_BASE_PATH, validateResponses: options.validateResponses !== false }));
  }
  for (const route of routesOf(bundle)) {
    const handler: Handler = orgPlatformHandlers[route.operationId as keyof typeof orgPlatformHandlers];
    app[route.method](ORG_PLATFORM_BASE_PATH + route.path, (req: Request, res: Response, next: NextFunction) => {
      try {
        handler({ service, caller: res.locals.caller, origin: `${req.protocol}://${req.get("host")}` }, req, res);
      } catch (error) {
        next(error);
      }
    });
  }
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new ApiError(404, [{ title: "not found", detail: "No such path." }])));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => renderError(error, req, res));
  return { app, service };
}

function isJsonLike(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type.endsWith("/json") || type.endsWith("+json");
}

function bearerToken(req: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
}

function renderError(error: unknown, req: Request, res: Response): void {
  const { status, errors } = describeError(error, req);
  if (status >= 500) {
    // Only the place and the validator's words: never a request or response body (it may hold secrets).
    console.error(`org-platform: ${req.method} ${req.path}: ${errors.map((e) => e.detail ?? e.title).join("; ")}`);
  }
  if (res.headersSent) return;
  // Errors are sent as strings so the response validator does not look at them again.
  res.status(status).type(JSON_API).send(JSON.stringify({ errors }));
}

const NOISE = new Set(["must match a schema in anyOf", "must NOT be valid", 'must match "then" schema']);

function describeError(error: unknown, req: Request): { status: number; errors: ErrorObject[] } {
  if (error instanceof ApiError) return { status: error.status, errors: error.errors };
  const status = (error as { status?: number })?.status ?? 500;
  const type = (error as { type?: string })?.type;
  if (type === "entity.parse.failed") {
    return unprocessable([{ title: "invalid document", detail: "The request body is not valid JSON.", source: { pointer: "" } }]);
  }
  if (type === "entity.too.large") {
    return { status: 413, errors: [{ status: "413", title: "payload too large", detail: "The request body is larger than 1 MB." }] };
  }
  if (status === 415 || type === "encoding.unsupported" || type === "charset.unsupported") {
    // The description's media type is the only one accepted; the platform names 422 for a bad body.
    if (!hasBody(req)) {
      return unprocessable([{ title: "invalid document", detail: "A request body is required: a JSON:API document with data.", source: { pointer: "/data" } }]);
    }
    const got = req.get("content-type") ?? "none";
    return unprocessable([
      { title: "invalid content type", detail: `Content-Type must be ${JSON_API} (got ${got}).`, source: { pointer: "", header: "Content-Type" } },
    ]);
  }
  const problems = validationProblems(error, req.path);
  if (problems && status === 400) return fromValidation(problems);
  if (status === 404) return { status, errors: [{ status: "404", title: "not found", detail: "No such path." }] };
  if (status === 405) return { status, errors: [{ status: "405", title: "method not allowed", detail: `${req.method} is not allowed on this path.` }] };
  const message = problems?.map((p) => `${p.location} ${p.field} ${p.message}`).join("; ") ?? (error as Error)?.message ?? "unknown error";
  return { status: 500, errors: [{ status: "500", title: "internal server error", detail: message }] };
}

function hasBody(req: Request): boolean {
  const length = req.get("content-length");
  return (length !== undefined && length !== "0") || req.get("transfer-encoding") !== undefined;
}

function unprocessable(errors: Omit<ErrorObject, "status">[]): { status: number; errors: ErrorObject[] } {
  return { status: 422, errors: errors.map((e) => ({ status: "422", ...e })) };
}

/** Body problems are 422 with a pointer; query and path problems are 400 naming the parameter. */
function fromValidation(all: ValidationProblem[]): { status: number; errors: ErrorObject[] } {
  const problems = all.some((p) => !NOISE.has(p.message)) ? all.filter((p) => !NOISE.has(p.message)) : all;
  const errors = problems.map((p): ErrorObject => {
    if (p.location === "body") {
      const pointer = toPointer(p.field);
      return { status: "422", title: "invalid attribute", detail: bodyDetail(pointer, p.message), source: { pointer } };
    }
    if (p.location === "header") {
      return { status: "400", title: "invalid header", detail: `${p.field} ${p.message}`, source: { header: p.field } };
    }
    const parameter = toParameter(p.field);
    return { status: "400", title: "invalid query parameter", detail: `${parameter}: ${p.message}`, source: { parameter } };
  });
  // One HTTP status for the response: 400 when a parameter is wrong, else 422 (JSON:API: the most general).
  return { status: errors.some((e) => e.status === "400") ? 400 : 422, errors };
}

/** The validator's words, said of the member: "oauth-token-string is required". */
function bodyDetail(pointer: string, message: string): string {
  const required = /^must have required property '(.+)'$/.exec(message);
  if (required) return `${required[1]} is required`;
  const together = /^must have property (.+) when property (.+) is present$/.exec(message);
  if (together) return `${together[1]} is required together with ${together[2]}`;
  const member = pointer.split("/").filter((s) => s !== "" && !/^\d+$/.test(s)).pop();
  return `${member ?? "the document"} ${message}`;
}

/** page.size → page[size] (its name on the wire); include[1] → include */
function toParameter(field: string): string {
  const [name = "", ...keys] = field.replace(/\[\d+\]/g, "").split(".");
  return name + keys.map((k) => `[${k}]`).join("");
}

/** data.attributes.name → /data/attributes/name; data[0].id → /data/0/id */
function toPointer(field: string): string {
  if (field === "") return "";
  return "/" + field.replace(/\[(\d+)\]/g, ".$1").split(".").filter((p) => p !== "").map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}
