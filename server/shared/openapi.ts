// Shared wiring between an OpenAPI bundle and an express app: routes by operationId and the
// request/response validator. Every service uses this; only its handlers and envelope differ.
import { readFileSync } from "node:fs";
import path from "node:path";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { OpenApiValidatorOpts } from "express-openapi-validator/dist/framework/types.js";
import { inSequence, type Stage } from "./stages.ts";
import { exactRequestKey } from "./answer-memo.ts";
import { BoundedCache } from "./bounded-cache.ts";
import { atPointer, validatorLibrary } from "./validator-route-cache.ts";
import { queryAssignable, sendJsonText } from "./express-app.ts";
import { requestCheck, type LibraryRequestValidator } from "./request-check.ts";

const library = validatorLibrary;

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
  method: (typeof METHODS)[number];
  /** Express path, e.g. /discovery-chain/:service_name */
  path: string;
  operationId: string;
  /** The description says the request must have a body. */
  bodyRequired: boolean;
}

export function routesOf(bundle: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(bundle.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: string; requestBody?: { required?: boolean } } | undefined;
      if (!operation?.operationId) continue;
      routes.push({
        method,
        path: template.replace(/\{([^}]+)\}/g, ":$1"),
        operationId: operation.operationId,
        bodyRequired: operation.requestBody?.required === true,
      });
    }
  }
  return routes;
}

export interface ValidatorOptions {
  basePath: string;
  validateResponses: boolean;
  /** Query parameters the description does not name are let through (the org platform ignores them). */
  allowUnknownQueryParameters?: boolean;
}

/**
 * express-openapi-validator for a bundle served under basePath (other server URLs are ignored),
 * as one middleware: the library's own stages (route metadata, request validation, response
 * validation) run one after the other, synchronously once the description is loaded.
 *
 * Why not OpenApiValidator.middleware() as it is: it returns five middlewares that each wait on
 * the loaded description with `.then()` on every request, so a request pays five promise hops and
 * five router layers (profiled with bench/profile.ts). The stages, their order, their options and
 * their errors are the library's; only the plumbing between them differs.
 */
export function openApiValidator(bundle: OpenApiDocument, options: ValidatorOptions): RequestHandler {
  const apiSpec = acceptingReservedCharacters(structuredClone({ ...bundle, servers: [{ url: options.basePath }] }));
  return validatorPipeline({
    apiSpec: apiSpec as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: options.allowUnknownQueryParameters === true },
    validateResponses: options.validateResponses ? { allErrors: false } : false,
    validateSecurity: false,
    validateFormats: true,
    fileUploader: false,
    // The descriptions are checked by the lint (Redocly) in CI, not at every start.
    validateApiSpec: false,
  });
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

interface LibraryContext {
  apiDoc: { paths: Record<string, Record<string, unknown>> };
  serial: number;
  expressRouteMap: Record<string, { basePath: string; _openApiRoute: string; [method: string]: unknown }>;
  openApiRouteMap: Record<string, Record<string, unknown>>;
  ignoreUndocumented: boolean;
  useRequestUrl: boolean;
  ignorePaths?: unknown;
  shouldIgnoreRoute(path: string): boolean;
  isManagedRoute(path: string): boolean;
}

interface CompiledRoute {
  expressRoute: string;
  openApiRoute: string;
  pathKey: string;
  regexp: RegExp;
  keys: string[];
}

/**
 * The library's metadata stage (middlewares/openapi.metadata.js, applyOpenApiMetadata): finds the
 * described operation of a request and sets req.openapi and req.params. Same routes in the same
 * order, same matching, same errors; but the route table and its expressions are built once (per
 * routing flags) instead of on every request, where the library's loop was a fifth of its time,
 * and which route a path matches, with its decoded parameters, is remembered (up to 10,000 paths or
 * 1 MiB of them, then forgotten).
 */
const MATCH_CACHE_LIMIT = 10_000;
const MATCH_CACHE_CHARS = 1 << 20;

