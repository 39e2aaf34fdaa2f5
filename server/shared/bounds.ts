// What one process of reference servers holds at most, whatever its clients do (issue 25): open
// connections (a budget derived from the descriptor limit, shared fairly between client addresses),
// request-body bytes in flight (one budget for the process), how long a connection may take to send
// its header block, and how large that block may be. Everything here goes through Node's public
// server options and events: `connection`, `request`, `checkContinue`, `clientError`,
// `headersTimeout`, `connectionsCheckingInterval`, `maxHeaderSize`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface Limits {
  /** Open connections of the process, all its servers together. */
  maxConnections: number;
  /** Open connections of one client address. */
  maxConnectionsPerAddress: number;
  /** Request-body bytes received and not yet handed to a handler, all requests together. */
  maxBodyBytesInFlight: number;
  /** How long a connection may take to send a complete header block. */
  headersTimeoutMs: number;
  /** Largest request line and header block, in bytes. */
  maxHeaderBytes: number;
}

export const DEFAULT_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;
/** The real secrets listener's `http_read_header_timeout` defaults to 10s (its tcp listener docs); the mesh and org platform are held to the same. */
export const DEFAULT_HEADERS_TIMEOUT_SECONDS = 10;
/** Node's own default (`http.maxHeaderSize`). */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
/** The `Retry-After` of every refusal for lack of room: the budgets free up within seconds. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The soft limit on open files of this process: /proc/self/limits where there is one (Linux), else
 * what `ulimit -n` says in a shell started from it (a child inherits the limit), else 1024.
 */
export function descriptorLimit(): number {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.MAX_SAFE_INTEGER;
    if (soft && /^\d+$/.test(soft)) return Number(soft);
  } catch {
    // not Linux: ask a shell
  }
  try {
    const text = execFileSync("/bin/sh", ["-c", "ulimit -n"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (text === "unlimited") return Number.MAX_SAFE_INTEGER;
    if (/^\d+$/.test(text)) return Number(text);
  } catch {
    // no shell either
  }
  return 1024;
}

/**
 * Descriptors kept out of the connection budget: the data directories (SQLite's database, WAL and
 * shared-memory files for each service), replication's connections to other clusters, listening
 * sockets, stdio and Node's own (event loop, worker threads): an eighth of the limit, at least 64.
 */
export function descriptorHeadroom(limit: number): number {
  return Math.max(64, Math.floor(limit / 8));
}

/** The default connection budget for a descriptor limit (at least 16). */
export function defaultMaxConnections(limit: number): number {
  return Math.max(16, Math.min(limit - descriptorHeadroom(limit), 1_000_000));
}

/** The environment variables of the limits, with what each holds. */
export const LIMIT_VARIABLES = {
  MAX_CONNECTIONS: "maxConnections",
  MAX_CONNECTIONS_PER_ADDRESS: "maxConnectionsPerAddress",
  MAX_BODY_BYTES_IN_FLIGHT: "maxBodyBytesInFlight",
  HEADERS_TIMEOUT_SECONDS: "headersTimeoutMs",
  MAX_HEADER_BYTES: "maxHeaderBytes",
} as const;

/**
 * The limits `npm start` runs with: each variable when set, else its default; `problems` names
 * each variable that is not a positive whole number (or asks for more connections than the
 * descriptor limit leaves).
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv, limit = descriptorLimit()): { limits: Limits; problems: string[] } {
  const problems: string[] = [];
  const read = (name: keyof typeof LIMIT_VARIABLES, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) <= 0 || !Number.isSafeInteger(Number(raw))) {
      problems.push(`${name}=${raw}: not a positive whole number`);
      return fallback;
    }
    return Number(raw);
  };
  const fit = defaultMaxConnections(limit);
  const maxConnections = read("MAX_CONNECTIONS", fit);
  if (maxConnections > fit) {
    problems.push(
      `MAX_CONNECTIONS=${maxConnections}: more than the ${fit} connections the open-files limit (${limit}, less ${descriptorHeadroom(limit)} kept for data directories and replication) allows; raise \`ulimit -n\` or lower MAX_CONNECTIONS`,
    );
  }
  const limits: Limits = {
    maxConnections,
    maxConnectionsPerAddress: read("MAX_CONNECTIONS_PER_ADDRESS", Math.max(1, Math.floor(maxConnections / 4))),
    maxBodyBytesInFlight: read("MAX_BODY_BYTES_IN_FLIGHT", DEFAULT_BODY_BYTES_IN_FLIGHT),
    headersTimeoutMs: read("HEADERS_TIMEOUT_SECONDS", DEFAULT_HEADERS_TIMEOUT_SECONDS) * 1000,
    maxHeaderBytes: read("MAX_HEADER_BYTES", DEFAULT_MAX_HEADER_BYTES),
  };
  return { limits, problems };
}

interface Tracked {
  socket: Socket;
  address: string;
  /** Requests being answered on it. */
  busy: number;
}

