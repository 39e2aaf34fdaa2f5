// The secrets reference server: express app, token and policy checks, OpenAPI validation,
// handlers, and the `{"errors": [...]}` envelope. One app serves one cluster.
//
// A request goes through the shared pipeline (server/shared/pipeline.ts), cheapest refusal first,
// nothing parsed for a stranger: the canonical path (decoded once, cleaned: http/canonical-path.ts)
// and `list` (LIST or GET ?list=true) read; the operation found from method and path; the token
// checked (403); then 404 for no route, 405 unsupported, and the capabilities checked on the
// canonical path (403); only then the body read within its limits (413 for size, 400 for shape) and
// decoded as JSON whatever its Content-Type (a missing, empty or `null` body counts as {}, except
// that the rekey writes refuse a missing or empty one with `EOF`); the URL
// rewritten to the described one, so that express-openapi-validator (which matches it again: the
// description has no LIST and one segment per parameter) and the handlers see exactly what was
// authorized; the request checked against the description (400); the handler; every JSON answer checked.
import type { NextFunction, Request, Response } from "express";
import { answerWith, sendJsonText, serviceApp } from "../shared/express-app.ts";
import { RETRY_AFTER_SECONDS } from "../shared/bounds.ts";
import { StorageUnavailableError } from "../shared/data-dir.ts";
import { express, loadBundle, openApiValidator, validationProblems, type OpenApiDocument, type ValidationProblem } from "../shared/openapi.ts";
import { requestPipeline } from "../shared/pipeline.ts";
import { corsFromEnv } from "../shared/cors.ts";
import { under, type Stage } from "../shared/stages.ts";
import { SecretsCluster, type ClusterOptions } from "./cluster.ts";
import { composeMounts, mountsOf, type Mount } from "./sys/mounts.ts";
import { readFrameworkFields } from "./framework-fields.ts";
import { InvalidRequestError, isSecretsError, NotFoundError, Refusal, UnsupportedOperationError } from "./errors.ts";
import { goMultiErrorText, goParseBool } from "../shared/go-text.ts";
import type { Capability } from "./sys/policy.ts";
import { declaresBody, JsonBodyError, objectMembers, withJsonBody, type JsonLimits } from "../shared/json-body.ts";
import { canonicalPath, encodePath, percentDecode } from "./http/canonical-path.ts";
import type { RequestContext } from "./http/request-context.ts";
import { helpAnswer, helpTarget, wantsHelp } from "./http/help.ts";
import { sentAsList } from "./http/list-method.ts";
import { boundSecretsHandlers, secretsHandlers, type SecretsContext } from "./handlers/index.ts";
import { NULL_IS_ABSENT, OperationIndex, type RequestMethod, type Resolution, type SecretsOperation } from "./operations.ts";
import { unwrapStage } from "./replication/cluster-app.ts";
import { AnswerMemo } from "../shared/answer-memo.ts";
import { withNewRequestId } from "./handlers/types.ts";
import { checkRekeyParameters, type RekeyRequest } from "./rekey/rekey.ts";
import { pushMfaProblem } from "./push-mfa/methods.ts";
import { readLeaseConfigWrite } from "./engines/cloud-credentials/engine.ts";
import type { operations } from "../../generated/secrets/schema.ts";

export const SECRETS_BASE_PATH = "/v1";

/** Operations whose answer is the stored state as it is (credentials and status reads are not). */
const MEMOIZED_READS = new Set([
  "listCloudCredentialsRoles",
  "readCloudCredentialsRole",
  "readCloudCredentialsRootConfig",
  "readCloudCredentialsLeaseConfig",
  "listDiscoveryTokenRoles",
  "readDiscoveryTokenRole",
  "listPushMfaMethods",
  "readPushMfaMethod",
]);
export const TOKEN_HEADER = "X-Secrets-Token";

/**
 * Request body limits: the real listener's defaults (max_request_size 32 MiB; max_json_depth 500,
 * max_json_string_value_length 1 MiB, max_json_object_entry_count and
 * max_json_array_element_count 10,000).
 */
