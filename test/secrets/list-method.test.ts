// The LIST method over the wire: the request-line rewriter follows HTTP/1.1 framing (bodies with
// Content-Length or chunked, pipelined requests, requests split anywhere across packets) and turns
// only LIST request lines into GET ...?list=true. On a plain HTTP server, a handler sees the result.
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptListMethod, LIST_MARK, ListConnection, ListRequestRewriter, rewriteListRequestLine, sentAsList } from "../../server/secrets/http/list-method.ts";
import { duplexConnection } from "../helpers/duplex-connection.ts";
import { rewriteAll } from "../helpers/list-method.ts";
import { parseRawResponses, rawExchange } from "../helpers/secrets.ts";

/**
 * Sends `opening` on a new connection and, once what came back holds `next.after`, sends
 * `next.send` (once); resolves with everything received when the server closes the connection, or
 * after 2 s (then it is closed here).
 */
function converse(port: number, opening: string, next?: { after: string; send: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(opening));
    let received = "";
    let sent = false;
    const timer = setTimeout(() => socket.destroy(), 2000);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (next && !sent && received.includes(next.after)) {
        sent = true;
        socket.write(next.send);
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", reject);
  });
}

/** The bodies of the server's answers to `packets`, sent a moment apart on a new connection to `port`. */
async function answeredBodies(port: number, packets: string[]): Promise<unknown[]> {
  return parseRawResponses(await rawExchange(port, packets)).map((r) => r.body);
}

describe("rewriteListRequestLine", () => {
  it("turns LIST into GET with list=true, keeping the rest of the query", () => {
    expect(rewriteListRequestLine("LIST /v1/a/roles HTTP/1.1\r\n")).toBe("GET /v1/a/roles?list=true HTTP/1.1\r\n");
    expect(rewriteListRequestLine("LIST /v1/a?x=1&list=false HTTP/1.1\r\n")).toBe("GET /v1/a?x=1&list=true HTTP/1.1\r\n");
  });

  it("turns HELP into GET with help=1 the same way, and leaves a list flag alone there", () => {
    expect(rewriteListRequestLine("HELP /v1/a/roles HTTP/1.1\r\n")).toBe("GET /v1/a/roles?help=1 HTTP/1.1\r\n");
    expect(rewriteListRequestLine("HELP /v1/a?help=0&list=true HTTP/1.1\r\n")).toBe("GET /v1/a?list=true&help=1 HTTP/1.1\r\n");
    expect(rewriteListRequestLine("HELPS /v1/a HTTP/1.1\r\n")).toBe("HELPS /v1/a HTTP/1.1\r\n");
  });

  it("follows a rewritten LIST line with the mark's header line, in the line's own ending; never a HELP line, nor a line without a version", () => {
    expect(rewriteListRequestLine("LIST /v1/a HTTP/1.1\r\n", "x-m: v")).toBe("GET /v1/a?list=true HTTP/1.1\r\nx-m: v\r\n");
    expect(rewriteListRequestLine("LIST /v1/a HTTP/1.0\n", "x-m: v")).toBe("GET /v1/a?list=true HTTP/1.0\nx-m: v\n");
    expect(rewriteListRequestLine("HELP /v1/a HTTP/1.1\r\n", "x-m: v")).toBe("GET /v1/a?help=1 HTTP/1.1\r\n");
    expect(rewriteListRequestLine("LIST /v1/a\r\n", "x-m: v")).toBe("GET /v1/a?list=true\r\n");
    expect(rewriteListRequestLine("GET /v1/a?list=true HTTP/1.1\r\n", "x-m: v")).toBe("GET /v1/a?list=true HTTP/1.1\r\n");
  });
});

describe("the LIST mark", () => {
  it("is random text of the process's own, and only its exact value says a request was sent as LIST", () => {
    expect(LIST_MARK.value).toMatch(/^[0-9a-f]{32}$/);
    expect(sentAsList({ [LIST_MARK.name]: LIST_MARK.value })).toBe(true);
    expect(sentAsList({})).toBe(false);
    expect(sentAsList({ [LIST_MARK.name]: `${LIST_MARK.value}, x` })).toBe(false);
    expect(sentAsList({ [LIST_MARK.name]: LIST_MARK.value.toUpperCase() })).toBe(false);
    expect(sentAsList({ "x-other": LIST_MARK.value })).toBe(false);
  });

  it("is added by a rewriter given it, after each LIST line it rewrites, and by no other", () => {
    const marked = new ListRequestRewriter(LIST_MARK);
    const input = "LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/b HTTP/1.1\r\n\r\nLI";
    expect(Buffer.concat(marked.push(Buffer.from(input))).toString()).toBe(`GET /v1/a?list=true HTTP/1.1\r\n${LIST_MARK.name}: ${LIST_MARK.value}\r\nHost: x\r\n\r\nGET /v1/b HTTP/1.1\r\n\r\n`);
    expect(Buffer.concat(marked.push(Buffer.from("ST /v1/c HTTP/1.1\n\n"))).toString()).toBe(`GET /v1/c?list=true HTTP/1.1\n${LIST_MARK.name}: ${LIST_MARK.value}\n\n`);
    expect(Buffer.concat(new ListRequestRewriter().push(Buffer.from(input))).toString()).toBe("GET /v1/a?list=true HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/b HTTP/1.1\r\n\r\n");
  });
});

