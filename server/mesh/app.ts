// The mesh reference server: express app, OpenAPI validation, handlers, plain-text errors.
import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { operationTable } from "../../generated/mesh/operations.ts";
import { answerWith, serviceApp } from "../shared/express-app.ts";
import { goMultiErrorText } from "../shared/go-text.ts";
import { collapseAlternatives, express, loadBundle, openApiValidator, routesOf, validationProblems, type ValidationProblem } from "../shared/openapi.ts";
import { requestPipeline } from "../shared/pipeline.ts";
import type { DeclaredToken } from "./acl-service.ts";
import { EntryDecodeError, normalizeEntryInput } from "./domain/config-entry.ts";
import type { ConfigEntry } from "./domain/entries.ts";
import { MeshHttpError } from "./errors.ts";
import { DurationInputError, durationText } from "./domain/durations.ts";
import { DurationError, parseDuration } from "../shared/go-duration.ts";
import { authenticate, boundMeshHandlers, checkBlockingParams, isBlocking, meshContext } from "./handlers/index.ts";
import { checkBodyShape, MAX_BODY_DEPTH } from "./domain/body-limits.ts";
import { decodeChainOverrides, meshGatewayModeProblem } from "./domain/chain-overrides.ts";
import { mapstructureErrorText, overrideInputProblems } from "./domain/weak-input.ts";
import { declaresBody, JsonBodyError, objectMembers, withJsonBody, type JsonLimits } from "../shared/json-body.ts";
import { checkNamespaceName, checkPartitionName } from "./domain/names.ts";
import { MeshService } from "./service.ts";
import { MemoryAclStore } from "./store/acl-store.ts";
import { MemoryConfigEntryStore, type ConfigEntryStore } from "./store/config-entry-store.ts";
import { DataDirectory, StorageUnavailableError } from "../shared/data-dir.ts";
import { RETRY_AFTER_SECONDS } from "../shared/bounds.ts";
import { corsFromEnv } from "../shared/cors.ts";
import { matchedRoute, operationHandler, operationMatch, RouteTable, type OperationRoute } from "../shared/operation-router.ts";
import type { Stage } from "../shared/stages.ts";
import { AnswerMemo } from "../shared/answer-memo.ts";
import { queryOf } from "../shared/request-query.ts";
import { compareVersions } from "./domain/version.ts";

export const MESH_BASE_PATH = "/v1";
export const MESH_DEFAULT_VERSION = "1.16.0";
/**
 * Everything under /v1/config/ is one handler of the agent, registered with GET and DELETE in that
 * order (agent/http_register.go), which its Allow lists after OPTIONS (agent/http.go wrap).
 */
const CONFIG_SUBTREE = `${MESH_BASE_PATH}/config/`;
const CONFIG_METHODS = ["GET", "DELETE"];
/**
 * The order the agent registers an endpoint's methods in, which its Allow keeps: GET, then PUT,
 * POST and DELETE (agent/http_register.go, e.g. `/v1/acl/policy/` with GET, PUT, DELETE).
 */
const REGISTRATION_ORDER = ["GET", "PUT", "POST", "DELETE"];
const inRegistrationOrder = (methods: string[]) => [...methods].sort((a, b) => REGISTRATION_ORDER.indexOf(a) - REGISTRATION_ORDER.indexOf(b));

/** The discovery-chain endpoint's path with an empty service name. */
const CHAIN_ROOT = `${MESH_BASE_PATH}/discovery-chain/`;

