// The `LIST` HTTP method over the wire. Node's HTTP parser (llhttp) refuses methods it does not
// know, and `LIST` is not one of them. So every connection's bytes go through a stream that follows
// the HTTP/1.1 framing of the requests on it (request line, headers, Content-Length or chunked body)
// and rewrites the request line of a `LIST` request into `GET <target>?list=true` (the form its
// description uses) followed by a header line marking it (LIST_MARK), and a `HELP` request's, which
// llhttp refuses too, into `GET <target>?help=1`; the HTTP server reads that stream instead of
// the socket. Node documents the way in: an `http.Server` takes any Duplex stream through its
// `'connection'` event. Nothing else is changed: every other byte passes through as it came (the
// chunks themselves, not copies), and a stream the tracker cannot follow (a malformed request, which
// llhttp then refuses anyway) is passed through unchanged from there on.
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, Server } from "node:http";
import { Duplex } from "node:stream";

/**
 * The header line a connection adds after each `LIST` request line it rewrites: its value is random
 * text of this process's own, so a request that carries it was a `LIST` on the wire, never a `GET`
 * whose query ends in `list=true` (a client cannot send the value, and a copy of the header from the
 * client joins it into another value). The real server's HTTP layer tells the two apart where it
 * switches on the method alone: on the rekey paths a `LIST` is 405 and a `GET` the status, whatever
 * its query.
 */
export const LIST_MARK = { name: "x-list-method", value: randomBytes(16).toString("hex") } as const;

/** Whether a request was sent as `LIST` (its request line rewritten by a ListConnection). */
export function sentAsList(headers: IncomingHttpHeaders): boolean {
  return headers[LIST_MARK.name] === LIST_MARK.value;
}

/** Longest request line or header line the tracker holds before giving up (llhttp allows 16 KiB of headers). */
const MAX_LINE = 64 * 1024;

type State = "request-line" | "headers" | "body" | "chunk-size" | "chunk-data" | "trailers" | "passthrough";

const LF = 0x0a;
const CR = 0x0d;
/** `LIST `, the start of a request line to rewrite. */
const LIST_START = [0x4c, 0x49, 0x53, 0x54, 0x20];
/** `HELP `, the other one (help on a path, as the real server takes it: http/help.go wrapHelpHandler). */
const HELP_START = [0x48, 0x45, 0x4c, 0x50, 0x20];

/** Whether the bytes of `data` from `at` on begin with `LIST ` (or `HELP `) or are a beginning of it. */
function mayBeList(data: Buffer, at: number): boolean {
  return startsWith(data, at, LIST_START) || startsWith(data, at, HELP_START);
}

function startsWith(data: Buffer, at: number, start: readonly number[]): boolean {
  const end = Math.min(data.length, at + start.length);
  for (let i = at; i < end; i++) if (data[i] !== start[i - at]) return false;
  return true;
}

/** A colon, space or tab: what may follow a header name. */
function endsName(byte: number | undefined): boolean {
  return byte === 0x3a || byte === 0x20 || byte === 0x09;
}

/** An empty line: LF or CRLF. */
function isBlank(line: Buffer): boolean {
  return line.length === 1 || (line.length === 2 && line[0] === CR);
}

/**
 * Follows the framing of the requests on one connection and rewrites `LIST` request lines.
 * Feed it the bytes as they arrive (`write`); it hands on (`emit`) the bytes for the HTTP parser:
 * the chunk itself when nothing in it is rewritten, else its parts around the rewritten lines. A
 * request line that may be LIST and is not complete at the end of a chunk is held until it is.
 */
export class ListRequestRewriter {
  /** The header line added after a rewritten LIST request line (LIST_MARK's, for a connection), or none. */
  readonly #mark: string | undefined;
  #state: State = "request-line";
  /**
   * A copy of the bytes of the current line that came in earlier chunks (to read the line when it
   * is complete): one buffer that grows by doubling, so a line sent a byte at a time costs linear
   * time and one object, not one per byte.
   */
  #pending: Buffer | undefined;
  #pendingLength = 0;
  /** Whether those bytes are held back (a request line that may be LIST) rather than already handed on. */
  #held = false;
  /** How many lines have been held back so far: each new hold has a number of its own. */
  #holds = 0;
  /** Body (or chunk) bytes still to pass through. */
  #remaining = 0;
  #contentLength = 0;
  #chunked = false;

  constructor(mark?: { name: string; value: string }) {
    this.#mark = mark && `${mark.name}: ${mark.value}`;
  }

