// The `LIST` HTTP method over the wire. Node's HTTP parser (llhttp) refuses methods it does not
// know with 400 before any JavaScript runs, and `LIST` is not one of them. So the bytes every
// connection of a secrets server receives go through a tracker that follows the HTTP/1.1 framing of
// the requests on it (request line, headers, Content-Length or chunked body) and rewrites the request
// line of a `LIST` request into `GET <target>?list=true`, the form the service also accepts and the
// one its description uses. Nothing else is changed: every other byte passes through as it came,
// and a stream the tracker cannot follow (a malformed request, which llhttp then refuses anyway)
// is passed through unchanged from there on.
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

/**
 * Makes an HTTP server accept `LIST` requests: the bytes each accepted connection receives go
 * through a ListRequestRewriter before the server's HTTP parser sees them.
 *
 * The socket itself is handed to the server, its bytes rewritten where the socket hands them on
 * (Readable push, which net calls for every read). A socket the server may hand straight to its
 * native parser (consume: the bytes never reach JavaScript) is marked as consumed already, so that
 * the server reads it through `data` events, as it reads any socket it cannot consume. Nothing else
 * changes: responses are written to the socket itself. Measured on a secrets write (server CPU a
 * request): the earlier wrapping duplex cost about 14 µs more than this; reading through `data`
 * events instead of the native parser path costs about 15 µs, the price of accepting LIST.
 */
export function acceptListMethod(server: Server): void {
  const handlers = server.listeners("connection") as ((socket: unknown) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    const handle = (socket as Socket & { _handle?: { _consumed?: boolean } })._handle;
    if (handle) handle._consumed = true;
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
    for (const handler of handlers) handler.call(server, socket);
  });
}
