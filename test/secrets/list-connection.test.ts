// What the LIST stream between each socket and the HTTP server (server/secrets/http/list-method.ts)
// could break, tried on the wire: the client address the connection budget counts, server.close()
// with keep-alive connections open, socket errors in the middle of a request, LIST as a later request
// of a keep-alive connection, pipelined requests, a LIST sent a byte at a time, flow control both
// ways, the server's timeouts (idle keep-alive, header block, a LIST line that never completes), and
// the refusals of malformed bytes in the secrets envelope.
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { acceptListMethod, LIST_MARK, ListConnection } from "../../server/secrets/http/list-method.ts";

/** The header line a connection adds after each LIST line it rewrites. */
const MARK = `${LIST_MARK.name}: ${LIST_MARK.value}`;
import { startSecretsServer, type RunningSecrets } from "../../server/secrets/server.ts";
import { processLimitsOf, type Limits } from "../../server/shared/bounds.ts";
import { keepIdleConnections } from "../../server/shared/service-entry.ts";
import { duplexConnection } from "../helpers/duplex-connection.ts";
import { parseRawResponses } from "../helpers/secrets.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const echo: Handler = (req, res) => {
  let body = "";
  req.setEncoding("latin1");
  req.on("data", (chunk: string) => (body += chunk));
  req.on("end", () => {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ method: req.method, url: req.url, body, port: req.socket.remotePort }));
  });
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plain HTTP server that accepts LIST, listening on 127.0.0.1; closed after the test. */
async function listServer(handler: Handler, options: Parameters<typeof createServer>[0] = {}): Promise<{ server: Server; port: number }> {
  const server = createServer(options, handler);
  acceptListMethod(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        if (!server.listening) resolve();
      }),
  );
  return { server, port: (server.address() as AddressInfo).port };
}

interface Peer {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

function open(port: number, localAddress = "127.0.0.1", allowHalfOpen = false): Promise<Peer> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect({ port, host: "127.0.0.1", localAddress, allowHalfOpen }, () => resolve({ socket, received: () => text, closed }));
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.once("error", reject);
    cleanups.push(() => void socket.destroy());
  });
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const answers = (peer: Peer) => parseRawResponses(peer.received());

