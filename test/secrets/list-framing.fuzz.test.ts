// Framing fuzz of the LIST wrapper against Node's own HTTP parser. Random pipelined requests
// (LIST among the usual methods, queries, fragments, Content-Length and chunked bodies holding
// request-line look-alikes) are sent twice: as they are to a server behind the wrapper, and with
// every LIST line already rewritten (by an independent spelling of the rule) to a plain Node server.
// Both servers must see the same requests: the wrapper changes LIST request lines and nothing else.
import fc from "fast-check";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptListMethod, ListRequestRewriter } from "../../server/secrets/http/list-method.ts";

interface Seen {
  method: string;
  url: string;
  body: string;
}

interface Recorder {
  server: Server;
  port: number;
  seen: Seen[];
}

async function recorder(wrapped: boolean): Promise<Recorder> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("latin1");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, body });
      res.end("ok");
    });
  });
  if (wrapped) acceptListMethod(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

let wrappedServer: Recorder;
let plainServer: Recorder;
beforeAll(async () => {
  wrappedServer = await recorder(true);
  plainServer = await recorder(false);
});
afterAll(async () => {
  for (const { server } of [wrappedServer, plainServer]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Sends the bytes in the given packets and waits until `count` answers came back. */
function send(port: number, packets: Buffer[], count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.setNoDelay(true);
    let answers = 0;
    let text = "";
    socket.on("data", (data) => {
      text += data.toString("latin1");
      answers = (text.match(/HTTP\/1\.1 200 OK/g) ?? []).length;
      if (answers >= count) {
        socket.end();
        resolve();
      }
    });
    socket.on("error", reject);
    socket.on("close", () => (answers >= count ? resolve() : reject(new Error(`connection closed after ${answers} of ${count} answers: ${text.slice(0, 200)}`))));
    socket.on("connect", async () => {
      for (const packet of packets) {
        socket.write(packet);
        await new Promise((r) => setImmediate(r));
      }
    });
  });
}

const token = fc.stringMatching(/^[a-z0-9]{1,6}$/);
const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "LIST", "LIST"),
  path: fc.array(token, { minLength: 1, maxLength: 4 }).map((segments) => `/v1/${segments.join("/")}`),
  query: fc.option(fc.array(fc.tuple(fc.constantFrom("a", "b", "list"), token), { minLength: 1, maxLength: 3 }), { nil: undefined }),
  fragment: fc.option(token, { nil: undefined }),
  // Bodies that look like request lines, to be passed through untouched.
  body: fc.option(fc.array(fc.constantFrom("LIST /v1/x HTTP/1.1\r\n", "{\"a\":1}", "\r\n", "GET / HTTP/1.1\r\n\r\n", "x"), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("")), { nil: undefined }),
  chunked: fc.boolean(),
  chunkSize: fc.integer({ min: 1, max: 7 }),
  headerCase: fc.constantFrom("content-length", "Content-Length", "CONTENT-LENGTH"),
});
type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function target(r: GeneratedRequest, list: boolean): string {
  let query = (r.query ?? []).map(([k, v]) => `${k}=${v}`);
  if (list) query = [...query.filter((p) => !p.startsWith("list=")), "list=true"];
  return `${r.path}${query.length ? `?${query.join("&")}` : ""}${r.fragment ? `#${r.fragment}` : ""}`;
}

function serialize(r: GeneratedRequest, rewritten: boolean): string {
  const list = r.method === "LIST" && rewritten;
  const method = list ? "GET" : r.method;
  let text = `${method} ${target(r, list)} HTTP/1.1\r\nHost: x\r\n`;
  if (r.body === undefined) return `${text}\r\n`;
  if (!r.chunked) return `${text}${r.headerCase}: ${r.body.length}\r\n\r\n${r.body}`;
  text += "Transfer-Encoding: chunked\r\n\r\n";
  for (let i = 0; i < r.body.length; i += r.chunkSize) {
    const piece = r.body.slice(i, i + r.chunkSize);
    text += `${piece.length.toString(16)};ext=1\r\n${piece}\r\n`;
  }
  return `${text}0\r\n\r\n`;
}

function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const packets: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) packets.push(bytes.subarray(from, point));
    from = point;
  }
  return packets;
}

describe("the LIST wrapper compared with Node's parser", () => {
  it("delivers the same requests as a plain server given the rewritten bytes, however the stream is cut", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), async (requests, cuts) => {
        wrappedServer.seen.length = 0;
        plainServer.seen.length = 0;
        const original = Buffer.from(requests.map((r) => serialize(r, false)).join(""), "latin1");
        const rewritten = Buffer.from(requests.map((r) => serialize(r, true)).join(""), "latin1");
        await send(wrappedServer.port, cut(original, cuts), requests.length);
        await send(plainServer.port, [rewritten], requests.length);
        expect(wrappedServer.seen).toEqual(plainServer.seen);
        expect(wrappedServer.seen.map((s) => s.method)).toEqual(requests.map((r) => (r.method === "LIST" ? "GET" : r.method)));
      }),
      { numRuns: 60 },
    );
  });

  it("gives the same bytes whether a stream comes whole or a byte at a time", () => {
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 5 }), (requests) => {
        const original = Buffer.from(requests.map((r) => serialize(r, false)).join(""), "latin1");
        const whole = Buffer.concat(new ListRequestRewriter().push(original));
        const bytewise = new ListRequestRewriter();
        const pieces: Buffer[] = [];
        for (let i = 0; i < original.length; i++) pieces.push(...bytewise.push(original.subarray(i, i + 1)));
        expect(Buffer.concat(pieces).toString("latin1")).toBe(whole.toString("latin1"));
        expect(whole.toString("latin1")).toBe(requests.map((r) => serialize(r, true)).join(""));
      }),
      { numRuns: 200 },
    );
  });

  it("keeps the list flag in the query when the target has a fragment (regression)", () => {
    const out = Buffer.concat(new ListRequestRewriter().push(Buffer.from("LIST /v1/aws/roles#frag HTTP/1.1\r\n\r\n"))).toString();
    expect(out).toBe("GET /v1/aws/roles?list=true#frag HTTP/1.1\r\n\r\n");
  });
});