function metadataStage(context: LibraryContext, responseApiDoc: { paths: Record<string, Record<string, unknown>> } | undefined): Stage {
  /** What a request path matched: the first route and its decoded parameters (or that they do not decode); null: none. */
  type Match = { route: CompiledRoute; params: Record<string, string> | "malformed" } | null;
  interface Table {
    routes: CompiledRoute[];
    /** request path → its match (null: none) */
    matches: BoundedCache<Match>;
  }
  /** By routing flags: case-sensitive × 2 + strict. */
  const tables: (Table | undefined)[] = [];
  const tableFor = (sensitive: boolean, strict: boolean): Table => {
    const flags = (sensitive ? 2 : 0) + (strict ? 1 : 0);
    let table = tables[flags];
    if (!table) {
      const routes = Object.entries(context.expressRouteMap).map(([expressRoute, methods]) => {
        const { regexp, keys } = library.pathToRegexp(expressRoute, { sensitive, strict }) as { regexp: RegExp; keys: { name: string }[] };
        return { expressRoute, openApiRoute: methods._openApiRoute, pathKey: methods._openApiRoute.substring(methods.basePath.length), regexp, keys: keys.map((k) => k.name) };
      });
      tables[flags] = table = { routes, matches: new BoundedCache<Match>(MATCH_CACHE_LIMIT, MATCH_CACHE_CHARS) };
    }
    return table;
  };
  /** The first route whose expression matches, as the library's loop finds it, with its parameters decoded. */
  const matchOf = (table: Table, requestPath: string): Match => {
    const known = table.matches.get(requestPath);
    if (known !== undefined) return known;
    let found: Match = null;
    for (const route of table.routes) {
      const match = route.regexp.exec(requestPath);
      if (!match) continue;
      try {
        const values = match.slice(1).map(decodeURIComponent);
        found = { route, params: Object.fromEntries(route.keys.map((key, i) => [key, values[i]!])) };
      } catch {
        found = { route, params: "malformed" };
      }
      break;
    }
    table.matches.set(requestPath, found);
    return found;
  };
  const ignoring = (req: Request): boolean => {
    if (!context.ignorePaths) return false; // none given: the library's check answers no for every path
    const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    return context.shouldIgnoreRoute(path) === true;
  };
  return (req, _res, next) => {
    if (ignoring(req)) return next();
    const url = context.useRequestUrl ? req.url : req.originalUrl;
    const query = url.indexOf("?");
    const requestPath = query < 0 ? url : url.slice(0, query);
    const method = req.method.toLowerCase();
    const found = matchOf(tableFor(!!req.app.enabled("case sensitive routing"), !!req.app.enabled("strict routing")), requestPath);
    if (found) {
      const { route } = found;
      if (found.params === "malformed") throw new library.types.BadRequest({ path: req.path, message: `malformed uri'` });
      // A copy: the request validator coerces parameters in place.
      const pathParams = { ...found.params };
      const schema = context.apiDoc.paths[route.pathKey]![method];
      if (!schema) {
        // Prevents validation for routes which match on path but mismatch on method
        if (context.ignoreUndocumented) return next();
        throw new library.types.MethodNotAllowed({
          path: req.path,
          message: `${req.method} method not allowed`,
          headers: {
            Allow: Object.keys(context.openApiRouteMap[route.openApiRoute]!)
              .filter((key) => library.httpMethods.has(key.toLowerCase()))
              .join(", "),
          },
        });
      }
      const openapi: Record<string, unknown> = { expressRoute: route.expressRoute, openApiRoute: route.openApiRoute, pathParams, schema, serial: context.serial };
      if (responseApiDoc) openapi._responseSchema = responseApiDoc.paths[route.pathKey]![method];
      (req as unknown as { openapi: unknown }).openapi = openapi;
      req.params = pathParams;
      return next();
    }
    const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    if (context.isManagedRoute(path) && !context.ignoreUndocumented) throw new library.types.NotFound({ path: req.path, message: "not found" });
    next();
  };
}

interface LibraryValidator {
  options: {
    validateApiSpec: boolean;
    $refParser: unknown;
    ignorePaths: unknown;
    ignoreUndocumented: boolean;
    useRequestUrl: boolean;
    validateRequests: unknown;
    validateResponses: unknown;
    validateSecurity: unknown;
    fileUploader: unknown;
    operationHandlers: unknown;
  };
  ajvOpts: { preprocessor: unknown; request: unknown; response: unknown };
}

interface LibraryResponseValidator {
  buildValidators(responses: unknown, ajvCacheKey: string): unknown;
  _validate(input: { validators: unknown; body: unknown; statusCode: number; path: string; accepts: string[] }): void;
}

interface MatchedOperation {
  expressRoute: string;
  serial: number;
  _responseSchema?: { responses?: object };
}

interface DescribedOperation {
  expressRoute: string;
  schema: { requestBody?: { content?: object } };
}

/** At most this many request validators are kept (each holds compiled schemas); then they are built again. */
const REQUEST_VALIDATORS_LIMIT = 1_000;
const REQUEST_VALIDATORS_CHARS = 1 << 20;