export const BODY_LIMITS: JsonLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxDepth: 500,
  maxStringLength: 1024 * 1024,
  maxObjectEntries: 10_000,
  maxArrayElements: 10_000,
};

export interface SecretsAppOptions extends ClusterOptions {
  /** A cluster to serve as it is (otherwise one is created from the options). */
  cluster?: SecretsCluster;
  /** The mount table; the description's default mounts when absent. */
  mounts?: Mount[];
  /** Response validation; on unless turned off. */
  validateResponses?: boolean;
  /** Request and response validation as a whole; on unless turned off. */
  validate?: boolean;
  /** Request body limits (BODY_LIMITS unless given). */
  bodyLimits?: Partial<JsonLimits>;
}

export interface SecretsApp {
  app: express.Express;
  cluster: SecretsCluster;
  /** The description as served: the bundle with the engines at the served mounts. */
  document: OpenApiDocument;
  operations: OperationIndex;
}

export async function createSecretsApp(options: SecretsAppOptions = {}): Promise<SecretsApp> {
  const cluster = options.cluster ?? (await SecretsCluster.create(options));
  const bundle = loadBundle("secrets");
  const mounts = options.mounts ?? mountsOf(bundle);
  const document = composeMounts(bundle, mounts);
  cluster.replication.useMounts(mounts);
  const operations = new OperationIndex(document);
  // Every path the operations are served under: the engines' mounts and the system's own.
  const mountPaths = [...SYSTEM_MOUNTS, ...mounts.map((mount) => mount.path)];
  for (const operation of operations.operations()) {
    if (!Object.hasOwn(secretsHandlers, operation.operationId)) throw new Error(`no handler for operation ${operation.operationId}`);
  }

  const answers = new AnswerMemo({ version: () => cluster.storage.index(), perAnswer: withNewRequestId(cluster) });
  const app = serviceApp({ jsonCharset: false, jsonNewline: true });
  const validator =
    options.validate === false
      ? undefined
      : openApiValidator(document, { basePath: SECRETS_BASE_PATH, validateResponses: options.validateResponses !== false, allowUnknownQueryParameters: true });
  const underApi = (stage: Stage): Stage => under(SECRETS_BASE_PATH, stage);
  const limits = { ...BODY_LIMITS, ...options.bodyLimits };
  const stages = requestPipeline(
    {
      prepare: [
        corsFromEnv(), // CORS_ORIGINS (server/shared/cors.ts): preflights answered before authentication
        (_req, res, next) => {
          res.setHeader("Cache-Control", "no-store");
          next();
        },
        // Cluster-to-cluster: a secondary unwraps its activation credentials (openapi/secrets/internal/).
        unwrapStage(cluster.replication, SECRETS_BASE_PATH),
        underApi(canonicalRequest),
        // `?help=1`: what the description says of the path, after the token check, running nothing (http/help.ts).
        underApi((req, res, next) => {
          const { help, routePath, canonical, segments } = res.locals.request as CanonicalRequest;
          if (!help) return next();
          const target = helpTarget(operations, segments);
          if (!target?.operations.every((operation) => operation.unauthenticated)) cluster.auth.authenticate(tokenOf(req));
          cluster.replication.admit("get", canonical, target?.operations[0]?.mount);
          if (!target) throw routeNotFound(routePath, mountPaths);
          sendJsonText(res.status(200), JSON.stringify(helpAnswer(document, canonical, target.template)));
        }),
      ],
      match: underApi((_req, res, next) => {
        const { method, segments } = res.locals.request as CanonicalRequest;
        res.locals.resolution = operations.resolveSegments(method, segments);
        next();
      }),
      authenticate: underApi((req, res, next) => {
        const token = tokenOf(req);
        const resolution = res.locals.resolution as Resolution;
        // The DR operation token's own operations take no request token (security: []), as the real
        // server lists them among its unauthenticated paths (vault/logical_system.go PathsSpecial).
        if (!("operation" in resolution && resolution.operation.unauthenticated)) cluster.auth.authenticate(token);
        (res.locals.request as CanonicalRequest).token = token;
        next();
      }),
      authorize: underApi((_req, res, next) => {
        const { method, routePath, canonical, token } = res.locals.request as CanonicalRequest;
        const resolution = res.locals.resolution as Resolution;
        // A DR secondary serves only sys/replication/*; a performance secondary does not take writes.
        cluster.replication.admit(method, canonical, "operation" in resolution ? resolution.operation.mount : undefined);
        if ("problem" in resolution) {
          // The real server checks the token's policy before it routes (vault/request_handling.go
          // handleRequest: CheckToken, then doRouting): a token that may not use the path with this
          // method is refused 403 without learning whether the path or the method is served. The
          // raw rekey handlers check no token and refuse a method themselves.
          if (!HTTP_LAYER_PATHS.has(routePath)) cluster.auth.authorize(token, canonical, [CAPABILITY_OF_METHOD[method]]);
          throw unsupported(resolution, routePath, method, mountPaths);
        }
        if (!resolution.operation.unauthenticated) cluster.auth.authorize(token, canonical, resolution.operation.capabilities);
        next();
      }),
      readBody: underApi((req, res, next) => {
        const { operation } = res.locals.resolution as Extract<Resolution, { operation: SecretsOperation }>;
        const take = (json: unknown) => {
          const body = withNullsRead(bodyOf(json, operation), operations.nullReadsAs.get(operation.operationId));
          // The framework's typed fields, read as it reads them before a handler runs (400 in its words).
          const fields = operations.frameworkFields.get(operation.operationId);
          const members = fields && objectMembers(body);
          const problem = members && readFrameworkFields(members, fields);
          if (problem !== undefined) throw new InvalidRequestError(problem);
          // The body is JSON whatever its Content-Type; the validator checks it against the schema.
          // (No body: req.body is left unset, as it is.)
          if (body !== undefined) {
            req.body = body;
            req.headers["content-type"] = "application/json";
          }
          next();
        };
        return withJsonBody(req, limits, take);
      }),
      // The described method (PUT for POST and the other way round), the canonical path (each
      // segment encoded again, so express and the validator decode exactly the canonical segments)
      // and a canonical `list`.
      decode: underApi((req, res, next) => {
        const { method, routePath, canonical, token } = res.locals.request as CanonicalRequest;
        const { operation, params } = res.locals.resolution as Extract<Resolution, { operation: SecretsOperation }>;
        req.method = operation.describedMethod.toUpperCase();
        req.url = req.originalUrl = SECRETS_BASE_PATH + withListParameter(servedPath(operation, params, routePath) + queryOf(req.url), method === "list");
        res.locals.secrets = { operation, token: token ?? "", path: canonical, params } satisfies RequestContext;
        next();
      }),
      // A stored-state read answered before goes out again as it was sent, until the storage moves.
      kept: underApi((req, res, next) => {
        const context = res.locals.secrets as RequestContext | undefined;
        if (context && MEMOIZED_READS.has(context.operation.operationId) && answers.sendKept(req, res)) return;
        next();
      }),
      // The operation dispatch found and authorized, with the parameters of the path it authorized.
      handle: (req, res, next) => {
        const context = res.locals.secrets as RequestContext | undefined;
        if (!context) return next();
        req.params = context.params;
        const { operationId } = context.operation;
        const handlerContext: SecretsContext = { cluster, token: context.token, mount: context.operation.mount };
        // Reads of stored state are answered again from the memo until the storage moves (the token
        // and its policy were checked by dispatch, for this request).
        if (MEMOIZED_READS.has(operationId)) return answers.serve(req, res, () => boundSecretsHandlers(operationId, req, res, handlerContext));
        return boundSecretsHandlers(operationId, req, res, handlerContext);
      },
      notFound: (req, _res, next) => next(routeNotFound(req.path, mountPaths)),
    },
    validator,
    true,
  );
  answerWith(app, stages, (error, req, res, next) => renderError(error, req, res, next, cluster));
  return { app, cluster, document, operations };
}