/**
 * Open connections, counted per client address. A connection is refused when its address holds its
 * share already; when the process holds its whole budget, a connection from an address that holds
 * fewer than the address holding the most takes the place of that address's oldest connection
 * without a request in flight (a silent or idle one); otherwise it is refused.
 */
export class ConnectionBudget {
  readonly #byAddress = new Map<string, Set<Tracked>>();
  readonly #bySocket = new WeakMap<Socket, Tracked>();
  #total = 0;

  constructor(
    readonly max: number,
    readonly perAddress: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  held(address: string): number {
    return this.#byAddress.get(address)?.size ?? 0;
  }

  /** Whether the connection may stay; when it may, it is counted until it closes. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? "";
    const held = this.held(address);
    if (held >= this.perAddress) return false;
    if (this.#total >= this.max && !this.#evictFor(held)) return false;
    const tracked: Tracked = { socket, address, busy: 0 };
    let own = this.#byAddress.get(address);
    if (!own) this.#byAddress.set(address, (own = new Set()));
    own.add(tracked);
    this.#bySocket.set(socket, tracked);
    this.#total++;
    socket.once("close", () => this.#forget(tracked));
    return true;
  }

  /** A request began (+1) or was answered (-1) on the connection. */
  busy(socket: Socket, delta: 1 | -1): void {
    const tracked = this.#bySocket.get(socket);
    if (tracked) tracked.busy += delta;
  }

  /** Whether a request is being answered on the connection. */
  isBusy(socket: Socket): boolean {
    return (this.#bySocket.get(socket)?.busy ?? 0) > 0;
  }

  #forget(tracked: Tracked): void {
    const own = this.#byAddress.get(tracked.address);
    if (!own?.delete(tracked)) return;
    this.#total--;
    if (own.size === 0) this.#byAddress.delete(tracked.address);
  }

  /** Closes one connection of the address holding the most, when it holds more than `held` + 1. */
  #evictFor(held: number): boolean {
    let largest: Set<Tracked> | undefined;
    for (const own of this.#byAddress.values()) if (!largest || own.size > largest.size) largest = own;
    if (!largest || largest.size <= held + 1) return false;
    for (const tracked of largest) {
      if (tracked.busy > 0) continue;
      this.#forget(tracked);
      tracked.socket.destroy();
      return true;
    }
    return false;
  }
}

/** A request's claim on the body budget. */
interface Claim {
  address: string;
  bytes: number;
  /** Refuses the request (its body reading fails with "busy"). */
  evict: () => void;
}

/**
 * Request-body bytes in flight in the process, counted as they arrive and given back when the body
 * has been read (or refused). A chunk that would pass the budget is refused, unless another address
 * holds more than the chunk's address would: then that address's largest requests are refused
 * until the chunk fits (one address sending many large bodies slowly cannot keep others out).
 */
export class BodyBudget {
  readonly #claims = new Map<object, Claim>();
  readonly #byAddress = new Map<string, number>();
  #total = 0;

  constructor(readonly max: number) {}

  get total(): number {
    return this.#total;
  }

  /** Counts `bytes` more for `owner`; false when they do not fit (nothing is counted then). */
  take(owner: object, address: string, bytes: number, evict: () => void): boolean {
    if (this.#total + bytes > this.max) {
      const mine = (this.#byAddress.get(address) ?? 0) + bytes;
      while (this.#total + bytes > this.max) {
        const victim = this.#largestElsewhere(address, mine);
        if (!victim) return false;
        this.release(victim.owner);
        victim.claim.evict();
      }
    }
    let claim = this.#claims.get(owner);
    if (!claim) this.#claims.set(owner, (claim = { address, bytes: 0, evict }));
    claim.bytes += bytes;
    this.#total += bytes;
    this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + bytes);
    return true;
  }