export interface MeshAppOptions {
  datacenter?: string;
  /** The version the server reports (GET /v1/agent/self); before 1.11 it also has the legacy ACL API. */
  version?: string;
  nodeName?: string;
  /** Cluster id used in target SNIs; random when absent. */
  clusterId?: string;
  /** Domain suffix of target SNIs. */
  domain?: string;
  /** When set, ACLs are enforced and this token may do everything. */
  managementToken?: string;
  /** Further tokens, as in MESH_ACL_FILE. */
  tokens?: DeclaredToken[];
  /** Entries to start with; they are validated like writes. */
  entries?: ConfigEntry[];
  /** A store to use as it is (tests use it to hold states a write would refuse). */
  store?: ConfigEntryStore;
  /**
   * A data directory (MESH_DATA_DIR): configuration entries, ACL policies, roles and tokens and their
   * indexes are kept there and survive a restart. Unset: everything lives in memory.
   */
  dataDir?: string;
  /** Response validation; on unless turned off (the benchmark measures both). */
  validateResponses?: boolean;
  /** Request and response validation as a whole; on unless turned off. */
  validate?: boolean;
}

/** Request body limits: 1 MB, and a shape no configuration entry or ACL object comes near. */
export const BODY_LIMITS: JsonLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: MAX_BODY_DEPTH,
  maxStringLength: 512 * 1024,
  maxObjectEntries: 10_000,
  maxArrayElements: 10_000,
};

export interface MeshApp {
  app: express.Express;
  service: MeshService;
  /** The open data directory, when there is one; close() releases it. */
  data?: DataDirectory;
}

export function createMeshApp(options: MeshAppOptions = {}): MeshApp {
  const data = options.dataDir ? DataDirectory.open(options.dataDir, "mesh") : undefined;
  try {
    return buildMeshApp(options, data);
  } catch (error) {
    data?.close();
    throw error;
  }
}