describe("ListRequestRewriter", () => {
  const list = "LIST /v1/roles HTTP/1.1\r\nHost: x\r\n\r\n";
  const post = (body: string) => `POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const chunked = (body: string) =>
    `POST /v1/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)};ext=1\r\n${body}\r\n0\r\nTrailer: t\r\n\r\n`;

  it("rewrites only request lines, never body bytes that look like one", () => {
    const sneaky = "\r\nLIST /v1/secret HTTP/1.1\r\n";
    const input = post(sneaky) + list + chunked(sneaky) + list;
    const expected = post(sneaky) + list.replace("LIST /v1/roles", "GET /v1/roles?list=true") + chunked(sneaky) + list.replace("LIST /v1/roles", "GET /v1/roles?list=true");
    expect(rewriteAll(input)).toBe(expected);
  });

  it("gives the same result wherever the stream is cut into packets", () => {
    const input = post("{}") + list + chunked("abc") + "\r\n" + list;
    const expected = rewriteAll(input);
    for (let cut = 1; cut < input.length; cut++) expect(rewriteAll(input, [cut])).toBe(expected);
    expect(rewriteAll(input, [3, 4, 9, 40, 41, 80])).toBe(expected);
  });

  it("passes a stream it cannot follow through unchanged", () => {
    const bad = "POST /v1/x HTTP/1.1\r\nContent-Length: nope\r\n\r\nLIST /v1/roles HTTP/1.1\r\n\r\n";
    expect(rewriteAll(bad)).toBe(bad);
  });
});

describe("acceptListMethod on an HTTP server", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        res.setHeader("Content-Type", "application/json");
        res.end(JSON.stringify({ method: req.method, url: req.url, body }));
      });
    });
    acceptListMethod(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("serves LIST as GET ?list=true, also pipelined after other requests on one connection", async () => {
    const bodies = await answeredBodies(port, [
      "LIST /v1/roles HTTP/1.1\r\nHost: x\r\n\r\n",
      'POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}LIST /v1/roles?a=b HTTP/1.1\r\nHost: x\r\n\r\nLI',
      "ST /v1/last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]);
    expect(bodies).toEqual([
      { method: "GET", url: "/v1/roles?list=true", body: "" },
      { method: "POST", url: "/v1/x", body: "{}" },
      { method: "GET", url: "/v1/roles?a=b&list=true", body: "" },
      { method: "GET", url: "/v1/last?list=true", body: "" },
    ]);
  });

  it("still refuses methods nobody knows with 400, as Node does", async () => {
    const raw = await rawExchange(port, ["FROB /v1/x HTTP/1.1\r\nHost: x\r\n\r\n"]);
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request/);
  });

  it("gives the connection's addresses to the server", async () => {
    const seen = await new Promise<string | undefined>((resolve) => {
      const probe = createServer((req, res) => {
        resolve(req.socket.remoteAddress);
        res.end();
      });
      acceptListMethod(probe);
      probe.listen(0, "127.0.0.1", async () => {
        await fetch(`http://127.0.0.1:${(probe.address() as AddressInfo).port}/`);
        probe.close();
      });
    });
    expect(seen).toBe("127.0.0.1");
  });
});