  /** Gives back everything `owner` holds. */
  release(owner: object): void {
    const claim = this.#claims.get(owner);
    if (!claim) return;
    this.#claims.delete(owner);
    this.#total -= claim.bytes;
    const left = (this.#byAddress.get(claim.address) ?? 0) - claim.bytes;
    if (left > 0) this.#byAddress.set(claim.address, left);
    else this.#byAddress.delete(claim.address);
  }

  /** The largest claim of the address holding the most, when that address holds more than `mine`. */
  #largestElsewhere(address: string, mine: number): { owner: object; claim: Claim } | undefined {
    let top: string | undefined;
    let topBytes = mine;
    for (const [other, bytes] of this.#byAddress) {
      if (other !== address && bytes > topBytes) {
        top = other;
        topBytes = bytes;
      }
    }
    if (top === undefined) return undefined;
    let largest: { owner: object; claim: Claim } | undefined;
    for (const [owner, claim] of this.#claims) {
      if (claim.address === top && (!largest || claim.bytes > largest.claim.bytes)) largest = { owner, claim };
    }
    return largest;
  }
}

/** The limits of a process and the budgets they fill. */
export interface ProcessLimits {
  limits: Limits;
  connections: ConnectionBudget;
  bodies: BodyBudget;
}

export function processLimitsOf(limits: Limits): ProcessLimits {
  return { limits, connections: new ConnectionBudget(limits.maxConnections, limits.maxConnectionsPerAddress), bodies: new BodyBudget(limits.maxBodyBytesInFlight) };
}

let shared: ProcessLimits | undefined;

/** The budgets every server of this process shares, from its environment (read once). */
export function processLimits(): ProcessLimits {
  return (shared ??= processLimitsOf(limitsFromEnv(process.env).limits));
}

/** What a bound server knows of each request it is answering. */
interface RequestState {
  bodies: BodyBudget;
  /** Set while the client waits for `100 Continue` before it sends its body. */
  awaitingContinue?: ServerResponse;
}

const requests = new WeakMap<IncomingMessage, RequestState>();

/** The body budget a request counts against: its server's, or the process's when it came some other way. */
export function bodyBudgetOf(req: IncomingMessage): BodyBudget {
  return requests.get(req)?.bodies ?? processLimits().bodies;
}

/**
 * Sends `100 Continue` to a client waiting for it, when the service starts reading the body: that
 * is, after the request was authenticated and authorized, as Go's server sends it on the first read
 * of the body. A request refused before its body is read never gets it.
 */
export function continueBody(req: IncomingMessage): void {
  const state = requests.get(req);
  const res = state?.awaitingContinue;
  if (!res) return;
  state.awaitingContinue = undefined;
  if (!res.headersSent && res.writable) res.writeContinue();
}

/** The body budget was full: the request is refused with 503 and Retry-After. */
export const BODY_BUDGET_MESSAGE = "too many request body bytes in flight on this server; retry later";

/** How a service words the answers a server sends before any request reaches it (raw bytes on the socket). */
export interface RawAnswerFormat {
  contentType: string;
  /** The body for a status, its reason phrase and a sentence saying why. */
  body(status: number, reason: string, detail: string): string;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  503: "Service Unavailable",
};

/** A whole HTTP/1.1 answer that closes the connection. */
export function rawAnswer(format: RawAnswerFormat, status: number, detail: string, headers: Record<string, string> = {}): string {
  const reason = REASONS[status] ?? "Error";
  const body = format.body(status, reason, detail);
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    `Content-Type: ${format.contentType}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Date: ${new Date().toUTCString()}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
  ];
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

type ClientError = Error & { code?: string };

/** The status and sentence for bytes Node's parser refused (the statuses Node itself uses). */
export function clientErrorAnswer(error: ClientError, limits: Limits): { status: number; detail: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, detail: `request line and header fields over ${limits.maxHeaderBytes} bytes` };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, detail: `no complete request header within ${limits.headersTimeoutMs / 1000} seconds` };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, detail: "chunk extensions too large" };
    default:
      return { status: 400, detail: "malformed HTTP request" };
  }
}

/** How long a refused connection is kept so that the client reads the answer before it closes (Go waits 500 ms). */
const LINGER_MS = 1000;

/**
 * Writes the answer and closes the write side; the rest of what the client sends is read and
 * dropped, so that closing does not reset the connection under the answer; closed after a second
 * or when the client closes.
 */
export function answerAndClose(socket: Socket, answer: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer, "latin1");
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

export interface BoundServer {
  /** The clientError answer, for a server whose own clientError listener decides first (then give `clientErrors: false`). */
  refuse: (error: Error, socket: Socket) => void;
}

/**
 * Holds a server to the process's limits: connections admitted by the budget (a refused one gets
 * 503 in the service's format), a header block within `headersTimeoutMs` and `maxHeaderBytes`
 * (else 408 or 431 in the service's format, on the wire before the socket closes), request bodies
 * counted against the body budget, and `100 Continue` sent only when the service reads the body.
 * Give `clientErrors: false` when another clientError listener calls `refuse` itself, and
 * `continueOnRead: false` for an app that reads bodies some other way than readBodyText (Node then
 * answers `100 Continue` itself, as it does by default).
 *
 * The server should have been created with a short `connectionsCheckingInterval` (serverOptions())
 * so that a silent connection is dropped soon after its `headersTimeout`.
 */
export function boundServer(
  server: Server,
  format: RawAnswerFormat,
  own = processLimits(),
  options: { clientErrors?: boolean; continueOnRead?: boolean } = {},
): BoundServer {
  const { limits, connections, bodies } = own;
  server.headersTimeout = limits.headersTimeoutMs;
  // requestTimeout must not be under headersTimeout (Node refuses to start otherwise); 0 is "none".
  if (server.requestTimeout !== 0 && server.requestTimeout < limits.headersTimeoutMs) server.requestTimeout = limits.headersTimeoutMs;
  const handlers = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    if (!connections.admit(socket)) {
      socket.on("error", () => undefined);
      const whose = connections.held(socket.remoteAddress ?? "") >= connections.perAddress ? "this client address holds" : "the server holds";
      const answer = rawAnswer(format, 503, `${whose} as many connections as it may; retry later`, { "Retry-After": String(RETRY_AFTER_SECONDS) });
      // Written (a few hundred bytes: the kernel takes them at once) and closed in the same turn: a
      // burst of refused connections must not hold descriptors while their answers drain, or the
      // process runs out of them and the kernel's queue is closed without a word.
      socket.write(answer, "latin1");
      socket.destroy();
      return;
    }
    for (const handler of handlers) handler.call(server, socket);
  });
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    if (!requests.has(req)) requests.set(req, { bodies });
    connections.busy(req.socket, 1);
    res.once("close", () => connections.busy(req.socket, -1));
  });
  // With a checkContinue listener Node sends no `100 Continue` itself: it is sent when the service
  // reads the body (continueBody), so a request refused before that never invites its body.
  if (options.continueOnRead !== false) {
    server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
      requests.set(req, { bodies, awaitingContinue: res });
      server.emit("request", req, res);
    });
  }
  const answered = new WeakSet<Socket>();
  const refuse = (error: ClientError, socket: Socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    // A client that reset the connection, or one with an answer going out on it: nothing more to say.
    if (error.code === "ECONNRESET" || connections.isBusy(socket)) {
      socket.destroy();
      return;
    }
    const { status, detail } = clientErrorAnswer(error, limits);
    answerAndClose(socket, rawAnswer(format, status, detail));
  };
  if (options.clientErrors !== false) server.on("clientError", refuse);
  return { refuse };
}

/** Options for http.createServer of a bound server: timeouts checked every second (Node's default is 30 s). */
export function serverOptions(own = processLimits()) {
  return { connectionsCheckingInterval: 1000, headersTimeout: own.limits.headersTimeoutMs, maxHeaderSize: own.limits.maxHeaderBytes };
}