function buildMeshApp(options: MeshAppOptions, data: DataDirectory | undefined): MeshApp {
  const clusterId = options.clusterId ?? data?.table<string>("settings").get("cluster_id") ?? randomUUID();
  // The cluster id is part of every target SNI: a server restarted on its data keeps it.
  if (data && data.table<string>("settings").get("cluster_id") !== clusterId) data.table<string>("settings").put("cluster_id", clusterId);
  const store = options.store ?? new MemoryConfigEntryStore([], data);
  const service = new MeshService(
    {
      datacenter: options.datacenter ?? "dc1",
      version: options.version ?? MESH_DEFAULT_VERSION,
      nodeName: options.nodeName ?? "mesh-server-1",
      nodeId: randomUUID(),
      trustDomain: `${clusterId}.${options.domain ?? "mesh"}`,
      managementToken: options.managementToken,
      tokens: options.tokens ?? [],
    },
    store,
    new MemoryAclStore(data),
  );
  loadEntries(service, options.entries ?? []);

  const bundle = loadBundle("mesh");
  // JSON answers as the agent writes them: exactly application/json (json.Marshal, no newline), and
  // with `pretty` in the query indented by four spaces and ended by a newline (agent/http.go marshalJSON).
  const app = serviceApp({ jsonCharset: false, indentFor: (req) => (Object.hasOwn(queryOf(req), "pretty") ? "    " : undefined) });
  const version = service.settings.version;
  const routes = new RouteTable(routesOf(operationTable, MESH_BASE_PATH));
  // The described paths without a parameter: the agent's mux serves each exactly, not with a trailing "/".
  const exactPaths = new Set(Object.values(operationTable).filter((operation) => !operation.path.includes("{")).map((operation) => MESH_BASE_PATH + operation.path));
  const answers = new AnswerMemo({ version: () => service.stateVersion() });
  const validator =
    options.validate === false
      ? undefined
      : openApiValidator(bundle, { basePath: MESH_BASE_PATH, validateResponses: options.validateResponses !== false, allowUnknownQueryParameters: true });
  type Route = OperationRoute & { bodyRequired: boolean };
  // The chain endpoint's own path without a name, and the ACL endpoints' paths without an ID: their
  // methods, for the 405 of any other.
  const allowedMethods = (path: string) =>
    path === CHAIN_ROOT ? ["GET", "POST"] : path.startsWith(CONFIG_SUBTREE) ? CONFIG_METHODS : (SUBTREE_ROOTS[path]?.methods ?? inRegistrationOrder(routes.endpointMethods(path)));
  // Everything the real agent checks before the request reaches its endpoint, in its order.
  const stages = requestPipeline(
    {
      prepare: [
        corsFromEnv(), // CORS_ORIGINS (server/shared/cors.ts): preflights answered before authentication
        (req, _res, next) => {
          canonicalConfigPath(req);
          canonicalAclPath(req);
          next();
        },
      ],
      match: operationMatch(routes, validator !== undefined),
      authenticate: (req, res, next) => {
        // A path the agent's mux routes otherwise than this router: an ACL endpoint's path without
        // an ID, or an exact path with a trailing "/" (the Index handler's 404).
        if (req.path.endsWith("/") && answerSubtreeRoot(req, res)) return;
        // A path no endpoint serves is the mux's 404, and a method its endpoint does not have the
        // agent's 405 (its wrap checks them first): before the token or the body is looked at.
        if (!matchedRoute(res)) {
          // The agent serves every path under /v1/discovery-chain/ and takes the rest as the name: an
          // empty one is its 400 (agent/discovery_chain_endpoint.go DiscoveryChainRead).
          if (req.path === CHAIN_ROOT && (req.method === "GET" || req.method === "POST")) {
            // Its query parameters are parsed first (s.parse: a bad `wait` or `index` is that 400).
            checkBlockingParams(req);
            throw new MeshHttpError(400, "Missing chain name");
          }
          // The agent's configDelete refuses a path without a name before it looks at anything else.
          if (req.method === "DELETE" && /^\/v1\/config\/[^/]+$/.test(req.path)) throw new MeshHttpError(404, "Must provide both a kind and name to delete");
          const methods = allowedMethods(req.path);
          // An ACL API the reported version does not have is not registered with the mux at all.
          if (methods.length === 0 || !aclApiServed(req.path)) return notFound(req, res, version);
          // The agent's wrap answers OPTIONS for every endpoint with its methods, OPTIONS first, and
          // nothing else (agent/http.go wrap; TestHTTPAPI_OptionMethod_OSS). A CORS preflight was
          // answered before, by the prepare stage, when CORS_ORIGINS is set.
          if (req.method === "OPTIONS") {
            res.status(200).set("Allow", ["OPTIONS", ...methods].join(",")).end();
            return;
          }
          throw new MeshHttpError(405, `method ${req.method} not allowed`);
        }
        // An unknown token is refused before a byte of the body is read; resolved once, for the handler too.
        authenticate(service, req);
        next();
      },
      // The ACL rules of the resource itself are checked by the service's endpoints once the body is
      // decoded, as the agent decodes the request and its RPC endpoints then authorize it.
      authorize: (_req, _res, next) => next(),
      // Refuse before reading: the size (Content-Length, then the bytes as they arrive), then the shape
      // of the text (depth, string lengths, members) before JSON.parse builds anything. The real system
      // decodes every body as JSON whatever its Content-Type; so does this server (and the validator is told so).
      readBody: (req, res, next) =>
        withJsonBody(req, BODY_LIMITS, (body) => {
          // No body: req.body is left unset, as it is.
          if (body !== undefined) {
            req.body = body;
            req.headers["content-type"] = "application/json";
          }
          // A second, structural bound on the parsed value, before anything walks it recursively.
          const problem = checkBodyShape(req.body);
          if (problem) throw new MeshHttpError(400, decodeFailure(matchedRoute(res)?.operationId, problem));
          next();
        }),
      decode: (req, res, next) => {
        const route = matchedRoute<Route>(res)!;
        if (route.operationId === "applyConfigEntry") req.body = decodedEntry(req.body);
        if (route.operationId === "readDiscoveryChainWithOverrides") {
          req.body = decodeChainOverrides(req.body);
          // Values the request's mapstructure decode refuses (a bad duration, an object for text), in its words.
          const problems = overrideInputProblems(objectMembers(req.body) ?? {});
          if (problems.length > 0) throw new MeshHttpError(400, `Request decoding failed: ${mapstructureErrorText(problems)}`);
        }
        checkBodyDurations(route.operationId, req.body);
        // Checked after decoding, in the handler's words (agent/discovery_chain_endpoint.go DiscoveryChainRead).
        if (route.operationId === "readDiscoveryChainWithOverrides") {
          const problem = meshGatewayModeProblem(req.body);
          if (problem) throw new MeshHttpError(400, problem);
        }
        // Namespace and partition names, checked before the validator so a bad one gets the server's words.
        checkNames(req, route.operationId);
        checkBlockingParams(req, res);
        // The validator lets a request without any body through; the real decoder fails on it first.
        if (route.bodyRequired && req.body === undefined) throw new MeshHttpError(400, decodeFailure(route.operationId, "EOF"));
        // The agent reads the query parameters it needs and ignores the rest; of the common ones,
        // `dc` must name this datacenter (the only one there is) and `partition` the only partition.
        const refusal = checkDatacenterAndPartition(req, service.settings.datacenter);
        if (refusal) throw refusal;
        next();
      },
      // A chain read answered before goes out again as it was sent, until the state moves (the
      // handler keeps only reads that do not block: a blocking one has its own URL).
      kept: (req, res, next) => {
        if (req.method === "GET" && !isBlocking(req) && answers.sendKept(req, res)) return;
        next();
      },
      handle: operationHandler(routes, (route, req, res) => {
        const run = () => boundMeshHandlers(route.operationId, req, res, meshContext(service, req, res));
        // A read that does not block is answered again from the memo until the state moves (the
        // token was resolved, so refused when unknown or expired, in the step before).
        if (route.operationId === "readDiscoveryChain" && !isBlocking(req)) return answers.serve(req, res, run);
        return run();
      }),
      notFound: (req, res) => notFound(req, res, version),
    },
    validator,
  );
  /** Whether the ACL API a path belongs to exists at the reported version (legacy before 1.11, tokens from 1.4). */
  const aclApiServed = (path: string): boolean => {
    if (LEGACY_PATH.test(path)) return service.acl.legacyApiServed();
    if (TOKEN_API_PATH.test(path)) return service.acl.tokenApiServed();
    return true;
  };
  /**
   * Answers a path ending in "/" that the agent routes differently, and says whether it did. An ACL
   * endpoint's path without an ID reaches its handler with an empty ID, which refuses it with 400
   * after the method and ACL checks (agent/acl_endpoint.go ACLPolicyCRUD, ACLTokenCRUD, ACLRoleCRUD:
   * `Missing policy ID` and the like; ACLPolicyReadByName, ACLRoleReadByName: `Missing policy
   * Name`; agent/acl_endpoint_legacy.go ACLGet, ACLDestroy, ACLClone: `Missing ACL`); a write there
   * is left to the write's own route. An exact path with a trailing "/" matches no pattern of the
   * mux but "/": the Index handler's 404.
   */
  const answerSubtreeRoot = (req: Request, res: Response): boolean => {
    const root = SUBTREE_ROOTS[req.path];
    if (root === undefined) {
      const exact = req.path.slice(0, -1);
      // A path inside a subtree pattern (`/v1/acl/token/self/`) is that subtree's, not the Index's.
      const inSubtree = Object.keys(SUBTREE_ROOTS).some((prefix) => exact.startsWith(prefix)) || exact.startsWith(`${MESH_BASE_PATH}/config/`);
      if (!exactPaths.has(exact) || inSubtree) return false;
      notFound(req, res, version);
      return true;
    }
    const served = root.api === "legacy" ? service.acl.legacyApiServed() : service.acl.tokenApiServed();
    if (!served) {
      notFound(req, res, version);
      return true;
    }
    if (req.method === "PUT" && root.writeRoute) return false;
    if (req.method === "OPTIONS") {
      res.status(200).set("Allow", ["OPTIONS", ...root.methods].join(",")).end();
      return true;
    }
    if (!root.methods.includes(req.method)) throw new MeshHttpError(405, `method ${req.method} not allowed`);
    if (!service.acl.enabled) throw new MeshHttpError(401, "ACL support disabled");
    throw new MeshHttpError(400, root.missing);
  };
  answerWith(app, stages, (error: unknown, req: Request, res: Response, next: NextFunction) => {
    // As the agent's 405 (agent/http.go wrap: MethodNotAllowedError with OPTIONS before the
    // endpoint's methods): the methods in Allow, joined by ",".
    if ((error as { status?: number })?.status === 405 && !res.headersSent) {
      res.set("Allow", ["OPTIONS", ...allowedMethods(req.path)].join(","));
    }
    renderError(error, req, res, next);
  });
  return { app, service, ...(data ? { data } : {}) };
}