/**
 * Which request validator a request needs: its operation, and the media type of its body when the
 * operation describes one (without parameters: a described type matches whatever its parameters).
 * The library keys its validators by the request's whole Content-Type, so every new spelling a
 * client sends (on a GET as well) compiled and kept one more validator: unbounded memory.
 */
export function requestValidatorKey(method: string, operation: DescribedOperation, contentType: string | undefined): { key: string; mediaType: string | undefined } {
  const mediaType = operation.schema.requestBody?.content ? contentType?.split(";")[0]!.trim().toLowerCase() || undefined : undefined;
  return { key: `${method}-${operation.expressRoute}-${mediaType ?? "not_provided"}`, mediaType };
}

/**
 * Whether the request check of an operation leaves its request's headers as they came: true when
 * each header parameter it describes is a plain string without a default (nothing to coerce or fill in).
 */
function headerParametersUnchanged(apiDoc: object): (operation: object) => boolean {
  /** The object a (possibly $ref'd, possibly chained) local reference names. */
  const resolve = (value: unknown): Record<string, unknown> | undefined => {
    let at = value as Record<string, unknown> | undefined;
    for (let hops = 0; typeof at?.$ref === "string" && hops < 16; hops++) at = atPointer(apiDoc, at.$ref.replace(/^#/, "")) as typeof at;
    return at;
  };
  const known = new WeakMap<object, boolean>();
  return (operation) => {
    let answer = known.get(operation);
    if (answer === undefined) {
      const parameters = ((operation as { parameters?: unknown[] }).parameters ?? []).map(resolve);
      answer = parameters.every((parameter) => {
        if (parameter?.in !== "header") return parameter !== undefined;
        const schema = resolve(parameter.schema);
        return parameter.content === undefined && schema?.type === "string" && schema.default === undefined;
      });
      known.set(operation, answer);
    }
    return answer;
  };
}

/** Passed checks of requests without a body kept at most (by count and by characters of their keys). */
const VERDICTS_LIMIT = 10_000;
const VERDICTS_CHARS = 4 << 20;

function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFrozen(member);
    Object.freeze(value);
  }
  return value;
}

/** What the request checks leave on a request that passed them: its coerced path and query parameters. */
interface Verdict {
  params: Record<string, unknown>;
  query: unknown;
}

/**
 * The library's request stage (RequestValidator.validate): each operation's parameters and body
 * checked by the validator the library builds for it, with the library's errors; its validators
 * kept by requestValidatorKey, bounded.
 *
 * A request without a body is checked on its method, URL and headers only, with one answer for the
 * same ones: so what a passed check made of its parameters (coerced path and query parameters) is
 * kept by the method, URL and every header, and a request with the same ones gets a copy of it
 * instead of the whole check again. Kept only for operations whose header parameters are plain
 * strings (the check changes no header then); bounded by count and characters; refusals are not kept.
 */
function requestStage(validator: LibraryRequestValidator, headersUnchanged: (operation: object) => boolean): Stage {
  const built = new BoundedCache<Stage>(REQUEST_VALIDATORS_LIMIT, REQUEST_VALIDATORS_CHARS);
  const verdicts = new BoundedCache<Verdict>(VERDICTS_LIMIT, VERDICTS_CHARS);
  // Kept frozen and given as they are: handlers read parameters, never change them.
  const keep = (key: string, req: Request) =>
    verdicts.set(key, { params: deepFrozen(structuredClone(req.params)), query: deepFrozen(structuredClone(req.query)) });
  return (req, res, next) => {
    const operation = (req as Request & { openapi?: DescribedOperation }).openapi;
    if (!operation) return next();
    const verdictKey = req.body === undefined && headersUnchanged(operation.schema) ? exactRequestKey(req) : undefined;
    if (verdictKey !== undefined) {
      const verdict = verdicts.get(verdictKey);
      if (verdict) {
        (operation as { pathParams?: unknown }).pathParams = req.params = verdict.params as Request["params"];
        // Express 5 reads req.query through a getter: the checked value is set over it, as the library
        // does, unless the app's req.query can be assigned (serviceApp).
        if (queryAssignable(req)) (req as { query: unknown }).query = verdict.query;
        else Object.defineProperty(req, "query", { value: verdict.query, writable: true, configurable: true, enumerable: true });
        return next();
      }
    }
    const { key, mediaType } = requestValidatorKey(req.method, operation, req.headers["content-type"]);
    // An app whose req.query can be assigned gets the library's check without its step that makes it writable.
    const assignable = queryAssignable(req);
    const stageKey = assignable ? key : `${key} writable query`;
    let stage = built.get(stageKey);
    if (!stage) {
      const contentType = library.ContentType.fromString(mediaType);
      stage = assignable
        ? requestCheck(validator, operation.expressRoute, operation.schema, contentType as { mediaType?: string }, key)
        : validator.buildMiddleware(operation.expressRoute, operation.schema, contentType, key);
      built.set(stageKey, stage);
    }
    if (verdictKey === undefined) return stage(req, res, next);
    // The library's stage goes on synchronously when the request passes, and throws when it does not.
    return stage(req, res, (error?: unknown) => {
      if (error === undefined || error === null) keep(verdictKey, req);
      next(error);
    });
  };
}