describe("a LIST server's connections: every one through the rewriter, Node's refusals otherwise", () => {
  let server: Server;
  let port: number;
  /** Whether each request's connection was a ListConnection (the stream the rewriter feeds). */
  let rewritten: boolean[] = [];
  beforeAll(async () => {
    server = createServer({ maxHeaderSize: 1024 }, (req, res) => {
      rewritten.push(req.socket instanceof ListConnection);
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ method: req.method, url: req.url })));
    });
    acceptListMethod(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads every connection through the rewriter, before and after a LIST", async () => {
    rewritten = [];
    expect(await answeredBodies(port, ["GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n", "LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])).toEqual([
      { method: "GET", url: "/v1/a" },
      { method: "GET", url: "/v1/b?list=true" },
      { method: "GET", url: "/v1/c" },
    ]);
    expect(rewritten).toEqual([true, true, true]);
  });

  it("serves a LIST pipelined right after a body that ends in capital letters", async () => {
    expect(await answeredBodies(port, ["POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nOKLIST /v1/b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])).toEqual([
      { method: "POST", url: "/v1/a" },
      { method: "GET", url: "/v1/b?list=true" },
    ]);
  });

  it("refuses a method nobody knows after LIST with 400, and closes", async () => {
    // FROB goes once LIST is answered: were both read at once, the refusal would come first and
    // close the connection before LIST's answer, as Node's own refusal does.
    const raw = await converse(port, "LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", { after: '"url":"/v1/b?list=true"}', send: "FROB /v1/x HTTP/1.1\r\nHost: x\r\n\r\n" });
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/);
  });

  it("keeps the server's parser settings after LIST: a request only a lenient parser takes is refused here, taken by a lenient server", async () => {
    // Content-Length beside chunked: llhttp refuses it unless the server is lenient (insecureHTTPParser).
    const both = "POST /v1/c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n";
    const strict = await rawExchange(port, ["LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", both]);
    expect(strict).toMatch(/HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/);
    const lenient = createServer({ insecureHTTPParser: true }, (req, res) => {
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ method: req.method, url: req.url })));
    });
    acceptListMethod(lenient);
    await new Promise<void>((resolve) => lenient.listen(0, "127.0.0.1", resolve));
    try {
      expect(await answeredBodies((lenient.address() as AddressInfo).port, ["LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", both])).toEqual([
        { method: "GET", url: "/v1/b?list=true" },
        { method: "POST", url: "/v1/c" },
      ]);
    } finally {
      lenient.closeAllConnections();
      await new Promise<void>((resolve) => lenient.close(() => resolve()));
    }
  });

  it("refuses a LIST request line it cannot read with 400 and closes, as soon as the line has come", async () => {
    // Two spaces: no request target. The rewriter passes the line on as it came; the parser refuses
    // it again, and that refusal is answered (nothing else is sent that could be refused instead).
    const raw = await converse(port, "LIST  /v1/b HTTP/1.1\r\n");
    expect(raw).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });

  it("serves every LIST of a connection, each in a packet of its own", async () => {
    rewritten = [];
    expect(await answeredBodies(port, ["LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", "LIST /v1/c HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])).toEqual([
      { method: "GET", url: "/v1/b?list=true" },
      { method: "GET", url: "/v1/c?list=true" },
      { method: "GET", url: "/v1/d" },
    ]);
    expect(rewritten).toEqual([true, true, true]);
  });

  it("goes on reading a connection after a packet that holds only part of a line", async () => {
    expect(await answeredBodies(port, ["LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/c HT", "TP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])).toEqual([
      { method: "GET", url: "/v1/b?list=true" },
      { method: "GET", url: "/v1/c" },
    ]);
  });

  it("serves LIST on a connection handed to the server as a stream, without a socket handle", async () => {
    rewritten = [];
    const { stream: connection, text: answers } = duplexConnection();
    server.emit("connection", connection);
    connection.push(Buffer.from("LIST /v1/b HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/c HTTP/1.1\r\nHost: x\r\n\r\nL"));
    connection.push(Buffer.from("IST /v1/d HTTP/1.1\r\nHost: x\r\n\r\n"));
    await expect.poll(() => parseRawResponses(answers()).length).toBe(3);
    expect(parseRawResponses(answers()).map((r) => r.body)).toEqual([
      { method: "GET", url: "/v1/b?list=true" },
      { method: "GET", url: "/v1/c" },
      { method: "GET", url: "/v1/d?list=true" },
    ]);
    expect(rewritten).toEqual([true, true, true]);
    connection.destroy();
  });

  it("writes no refusal into an answer already under way: the connection is closed, as Node does", async () => {
    const streaming = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("first part");
    });
    acceptListMethod(streaming);
    await new Promise<void>((resolve) => streaming.listen(0, "127.0.0.1", resolve));
    try {
      const raw = await converse((streaming.address() as AddressInfo).port, "GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n", { after: "first part", send: "FROB /v1/x HTTP/1.1\r\nHost: x\r\n\r\n" });
      expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*first part\r\n$/);
      expect(raw).not.toContain("400");
    } finally {
      streaming.closeAllConnections();
      await new Promise<void>((resolve) => streaming.close(() => resolve()));
    }
  });

  it("answers headers over the server's limit with 431, as Node does", async () => {
    const raw = await rawExchange(port, [`GET /v1/x HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(2048)}\r\n\r\n`]);
    expect(raw).toBe("HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n");
  });
});