/** The legacy token API's paths (agent/http_register.go before 1.11). */
const LEGACY_PATH = new RegExp(`^${MESH_BASE_PATH}/acl/(create|update|list|info/|clone/|destroy/)`);
/** The paths of the policy, role and token API (from 1.4). */
const TOKEN_API_PATH = new RegExp(`^${MESH_BASE_PATH}/acl/(polic|role|token)`);

/**
 * The ACL endpoints registered as subtree patterns (agent/http_register.go): their methods, and what
 * their handlers say to an empty ID. `writeRoute`: a PUT there is this server's write route.
 */
const SUBTREE_ROOTS: Record<string, { methods: string[]; missing: string; api: "token" | "legacy"; writeRoute?: boolean }> = {
  [`${MESH_BASE_PATH}/acl/policy/`]: { methods: ["GET", "PUT", "DELETE"], missing: "Missing policy ID", api: "token", writeRoute: true },
  [`${MESH_BASE_PATH}/acl/role/`]: { methods: ["GET", "PUT", "DELETE"], missing: "Missing role ID", api: "token", writeRoute: true },
  [`${MESH_BASE_PATH}/acl/token/`]: { methods: ["GET", "PUT", "DELETE"], missing: "Missing token ID", api: "token", writeRoute: true },
  [`${MESH_BASE_PATH}/acl/policy/name/`]: { methods: ["GET"], missing: "Missing policy Name", api: "token" },
  [`${MESH_BASE_PATH}/acl/role/name/`]: { methods: ["GET"], missing: "Missing role Name", api: "token" },
  [`${MESH_BASE_PATH}/acl/info/`]: { methods: ["GET"], missing: "Missing ACL", api: "legacy" },
  [`${MESH_BASE_PATH}/acl/destroy/`]: { methods: ["PUT"], missing: "Missing ACL", api: "legacy" },
  [`${MESH_BASE_PATH}/acl/clone/`]: { methods: ["PUT"], missing: "Missing ACL", api: "legacy" },
};