/** What the canonical form of a request is: its method (`list` read), its cleaned path, its route under the base path. */
interface CanonicalRequest {
  method: RequestMethod;
  /** The cleaned path, e.g. /v1/aws/roles/x, which the policy checks. */
  canonical: string;
  /** The path under the base path, as the operations are routed. */
  routePath: string;
  /** The same, split at `/`. */
  segments: string[];
  token?: string;
  /** A `help` query parameter that is not empty: help on the path is answered instead. */
  help: boolean;
}

/** The request's canonical path and method, or the real server's redirect (an unclean path) or 400. */
const canonicalRequest: Stage = (req, res, next) => {
  // Help is answered before the request is read further: its `list` is not looked at (http/help.go wraps the whole mux).
  const help = wantsHelp(req);
  const list = !help && listFlag(req);
  const method: RequestMethod = (req.method === "GET" && list) || req.method === "LIST" ? "list" : (req.method.toLowerCase() as RequestMethod);
  const canonical = canonicalPath(SECRETS_BASE_PATH + rawPathOf(underBasePath(req.url)), SECRETS_BASE_PATH, method === "list");
  if (canonical.kind === "invalid") throw new InvalidRequestError(canonical.message);
  if (canonical.kind === "redirect") {
    // As the real server's HTTP mux answers a path that is not clean.
    const query = req.url.indexOf("?");
    res.status(301).location(canonical.location + (query === -1 ? "" : req.url.slice(query))).end();
    return;
  }
  res.locals.request = { method, canonical: canonical.path, segments: canonical.segments, routePath: `/${canonical.segments.join("/")}`, help } satisfies CanonicalRequest;
  next();
};