/** The check of a JSON answer for the request's operation (set on req.openapi by the response stage). */
const RESPONSE_CHECK = Symbol("response check");
/** Response prototypes (one per express app) whose json runs the request's response check. */
const checkedPrototypes = new WeakSet<object>();

interface ResponseCheck {
  serial: number;
  /** Throws the library's error when the answer does not match the description. */
  check(req: Request, res: Response, body: unknown, accepts: string[]): void;
  /** The answers (status, media types, JSON text) that passed the check of the request's operation. */
  passed(req: Request): BoundedCache<true>;
  /** Where a failed check goes: the error handler. */
  next: NextFunction;
}

/** Answers kept as passed, per operation: at most this many, of at most this many characters in all; longer texts are checked every time. */
const PASSED_LIMIT = 1_000;
const PASSED_CHARS = 4 << 20;
const PASSED_TEXT_MAX = 64 * 1024;

/** The media types an answer is checked for: its own Content-Type when it has one, else what the client accepts. */
function acceptsOf(req: Request, res: Response): string[] {
  const contentType = res.getHeader("content-type");
  const accept = req.headers.accept;
  return contentType ? [String(contentType)] : accept ? accept.split(",").map((h) => h.trim()) : [];
}

/** Whether the app's res.json sends JSON.stringify's text as it is (no replacer, spaces or escaping set). */
function plainJson(app: Response["app"]): boolean {
  return app.get("json replacer") === undefined && !app.get("json spaces") && !app.get("json escape");
}

/**
 * The library's response stage (ResponseValidator.validate through its res.json hook, "mung"):
 * every JSON answer below 500 is checked against the operation's described responses before it is
 * sent, and a mismatch goes to the error handler instead. The same validators, the same checks and
 * errors; the validators of an operation are found by its described responses rather than by a key
 * built from the request's parsed Content-Type on every answer. The hook is the app's response
 * prototype's json, installed once, instead of a json of each response's own: a property added to
 * every response object costs every request (and every later access to the object).
 *
 * The check is a function of the described responses, the status, the media types and the JSON
 * value (it changes nothing in the value: no defaults, coercion or removal on responses), so an
 * answer whose JSON text passed it for the same operation, status and media types passes again and
 * is not checked again. The text is the one res.json would send, made once: with the app's default
 * JSON settings, res.json's own steps (Content-Type if none, then send) are taken with it.
 */
function responseStage(validator: LibraryResponseValidator, serial: number): Stage {
  /** By an operation's described responses: their validators (built at the first answer) and the answers that passed. */
  const operations = new WeakMap<object, { validators?: unknown; passed: BoundedCache<true> }>();
  const operationOf = (req: Request) => {
    const responses = (req as Request & { openapi: MatchedOperation }).openapi._responseSchema?.responses as object;
    let operation = operations.get(responses);
    if (operation === undefined) operations.set(responses, (operation = { passed: new BoundedCache<true>(PASSED_LIMIT, PASSED_CHARS) }));
    return { responses, operation };
  };
  const check = (req: Request, res: Response, body: unknown, accepts: string[]): void => {
    const { responses, operation } = operationOf(req);
    operation.validators ??= validator.buildValidators(responses, `${req.method}-${(req as Request & { openapi: MatchedOperation }).openapi.expressRoute}`);
    validator._validate({ validators: operation.validators, body, statusCode: res.statusCode, path: req.originalUrl, accepts });
  };
  const passed = (req: Request): BoundedCache<true> => operationOf(req).operation.passed;
  return (req, res, next) => {
    const prototype = Object.getPrototypeOf(res) as Response;
    if (!checkedPrototypes.has(prototype)) {
      const json = prototype.json;
      prototype.json = function validatedJson(this: Response, body: unknown) {
        const openapi = (this.req as Request & { openapi?: MatchedOperation & { [RESPONSE_CHECK]?: ResponseCheck } }).openapi;
        const pending = openapi?.[RESPONSE_CHECK];
        if (pending === undefined) return json.call(this, body);
        openapi![RESPONSE_CHECK] = undefined; // the first answer only, as the library's hook
        if (this.headersSent || this.statusCode >= 500 || openapi!.serial !== pending.serial) return json.call(this, body);
        const accepts = acceptsOf(this.req, this);
        const text = plainJson(this.app) ? JSON.stringify(body) : undefined;
        const key = text !== undefined && text.length <= PASSED_TEXT_MAX ? `${this.statusCode}\n${accepts.join("\n")}\n${text}` : undefined;
        const answers = key === undefined ? undefined : pending.passed(this.req);
        if (key === undefined || !answers!.has(key)) {
          try {
            pending.check(this.req, this, body, accepts);
          } catch (error) {
            pending.next(error);
            return this;
          }
          if (key !== undefined) answers!.set(key, true);
        }
        if (text === undefined) return json.call(this, body);
        return sendJsonText(this, text);
      };
      checkedPrototypes.add(prototype);
    }
    const openapi = (req as Request & { openapi?: { [RESPONSE_CHECK]?: ResponseCheck } }).openapi;
    if (openapi) openapi[RESPONSE_CHECK] = { serial, check, passed, next };
    next();
  };
}

