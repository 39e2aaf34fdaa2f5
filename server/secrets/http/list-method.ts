// The `LIST` HTTP method over the wire. Node's HTTP parser (llhttp) refuses methods it does not
// know, and `LIST` is not one of them. So a connection that sends one goes on through a tracker that
// follows the HTTP/1.1 framing of the requests on it (request line, headers, Content-Length or
// chunked body) and rewrites the request line of a `LIST` request into `GET <target>?list=true`, the
// form the service also accepts and the one its description uses. Nothing else is changed: every
// other byte passes through as it came, and a stream the tracker cannot follow (a malformed request,
// which llhttp then refuses anyway) is passed through unchanged from there on.
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Longest request line or header line the tracker holds before giving up (llhttp allows 16 KiB of headers). */
const MAX_LINE = 64 * 1024;

type State = "request-line" | "headers" | "body" | "chunk-size" | "chunk-data" | "trailers" | "passthrough";

/**
 * Follows the framing of the requests on one connection and rewrites `LIST` request lines.
 * Feed it the bytes as they arrive; it returns the bytes to hand to the HTTP parser.
 */
export class ListRequestRewriter {
  #state: State = "request-line";
  /** Bytes of an incomplete line (request line, header line, chunk size or trailer), as they came. */
  #pending: Buffer[] = [];
  #pendingLength = 0;
  /** Body (or chunk) bytes still to pass through. */
  #remaining = 0;
  #contentLength = 0;
  #chunked = false;

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let data = chunk;
    while (data.length > 0) {
      if (this.#state === "passthrough") {
        out.push(data);
        break;
      }
      if (this.#state === "body" || this.#state === "chunk-data") {
        const take = Math.min(this.#remaining, data.length);
        out.push(data.subarray(0, take));
        data = data.subarray(take);
        this.#remaining -= take;
        if (this.#remaining === 0) this.#state = this.#state === "body" ? "request-line" : "chunk-size";
        continue;
      }
      // Only the new bytes are searched: a line that comes a byte at a time costs linear time.
      const end = data.indexOf(0x0a);
      if (end === -1) {
        this.#pending.push(data);
        this.#pendingLength += data.length;
        if (this.#pendingLength > MAX_LINE) {
          out.push(...this.#takePending());
          this.#state = "passthrough";
        }
        break;
      }
      const tail = data.subarray(0, end + 1);
      const line = this.#pendingLength > 0 ? Buffer.concat([...this.#takePending(), tail]) : tail;
      data = data.subarray(end + 1);
      out.push(this.#line(line));
    }
    return out;
  }

  #takePending(): Buffer[] {
    const parts = this.#pending;
    this.#pending = [];
    this.#pendingLength = 0;
    return parts;
  }

  /** Handles one complete line (ending in LF) in a line state; returns the bytes to pass on. */
  #line(line: Buffer): Buffer {
    const text = line.toString("latin1");
    const blank = text === "\r\n" || text === "\n";
    switch (this.#state) {
      case "request-line":
        // Empty lines before a request line are allowed (RFC 9112 2.2) and passed on as they are.
        if (blank) return line;
        this.#state = "headers";
        this.#contentLength = 0;
        this.#chunked = false;
        return text.startsWith("LIST ") ? Buffer.from(rewriteListRequestLine(text), "latin1") : line;
      case "headers":
        if (blank) this.#endOfHeaders();
        else this.#header(text);
        return line;
      case "chunk-size": {
        const size = Number.parseInt(text.split(";")[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) {
          this.#state = "passthrough";
        } else if (size === 0) {
          this.#state = "trailers";
        } else {
          this.#state = "chunk-data";
          this.#remaining = size + 2; // the chunk and its CRLF
        }
        return line;
      }
      case "trailers":
        if (blank) this.#state = "request-line";
        return line;
      default:
        return line;
    }
  }

  #header(text: string): void {
    const colon = text.indexOf(":");
    if (colon <= 0) return;
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (name === "content-length") {
      const length = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (Number.isSafeInteger(length)) this.#contentLength = length;
      else this.#state = "passthrough";
    } else if (name === "transfer-encoding") {
      this.#chunked = /(^|,)\s*chunked\s*$/i.test(value);
    }
  }

  #endOfHeaders(): void {
    if (this.#state === "passthrough") return;
    if (this.#chunked) {
      this.#state = "chunk-size";
    } else if (this.#contentLength > 0) {
      this.#state = "body";
      this.#remaining = this.#contentLength;
    } else {
      this.#state = "request-line";
    }
  }
}

/**
 * `LIST /v1/a/b?x=1 HTTP/1.1\r\n` → `GET /v1/a/b?x=1&list=true HTTP/1.1\r\n` (any other `list`
 * dropped). A `#fragment` (clients do not send one, but a hostile one may) stays last, so that the
 * flag is in the query and not in the fragment.
 */
export function rewriteListRequestLine(line: string): string {
  const match = /^LIST (\S+)( HTTP\/\d\.\d)?(\r?\n)$/.exec(line);
  if (!match) return line;
  const [, rawTarget, version = "", eol] = match;
  const hash = rawTarget!.indexOf("#");
  const target = hash === -1 ? rawTarget! : rawTarget!.slice(0, hash);
  const fragment = hash === -1 ? "" : rawTarget!.slice(hash);
  const question = target.indexOf("?");
  const path = question === -1 ? target : target.slice(0, question);
  const query = question === -1 ? [] : target.slice(question + 1).split("&").filter((p) => p !== "" && p.split("=")[0] !== "list");
  query.push("list=true");
  return `GET ${path}?${query.join("&")}${fragment}${version}${eol}`;
}

/** Node's answers to bytes its parser refuses, by error code (node:_http_server socketOnError). */
const REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

type HttpSocket = Socket & {
  _handle?: { _consumed?: boolean; isStreamBase?: boolean } | null;
  _httpMessage?: { _headerSent?: boolean } | null;
  parser?: NativeParser | null;
};
/** Node's HTTP parser object (node:_http_common), as much of it as this module uses. */
interface NativeParser {
  constructor: { REQUEST: number; kLenientAll: number; kLenientNone: number };
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number, connections?: unknown): void;
}
type ParseError = Error & { code?: string; bytesParsed?: number; rawPacket?: Buffer };