/**
 * What the agent answers for a path no endpoint serves: its mux sends every such path to the Index
 * handler (agent/http.go Index). From 1.9 on Index says why, a line written with fmt.Fprintln
 * (Content-Type sniffed as text/plain; charset=utf-8); before, it wrote the bare 404 status.
 */
function notFound(req: Request, res: Response, version: string): void {
  if (compareVersions(version, "1.9.0") < 0) {
    res.status(404).end();
    return;
  }
  const text = req.path.includes("/v1/")
    ? "Invalid URL path: not a recognized HTTP API endpoint\n"
    : "Invalid URL path: if attempting to use the HTTP API, ensure the path starts with '/v1/'\n";
  res.status(404).type("text/plain").send(text);
}

/** Applies start-up entries like writes, so a bad file fails the start with the entry named. */
function loadEntries(service: MeshService, entries: ConfigEntry[]): void {
  const bootstrap = { namespace: "default" };
  entries.forEach((entry, i) => {
    try {
      service.applyEntry(bootstrap, normalizeEntryInput(entry) as ConfigEntry, undefined);
    } catch (error) {
      const { Kind = "?", Name = "?" } = (entry ?? {}) as Partial<ConfigEntry>;
      throw new Error(`configuration entry [${i}] (${Kind} ${Name}): ${(error as Error).message}`);
    }
  });
}