describe("the secrets server's connections through the LIST stream", () => {
  const limits = (overrides: Partial<Limits> = {}) =>
    processLimitsOf({ maxConnections: 100, maxConnectionsPerAddress: 2, maxBodyBytesInFlight: 1 << 20, headersTimeoutMs: 10_000, maxHeaderBytes: 16 * 1024, ...overrides });

  async function secrets(own = limits()): Promise<RunningSecrets> {
    const running = await startSecretsServer({ rootToken: "root" }, "127.0.0.1", 0, own);
    cleanups.push(() => running.close());
    return running;
  }

  it("the connection budget counts each connection under its client's address", async () => {
    const own = limits();
    const running = await secrets(own);
    const first = await open(running.port);
    const second = await open(running.port);
    await until(() => own.connections.held("127.0.0.1") === 2);
    // A third from the same address is over its share: 503, in the service's envelope.
    const third = await open(running.port);
    await third.closed;
    expect(third.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*"errors":\["this client address holds as many connections as it may; retry later"\]/);
    // Another address still has its own share, and is served LIST.
    const other = await open(running.port, "127.0.0.2");
    await until(() => own.connections.held("127.0.0.2") === 1);
    other.socket.write("LIST /v1/aws/roles HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: root\r\nConnection: close\r\n\r\n");
    await other.closed;
    expect(answers(other)).toEqual([expect.objectContaining({ status: 404, body: { errors: [] } })]);
    await until(() => own.connections.held("127.0.0.2") === 0);
    first.socket.destroy();
    second.socket.destroy();
    await until(() => own.connections.total === 0);
  });

  it("close() finishes with keep-alive connections open, idle or in the middle of a request", async () => {
    const running = await secrets();
    const idle = await open(running.port);
    idle.socket.write("LIST /v1/aws/roles HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: root\r\n\r\n");
    await until(() => answers(idle).length === 1);
    expect(idle.received()).toContain("Keep-Alive: timeout=300");
    const busy = await open(running.port);
    busy.socket.write("POST /v1/aws/roles/r HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: root\r\nContent-Length: 100\r\n\r\n{");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await running.close();
    await Promise.all([idle.closed, busy.closed]);
    expect(running.server.listening).toBe(false);
  });

  it("a plain server.close() ends idle keep-alive connections (Node closes them) and finishes", async () => {
    const { server, port } = await listServer(echo);
    keepIdleConnections(server);
    const peer = await open(port);
    peer.socket.write("LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answers(peer).length === 1);
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await peer.closed;
  });

  it("a plain server.close() during a request: the answer is sent; the connection, idle then, is closed by closeIdleConnections() as Node's own", async () => {
    let answer!: () => void;
    const { server, port } = await listServer((_req, res) => (answer = () => res.end('"late"')));
    keepIdleConnections(server);
    const peer = await open(port);
    peer.socket.write("LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answer !== undefined);
    let finished = false;
    const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))).then(() => (finished = true));
    answer();
    await until(() => answers(peer).length === 1);
    // Node 20 leaves a connection that turns idle after close() open (its keep-alive timeout applies).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(finished).toBe(false);
    server.closeIdleConnections();
    await closed;
    await peer.closed;
    expect(peer.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n"late"$/);
  });

  it("answers malformed bytes in the secrets envelope: 400, 431, and 408 for a silent connection", async () => {
    const running = await secrets(limits({ headersTimeoutMs: 1000, maxHeaderBytes: 1024 }));
    const bad = await open(running.port);
    bad.socket.write("LIST  /v1/aws/roles HTTP/1.1\r\n\r\n");
    await bad.closed;
    expect(answers(bad)).toEqual([expect.objectContaining({ status: 400, body: { errors: ["malformed HTTP request"] } })]);
    const big = await open(running.port);
    big.socket.write(`LIST /v1/aws/roles HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(2048)}\r\n\r\n`);
    await big.closed;
    expect(answers(big)).toEqual([expect.objectContaining({ status: 431, body: { errors: ["request line and header fields over 1024 bytes"] } })]);
    const silent = await open(running.port);
    await silent.closed;
    expect(answers(silent)).toEqual([expect.objectContaining({ status: 408, body: { errors: ["no complete request header within 1 seconds"] } })]);
  });
});