/** Connections whose bytes go through a rewriter (from the start, or since their first LIST). */
const rewriting = new WeakSet<Socket>();

/** Passes every chunk a socket receives through a new ListRequestRewriter; returns its push, unwrapped. */
function rewriteIncoming(socket: Socket): (chunk: Buffer) => void {
  rewriting.add(socket);
  const rewriter = new ListRequestRewriter();
  const push = socket.push;
  socket.push = function rewrittenPush(this: Socket, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (!Buffer.isBuffer(chunk)) return push.call(this, chunk, encoding);
    // True when nothing was pushed (a line not complete yet): false would stop the socket's reading
    // until a read that nothing would ask for.
    let more = true;
    for (const part of rewriter.push(chunk)) more = push.call(this, part);
    return more;
  };
  return (chunk) => socket.push(chunk);
}

/**
 * Where the refused request begins, when the parser refused a method that can be LIST: its first
 * bytes, with the part of the method an earlier packet carried put back; undefined for any other
 * refusal. Node's parser takes `LI` as the start of LINK and stops at the `S`: of that `LI`, this
 * packet holds what is right before the position the parser stopped at (all of it, its `I`
 * alone at the packet's start, or nothing at the start).
 */
export function refusedListRequest(error: ParseError): Buffer | undefined {
  const packet = error.rawPacket;
  const at = error.bytesParsed;
  if (error.code !== "HPE_INVALID_METHOD" || !Buffer.isBuffer(packet) || typeof at !== "number" || at >= packet.length) return undefined;
  const before = packet.subarray(Math.max(0, at - 2), at).toString("latin1");
  const carried = before === "LI" ? "" : before === "I" && at === 1 ? "L" : at === 0 ? "LI" : undefined;
  if (carried === undefined) return undefined;
  const rest = packet.subarray(at - (2 - carried.length));
  if (!"LIST ".startsWith((carried + rest.subarray(0, 5).toString("latin1")).slice(0, 5))) return undefined;
  return carried === "" ? rest : Buffer.concat([Buffer.from(carried, "latin1"), rest]);
}