/**
 * The agent splits `/v1/config/<kind>/<name>` once, so a name may hold `/` unencoded (and a
 * trailing `/` is part of the name): the rest of such a path is re-encoded as one segment, which
 * the router then decodes once, for the ACL check and the handler alike. The validator routes on
 * originalUrl: both carry the one canonical form.
 */
function canonicalConfigPath(req: Request): void {
  const match = /^(\/v1\/config\/[^/?]+\/)([^?]*\/[^?]*)(\?.*)?$/.exec(req.url);
  if (match) req.url = req.originalUrl = `${match[1]}${match[2]!.replaceAll("/", "%2F")}${match[3] ?? ""}`;
}

/**
 * The agent's mux serves `/v1/acl/token/`, `/v1/acl/policy/`, `/v1/acl/role/` (and the `name/` ones)
 * as prefixes and its CRUD handlers take the rest of the path as the ID or name, a trailing `/`
 * included: `/v1/acl/token/self/` reads the accessor `self/` (ACLTokenCRUD, then ACLTokenGet: `403 ACL
 * not found`), not the caller's token. Express would drop that `/`; it is encoded so that the router
 * keeps it in the parameter.
 */
function canonicalAclPath(req: Request): void {
  const match = /^(\/v1\/acl\/(token|policy|role)\/(?:name\/)?)([^/?]+)\/(\?.*)?$/.exec(req.url);
  if (!match) return;
  const [, prefix, kind, id, query] = match;
  // `/v1/acl/policy/name/` and `/v1/acl/role/name/` are registered patterns of their own (a missing name).
  if (id === "name" && kind !== "token" && !prefix!.endsWith("/name/")) return;
  req.url = req.originalUrl = `${prefix}${id}%2F${query ?? ""}`;
}

/**
 * Durations of tokens, parsed as the agent's decoder parses them (the token's UnmarshalJSON), before
 * the validator: a bad one is the decoder's 400 and words, not a pattern mismatch. (Entries and the
 * chain request's overrides go through mapstructure: weak-input.ts.)
 */
const BODY_DURATIONS: Record<string, { field: string; prefix: string }> = {
  createAclToken: { field: "ExpirationTTL", prefix: "Token decoding failed: " },
  updateAclToken: { field: "ExpirationTTL", prefix: "Token decoding failed: " },
};

function checkBodyDurations(operationId: string, body: unknown): void {
  const rule = BODY_DURATIONS[operationId];
  if (!rule) return;
  const value = objectMembers(body)?.[rule.field];
  if (typeof value !== "string" && typeof value !== "number") return;
  try {
    parseDuration(durationText(value) as string);
  } catch (error) {
    if (error instanceof DurationError || error instanceof DurationInputError) throw new MeshHttpError(400, rule.prefix + error.message);
    throw error;
  }
}

function checkNames(req: Request, operationId: string): void {
  for (const ns of [queryOf(req).ns, req.get("x-mesh-namespace")]) {
    const problem = typeof ns === "string" && ns !== "" ? checkNamespaceName(ns) : undefined;
    if (problem) throw new MeshHttpError(400, problem);
  }
  const body = (typeof req.body === "object" && req.body !== null ? req.body : {}) as Record<string, unknown>;
  if (operationId === "applyConfigEntry" && typeof body.Namespace === "string" && body.Namespace !== "") {
    const problem = checkNamespaceName(body.Namespace);
    if (problem) throw new MeshHttpError(400, problem);
  }
  if (operationId === "createAclToken" || operationId === "updateAclToken") {
    const namespace = typeof body.Namespace === "string" && body.Namespace !== "" ? checkNamespaceName(body.Namespace) : undefined;
    const partition = typeof body.Partition === "string" && body.Partition !== "" ? checkPartitionName(body.Partition) : undefined;
    if (namespace ?? partition) throw new MeshHttpError(400, `Invalid Token: ${namespace ?? partition}`);
  }
}

