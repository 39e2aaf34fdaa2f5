// The mock's front: a thin HTTP layer in front of Prism that makes the mock tell the truth about
// errors. Prism answers an invalid request with the operation's first documented error example,
// whatever was wrong; here every request is first checked against the description (the contract
// checker of scripts/contract/, the one the traffic validator uses) and a request that breaks it is
// answered in the API's own error envelope with a message naming the violation, the status the
// reference server would give. Valid requests go to Prism unchanged, so `Prefer` still picks
// examples. Where the API is lenient (the secrets service and the mesh decode any body as JSON; the
// secrets service ignores unknown query parameters and takes PUT for POST), the front is too.
import { Agent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { contractChecker, type Violation } from "../contract/checker.ts";
import { cookiesOf, deref, isObject, mediaTypeOf, securityAlternatives, type JsonObject, type OpenApiDoc, type Operation } from "../contract/document.ts";
import { MAX_ERRORS } from "../../server/org-platform/domain/errors.ts";
import { acceptListMethod } from "../../server/secrets/http/list-method.ts";

/** Why the front answers a request itself. */
export type MockRefusal =
  | { kind: "not-found"; path: string }
  /** `list=true` (or `LIST`) on a path whose operation is no list (profiles with `listMethod` only). */
  | { kind: "not-a-list"; path: string }
  /** A `Prefer` header that no documented answer matches: Prism's status, in the API's envelope. */
  | { kind: "unmatched-prefer"; status: number; prefer: string }
  | { kind: "method-not-allowed"; method: string; path: string }
  | { kind: "unauthenticated" }
  /** A body longer than the mock takes (the profile's maxBody, else MAX_BODY). */
  | { kind: "too-large" }
  | { kind: "invalid"; operation: Operation; violations: Violation[] };

export interface MockAnswer {
  status: number;
  /** Undefined for an answer without a body (a documented error response with no content). */
  contentType: string | undefined;
  body: string;
}

export interface MockProfile {
  /** Whether query parameters the description does not name are refused (as the server does). */
  refusesUnknownQuery: boolean;
  /** Whether a body is decoded as JSON whatever its Content-Type (as the server does). */
  bodyIsAlwaysJson: boolean;
  /** Whether PUT is taken where only POST is described, and the other way round. */
  putIsPost: boolean;
  /** Whether the `LIST` method is taken on the wire, as `GET` with `list=true` (the secrets service's lists). */
  listMethod?: boolean;
  /** The longest body taken (as the server takes), else MAX_BODY. */
  maxBody?: number;
  render(refusal: MockRefusal): MockAnswer;
}

/** "Protocol", "query parameter \"bogus\"", "request body": what a violation is about. */
export function subjectOf(v: Pick<Violation, "pointer">): string {
  const [, , where, ...rest] = v.pointer.split("/");
  const name = rest.map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
  if (where === "body") return name || "request body";
  if (where === "headers" && name === "content-type") return "Content-Type";
  if (where === "query" || where === "path" || where === "header" || where === "headers" || where === "cookie") return `${where.replace(/s$/, "")} parameter "${name}"`;
  return v.pointer;
}

/** How the checker's reasons name a subject when they start with it. */
const SUBJECT_WORDS: Record<string, string> = { "request body": "body ", "Content-Type": "content type " };

/** One line naming the violation: `Protocol must be equal to one of the allowed values: ...`. */
export function describeViolation(v: Pick<Violation, "pointer" | "reason">): string {
  const subject = subjectOf(v);
  if (/^required \w+ parameter is missing$/.test(v.reason)) return `${subject} is required`;
  // A reason about a whole body or the Content-Type names it in its own words ("body is not valid
  // JSON", "content type text/plain is not documented"): said once.
  const saidAs = SUBJECT_WORDS[subject];
  if (saidAs !== undefined && v.reason.startsWith(saidAs)) return `${subject} ${v.reason.slice(saidAs.length)}`;
  return v.reason.startsWith(subject) ? v.reason : `${subject} ${v.reason}`;
}

/** The org platform's errors: at most MAX_ERRORS in one answer, the first ones, as its server lists them. */
const jsonApi = (status: number, errors: object[]): MockAnswer => ({
  status,
  contentType: "application/vnd.api+json",
  body: JSON.stringify({ errors: errors.slice(0, MAX_ERRORS).map((e) => ({ status: String(status), ...e })) }),
});
const secretsErrors = (status: number, errors: string[]): MockAnswer => ({ status, contentType: "application/json", body: JSON.stringify({ errors }) });
const text = (status: number, body: string): MockAnswer => ({ status, contentType: "text/plain; charset=utf-8", body });
const documents = (operation: Operation, status: number) => isObject(operation.operation.responses) && String(status) in operation.operation.responses;

/** What the mock says of a `Prefer` that no documented answer of the operation matches. */
export function unmatchedPrefer(prefer: string): string {
  return `the mock has no documented answer for Prefer: ${prefer}`;
}

/** The longest body a mock takes unless its profile says otherwise (the org platform's and the mesh's limit). */
const MAX_BODY = 1 << 20;

/** The longest body Prism takes (its body parser's `10mb`): it answers a longer one in its own words. */
export const PRISM_MAX_BODY = 10 * 1024 * 1024;

/** The profiles of this project's APIs: each one's envelope and leniency, as its reference server has them. */
export const MOCK_PROFILES: Record<string, MockProfile> = {
  mesh: {
    // The agent ignores query parameters an endpoint does not use; so does the mesh server.
    refusesUnknownQuery: false,
    bodyIsAlwaysJson: true,
    putIsPost: false,
    render(r) {
      if (r.kind === "not-found" || r.kind === "not-a-list") return text(404, "not found");
      if (r.kind === "unmatched-prefer") return text(r.status, unmatchedPrefer(r.prefer));
      if (r.kind === "method-not-allowed") return text(405, `method ${r.method} not allowed`);
      if (r.kind === "unauthenticated") return text(403, "Permission denied");
      if (r.kind === "too-large") return text(413, "request entity too large");
      return text(400, `Request decoding failed: ${r.violations.map(describeViolation).join("; ")}`);
    },
  },
  secrets: {
    refusesUnknownQuery: false,
    bodyIsAlwaysJson: true,
    putIsPost: true,
    listMethod: true,
    // The reference server takes 32 MiB (the real service's default max_request_size); Prism takes
    // 10 MiB and refuses more in its own words, so the mock says its 413 from there.
    maxBody: PRISM_MAX_BODY,
    render(r) {
      if (r.kind === "unmatched-prefer") return secretsErrors(r.status, [unmatchedPrefer(r.prefer)]);
      if (r.kind === "not-found") return secretsErrors(404, [`no handler for route "${r.path.replace(/^\//, "")}". route entry not found.`]);
      // As the server routes a list: with its trailing slash, which only list routes take (the rekey
      // paths, answered by the HTTP layer, say 405 with no message).
      if (r.kind === "not-a-list") return /^\/sys\/rekey\/(init|update|verify)$/.test(r.path) ? secretsErrors(405, []) : secretsErrors(404, ["unsupported path"]);
      if (r.kind === "method-not-allowed") return secretsErrors(405, ["unsupported operation"]);
      if (r.kind === "unauthenticated") return secretsErrors(403, ["permission denied"]);
      if (r.kind === "too-large") return secretsErrors(413, ["http: request body too large"]);
      // A list operation called without list=true is a read the path does not have.
      if (r.operation.operation["x-http-method"] === "LIST" && r.violations.some((v) => v.pointer === "/request/query/list" && /missing/.test(v.reason))) {
        return secretsErrors(405, ["unsupported operation"]);
      }
      return secretsErrors(400, r.violations.map(describeViolation));
    },
  },
  "org-platform": {
    // Clients send parameters of other versions: ignored, not refused (as the server does).
    refusesUnknownQuery: false,
    bodyIsAlwaysJson: false,
    putIsPost: false,
    render(r) {
      if (r.kind === "not-found" || r.kind === "not-a-list") return jsonApi(404, [{ title: "not found" }]);
      if (r.kind === "unmatched-prefer") return jsonApi(r.status, [{ title: "no such example", detail: unmatchedPrefer(r.prefer) }]);
      if (r.kind === "method-not-allowed") return jsonApi(405, [{ title: "method not allowed", detail: `${r.method} is not allowed on this path.` }]);
      if (r.kind === "unauthenticated") return jsonApi(401, [{ title: "unauthorized" }]);
      if (r.kind === "too-large") return jsonApi(413, [{ title: "payload too large", detail: `The request body is larger than ${MAX_BODY} bytes (1 MB).` }]);
      const contentType = r.violations.find((v) => v.pointer === "/request/headers/content-type");
      if (contentType) {
        const status = documents(r.operation, 415) ? 415 : 422;
        return jsonApi(status, [{ title: "invalid content type", detail: describeViolation(contentType), source: { header: "Content-Type" } }]);
      }
      const path = r.violations.filter((v) => v.pointer.startsWith("/request/path/"));
      if (path.length) return jsonApi(404, [{ title: "not found" }]);
      const body = r.violations.filter((v) => v.pointer.startsWith("/request/body"));
      if (body.length) {
        return jsonApi(
          422,
          body.map((v) => ({ title: "invalid attribute", detail: describeViolation(v), source: { pointer: v.pointer.slice("/request/body".length) || "/data" } })),
        );
      }
      return jsonApi(
        400,
        r.violations.map((v) => ({ title: "invalid query parameter", detail: describeViolation(v), source: { parameter: v.pointer.split("/").slice(3).join("/") } })),
      );
    },
  },
};

/**
 * For a client that takes any media type: the first documented answer type Prism can write (JSON,
 * XML or text), when the first documented one is not (a vendor type such as GitHub's
 * `application/vnd.github.object`, beside `application/json`). Prism picks the first one and
 * answers 500 "Cannot find serializer" for an object example of it. Undefined: Prism's own choice.
 */
function writableMediaType(doc: OpenApiDoc, operation: Operation): string | undefined {
  const responses = isObject(operation.operation.responses) ? operation.operation.responses : {};
  for (const response of Object.values(responses)) {
    const content = deref<JsonObject>(doc, response).value.content;
    const types = isObject(content) ? Object.keys(content) : [];
    if (types.length < 2 || prismWrites(types[0]!)) continue;
    return types.find(prismWrites);
  }
  return undefined;
}

/** The media types Prism serializes an object as (its serialize.js: JSON, XML, text). */
function prismWrites(mediaType: string): boolean {
  return /^application\/(json|xml|[^;]*\+(json|xml))(;|$)|^text\//i.test(mediaTypeOf(mediaType));
}

/** Prism's answer, whole. */
interface PrismAnswer {
  status: number;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** Prism answered only an informational (1xx) status, which HTTP never takes as a final answer. */
class InformationalOnly extends Error {
  constructor(readonly status: number) {
    super(`Prism answered ${status}, an informational status, as its answer`);
  }
}

/**
 * A request to Prism, made again while Prism refuses connections (for up to 2 s): Prism closes its
 * port while it restarts, which it does when the description file changes, and the request never
 * reached it. Through Node's HTTP client, not fetch: fetch turns a 407 into a network error (the
 * Fetch standard's rule for proxy authentication), and a description may document a 407.
 */
async function askPrism(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<PrismAnswer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await new Promise<PrismAnswer>((resolve, reject) => {
        // Asked for no content coding (the answer's bytes are passed on as they are), and with the whole
        // body at hand, for no 100 Continue: any informational status is then Prism's answer.
        const headers: OutgoingHttpHeaders = Object.fromEntries(Object.entries(init.headers).filter(([name]) => !["accept-encoding", "expect"].includes(name.toLowerCase())));
        // Its length said, whatever the method: Node sends a DELETE's body without one otherwise.
        if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
        const request = httpRequest(url, { method: init.method, headers, agent: PRISM_AGENT }, (response) => {
          // A 101 without an Upgrade asked for comes as a response of its own.
          if ((response.statusCode ?? 200) < 200) return informational(response.statusCode!);
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }));
          response.on("error", reject);
        });
        // Prism writes a documented 1xx as if it were an answer, and no answer after it.
        const informational = (status: number) => {
          reject(new InformationalOnly(status));
          request.destroy();
        };
        request.on("information", (info) => informational(info.statusCode));
        request.on("upgrade", (response, socket) => {
          socket.destroy();
          informational(response.statusCode ?? 101);
        });
        request.on("error", reject);
        request.end(init.body);
      });
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ECONNREFUSED" || attempt >= PRISM_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
const PRISM_AGENT = new Agent({ keepAlive: true });
const PRISM_ATTEMPTS = 40;