describe("requests on one connection", () => {
  it("LIST as a later request of a keep-alive connection (Node's client, one socket)", async () => {
    const { port } = await listServer(echo);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string) =>
      new Promise<{ status: number; body: { method: string; url: string; port: number } }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method, path, agent }, (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on("error", reject);
        req.end();
      });
    const first = await send("GET", "/v1/a");
    const second = await send("LIST", "/v1/b?x=1");
    const third = await send("GET", "/v1/c");
    agent.destroy();
    expect([first.body.url, second.body.url, third.body.url]).toEqual(["/v1/a", "/v1/b?x=1&list=true", "/v1/c"]);
    expect(second.body.method).toBe("GET");
    expect(new Set([first.body.port, second.body.port, third.body.port]).size).toBe(1);
  });

  it("pipelined requests in one packet: bodies (Content-Length and chunked) and LISTs, answered in order", async () => {
    const { port } = await listServer(echo);
    const peer = await open(port);
    peer.socket.write(
      "POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nLIST" +
        "LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\n" +
        "PUT /v1/y HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nLIST /\r\n0\r\n\r\n" +
        "LIST /v1/b?list=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    await peer.closed;
    expect(answers(peer).map((a) => a.body)).toEqual([
      expect.objectContaining({ method: "POST", url: "/v1/x", body: "LIST" }),
      expect.objectContaining({ method: "GET", url: "/v1/a?list=true", body: "" }),
      expect.objectContaining({ method: "PUT", url: "/v1/y", body: "LIST /" }),
      expect.objectContaining({ method: "GET", url: "/v1/b?list=true", body: "" }),
    ]);
  });

  it("a LIST sent a byte at a time over TCP, after a request on the same connection", async () => {
    const { port } = await listServer(echo);
    const peer = await open(port);
    peer.socket.setNoDelay(true);
    peer.socket.write("GET /v1/first HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answers(peer).length === 1);
    const list = "LIST /v1/roles?a=b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    for (const byte of list) {
      peer.socket.write(byte);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await peer.closed;
    expect(answers(peer).map((a) => (a.body as { url: string }).url)).toEqual(["/v1/first", "/v1/roles?a=b&list=true"]);
  });

  it("a LIST given to the server a byte at a time through a stream of its own", async () => {
    const server = createServer(echo);
    acceptListMethod(server);
    const { stream: connection, text: answer } = duplexConnection();
    server.emit("connection", connection);
    for (const byte of Buffer.from("LIST /v1/roles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) connection.push(Buffer.from([byte]));
    await until(() => answer().includes("}"));
    expect(parseRawResponses(answer()).map((a) => (a.body as { url: string }).url)).toEqual(["/v1/roles?list=true"]);
    connection.destroy();
  });
});

describe("errors, timeouts and flow control", () => {
  it("a client that resets the connection in the middle of a request: the request is closed, the error reaches clientError, the server goes on", async () => {
    let closed = false;
    const { server, port } = await listServer((req, res) => {
      req.on("close", () => (closed = true));
      if (req.url!.startsWith("/v1/next")) res.end(req.url);
    });
    const errors: string[] = [];
    server.on("clientError", (error: Error & { code?: string }, socket) => {
      errors.push(error.code ?? error.message);
      socket.destroy();
    });
    const peer = await open(port);
    peer.socket.write("POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial");
    await new Promise((resolve) => setTimeout(resolve, 50));
    peer.socket.resetAndDestroy();
    await until(() => closed && errors.length === 1);
    expect(errors).toEqual(["ECONNRESET"]);
    const next = await open(port);
    next.socket.write("LIST /v1/next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await next.closed;
    expect(next.received()).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\/v1\/next\?list=true$/);
  });

  it("an error of the underlying stream, with no clientError listener, destroys the connection and crashes nothing", async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = createServer((req) => req.on("close", () => closed()));
    acceptListMethod(server);
    const { stream: connection } = duplexConnection();
    const seen: ListConnection[] = [];
    server.prependListener("request", (req: IncomingMessage) => seen.push(req.socket as unknown as ListConnection));
    server.emit("connection", connection);
    connection.push(Buffer.from("POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab"));
    await until(() => seen.length === 1);
    connection.destroy(new Error("boom"));
    await requestClosed;
    expect(seen[0]!.destroyed).toBe(true);
  });

  it("a stream the rewriter cannot read (text instead of bytes) costs its connection, not the process", async () => {
    const server = createServer(echo);
    acceptListMethod(server);
    const { stream: connection } = duplexConnection();
    connection.setEncoding("latin1");
    const errors: Error[] = [];
    server.on("clientError", (error: Error, socket: Duplex) => {
      errors.push(error);
      socket.destroy();
    });
    server.emit("connection", connection);
    connection.push(Buffer.from("LI"));
    await until(() => connection.destroyed);
    expect(errors).toHaveLength(1);
  });

  it("an idle keep-alive connection is closed after the server's keepAliveTimeout", async () => {
    const { server, port } = await listServer(echo);
    server.keepAliveTimeout = 100; // Node adds a second of its own
    const peer = await open(port);
    peer.socket.write("LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answers(peer).length === 1);
    const answered = Date.now();
    await peer.closed;
    expect(Date.now() - answered).toBeLessThan(4000);
  });

  it("after a Connection: close answer the server closes the connection, also when the client never closes its side", async () => {
    let connection: ListConnection | undefined;
    const { port } = await listServer((req, res) => {
      connection = req.socket as unknown as ListConnection;
      echo(req, res);
    });
    // A client that keeps its side open after the server's FIN (it ends nothing by itself).
    const peer = await open(port, "127.0.0.1", true);
    let ended = false;
    peer.socket.on("end", () => (ended = true));
    peer.socket.write("LIST /v1/a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await until(() => ended);
    const answered = Date.now();
    expect(answers(peer)[0]!.body).toMatchObject({ url: "/v1/a?list=true" });
    await until(() => connection!.destroyed && connection!.socket.destroyed, 3000);
    expect(Date.now() - answered).toBeLessThan(3000);
  });

  it("a LIST line that never completes on a keep-alive connection is answered 408 and closed, as any late header block", async () => {
    const { port } = await listServer(echo, { headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 });
    for (const start of ["LI", "GE"]) {
      const peer = await open(port);
      peer.socket.write("GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n");
      await until(() => answers(peer).length === 1);
      peer.socket.write(start);
      const sent = Date.now();
      await peer.closed;
      expect(peer.received(), start).toMatch(/HTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n\r\n$/);
      // The held LIST start reaches the parser after one headersTimeout; the parser's own follows.
      expect(Date.now() - sent).toBeLessThan(3000);
    }
  });

  it("flow control out: a client that does not read holds the server's writes back", async () => {
    let written = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const total = 64 * 1024 * 1024;
    const { port } = await listServer((_req, res) => {
      res.writeHead(200, { "Content-Length": String(total) });
      const more = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end(finished);
      };
      more();
    });
    const peer = await new Promise<Socket>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => resolve(socket));
      cleanups.push(() => void socket.destroy());
    });
    peer.pause();
    peer.write("LIST /v1/big HTTP/1.1\r\nHost: x\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(total / 2);
    let received = 0;
    peer.on("data", (data: Buffer) => (received += data.length));
    peer.resume();
    await done;
    await until(() => received > total);
  });

  it("flow control in: a handler that does not read the body stops the server reading the socket", async () => {
    let socket: ListConnection | undefined;
    let request: IncomingMessage | undefined;
    const { port } = await listServer((req) => {
      request = req;
      socket = req.socket as unknown as ListConnection;
    });
    const total = 64 * 1024 * 1024;
    const peer = await new Promise<Socket>((resolve) => {
      const s = connect(port, "127.0.0.1", () => resolve(s));
      s.on("error", () => undefined);
      cleanups.push(() => void s.destroy());
    });
    peer.write(`POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 0x62);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!peer.write(chunk)) return void peer.once("drain", pump);
      }
    };
    pump();
    await until(() => socket !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(socket!.bytesRead).toBeLessThan(total / 2);
    expect(sent).toBeLessThan(total);
    // Read now: everything arrives.
    let received = 0;
    request!.on("data", (data: Buffer) => (received += data.length));
    await until(() => received === total, 20_000);
  });
});

describe("ListConnection over a stream of its own (no socket handle)", () => {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A connection over a bare duplex: what the client writes reaches `connection`; what it reads, `fromServer`. */
  function pair(holdMs = 0) {
    const { stream: socket, written: fromServer } = duplexConnection();
    const connection = new ListConnection(socket, holdMs);
    const read: string[] = [];
    connection.on("data", (chunk: Buffer) => read.push(chunk.toString("latin1")));
    return { socket, connection, read: () => read.join(""), fromServer };
  }

  it("without a hold limit, waits for a LIST line as long as it takes, then rewrites it", async () => {
    const { socket, read } = pair(0);
    socket.push("LIS");
    await pause(30);
    expect(read()).toBe("");
    socket.push("T /v1/a HTTP/1.1\r\n");
    await pause(10);
    expect(read()).toBe(`GET /v1/a?list=true HTTP/1.1\r\n${MARK}\r\n`);
  });

  it("hands on a LIST line held past the limit as it is, and times each held line from its own start", async () => {
    const { socket, read } = pair(300);
    socket.push("LIS");
    await pause(150);
    // The first line completes within its limit, then a second one starts: its limit starts now.
    socket.push("T /v1/a HTTP/1.1\r\n\r\nLIS");
    // Past the first line's limit (300 ms from its start), within the second's.
    await pause(200);
    expect(read()).toBe(`GET /v1/a?list=true HTTP/1.1\r\n${MARK}\r\n\r\n`);
    socket.push("T /v1/b HTTP/1.1\r\n\r\n");
    await pause(10);
    expect(read()).toBe(`GET /v1/a?list=true HTTP/1.1\r\n${MARK}\r\n\r\nGET /v1/b?list=true HTTP/1.1\r\n${MARK}\r\n\r\n`);
    // A line that does not complete within the limit goes on as it is, however its bytes trickle in.
    socket.push("LIS");
    await pause(200);
    socket.push("T /v1/");
    expect(read()).toMatch(/\r\n\r\n$/);
    await pause(250);
    expect(read()).toMatch(/\r\n\r\nLIST \/v1\/$/);
  });

  it("is destroyed when its stream closes, also without an end or an error", async () => {
    const { socket, connection } = pair();
    socket.destroy();
    await pause(10);
    expect(connection.destroyed).toBe(true);
  });

  it("keeps its writing side open after the client's end: an answer after a half-close still goes out", async () => {
    const { socket, connection, fromServer } = pair();
    socket.push("GET / HTTP/1.1\r\n\r\n");
    socket.push(null);
    await pause(20);
    expect(connection.writable).toBe(true);
    connection.write("HTTP/1.1 200 OK\r\n\r\n");
    await pause(10);
    expect(Buffer.concat(fromServer).toString()).toBe("HTTP/1.1 200 OK\r\n\r\n");
  });

  it("offers a socket's calls over a stream that has none of them, and passes on the properties a socket has", () => {
    const { connection } = pair();
    expect(connection.setNoDelay(true)).toBe(connection);
    expect(connection.setKeepAlive(true, 1000)).toBe(connection);
    expect(connection.ref()).toBe(connection);
    expect(connection.unref()).toBe(connection);
    expect(connection.address()).toEqual({});
    const socket = Object.assign(duplexConnection().stream, { bytesWritten: 42, encrypted: false, address: () => ({ port: 7 }) });
    const over = new ListConnection(socket);
    expect([over.bytesWritten, over.encrypted, over.address()]).toEqual([42, false, { port: 7 }]);
  });

  it("setTimeout(0, callback) takes back a callback given before", () => {
    const { connection } = pair();
    let called = 0;
    const callback = () => called++;
    connection.setTimeout(1000, callback);
    connection.setTimeout(0, callback);
    connection.emit("timeout");
    expect(called).toBe(0);
    connection.setTimeout(1000, callback);
    connection.emit("timeout");
    expect(called).toBe(1);
  });
});

describe("ListConnection: writes held back by a slow socket", () => {
  it("acknowledges corked writes only once the socket has drained (flow control out, several chunks at once)", async () => {
    const acknowledged: string[] = [];
    const socket = new Duplex({
      highWaterMark: 1,
      read() {},
      write(_chunk, _encoding, callback) {
        setTimeout(callback, 50);
      },
    });
    const connection = new ListConnection(socket);
    connection.cork();
    connection.write("HTTP/1.1 200 OK\r\n", () => acknowledged.push("head"));
    connection.write("body", () => acknowledged.push("body"));
    connection.uncork();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The socket is full: the connection has not taken the chunks yet.
    expect(acknowledged).toEqual([]);
    expect(connection.writableLength).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(acknowledged).toEqual(["head", "body"]);
    expect(connection.writableLength).toBe(0);
  });
});
