// Shared wiring between an OpenAPI bundle and an express app: routes by operationId and
// express-openapi-validator through its public middleware. Every service uses this; only its
// stages and envelope differ.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import express, { type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { DescribedOperation } from "../../generated/operation-table.ts";
import { BoundedCache } from "./bounded-cache.ts";
import type { Stage } from "./stages.ts";
import { collapseAlternatives as collapseProblems } from "./collapse-alternatives.ts";


const root = path.resolve(import.meta.dirname, "..", "..");
const METHODS = ["get", "put", "post", "delete", "patch", "options", "head"] as const;

export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  servers?: { url: string }[];
  [key: string]: unknown;
};

export function loadBundle(api: string): OpenApiDocument {
  return JSON.parse(readFileSync(path.join(root, "generated", api, "openapi.json"), "utf8"));
}

export interface Route {
  method: DescribedOperation["method"];
  /** Express path, base path included, e.g. /v1/discovery-chain/:service_name */
  path: string;
  operationId: string;
  /** The description says the request must have a body. */
  bodyRequired: boolean;
}

/** The routes of an API's generated operation table (generated/<api>/operations.ts), served under basePath. */
export function routesOf(table: Readonly<Record<string, DescribedOperation>>, basePath: string): Route[] {
  return Object.entries(table).map(([operationId, operation]) => ({
    method: operation.method,
    path: basePath + operation.path.replace(/\{([^}]+)\}/g, ":$1"),
    operationId,
    bodyRequired: operation.bodyRequired,
  }));
}

export interface ValidatorOptions {
  basePath: string;
  validateResponses: boolean;
  /** Query parameters the description does not name are let through (the org platform ignores them). */
  allowUnknownQueryParameters?: boolean;
}

/**
 * express-openapi-validator's public chain, cut where a service puts its own stages: `match` finds
 * the described operation (req.openapi, req.params); `request` checks parameters and body (and
 * coerces them into req.params and req.query); `response` makes res.json check every JSON answer
 * below 500 before it is sent (a mismatch goes to the error handler).
 */
export interface ValidatorStages {
  match: Stage[];
  request: Stage[];
  response: Stage[];
}

/**
 * The names of the middlewares OpenApiValidator.middleware() returns, in order, for the options
 * below (fileUploader off: no multipart stage; operationHandlers off). The services run their own
 * stages between security and request validation (the body is read there, after authorization), so
 * the chain is cut by position: checked here at start-up, so that a release that changes it fails
 * loudly instead of validating in another order.
 */
const CHAIN = ["pathParamsMiddleware", "metadataMiddleware", "securityMiddleware", "requestMiddleware", "responseMiddleware"];

/**
 * express-openapi-validator for a bundle served under basePath (other server URLs are ignored).
 *
 * Undocumented requests go on without req.openapi (ignoreUndocumented): each service answers a
 * path or method it does not serve in its own words and order (the mesh before the token, the org
 * platform after it). Security is the services' own stage: the library's handlers can only say
 * yes or no (their errors lose the service's envelope), and its apiKey check refuses a token sent
 * the other way a service takes it (the secrets service's `Authorization: Bearer`).
 */
export function openApiValidator(bundle: OpenApiDocument, options: ValidatorOptions): ValidatorStages {
  // One chain per description and options in a process: its validators are compiled (ajv) on an
  // operation's first request, and an app built again from the same description (a restart, a
  // replication secondary, each test's fresh server) finds them compiled. The chain keeps no state
  // of a request or an app: the services mount it as stages of one layer (no Express routes, so the
  // library's app.param hook, installed on the first app only, never has a route to act on).
  const key = createHash("sha256").update(JSON.stringify([bundle, options.basePath, options.validateResponses, options.allowUnknownQueryParameters === true])).digest("base64");
  const known = chains.get(key);
  if (known) return known;
  const stages = buildValidator(bundle, options);
  chains.set(key, stages);
  return stages;
}

/** The chains built, by description and options (a handful in a process: one per API and mount table). */
const chains = new BoundedCache<ValidatorStages>(16, 16 * 44);

function buildValidator(bundle: OpenApiDocument, options: ValidatorOptions): ValidatorStages {
  const apiSpec = acceptingReservedCharacters(structuredClone({ ...bundle, servers: [{ url: options.basePath }] }));
  const chain = OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: options.allowUnknownQueryParameters === true },
    validateResponses: options.validateResponses ? { allErrors: false } : false,
    validateSecurity: false,
    validateFormats: true,
    fileUploader: false,
    ignoreUndocumented: true,
    // The descriptions are checked by the lint (Redocly) in CI, not at every start.
    validateApiSpec: false,
  }) as unknown as RequestHandler[];
  const expected = options.validateResponses ? CHAIN : CHAIN.slice(0, -1);
  const names = chain.map((middleware) => middleware.name);
  if (names.join() !== expected.join()) {
    throw new Error(`express-openapi-validator's middleware() returned [${names.join(", ")}], not [${expected.join(", ")}]: the version is not the one this was written for`);
  }
  const stages = chain as unknown as Stage[];
  return { match: stages.slice(0, 3), request: stages.slice(3, 4), response: stages.slice(4) };
}

/**
 * The validator's copy of a description, with every query parameter marked `allowReserved`: the
 * services decode a query value whether or not its reserved characters (`:/?#[]@!$'()*+,;=`) are
 * percent-encoded (Go's net/url, Rack), and so do these servers. Without it the validator refuses
 * `q=it's` with 400, which is what encodeURIComponent, and so the generated clients, send for
 * `it's`. Only the servers' validator copy is changed; the published description keeps OpenAPI's
 * default, which tells a client to encode them.
 */