/** Prism's request findings from its `sl-violations` header, as violations; [] when there are none. */
export function requestViolations(header: string | null): Violation[] {
  if (!header) return [];
  try {
    const found = JSON.parse(header) as { location?: string[]; message?: string }[];
    return found
      .filter((v) => Array.isArray(v.location) && v.location[0] === "request")
      .map((v) => {
        const [, where = "", ...rest] = v.location!;
        const pointer = ["", "request", where === "header" ? "headers" : where, ...rest].filter((t, i) => i < 2 || t !== "").join("/");
        return { kind: where === "body" ? "request-body" : "request-parameter", operation: "", pointer, reason: String(v.message ?? "breaks the description") } as Violation;
      });
  } catch {
    return [];
  }
}

/** Whether the request carries credentials for one of the operation's security alternatives. */
function authenticated(doc: OpenApiDoc, operation: Operation, headers: IncomingMessage["headers"], rawQuery: string): boolean {
  const alternatives = securityAlternatives(doc, operation);
  if (alternatives.length === 0) return true;
  return alternatives.some((schemes) =>
    schemes.every((found) => {
      // A scheme components.securitySchemes does not define (the lint's error): nothing says what it asks for.
      if (!found) return true;
      const scheme = found as Record<string, string>;
      if (scheme.type === "apiKey" && scheme.in === "header") return Boolean(headers[scheme.name!.toLowerCase()]);
      if (scheme.type === "apiKey" && scheme.in === "query") return Boolean(new URLSearchParams(rawQuery).get(scheme.name!));
      if (scheme.type === "apiKey" && scheme.in === "cookie") return cookiesOf(headers.cookie).some(([name, value]) => name === scheme.name && value !== "");
      if (scheme.type === "http") return new RegExp(`^${scheme.scheme}\\s+\\S`, "i").test(headers.authorization ?? "");
      // OAuth 2 and OpenID Connect access tokens are bearer tokens (RFC 6750's Authorization header).
      if (scheme.type === "oauth2" || scheme.type === "openIdConnect") return /^bearer\s+\S/i.test(headers.authorization ?? "");
      return true;
    }),
  );
}