/** A configuration entry as the agent decodes it (field spellings, durations), or its words for why not. */
function decodedEntry(body: unknown): unknown {
  try {
    return normalizeEntryInput(body);
  } catch (error) {
    if (!(error instanceof EntryDecodeError)) throw error;
    throw new MeshHttpError(400, `Request decoding failed: ${error.message}`);
  }
}

function renderError(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  // A client that went away mid-request is not a failure of the server: nothing to log or answer.
  if (clientWentAway(error, req)) return;
  const { status, message } = describeError(error, req.path, req.method, matchedRoute(res)?.operationId);
  // MeshHttpErrors are answers the real system gives (its 500s included); anything else is a bug.
  if (status >= 500 && status !== 503 && !(error instanceof MeshHttpError)) console.error(`mesh: ${req.method} ${loggedUrl(req)}: ${message}`);
  if (status === 503 && error instanceof StorageUnavailableError) console.error(`mesh: ${req.method} ${loggedUrl(req)}: ${error.message} (${error.code})`);
  if (res.headersSent) return;
  if (error instanceof MeshHttpError) res.set(error.headers);
  // Out of room (body budget, a disk that refuses writes): the client may try again shortly.
  if (status === 503) res.set("Retry-After", String(RETRY_AFTER_SECONDS));
  // A body left unread (refused before reading it, or cut short) is not drained: the connection
  // closes after the answer (and a client waiting for 100 Continue is not kept waiting).
  if (declaresBody(req) && !req.readableEnded) res.set("Connection", "close");
  // An answer with no body has no Content-Type, as Go writes a bare WriteHeader (a missing role).
  if (message === "") {
    res.status(status).end();
    return;
  }
  res.status(status).type("text/plain").send(message);
}

function checkDatacenterAndPartition(req: Request, datacenter: string): MeshHttpError | undefined {
  const { dc, partition } = queryOf(req);
  // Another datacenter would be reached over the WAN; this server has none (the RPC layer's words).
  if (typeof dc === "string" && dc !== "" && dc !== datacenter) return new MeshHttpError(500, "No path to datacenter");
  if (typeof partition === "string" && partition !== "") {
    const problem = checkPartitionName(partition);
    if (problem) return new MeshHttpError(400, problem);
    if (partition !== "default") return new MeshHttpError(400, `Partition ${JSON.stringify(partition)} does not exist`);
  }
  return undefined;
}

/** The request line for a log, without the token a client may have put in the query. */
function loggedUrl(req: Request): string {
  return req.originalUrl.replace(/([?&]token=)[^&]*/g, "$1<hidden>");
}

function clientWentAway(error: unknown, req: Request): boolean {
  if (error instanceof JsonBodyError && error.problem.kind === "aborted") return true;
  const { type, code } = (error ?? {}) as { type?: string; code?: string };
  return type === "request.aborted" || code === "ECONNRESET" || code === "ECONNABORTED" || req.socket?.destroyed === true;
}

/**
 * How each ACL write words a body it cannot decode (agent/acl_endpoint.go: `Policy decoding failed`
 * in aclPolicyWriteInternal, `Role decoding failed` in ACLRoleWrite, `Token decoding failed` in
 * aclTokenSetInternal and ACLTokenClone; agent/acl_endpoint_legacy.go aclSet: `Request decode
 * failed`). Every other body is the agent's `Request decoding failed`.
 */