/** Node's own socket error listener of HTTP server connections (removed from a socket when it reports an error). */
let nodeSocketOnError: ((error: Error) => void) | undefined;

/**
 * A connection whose parser refused a LIST request is read from then on through a rewriter: its
 * parser starts over (the connection, its queued answers and its timeouts stay as they are), takes
 * the bytes from JavaScript instead of straight from the socket, and is given the refused request
 * rewritten. False when that cannot be done (then the connection is refused, as Node does).
 */
function continueWithRewriter(server: Server, socket: HttpSocket, request: Buffer): boolean {
  const parser = socket.parser;
  if (!parser || !nodeSocketOnError || rewriting.has(socket)) return false;
  const { REQUEST, kLenientAll, kLenientNone } = parser.constructor;
  const connections = Object.getOwnPropertySymbols(server).find((s) => s.description === "http.server.connections");
  const lenient = (server as Server & { insecureHTTPParser?: boolean }).insecureHTTPParser === true;
  parser.initialize(REQUEST, { type: "HTTPINCOMINGMESSAGE", socket }, (server as Server & { maxHeaderSize?: number }).maxHeaderSize || 0, lenient ? kLenientAll : kLenientNone, connections ? (server as never)[connections] : undefined);
  const pushRewritten = rewriteIncoming(socket);
  // Node takes a socket off its native parser when a `data` listener is added: bytes then arrive as `data`.
  const nothing = () => undefined;
  socket.on("data", nothing);
  socket.removeListener("data", nothing);
  socket.on("error", nodeSocketOnError); // Node removed it when it reported the refusal
  process.nextTick(() => pushRewritten(request)); // before any later bytes: no I/O runs before it
  return true;
}

/** What Node does with bytes its parser refuses, when the server has no clientError listener. */
function refuseAsNodeDoes(error: ParseError, socket: HttpSocket): void {
  if (socket.writable && (!socket._httpMessage || !socket._httpMessage._headerSent)) {
    socket.write(`HTTP/1.1 ${REFUSALS[error.code ?? ""] ?? "400 Bad Request"}\r\nConnection: close\r\n\r\n`, "latin1");
  }
  socket.destroy(error);
}

/**
 * Makes an HTTP server accept `LIST` requests.
 *
 * A connection is read by Node's native parser (bytes go from the socket to llhttp without
 * JavaScript) until it sends a `LIST` request: llhttp refuses the method, and the refusal
 * (clientError, with the bytes and where they stopped) starts the connection over on a rewriter:
 * from then on its bytes reach JavaScript, go through a ListRequestRewriter, and a fresh parser
 * reads them. Measured on a secrets write (server CPU a request): reading every connection through
 * `data` events and a rewriter cost about 22 µs more than the native path, which now only a
 * connection that has sent LIST pays. A connection the server cannot hand to its native parser
 * (a stream without a socket handle) is rewritten from its first byte.
 *
 * Every other refusal goes to `refuse` (by default answered as Node answers it without a
 * clientError listener).
 */
export function acceptListMethod(server: Server, refuse: (error: ParseError, socket: HttpSocket) => void = refuseAsNodeDoes): void {
  const handlers = server.listeners("connection") as ((socket: unknown) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: HttpSocket) => {
    const handle = socket._handle;
    const native = handle?.isStreamBase === true && handle._consumed !== true;
    // Node's connection listener reads such a socket through `data` events: through the rewriter from its first byte.
    if (!native) rewriteIncoming(socket);
    for (const handler of handlers) handler.call(server, socket);
    nodeSocketOnError ??= socket.listeners("error").find((l) => l.name === "socketOnError") as typeof nodeSocketOnError;
  });
  server.on("clientError", (error: ParseError, socket: HttpSocket) => {
    const request = refusedListRequest(error);
    if (request && continueWithRewriter(server, socket, request)) return;
    refuse(error, socket);
  });
}