export interface FrontOptions {
  doc: OpenApiDoc;
  profile: MockProfile;
  /** Prism's address, without a trailing slash. */
  upstream: string;
  /** Called for every request the front answers itself. */
  log?(line: string): void;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade", "content-encoding"]);

/** The front as a request handler. */
export function mockFront({ doc, profile, upstream, log }: FrontOptions) {
  const checker = contractChecker(doc, { unknownQueryParameters: profile.refusesUnknownQuery ? "refuse" : "allow" });

  function decide(method: string, path: string, rawQuery: string, headers: IncomingMessage["headers"], body: string): { refusal?: MockRefusal; method: string; headers: Record<string, string>; operation?: Operation } {
    const forwarded: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) forwarded[name] = Array.isArray(value) ? value.join(", ") : value;
    if (profile.bodyIsAlwaysJson && body !== "") forwarded["content-type"] = "application/json";

    let matched = checker.match(method, path);
    if (!matched && profile.putIsPost && (method === "PUT" || method === "POST")) {
      const other = method === "PUT" ? "POST" : "PUT";
      matched = checker.match(other, path);
      if (matched) method = other;
    }
    if (!matched) {
      const otherMethod = ["GET", "PUT", "POST", "DELETE", "PATCH"].some((m) => checker.match(m, path));
      return { refusal: otherMethod ? { kind: "method-not-allowed", method, path } : { kind: "not-found", path }, method, headers: forwarded };
    }
    if (!authenticated(doc, matched.operation, headers, rawQuery)) return { refusal: { kind: "unauthenticated" }, method, headers: forwarded };
    if (profile.listMethod && matched.operation.operation["x-http-method"] !== "LIST" && /^(1|t|T|TRUE|true|True)$/.test(new URLSearchParams(rawQuery).get("list") ?? "")) {
      return { refusal: { kind: "not-a-list", path }, method, headers: forwarded };
    }
    const query = [...new URLSearchParams(rawQuery)];
    const violations = checker.checkRequest(matched, { method, path, query, rawQuery, headers: forwarded, body });
    if (violations.length) return { refusal: { kind: "invalid", operation: matched.operation, violations }, method, headers: forwarded };
    const accept = forwarded.accept?.trim();
    if (!accept || accept === "*/*") {
      const writable = writableMediaType(doc, matched.operation);
      // Still any type, that one first: an answer that documents only others keeps them.
      if (writable) forwarded.accept = `${writable}, */*;q=0.1`;
    }
    return { method, headers: forwarded, operation: matched.operation };
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > (profile.maxBody ?? MAX_BODY)) {
        // In the API's envelope, as its server says it.
        const answer = profile.render({ kind: "too-large" });
        res.writeHead(answer.status, { ...(answer.contentType ? { "Content-Type": answer.contentType } : {}), Connection: "close" }).end(answer.body);
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://mock");
    const method = (req.method ?? "GET").toUpperCase();
    // CORS preflights are Prism's (it allows any origin).
    const preflight = method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
    const decision: ReturnType<typeof decide> = preflight
      ? { method, headers: Object.fromEntries(Object.entries(req.headers).filter(([n]) => !HOP_BY_HOP.has(n))) as Record<string, string> }
      : decide(method, url.pathname, url.search.slice(1), req.headers, body);
    const refuse = (refusal: MockRefusal) => {
      const answer = profile.render(refusal);
      res.writeHead(answer.status, {
        ...(answer.contentType ? { "Content-Type": answer.contentType } : {}),
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Expose-Headers": "*",
      });
      res.end(answer.body);
      const problems = refusal.kind === "invalid" ? refusal.violations.map((v) => `  ✖ ${describeViolation(v)}`) : [];
      log?.(`${method} ${url.pathname} → ${answer.status}`);
      for (const p of problems) log?.(p);
    };
    if (decision.refusal) return refuse(decision.refusal);
    try {
      const answer = await askPrism(upstream + url.pathname + url.search, {
        method: decision.method,
        headers: decision.headers,
        ...(body === "" || method === "GET" || method === "HEAD" ? {} : { body }),
      });
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
      const header = (name: string) => ([] as string[]).concat(answer.headers[name] ?? []).join(", ");
      // Prism found something the checker let through: its answer would be a documented example of
      // some other error, so its own findings (sl-violations) are answered in the envelope instead.
      const prismFound = answer.status >= 400 && decision.operation ? requestViolations(header("sl-violations") || null) : [];
      if (prismFound.length) return refuse({ kind: "invalid", operation: decision.operation!, violations: prismFound });
      // Prism's own problem document for a Prefer it cannot meet: said in the API's envelope instead.
      const prefer = ([] as string[]).concat(req.headers.prefer ?? []).join(", ");
      if (prefer && answer.status >= 400 && mediaTypeOf(header("content-type")) === "application/problem+json") {
        return refuse({ kind: "unmatched-prefer", status: answer.status, prefer });
      }
      res.writeHead(answer.status, headers).end(answer.body);
    } catch (error) {
      if (error instanceof InformationalOnly) {
        // An informational status announces an answer to come: HTTP has no way to send one as the answer.
        res.writeHead(501, { "Content-Type": "application/problem+json" });
        res.end(JSON.stringify({ type: "about:blank", title: "Not Implemented", status: 501, detail: `the mock cannot answer ${error.status}: an informational (1xx) status is not an answer in HTTP` }));
        log?.(`${method} ${url.pathname} → 501 (${error.status} is informational)`);
        return;
      }
      res.writeHead(502, { "Content-Type": "text/plain" }).end(`the mock's Prism did not answer: ${(error as Error).message}`);
    }
  };
}

/**
 * Listens on host:port; rejects with the listen error (EADDRINUSE...) without printing anything.
 * With `listMethod`, a `LIST` request is taken as `GET` with `list=true`, as the secrets server takes it.
 */
export function listenFront(handler: ReturnType<typeof mockFront>, host: string, port: number, options: { listMethod?: boolean } = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      handler(req, res).catch((error: Error) => {
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
        res.end(`mock front error: ${error.message}`);
      });
    });
    if (options.listMethod) acceptListMethod(server);
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