const DECODE_PREFIXES: Record<string, string> = {
  createAclPolicy: "Policy decoding failed",
  updateAclPolicy: "Policy decoding failed",
  createAclRole: "Role decoding failed",
  updateAclRole: "Role decoding failed",
  createAclToken: "Token decoding failed",
  updateAclToken: "Token decoding failed",
  cloneAclToken: "Token decoding failed",
  createLegacyAclToken: "Request decode failed",
  updateLegacyAclToken: "Request decode failed",
};

function decodeFailure(operationId: string | undefined, text: string): string {
  return `${DECODE_PREFIXES[operationId ?? ""] ?? "Request decoding failed"}: ${text}`;
}

/**
 * A refused body in the decoder's words. The ACL writes decode with encoding/json and
 * DisallowUnknownFields (lib.DecodeJSON), which stops at the first problem and names an unknown key
 * `json: unknown field "Foo"`; configuration entries and the chain's overrides go through
 * mapstructure, whose words are `invalid config key "Foo"`, and list every problem.
 */
function describeProblems(all: ValidationProblem[], operationId: string | undefined): string {
  // A weakly typed field is a list of alternatives (a number, text, null...): name only the problems of the one of the value's type.
  const problems = operationId === "applyConfigEntry" ? collapseAlternatives(all) : all;
  // Keys the decoder left unused are its answer whenever there are any: it takes every value the
  // description's other checks could name (weak-input.ts refused the others first), and the
  // alternatives of a weakly typed field (a list or a single value, `null`) would only repeat them.
  const unknownKeys = problems.filter(isUnknownKey);
  if (operationId === "applyConfigEntry" && unknownKeys.length > 0) return unusedKeysError([...new Set(unknownKeys.map((problem) => problem.field))]);
  if (operationId === undefined || !(operationId in DECODE_PREFIXES)) return problems.map((problem) => describeProblem(problem, false)).join("; ");
  return describeProblem(problems[0]!, true);
}

const isUnknownKey = (problem: ValidationProblem): boolean => problem.message === "must NOT have additional properties";

/**
 * A configuration entry's unknown keys as DecodeConfigEntry reports them: each key mapstructure left
 * unused is an `invalid config key "<path>"` error appended to a go-multierror, whose text is its
 * ListFormatFunc (agent/structs/config_entry.go DecodeConfigEntry; go-multierror format.go).
 */
function unusedKeysError(fields: string[]): string {
  return goMultiErrorText(fields.map((field) => `invalid config key "${field}"`));
}

function describeProblem({ location, field, message }: ValidationProblem, goJson: boolean): string {
  // The real decoder's words for a key it does not know.
  if (isUnknownKey({ location, field, message })) {
    return goJson ? `json: unknown field "${field.replace(/^.*[.\]]/, "")}"` : `invalid config key "${field}"`;
  }
  const where = location === "body" ? field : `${location} parameter ${JSON.stringify(field)}`;
  return where ? `${where} ${message}` : message;
}

function describeError(error: unknown, requestPath: string, method: string, operationId: string | undefined): { status: number; message: string } {
  if (error instanceof MeshHttpError) return { status: error.status, message: error.message };
  if (error instanceof StorageUnavailableError) return { status: 503, message: error.message };
  if (error instanceof JsonBodyError) {
    if (error.problem.kind === "too-large") return { status: 413, message: "request entity too large" };
    if (error.problem.kind === "busy") return { status: 503, message: error.message };
    return { status: 400, message: decodeFailure(operationId, error.message) };
  }
  const status = (error as { status?: number })?.status ?? 500;
  if ((error as { type?: string })?.type === "entity.parse.failed") {
    return { status: 400, message: decodeFailure(operationId, (error as Error).message) };
  }
  const problems = validationProblems(error, requestPath, { keywords: true });
  if (problems && status === 400) {
    return { status, message: decodeFailure(operationId, describeProblems(problems, operationId)) };
  }
  if (status === 405) return { status, message: `method ${method} not allowed` };
  return { status, message: (error as Error)?.message ?? "internal error" };
}