function acceptingReservedCharacters<T extends OpenApiDocument>(document: T): T {
  const mark = (parameter: unknown) => {
    const p = parameter as { in?: unknown; allowReserved?: boolean } | null;
    if (p && typeof p === "object" && p.in === "query") p.allowReserved = true;
  };
  const components = document.components as { parameters?: Record<string, unknown> } | undefined;
  Object.values(components?.parameters ?? {}).forEach(mark);
  for (const item of Object.values(document.paths)) {
    ((item.parameters ?? []) as unknown[]).forEach(mark);
    for (const method of METHODS) ((item[method] as { parameters?: unknown[] } | undefined)?.parameters ?? []).forEach(mark);
  }
  return document;
}

/** What the validator's metadata stage leaves on a request it matched (its documented req.openapi). */
export interface MatchedOperation {
  /** The Express path of the operation, base path included: /v1/discovery-chain/:service_name */
  expressRoute: string;
  /** Path parameters, decoded (coerced once the request stage ran). */
  pathParams: Record<string, string>;
}

/** The described operation the validator matched for this request, if any. */
export function matchedOperation(req: express.Request): MatchedOperation | undefined {
  return (req as express.Request & { openapi?: MatchedOperation }).openapi;
}

/** One problem found by the validator, with the field it concerns. */
export interface ValidationProblem {
  /** Where: body, query, path, headers, response. */
  location: string;
  /** The field inside it, e.g. Splits[0].Weight (empty for the whole part). */
  field: string;
  message: string;
  /** The schema keyword that failed (`type`, `anyOf`, `maximum`...), with `keywords: true`. */
  keyword?: string;
}

/**
 * The validator's problems with a union's failure said by the alternatives of the value's own type
 * (server/shared/collapse-alternatives.ts); needs the problems made with `keywords: true`.
 */
export function collapseAlternatives(problems: readonly ValidationProblem[]): ValidationProblem[] {
  return collapseProblems(problems, {
    isUnion: (p) => p.keyword === "anyOf" || (p.keyword === "oneOf" && p.message === "must match exactly one schema in oneOf"),
    inside: (p, union) =>
      p.location === union.location && (union.field === "" || p.field === union.field || p.field.startsWith(`${union.field}.`) || p.field.startsWith(`${union.field}[`)),
    isTypeMismatchOf: (p, union) => p.keyword === "type" && p.field === union.field,
    typesAskedBy: (p) => (/^must be ([a-z,]+(?: or [a-z]+)?)$/.exec(p.message)?.[1] ?? "").split(/,| or /).filter(Boolean),
    asTypes: (union, _types, message) => ({ ...union, keyword: "type", message }),
  });
}

/** The validator's path prefixes, by the name of the request part they stand for. */
const LOCATIONS: Record<string, string> = {
  body: "body",
  query: "query",
  params: "path",
  path: "path",
  headers: "header",
  cookies: "cookie",
  response: "response",
};

/**
 * The validator's errors, with JSON-ish field paths; undefined if the error is not from it.
 * The validator is not consistent: body paths come with or without "/body", and a discriminator
 * error carries the request path (the field is then named in the message).
 */
export function validationProblems(
  error: unknown,
  requestPath: string,
  options: { keywords?: boolean; leaveOut?: ReadonlySet<string>; limit?: number } = {},
): ValidationProblem[] | undefined {
  const all = (error as { errors?: { path?: string; message?: string; errorCode?: string }[] })?.errors;
  if (!Array.isArray(all)) return undefined;
  // Messages that say nothing on their own (leaveOut) are dropped when others say more; then only
  // the first `limit` are read: one per wrong value, a body of a million wrong values has a million.
  const { leaveOut, limit = Infinity } = options;
  const said = leaveOut && all.some((e) => !leaveOut.has(e.message ?? "")) ? all.filter((e) => !leaveOut.has(e.message ?? "")) : all;
  const errors = said.length > limit ? said.slice(0, limit) : said;
  return errors.map(({ path: where = "", message = "is invalid", errorCode }: { path?: string; message?: string; errorCode?: string }) => {
    // The failed keyword, only for callers that ask (collapseAlternatives reads it).
    const keyword = options.keywords && typeof errorCode === "string" ? errorCode.replace(/\.openapi\.validation$/, "") : undefined;
    const extra = keyword === undefined ? {} : { keyword };
    if (where === requestPath) return { location: "body", field: "", message, ...extra };
    const parts = where.replace(/^[./]/, "").split(/[./]/);
    const location = LOCATIONS[parts[0] ?? ""] ? LOCATIONS[parts.shift()!]! : "body";
    const field = parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    return { location, field, message, ...extra };
  });
}

export { express };

/** What a local `$ref` (`#/...`, its JSON-pointer escapes read) points to in the document; undefined for none. */
export function atPointer(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = document;
  for (const key of ref.slice(2).split("/")) at = (at as Record<string, unknown> | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")];
  return at;
}

/** A value with its `$ref`s followed to what they point to (at most 16 hops, against a cycle). */
export function followRefs(document: OpenApiDocument, value: unknown): unknown {
  let at = value;
  for (let hops = 0; hops < 16; hops++) {
    const ref = (at as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref !== "string") break;
    at = atPointer(document, ref);
  }
  return at;
}