/** The token from the service's own header, or else from `Authorization: Bearer <token>` (as the real server takes it). */
function tokenOf(req: Request): string | undefined {
  const own = req.get(TOKEN_HEADER);
  if (own) return own;
  for (const value of req.headersDistinct.authorization ?? []) {
    if (value.startsWith("Bearer ")) return value.slice("Bearer ".length).trim();
  }
  return undefined;
}

/**
 * The decoded JSON body of a write: {} when there is none or it is `null` (a client's "no data");
 * any other JSON that is not an object is refused as the real server's decoder refuses it.
 */
function bodyOf(body: unknown, operation: SecretsOperation): unknown {
  const write = operation.describedMethod === "post" || operation.describedMethod === "put" || operation.describedMethod === "patch";
  if (!write) return body;
  // The real rekey handlers (http/sys_rekey.go) take the decoder's io.EOF, a body with no JSON value
  // at all, as an error; everywhere else (http/logical.go) it is no data. `null` is a value.
  if (body === undefined && EOF_REFUSING_OPERATIONS.has(operation.operationId)) throw new InvalidRequestError("EOF");
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) {
    const kind = Array.isArray(body) ? "array" : typeof body === "string" ? "string" : typeof body === "number" ? "number" : "bool";
    throw new InvalidRequestError(`failed to parse JSON input: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  return body;
}

/** Writes whose body must hold a JSON value: a missing, empty or blank one is 400 `EOF`. */
const EOF_REFUSING_OPERATIONS: ReadonlySet<string> = new Set(["startRekey", "submitRekeyShare", "submitRekeyVerificationShare"]);

/**
 * Paths the real server answers in its HTTP layer rather than through a backend's routes: any method
 * they do not have (LIST included) is a 405 with no message.
 */
const HTTP_LAYER_PATHS = new Set(["/sys/rekey/init", "/sys/rekey/update", "/sys/rekey/verify"]);

/** The capability the policy check asks of a request no operation serves: the one its method needs (vault/logical/request.go). */
const CAPABILITY_OF_METHOD: Record<RequestMethod, Capability> = { get: "read", list: "list", delete: "delete", post: "update", put: "update", patch: "patch" };

/** The system's own mounts, besides the engines': the system backend, the identity store and the token store. */
const SYSTEM_MOUNTS = ["sys", "identity", "auth/token"];

/**
 * The backend's refusals inside a mount: the router passes them on as the request handling's
 * go-multierror (vault/request_handling.go handleRequest appends the routing error), not bare.
 */
const UNSUPPORTED_PATH = goMultiErrorText(["unsupported path"]);
const UNSUPPORTED_OPERATION = goMultiErrorText(["unsupported operation"]);

/**
 * The refusal of a path nothing serves, or of a method a path does not have (405, with `Allow`). A
 * LIST is routed with its trailing `/` (as the real server routes it), which no route but a list's
 * takes: on a path without a list operation it names no route (404 `unsupported path`).
 */
function unsupported(resolution: Exclude<Resolution, { operation: SecretsOperation }>, routePath: string, method: RequestMethod, mountPaths: readonly string[]): Error {
  if (resolution.problem === "not-found") return routeNotFound(routePath, mountPaths);
  if (HTTP_LAYER_PATHS.has(routePath)) return new UnsupportedOperationError(resolution.allowed, []);
  if (method === "list") return new NotFoundError(UNSUPPORTED_PATH);
  return new UnsupportedOperationError(resolution.allowed, [UNSUPPORTED_OPERATION]);
}

/**
 * The path the validator and the handler see: each canonical segment encoded again; a parameter that
 * takes the rest of the path is one segment there, its `/` encoded (the description's one parameter).
 */
function servedPath(operation: SecretsOperation, params: Record<string, string>, routePath: string): string {
  if (operation.restParameter === undefined) return encodePath(routePath);
  return operation.template.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(params[name] ?? ""));
}

/** Members sent as JSON null read as their zero value where the description says null is taken. */
function withNullsRead(body: unknown, zeros: ReadonlyMap<string, unknown> | undefined): unknown {
  const members = objectMembers(body);
  if (!zeros || !members) return body;
  for (const [name, zero] of zeros) {
    if (members[name] !== null) continue;
    if (zero === NULL_IS_ABSENT) delete members[name];
    else members[name] = structuredClone(zero);
  }
  return body;
}

/** The request URL relative to the base path (which the request is under), as a router mounted there sees it. */
function underBasePath(url: string): string {
  const relative = url.slice(SECRETS_BASE_PATH.length);
  return relative.startsWith("/") ? relative : `/${relative}`;
}

function rawPathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

function queryOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? "" : url.slice(query);
}

/**
 * The `list` query parameter of a GET, read as the real server reads it (http/logical.go
 * buildLogicalRequestNoAuth: only for GET, its first value, strconv.ParseBool's spellings, empty as
 * absent, anything else 400 with no message). A `LIST` arrives here as `GET ...?list=true`
 * (http/list-method.ts).
 */
function listFlag(req: Request): boolean {
  if (req.method !== "GET") return false;
  // Only a query that spells `list`, or may spell it percent-encoded, can have the parameter: the
  // others (most requests) are not parsed for it.
  const query = queryOf(req.url);
  if (!query.includes("list") && !query.includes("%")) return false;
  // The real rekey handlers (http/sys_rekey.go) switch on the method alone and never read `list`:
  // only a LIST is one there (405), known by the mark its rewritten request line carries.
  if (HTTP_LAYER_PATHS.has(String(percentDecode(rawPathOf(underBasePath(req.url)))))) return sentAsList(req.headers);
  const raw = req.query.list;
  const value = String(Array.isArray(raw) ? raw[0] : raw ?? "");
  if (value === "") return false;
  const list = goParseBool(value);
  if (list === undefined) throw new Refusal(400, []);
  return list;
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

/**
 * A path nothing serves: under a mount, its backend's `unsupported path`; under none, the router's
 * own words (vault/router.go: no mount matches).
 */
function routeNotFound(path: string, mountPaths: readonly string[]): NotFoundError {
  const relative = path.replace(/^\/v1\/?/, "").replace(/^\//, "");
  if (mountPaths.some((mount) => relative === mount || relative.startsWith(`${mount}/`))) return new NotFoundError(UNSUPPORTED_PATH);
  return new NotFoundError(`no handler for route "${relative}". route entry not found.`);
}

function renderError(error: unknown, req: Request, res: Response, _next: NextFunction, cluster: SecretsCluster): void {
  // A client that left while sending: nobody to answer, nothing wrong with the server.
  if (error instanceof JsonBodyError && error.problem.kind === "aborted") return;
  const { status, messages } = describeError(error, req.path, { operationId: (res.locals.secrets as RequestContext | undefined)?.operation.operationId, body: req.body, cluster });
  // A full body budget is not the server's failure (and is not logged once per refused request).
  if (status >= 500 && !(error instanceof JsonBodyError)) console.error(`secrets: ${req.method} ${req.originalUrl}: ${messages.join("; ")}`);
  if (res.headersSent) return;
  // A body left unread (a refusal before reading it, or one over the limit) is not drained: the
  // connection closes after the answer.
  if (hasUnreadBody(req)) res.set("Connection", "close");
  if (error instanceof UnsupportedOperationError) res.set("Allow", error.allowed.join(", "));
  // Out of room (the body budget, a disk that refuses writes): the client may try again shortly.
  if (status === 503) res.set("Retry-After", String(RETRY_AFTER_SECONDS));
  // Sent as text, as the real server writes it (exactly application/json); the validator checks answers, not refusals.
  sendJsonText(res.status(status), JSON.stringify({ errors: messages }));
}

function hasUnreadBody(req: Request): boolean {
  return declaresBody(req) && !req.readableEnded;
}

/**
 * Where the real server words a missing member its own way (its lease endpoints check the id
 * themselves), by operation and member.
 */
type MissingWords = (body: Record<string, unknown>, cluster: SecretsCluster) => string | undefined;
const leaseIdWords: MissingWords = () => "lease_id must be specified";
const pushMfaKeyWords: MissingWords = (body) => pushMfaProblem(body) ?? "invalid push-MFA method";
const PUSH_MFA_KEY_WORDS = { secret_key: pushMfaKeyWords, integration_key: pushMfaKeyWords, api_hostname: pushMfaKeyWords };
/** A lease setting left out reads as "": the handler's first refusal. */
const leaseConfigWords: MissingWords = (body) => {
  const read = readLeaseConfigWrite(body);
  return "problem" in read ? read.problem : undefined;
};

const MISSING_MEMBER_WORDS: Readonly<Partial<Record<keyof operations, Readonly<Record<string, MissingWords>>>>> = {
  renewLease: { lease_id: leaseIdWords },
  renewLeaseLegacy: { lease_id: leaseIdWords },
  revokeLease: { lease_id: leaseIdWords },
  revokeLeaseLegacy: { lease_id: leaseIdWords },
  lookupLease: { lease_id: leaseIdWords },
  // The shares left out count as 0, which the attempt's checks then refuse in their own order.
  startRekey: { secret_shares: rekeyParameterWords, secret_threshold: rekeyParameterWords },
  // A key left out reads as empty: the first of the three the real system finds empty.
  createPushMfaMethod: PUSH_MFA_KEY_WORDS,
  updatePushMfaMethod: PUSH_MFA_KEY_WORDS,
  writeCloudCredentialsLeaseConfig: { lease: leaseConfigWords, lease_max: leaseConfigWords },
};

/** The members of a rekey body that failed the description's check, those of their described types (another reads as left out). */
function rekeyMembers(body: Record<string, unknown>): Partial<RekeyRequest> {
  const { secret_shares: shares, secret_threshold: threshold, pgp_keys: keys, backup, require_verification: verification } = body;
  return {
    ...(typeof shares === "number" && { secret_shares: shares }),
    ...(typeof threshold === "number" && { secret_threshold: threshold }),
    ...(Array.isArray(keys) && keys.every((key): key is string => typeof key === "string") && { pgp_keys: keys }),
    ...(typeof backup === "boolean" && { backup }),
    ...(typeof verification === "boolean" && { require_verification: verification }),
  };
}

/**
 * The first of the attempt's own refusals, or none (the usual words about the missing member): with
 * a seal that stores its keys, left-out shares would be taken as 1 (vault/rekey.go BarrierRekeyInit),
 * but the description requires them.
 */
function rekeyParameterWords(body: Record<string, unknown>, cluster: SecretsCluster): string | undefined {
  try {
    checkRekeyParameters(rekeyMembers(body), cluster.seal.get().type);
  } catch (error) {
    if (error instanceof InvalidRequestError) return error.message;
    throw error;
  }
  return undefined;
}

interface Refused {
  operationId?: string;
  body: unknown;
  cluster: SecretsCluster;
}

/** The validator's words about a member that may also be null, said of the member's own type. */
function withoutNullAlternative(message: string): string {
  return message.replace(/^(must be [a-z,]+),null$/, "$1").replace(/^(must be equal to one of the allowed values: .*), $/, "$1");
}

/** What is said of an `anyOf: [schema, null]` member besides its own schema's problems. */
const NULL_ALTERNATIVE_NOISE = new Set(["must be null", "must match a schema in anyOf"]);

function relevantProblems(problems: ValidationProblem[]): ValidationProblem[] {
  const said = problems.filter((p) => !NULL_ALTERNATIVE_NOISE.has(p.message));
  return said.length > 0 ? said : problems;
}

function describeProblem({ location, field, message: said }: ValidationProblem, refused: Refused): string {
  const message = withoutNullAlternative(said);
  const missing = /^must have required property '(.+)'$/.exec(message)?.[1];
  if (location === "body" && missing) {
    const words = (field === "" || field === missing) && refused.operationId !== undefined ? MISSING_MEMBER_WORDS[refused.operationId as keyof operations]?.[missing] : undefined;
    const said = words?.(objectMembers(refused.body) ?? {}, refused.cluster);
    if (said !== undefined) return said;
    // The real system's words for a missing field, naming it where it sits.
    const where = field.endsWith(missing) ? field : field ? `${field}.${missing}` : missing;
    return `'${where}' must be specified in request body as JSON`;
  }
  if (location === "body") return field ? `${field}: ${message}` : message;
  return `${location} parameter ${JSON.stringify(field)}: ${message}`;
}

function describeError(error: unknown, requestPath: string, refused: Refused): { status: number; messages: string[] } {
  if (error instanceof Refusal) return { status: error.status, messages: error.messages };
  if (error instanceof UnsupportedOperationError) return { status: error.status, messages: [...error.messages] };
  if (isSecretsError(error)) return { status: error.status, messages: [error.message] };
  const { status = 500, type, message = "internal error" } = (error ?? {}) as { status?: number; type?: string; message?: string };
  if (error instanceof StorageUnavailableError) return { status: 503, messages: [error.message] };
  if (error instanceof JsonBodyError) {
    const { problem } = error;
    if (problem.kind === "too-large") return { status: 413, messages: ["http: request body too large"] };
    if (problem.kind === "busy") return { status: 503, messages: [error.message] };
    return { status: 400, messages: [`failed to parse JSON input: ${error.message}`] };
  }
  if (type === "entity.parse.failed") return { status: 400, messages: [`failed to parse JSON input: ${message}`] };
  if (type === "entity.too.large") return { status: 413, messages: ["http: request body too large"] };
  const problems = validationProblems(error, requestPath);
  // The validator refuses a body that is not JSON with 415; the real system answers bad input with 400.
  if (problems && (status === 400 || status === 415)) return { status: 400, messages: [...new Set(relevantProblems(problems).map((problem) => describeProblem(problem, refused)))] };
  // The validator's own 404/405 for a request the service matched (its paths are the described ones): under a mount.
  if (status === 405) return { status, messages: [UNSUPPORTED_OPERATION] };
  if (status === 404) return { status, messages: [UNSUPPORTED_PATH] };
  return { status: 500, messages: [status === 500 ? message : `${status}: ${message}`] };
}