/**
 * The library's OpenApiValidator.installMiddleware, for what this project uses of it: no security
 * handlers, operation handlers or multipart uploads. Path parameters are not installed with
 * app.param: the operation router (operation-router.ts) gives handlers the validator's own.
 */
function validatorPipeline(validatorOptions: OpenApiValidatorOpts): RequestHandler {
  const oav = new library.OpenApiValidator(validatorOptions) as LibraryValidator;
  if (oav.options.validateSecurity || oav.options.operationHandlers || oav.options.fileUploader) {
    throw new Error("validatorPipeline: security handlers, operation handlers and file uploads are not supported");
  }
  // As the library's entry point does: the options object the constructor completed, a copy of the description.
  const loaded = new library.OpenApiSpecLoader({
    apiDoc: structuredClone(validatorOptions.apiSpec),
    validateApiSpec: validatorOptions.validateApiSpec,
    $refParser: validatorOptions.$refParser,
  })
    .load()
    .then((spec: { apiDoc: unknown }) => {
      const responseApiDoc = new library.SchemaPreprocessor(spec.apiDoc, oav.ajvOpts.preprocessor, oav.options.validateResponses).preProcess().apiDocRes;
      const context = new library.OpenApiContext(spec, oav.options.ignorePaths, oav.options.ignoreUndocumented, oav.options.useRequestUrl) as LibraryContext;
      // Each stage is built when a request first reaches it, as the library does.
      const lazy = (build: () => Stage): Stage => {
        let stage: Stage | undefined;
        return (req, res, next) => (stage ??= build())(req, res, next);
      };
      const stages: Stage[] = [metadataStage(context, responseApiDoc)];
      if (oav.options.validateRequests) {
        stages.push(lazy(() => requestStage(new library.RequestValidator(context.apiDoc, oav.ajvOpts.request), headerParametersUnchanged(context.apiDoc))));
      }
      if (oav.options.validateResponses) {
        stages.push(
          lazy(() =>
            responseStage(new library.ResponseValidator(responseApiDoc, oav.ajvOpts.response, oav.options.validateResponses, context.serial), context.serial),
          ),
        );
      }
      return stages;
    });
  let validation: RequestHandler | undefined;
  loaded.then(
    (stages: Stage[]) => (validation = inSequence(stages)),
    () => undefined, // reported to the first request
  );
  return function openApiValidation(req: Request, res: Response, next: NextFunction): void {
    if (validation) {
      validation(req, res, next);
      return;
    }
    loaded.then(() => validation!(req, res, next)).catch(next);
  };
}

/** One problem found by the validator, with the field it concerns. */
export interface ValidationProblem {
  /** Where: body, query, path, headers, response. */
  location: string;
  /** The field inside it, e.g. Splits[0].Weight (empty for the whole part). */
  field: string;
  message: string;
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
export function validationProblems(error: unknown, requestPath: string): ValidationProblem[] | undefined {
  const errors = (error as { errors?: { path?: string; message?: string }[] })?.errors;
  if (!Array.isArray(errors)) return undefined;
  return errors.map(({ path: where = "", message = "is invalid" }) => {
    if (where === requestPath) return { location: "body", field: "", message };
    const parts = where.replace(/^[./]/, "").split(/[./]/);
    const location = LOCATIONS[parts[0] ?? ""] ? LOCATIONS[parts.shift()!]! : "body";
    const field = parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    return { location, field, message };
  });
}

export { express };
