// A validating proxy: listens like the API (same base path), forwards every request to a real
// implementation, passes the answer back unchanged, and reports every request and response that
// breaks the description, as they happen. The checker is the one `npm run validate` uses on HAR
// files. `LIST` requests are accepted (turned into `GET ...?list=true`, their described form).
import { closeSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { acceptListMethod } from "../../server/secrets/http/list-method.ts";
import { contractChecker, type CheckerOptions, type Violation, type WireRequest, type WireResponse } from "./checker.ts";
import type { OpenApiDoc } from "./document.ts";
import type { Har, HarEntry } from "./har.ts";

export interface Exchange {
  method: string;
  /** As the client sent it, with the base path. */
  url: string;
  status: number;
  violations: Violation[];
  milliseconds: number;
  /** The exchange as a HAR 1.2 entry, as the client saw it (the proxy's URL): `proxy --record`. */
  entry: HarEntry;
  /** What else happened to the answer: its body passed through unchecked (over 16 MiB), or was cut. */
  note?: string;
}

const harHeaders = (headers: Record<string, string | string[] | undefined>) =>
  Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v }))));

/** What the proxy kept of an answer's body: all of it, or (past MAX_BODY, or cut) only its length. */
interface KeptBody {
  bytes: Buffer;
  /** The body's length as it passed. */
  size: number;
  /** Why the bytes are not the whole body. */
  notKept?: string;
}