  /** Whether part of a request line is held back, waiting for the rest of the line. */
  get holding(): boolean {
    return this.#held;
  }

  /** The number of the line held back now (or last): a connection times each hold from its own start. */
  get hold(): number {
    return this.#holds;
  }

  write(data: Buffer, emit: (part: Buffer) => void): void {
    const length = data.length;
    /** The first byte not handed on yet. */
    let start = 0;
    let at = 0;
    while (at < length) {
      const state = this.#state;
      if (state === "passthrough") break;
      if (state === "body" || state === "chunk-data") {
        const take = Math.min(this.#remaining, length - at);
        at += take;
        this.#remaining -= take;
        if (this.#remaining === 0) this.#state = state === "body" ? "request-line" : "chunk-size";
        continue;
      }
      // Only the new bytes are searched: a line that comes a byte at a time costs linear time.
      const end = data.indexOf(LF, at);
      if (end === -1) {
        start = this.#partial(data, at, start, emit);
        break;
      }
      const held = this.#held;
      // A line whose beginning was handed on already (not held) is never rewritten: it is not LIST,
      // or it was released as it was.
      const mayRewrite = held || this.#pendingLength === 0;
      const tail = data.subarray(at, end + 1);
      const line = this.#pendingLength > 0 ? Buffer.concat([this.#takePending(), tail]) : tail;
      const rewritten = this.#line(line, mayRewrite);
      if (rewritten !== undefined || held) {
        if (at > start) emit(data.subarray(start, at));
        emit(rewritten ?? line);
        start = end + 1;
      }
      at = end + 1;
    }
    if (start < length) emit(start === 0 ? data : data.subarray(start));
  }

  /**
   * The bytes of `data` from `at` on are an incomplete line: kept to be read once the line is
   * complete, and held back when they begin a request line that may be LIST. A line longer than
   * the limit is given up on: what was held is handed on, and from then on everything passes.
   * Returns the first byte of `data` still to be handed on.
   */
  #partial(data: Buffer, at: number, start: number, emit: (part: Buffer) => void): number {
    const size = this.#pendingLength + (data.length - at);
    if (size > MAX_LINE) {
      // Held bytes came before this chunk's: handed on first.
      const held = this.#held;
      const pending = this.#takePending();
      if (held) emit(pending);
      this.#state = "passthrough";
      return start;
    }
    if (!this.#held && this.#pendingLength === 0 && this.#state === "request-line" && mayBeList(data, at)) {
      if (at > start) emit(data.subarray(start, at));
      this.#held = true;
      this.#holds++;
    }
    if (this.#pending === undefined || this.#pending.length < size) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_LINE, Math.max(size, 2 * (this.#pending?.length ?? 64))));
      this.#pending?.copy(grown, 0, 0, this.#pendingLength);
      this.#pending = grown;
    }
    data.copy(this.#pending, this.#pendingLength, at);
    this.#pendingLength = size;
    return this.#held ? data.length : start;
  }

  /** Hands on the bytes held back (a LIST line that did not come whole in time); they are then passed on unchanged. */
  release(emit: (part: Buffer) => void): void {
    if (!this.#held) return;
    this.#held = false;
    // A copy: the line's later bytes are still added to the pending buffer.
    emit(Buffer.from(this.#pending!.subarray(0, this.#pendingLength)));
  }

  /** The stream ended: what is held back is handed on as it is (the parser then refuses the incomplete request). */
  end(emit: (part: Buffer) => void): void {
    this.release(emit);
  }

  /** Takes the pending bytes (the buffer goes with them: what is handed on is never written again); they are no longer held. */
  #takePending(): Buffer {
    const pending = this.#pending?.subarray(0, this.#pendingLength) ?? Buffer.alloc(0);
    this.#pending = undefined;
    this.#pendingLength = 0;
    this.#held = false;
    return pending;
  }

  /** Reads one complete line (ending in LF) in a line state; returns its rewrite, or undefined when it passes as it is. */
  #line(line: Buffer, mayRewrite: boolean): Buffer | undefined {
    switch (this.#state) {
      case "request-line": {
        // Empty lines before a request line are allowed (RFC 9112 2.2) and passed on as they are.
        if (isBlank(line)) return undefined;
        this.#state = "headers";
        this.#contentLength = 0;
        this.#chunked = false;
        if (!mayRewrite || line.length <= LIST_START.length || !mayBeList(line, 0)) return undefined;
        const text = line.toString("latin1");
        const rewritten = rewriteListRequestLine(text, this.#mark);
        return rewritten === text ? undefined : Buffer.from(rewritten, "latin1");
      }
      case "headers": {
        if (isBlank(line)) {
          this.#endOfHeaders();
          return undefined;
        }
        // Only Content-Length and Transfer-Encoding frame a request: other lines are not read. After
        // the name's length comes its colon, or white space before it (a lenient parser takes that).
        const first = line[0]! | 0x20;
        if ((first === 0x63 && endsName(line[14])) || (first === 0x74 && endsName(line[17]))) this.#header(line.toString("latin1"));
        return undefined;
      }
      case "chunk-size": {
        const size = Number.parseInt(line.toString("latin1").split(";")[0]!.trim(), 16);
        if (!Number.isFinite(size) || size < 0) {
          this.#state = "passthrough";
        } else if (size === 0) {
          this.#state = "trailers";
        } else {
          this.#state = "chunk-data";
          this.#remaining = size + 2; // the chunk and its CRLF
        }
        return undefined;
      }
      case "trailers":
        if (isBlank(line)) this.#state = "request-line";
        return undefined;
      default:
        return undefined;
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

  /** Feeds one chunk and gives back what is handed on (for tests and tools; the connection uses `write`). */
  push(data: Buffer): Buffer[] {
    const out: Buffer[] = [];
    this.write(data, (part) => out.push(part));
    return out;
  }
}

/**
 * `LIST /v1/a/b?x=1 HTTP/1.1\r\n` → `GET /v1/a/b?x=1&list=true HTTP/1.1\r\n` (any other `list`
 * dropped), followed by the header line `mark` when one is given (with the line's own ending);
 * `HELP` the same way to `help=1`, never marked. A `#fragment` (clients do not send one, but a
 * hostile one may) stays last, so that the flag is in the query and not in the fragment.
 */
export function rewriteListRequestLine(line: string, mark?: string): string {
  const match = /^(LIST|HELP) (\S+)( HTTP\/\d\.\d)?(\r?\n)$/.exec(line);
  if (!match) return line;
  const [, method, rawTarget, version = "", eol] = match;
  // `HELP <target>` becomes `GET <target>?help=1` (any other `help` dropped), which the service
  // answers with help on the path, as the real server answers either.
  const [flag, value] = method === "HELP" ? ["help", "1"] : ["list", "true"];
  const hash = rawTarget!.indexOf("#");
  const target = hash === -1 ? rawTarget! : rawTarget!.slice(0, hash);
  const fragment = hash === -1 ? "" : rawTarget!.slice(hash);
  const question = target.indexOf("?");
  const path = question === -1 ? target : target.slice(0, question);
  const query = question === -1 ? [] : target.slice(question + 1).split("&").filter((p) => p !== "" && p.split("=")[0] !== flag);
  query.push(`${flag}=${value}`);
  // A request line without a version has no header lines after it (the parser refuses it anyway).
  const marked = mark !== undefined && method === "LIST" && version !== "" ? `${mark}${eol}` : "";
  return `GET ${path}?${query.join("&")}${fragment}${version}${eol}${marked}`;
}

/** What a connection stream may offer beyond a Duplex (a net.Socket offers all of it). */
interface SocketLike extends Duplex {
  remoteAddress?: string;
  remotePort?: number;
  remoteFamily?: string;
  localAddress?: string;
  localPort?: number;
  bytesRead?: number;
  bytesWritten?: number;
  encrypted?: boolean;
  setTimeout?(ms: number): unknown;
  setNoDelay?(noDelay?: boolean): unknown;
  setKeepAlive?(enable?: boolean, initialDelay?: number): unknown;
  ref?(): unknown;
  unref?(): unknown;
  address?(): unknown;
}

/**
 * How long a connection whose side has been ended is kept open, reading, for the client to close
 * first (closing while its bytes are unread would reset the connection under the last answer).
 */
const LINGER_MS = 1000;

/**
 * One connection as the HTTP server reads it: the socket's bytes through a ListRequestRewriter,
 * its answers straight to the socket. It offers the socket's properties and calls the server and
 * handlers use (`remoteAddress`, `remotePort`, `setTimeout`, `setNoDelay`, ...). Flow control holds
 * both ways: the socket is paused while the server does not read, and a write waits for the
 * socket's `drain`. Half-close, `end` and `destroy` go through to the socket; a socket error
 * destroys the connection with that error (the server answers it as a client error).
 */
export class ListConnection extends Duplex {
  readonly socket: SocketLike;
  readonly #rewriter = new ListRequestRewriter(LIST_MARK);
  /** How long part of a LIST line is held back before it is handed on as it is (the server's headersTimeout). */
  readonly #holdMs: number;
  #holdTimer: NodeJS.Timeout | undefined;
  /** The rewriter's hold the timer is for. */
  #timedHold = 0;
  #lingerTimer: NodeJS.Timeout | undefined;
  #socketPaused = false;
  readonly #emit = (part: Buffer): void => {
    if (!this.push(part) && !this.#socketPaused) {
      this.#socketPaused = true;
      this.socket.pause();
    }
  };

  constructor(socket: SocketLike, holdMs = 0) {
    // Strings are handed to the socket as they are (it writes them without a Buffer of their own).
    super({ allowHalfOpen: true, decodeStrings: false });
    this.socket = socket;
    this.#holdMs = holdMs;
    socket.on("data", (chunk: Buffer) => this.#received(chunk));
    socket.on("end", () => {
      this.#rewriter.end(this.#emit);
      this.push(null);
    });
    socket.on("error", (error: Error) => this.destroy(error));
    socket.on("close", () => this.destroy());
    socket.on("timeout", () => this.emit("timeout"));
  }

  #received(chunk: Buffer): void {
    try {
      this.#rewriter.write(chunk, this.#emit);
    } catch (error) {
      // A defect here must cost this connection only, never the process (this runs in a socket's event).
      this.destroy(error as Error);
      return;
    }
    if (this.#rewriter.holding) {
      // Each held line has the whole limit from its own start (a chunk can end one and begin another).
      if (this.#holdMs > 0 && (this.#holdTimer === undefined || this.#timedHold !== this.#rewriter.hold)) {
        clearTimeout(this.#holdTimer);
        this.#timedHold = this.#rewriter.hold;
        this.#holdTimer = setTimeout(() => {
          this.#holdTimer = undefined;
          // Handed on as it is: the parser starts a request and its own headersTimeout applies.
          this.#rewriter.release(this.#emit);
        }, this.#holdMs);
        this.#holdTimer.unref();
      }
    } else if (this.#holdTimer !== undefined) {
      clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
    }
  }

  override _read(): void {
    if (this.#socketPaused) {
      this.#socketPaused = false;
      this.socket.resume();
    }
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.socket.write(chunk, encoding)) callback();
    else this.socket.once("drain", () => callback());
  }

  override _writev(chunks: { chunk: Buffer | string; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    this.socket.cork();
    let more = true;
    for (const { chunk, encoding } of chunks) more = this.socket.write(chunk, encoding);
    this.socket.uncork();
    if (more) callback();
    else this.socket.once("drain", () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(() => {
      callback();
      // Nothing more will be written: closed once the client closes, or after a short wait.
      if (!this.destroyed && !this.readableEnded) {
        this.#lingerTimer = setTimeout(() => this.destroy(), LINGER_MS);
        this.#lingerTimer.unref();
      }
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.#holdTimer);
    clearTimeout(this.#lingerTimer);
    this.socket.destroy();
    callback(error);
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }
  get bytesRead(): number | undefined {
    return this.socket.bytesRead;
  }
  get bytesWritten(): number | undefined {
    return this.socket.bytesWritten;
  }
  get encrypted(): boolean | undefined {
    return this.socket.encrypted;
  }

  address(): unknown {
    return this.socket.address?.() ?? {};
  }

  /** As net.Socket's: `timeout` is emitted after `ms` of inactivity on the socket (0: never). */
  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout?.(ms);
    if (callback) {
      if (ms === 0) this.removeListener("timeout", callback);
      else this.once("timeout", callback);
    }
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay?.(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.socket.setKeepAlive?.(enable, initialDelay);
    return this;
  }

  ref(): this {
    this.socket.ref?.();
    return this;
  }

  unref(): this {
    this.socket.unref?.();
    return this;
  }
}

/**
 * Makes an HTTP server accept `LIST` requests: each connection it accepts (or is given through
 * `'connection'`) reaches the server's own `'connection'` listeners as a ListConnection over it.
 * Call it after every other `'connection'` listener was added (server/shared/bounds.ts's): those
 * then see the ListConnection, which is what `req.socket` is.
 *
 * Every connection's bytes are read in JavaScript (Node's parser can no longer take them from the
 * socket itself); measured in bench/list-ab.ts.
 */
export function acceptListMethod(server: Server): void {
  const handlers = server.listeners("connection") as ((socket: Duplex) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: SocketLike) => {
    const connection = new ListConnection(socket, server.headersTimeout);
    for (const handler of handlers) handler.call(server, connection);
  });
}
