// What a mesh handler gets beside its input, built from the request by the app: the service, who is
// asking (the token resolved once, when the request came in), and the blocking-query settings
// checked before validation. The one module of the handlers that reads an Express request.
import type { Request, Response } from "express";
import { BlockingParamError, parseWait, type BlockingWait } from "../blocking.ts";
import type { Authorizer } from "../domain/acl.ts";
import { MeshHttpError } from "../errors.ts";
import type { Caller, MeshService } from "../service.ts";
import { queryOf } from "../../shared/request-query.ts";

export interface MeshContext {
  readonly service: MeshService;
  /** Who is asking: the request's token as resolved before its body was read, in the request's namespace. */
  readonly caller: Caller;
  /** The secret the request presented (the token's read of itself finds it by that). */
  readonly token: string | undefined;
  /** `wait` and `index` as checked before validation, in the agent's words; undefined when neither was sent. */
  readonly blocking: BlockingWait | undefined;
  /** Runs a wait whose signal is aborted if the client goes away meanwhile. */
  whileConnected<T>(wait: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/** The token as the agent's parseToken finds it: `?token=`, then the token header, then a bearer token. */
export function tokenOf(req: Request): string | undefined {
  return queryText(queryOf(req).token) || req.get("x-mesh-token") || bearerToken(req.get("authorization"));
}

/**
 * A bearer token as agent/http.go parseToken reads the Authorization header: split on " ", the
 * scheme `bearer` in any case, and of the rest (trimmed) only the first word, as bearer tokens hold
 * no spaces (RFC 6750); a header without a space holds none.
 */
function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? "").split(" ");
  if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
  return parts.slice(1).join(" ").trim().split(" ")[0]!.trim() || undefined;
}

interface Resolved {
  secret: string | undefined;
  authorizer: Authorizer | undefined;
}

/** Each request's resolved token, from authentication to its handler (one resolution a request). */
const resolvedTokens = new WeakMap<Request, Resolved>();
/** Each request's checked `wait` and `index`. */
const blockingWaits = new WeakMap<Request, BlockingWait>();

/** Resolves the request's token (403 `ACL not found` when unknown or expired) and keeps it for the handler. */
export function authenticate(service: MeshService, req: Request): void {
  const secret = tokenOf(req);
  resolvedTokens.set(req, { secret, authorizer: service.acl.resolve(secret) });
}

/**
 * Refuses a bad `wait` or `index` with the agent's own 400 before anything else reads them, and keeps
 * them for the handler. (`_res` is unused: the app's stage still passes it.)
 */
export function checkBlockingParams(req: Request, _res?: Response): void {
  if (req.method !== "GET" && req.method !== "POST") return;
  const { wait, index } = queryOf(req);
  if (wait === undefined && index === undefined) return;
  blockingWaits.set(req, checkedWait(queryValue(wait), queryValue(index)));
}

/** Whether the request is a blocking query (it sent `wait` or `index`). */
export function isBlocking(req: Request): boolean {
  return blockingWaits.has(req);
}

/** `wait` and `index` as the agent parses them, its 400 when they do not parse. */
export function checkedWait(wait: string | undefined, index: string | undefined): BlockingWait {
  try {
    return parseWait(wait, index);
  } catch (error) {
    if (error instanceof BlockingParamError) throw new MeshHttpError(400, error.message);
    throw error;
  }
}

/** The context of an authenticated request. */
export function meshContext(service: MeshService, req: Request, res: Response): MeshContext {
  const resolved = resolvedTokens.get(req);
  // The app authenticates every request before its handler: anything else is a bug of the app.
  if (!resolved) throw new Error("mesh: a handler ran before the request was authenticated");
  return {
    service,
    caller: service.callerOf(resolved.authorizer, queryText(queryOf(req).ns), req.get("x-mesh-namespace")),
    token: resolved.secret,
    blocking: blockingWaits.get(req),
    whileConnected: (wait) => whileConnected(res, wait),
  };
}

async function whileConnected<T>(res: Response, wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
  // One listener for the whole wait, however often it wakes up, and none left behind.
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once("close", onClose);
  try {
    return await wait(gone.signal);
  } finally {
    res.off("close", onClose);
  }
}

/** A query value as text, or undefined (absent, or repeated: an array). */
function queryValue(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

/** A query value that is a non-empty string, or undefined. */
function queryText(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