/** A HAR 1.2 entry of one exchange; the body is kept as text (base64 when it is not UTF-8). */
function harEntry(started: Date, milliseconds: number, method: string, url: URL, req: IncomingMessage, body: Buffer, status: number, statusText: string, headers: Record<string, string>, kept: KeptBody): HarEntry {
  const payload = kept.bytes;
  const text = payload.toString("utf8");
  const binary = !Buffer.from(text, "utf8").equals(payload);
  const content = kept.notKept
    ? { size: kept.size, mimeType: headers["content-type"] ?? "", comment: kept.notKept }
    : { size: payload.length, mimeType: headers["content-type"] ?? "", text: binary ? payload.toString("base64") : text, ...(binary ? { encoding: "base64" } : {}) };
  const requestType = req.headers["content-type"];
  return {
    startedDateTime: started.toISOString(),
    time: milliseconds,
    request: {
      method,
      url: url.href,
      httpVersion: `HTTP/${req.httpVersion}`,
      headers: harHeaders(req.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      cookies: [],
      headersSize: -1,
      bodySize: body.length,
      ...(body.length ? { postData: { mimeType: typeof requestType === "string" ? requestType : "", text: body.toString("utf8") } } : {}),
    },
    response: {
      status,
      statusText,
      httpVersion: "HTTP/1.1",
      headers: harHeaders(headers),
      cookies: [],
      content,
      redirectURL: headers.location ?? "",
      headersSize: -1,
      bodySize: kept.size,
    },
    cache: {},
    timings: { send: 0, wait: milliseconds, receive: 0 },
  };
}

/**
 * The HAR file `proxy --record` writes and `validate` reads, written as exchanges come: each entry in
 * place of the file's closing brackets, which follow it again. Between two entries the file is a
 * whole HAR document, and an entry costs its own bytes: the file written whole again for each
 * exchange (as it once was) made a long recording quadratic in time and held every entry in memory.
 */
export class HarFileWriter {
  readonly #fd: number;
  /** Where the closing brackets start. */
  #end: number;
  #entries = 0;

  /** Creates (or empties) the file; throws when it cannot be written. */
  constructor(file: string) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const head = `{\n  "log": {\n    "version": "1.2",\n    "creator": ${JSON.stringify(HAR_CREATOR)},\n    "entries": [`;
    this.#fd = openSync(file, "w");
    writeSync(this.#fd, head + HAR_CLOSING, 0);
    this.#end = Buffer.byteLength(head);
  }

  /** Appends an entry; throws when the file cannot take it, left as it was (the entries before, closed). */
  append(entry: HarEntry): void {
    const text = `${this.#entries === 0 ? "" : ","}\n${JSON.stringify(entry, null, 2).replace(/^/gm, "      ")}`;
    // Longer than the closing it writes over, so nothing of it is left behind.
    const bytes = Buffer.from(text + HAR_CLOSING);
    let written: number;
    try {
      written = writeSync(this.#fd, bytes, 0, bytes.length, this.#end);
    } catch (error) {
      this.#closeAgain();
      throw error;
    }
    if (written < bytes.length) {
      this.#closeAgain();
      throw new Error(`the file system took ${written} of the entry's ${bytes.length} bytes (full?)`);
    }
    this.#end += bytes.length - HAR_CLOSING_BYTES;
    this.#entries++;
  }

  /** The closing brackets again after the last whole entry (in bytes the file already has), and nothing after them. */
  #closeAgain(): void {
    try {
      writeSync(this.#fd, HAR_CLOSING, this.#end);
      ftruncateSync(this.#fd, this.#end + HAR_CLOSING_BYTES);
    } catch {
      // Nothing more can be done for the file.
    }
  }

  close(): void {
    closeSync(this.#fd);
  }
}

const HAR_CREATOR: Har["log"]["creator"] = { name: "contract-toolkit proxy", version: "1" };
const HAR_CLOSING = "\n    ]\n  }\n}\n";
const HAR_CLOSING_BYTES = Buffer.byteLength(HAR_CLOSING);

export interface ProxyOptions extends CheckerOptions {
  doc: OpenApiDoc;
  /** The API's base path on the proxy: /v1, /api/v2. */
  basePath: string;
  /** The implementation's base URL, base path included: https://mesh.example.com/v1 */
  upstream: string;
  onExchange(exchange: Exchange): void;
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade", "content-encoding", "proxy-connection"]);
const MAX_BODY = 16 << 20;

export function validatingProxy(options: ProxyOptions) {
  const checker = contractChecker(options.doc, options);
  const upstream = options.upstream.replace(/\/+$/, "");

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const startedAt = new Date();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.writeHead(413, { "Content-Type": "text/plain" }).end("the proxy takes bodies up to 16 MiB");
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "proxy"}`);
    const method = (req.method ?? "GET").toUpperCase();
    const below = url.pathname.startsWith(options.basePath + "/") ? url.pathname.slice(options.basePath.length) : undefined;
    if (below === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end(`the proxy serves ${options.basePath}/...`);
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = Array.isArray(value) ? value.join(", ") : value;

    // The client gone, the upstream's answer is not waited for any longer.
    const upstreamGone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) upstreamGone.abort();
    });
    let response: Response;
    try {
      response = await fetch(upstream + below + url.search, {
        method,
        headers,
        body: body.length && method !== "GET" && method !== "HEAD" ? body : undefined,
        redirect: "manual",
        signal: upstreamGone.signal,
      });
    } catch (error) {
      const text = `the proxy could not reach ${upstream}: ${(error as Error).message}`;
      if (!res.destroyed) res.writeHead(502, { "Content-Type": "text/plain" }).end(text);
      const milliseconds = performance.now() - started;
      const bytes = Buffer.from(text);
      const entry = harEntry(startedAt, milliseconds, method, url, req, body, 502, "Bad Gateway", { "content-type": "text/plain" }, { bytes, size: bytes.length });
      options.onExchange({ method, url: url.pathname + url.search, status: 502, violations: [], milliseconds, entry });
      return;
    }
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => (responseHeaders[name] = value));
    const forwarded: Record<string, string> = {};
    for (const [name, value] of Object.entries(responseHeaders)) if (!HOP_BY_HOP.has(name)) forwarded[name] = value;
    res.writeHead(response.status, forwarded);
    // Passed on as it comes (a stream of events reaches the client event by event), and kept up to
    // MAX_BODY for the check: a larger body passes unchecked rather than being held whole.
    const kept = await passOn(response, res);
    const answer: WireResponse = { status: response.status, headers: responseHeaders, ...(kept.notKept ? { bodyNotKept: true } : { body: kept.bytes.toString("utf8") }) };

    const request: WireRequest = {
      method,
      path: below,
      query: [...url.searchParams],
      rawQuery: url.search.slice(1),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      body: body.toString("utf8"),
    };
    const milliseconds = performance.now() - started;
    options.onExchange({
      method,
      url: url.pathname + url.search,
      status: response.status,
      violations: checker.checkExchange(request, answer),
      milliseconds,
      entry: harEntry(startedAt, milliseconds, method, url, req, body, response.status, response.statusText, responseHeaders, kept),
      ...(kept.notKept ? { note: kept.notKept } : {}),
    });
  };
}

/**
 * An upstream answer's body written to the client as it arrives (waiting when the client reads
 * slower), and what was kept of it: all of it up to MAX_BODY. An answer cut by the upstream is cut
 * for the client too; a client that goes away stops it.
 */
async function passOn(response: Response, res: ServerResponse): Promise<KeptBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let notKept: string | undefined;
  try {
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (notKept === undefined && size > MAX_BODY) {
        notKept = `the body passed through unchecked: it is longer than the ${MAX_BODY >> 20} MiB the proxy checks`;
        chunks.length = 0;
      }
      if (notKept === undefined) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      if (!res.write(chunk)) await drained(res);
      if (res.destroyed) throw new Error("the client went away");
    }
  } catch (error) {
    const why = res.destroyed ? "the client went away" : `the upstream cut the answer (${(error as Error).message})`;
    res.destroy();
    return { bytes: Buffer.alloc(0), size, notKept: `the body was not checked: ${why} after ${size} bytes` };
  }
  res.end();
  return { bytes: notKept ? Buffer.alloc(0) : Buffer.concat(chunks), size, ...(notKept ? { notKept } : {}) };
}

/** Settles when the client has taken what was written, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done).off("close", done);
      resolve();
    };
    res.on("drain", done).on("close", done);
  });
}

/** Listens on host:port (0: any free port); resolves with the server and its address. */
export async function startValidatingProxy(options: ProxyOptions, host = "127.0.0.1", port = 0): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const handle = validatingProxy(options);
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(`proxy error: ${error.message}`);
    });
  });
  acceptListMethod(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: actual } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${address.includes(":") ? `[${address}]` : address}:${actual}${options.basePath}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One line for an exchange: `✖ PUT /v1/config → 200 applyConfigEntry /request/body/Protocol: ...`. */
export function formatExchange(e: Exchange): string[] {
  const head = `${e.violations.length ? "✖" : "✓"} ${e.method} ${e.url} → ${e.status} (${Math.round(e.milliseconds)} ms)`;
  return [head, ...(e.note ? [`    (${e.note})`] : []), ...e.violations.map((v) => `    ${v.operationId ?? v.operation} ${v.pointer}: ${v.reason} [${v.kind}]`)];
}
