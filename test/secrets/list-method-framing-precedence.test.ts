// LIST over the wire: the framing of HTTP/1.1 (RFC 9112) decides what is a request line before any
// content is looked at. Content-Length and chunked bodies (chunked only as the final coding, RFC 9112
// 6.3; trailers; chunk extensions), bare-LF line ends and empty lines before a request line (RFC 9112
// 2.2), lines longer than the parser accepts, and a malformed LIST line are each followed or passed
// on byte for byte. On a server, the wrapped connection still behaves as a socket: half-close,
// Connection: close, idle timeouts, a client that goes away, and the socket's own properties.
// Every server here is made inside its test: what a test relies on is what it sets up.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, Socket, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { acceptListMethod, ListConnection, ListRequestRewriter, rewriteListRequestLine } from "../../server/secrets/http/list-method.ts";
import { duplexConnection } from "../helpers/duplex-connection.ts";
import { rewriteAll } from "../helpers/list-method.ts";

const LIST = "LIST /v1/roles HTTP/1.1\r\nHost: x\r\n\r\n";
const GET = "GET /v1/roles?list=true HTTP/1.1\r\nHost: x\r\n\r\n";

describe("rewriteListRequestLine", () => {
  it("keeps a fragment last, so the flag lands in the query", () => {
    expect(rewriteListRequestLine("LIST /v1/a#frag HTTP/1.1\r\n")).toBe("GET /v1/a?list=true#frag HTTP/1.1\r\n");
    expect(rewriteListRequestLine("LIST /v1/a?x=1#f?list=0 HTTP/1.1\r\n")).toBe("GET /v1/a?x=1&list=true#f?list=0 HTTP/1.1\r\n");
  });

  it("drops empty query parts and every other list parameter", () => {
    expect(rewriteListRequestLine("LIST /v1/a?&&x=1&&list&list=1& HTTP/1.1\r\n")).toBe("GET /v1/a?x=1&list=true HTTP/1.1\r\n");
    expect(rewriteListRequestLine("LIST /v1/a?listing=1 HTTP/1.1\r\n")).toBe("GET /v1/a?listing=1&list=true HTTP/1.1\r\n");
  });

  it("takes a bare LF line end and a line without a version; leaves a line it cannot read as it is", () => {
    expect(rewriteListRequestLine("LIST /v1/a HTTP/1.1\n")).toBe("GET /v1/a?list=true HTTP/1.1\n");
    expect(rewriteListRequestLine("LIST /v1/a\r\n")).toBe("GET /v1/a?list=true\r\n");
    for (const bad of ["LIST  /v1/a HTTP/1.1\r\n", "LIST /v1/a b HTTP/1.1\r\n", "LIST /v1/a HTTP/1.1", "LIST /v1/a HTTP/1.1\r\nX"]) {
      expect(rewriteListRequestLine(bad)).toBe(bad);
    }
  });
});

describe("ListRequestRewriter: framing first", () => {
  it("a body split across packets stays a body, whatever its later part looks like", () => {
    const body = "xxxxxxxxxx\r\nLIST /v1/secret HTTP/1.1\r\n\r\n";
    const input = `POST /v1/x HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}${LIST}`;
    const expected = input.replace(LIST, GET);
    const bodyStart = input.indexOf("xxxx");
    for (const cut of [bodyStart + 3, bodyStart + 10, bodyStart + 12]) expect(rewriteAll(input, [cut])).toBe(expected);
  });

  it("empty lines before a request line are passed on and skipped, CRLF or bare LF", () => {
    expect(rewriteAll("\r\n\r\n" + LIST)).toBe("\r\n\r\n" + GET);
    expect(rewriteAll("\n" + LIST)).toBe("\n" + GET);
  });

  it("follows bare-LF line ends: headers end at an empty line and the next request is found", () => {
    const lf = "LIST /v1/a HTTP/1.1\nHost: x\n\nLIST /v1/b HTTP/1.1\n\n";
    expect(rewriteAll(lf)).toBe("GET /v1/a?list=true HTTP/1.1\nHost: x\n\nGET /v1/b?list=true HTTP/1.1\n\n");
  });

  it("is chunked only when chunked is the final transfer coding, wherever the header stands", () => {
    const chunkedBody = "3\r\nabc\r\n0\r\n\r\n";
    const request = (te: string, after = "") => `POST /v1/x HTTP/1.1\r\nTransfer-Encoding: ${te}\r\n${after}\r\n${chunkedBody}${LIST}`;
    for (const te of ["chunked", "Chunked", "gzip, chunked", "gzip,chunked", "chunked "]) {
      expect(rewriteAll(request(te))).toBe(request(te).replace(LIST, GET));
    }
    // A header after Transfer-Encoding does not undo it: the chunk stays data, whatever it holds.
    const sneaky = "\r\nLIST /v1/secret HTTP/1.1\r\n";
    const withData = `POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nX-Other: y\r\n\r\n${sneaky.length.toString(16)}\r\n${sneaky}\r\n0\r\n\r\n${LIST}`;
    expect(rewriteAll(withData)).toBe(withData.replace(LIST, GET));
    // Not chunked (chunked is not the final coding, or another coding): no body, the next line is a request line.
    for (const te of ["chunked, gzip", "notchunked", "chunkedx"]) {
      const input = `GET /v1/x HTTP/1.1\r\nTransfer-Encoding: ${te}\r\n\r\n${LIST}`;
      expect(rewriteAll(input)).toBe(input.replace(LIST, GET));
    }
  });

  it("a body in several chunks stays a body from one chunk to the next", () => {
    const second = "\r\nLIST /v1/secret HTTP/1.1\r\n";
    const input = `POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n${second.length.toString(16)}\r\n${second}\r\n0\r\n\r\n${LIST}`;
    expect(rewriteAll(input)).toBe(input.replace(LIST, GET));
  });

  it("chunk extensions and trailers are part of the body; the request after them is found", () => {
    const input = "POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + "5;name=LIST\r\nLIST \r\n" + "0\r\nA: 1\r\nB: 2\r\n\r\n" + LIST;
    expect(rewriteAll(input)).toBe(input.replace(/LIST \/v1\/roles/, "GET /v1/roles?list=true"));
  });

  it("gives up, passing everything on unchanged, at a chunk size it cannot read", () => {
    const input = "POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + LIST;
    expect(rewriteAll(input)).toBe(input);
    const negative = "POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n" + LIST;
    expect(rewriteAll(negative)).toBe(negative);
    // What follows a bad size is never read as framing again, even a last chunk and its blank line.
    for (const bad of ["zz", "-2"]) {
      const input = `POST /v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${bad}\r\n0\r\n\r\n${LIST}`;
      expect(rewriteAll(input)).toBe(input);
    }
  });

  it("gives up at a line longer than the parser would take (64 KiB), also when it comes in pieces", () => {
    const long = `GET /v1/x HTTP/1.1\r\nX-Long: ${"a".repeat(70 * 1024)}\r\n\r\n` + LIST;
    const start = long.indexOf("X-Long");
    expect(rewriteAll(long, [start + 10, start + 66 * 1024])).toBe(long);
    // Exactly 64 KiB waiting for its end is still within the limit.
    const edge = `GET /v1/x HTTP/1.1\r\nX-Long: ${"a".repeat(70 * 1024)}\r\n\r\n` + LIST;
    expect(rewriteAll(edge, [start, start + 64 * 1024])).toBe(edge.replace(LIST, GET));
    // A packet longer than the limit that holds no line end, alone or after the start of a LIST line.
    const whole = `GET /v1/x HTTP/1.1\r\nX-Long: ${"a".repeat(70 * 1024)}\r\n\r\n` + LIST;
    expect(rewriteAll(whole, [start, start + 70 * 1024])).toBe(whole);
    const list = `LIST /v1/x?${"a".repeat(70 * 1024)} HTTP/1.1\r\n\r\n` + LIST;
    expect(rewriteAll(list, [3, 3 + 70 * 1024])).toBe(list);
    // A long line that stays under the limit is followed.
    const fine = `GET /v1/x HTTP/1.1\r\nX-Long: ${"a".repeat(60 * 1024)}\r\n\r\n` + LIST;
    expect(rewriteAll(fine, [start + 10, start + 50 * 1024])).toBe(fine.replace(LIST, GET));
  });

  it("passes every other byte on as it came, also bytes outside ASCII in a LIST target", () => {
    const input = Buffer.concat([Buffer.from("LIST /v1/caf"), Buffer.from([0xe9]), Buffer.from(" HTTP/1.1\r\n\r\n")]);
    const out = Buffer.concat(new ListRequestRewriter().push(input));
    expect(out).toEqual(Buffer.concat([Buffer.from("GET /v1/caf"), Buffer.from([0xe9]), Buffer.from("?list=true HTTP/1.1\r\n\r\n")]));
  });

  it("a request with Content-Length 0 has no body: the next request line is read", () => {
    const input = "POST /v1/x HTTP/1.1\r\nContent-Length: 0\r\n\r\n" + LIST;
    expect(rewriteAll(input)).toBe(input.replace(LIST, GET));
  });
});

describe("ListRequestRewriter: what is handed on at once and what is held", () => {
  const bytes = (text: string) => Buffer.from(text, "latin1");
  const texts = (parts: Buffer[]) => parts.map((part) => part.toString("latin1"));

  it("hands a chunk without a LIST line on at once, as the very chunk it got", () => {
    const rewriter = new ListRequestRewriter();
    const chunk = bytes("GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/b HT");
    const out = rewriter.push(chunk);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(chunk);
    expect(rewriter.holding).toBe(false);
  });

  it("holds back only a request line that may still be LIST, until it is complete", () => {
    const rewriter = new ListRequestRewriter();
    expect(texts(rewriter.push(bytes("GE")))).toEqual(["GE"]);
    expect(texts(rewriter.push(bytes("T /v1/a HTTP/1.1\r\n\r\n")))).toEqual(["T /v1/a HTTP/1.1\r\n\r\n"]);
    // `LIX` cannot become `LIST `: handed on as soon as the X comes.
    expect(texts(rewriter.push(bytes("LIX /v1/b")))).toEqual(["LIX /v1/b"]);
    expect(rewriter.holding).toBe(false);
    expect(texts(rewriter.push(bytes(" HTTP/1.1\r\n\r\nLI")))).toEqual([" HTTP/1.1\r\n\r\n"]);
    expect(rewriter.holding).toBe(true);
    expect(texts(rewriter.push(bytes("ST /v1/c HTTP/1.1\r\n")))).toEqual(["GET /v1/c?list=true HTTP/1.1\r\n"]);
    expect(rewriter.holding).toBe(false);
  });

  it("cuts a chunk only around the line it rewrites: the bytes before, the new line, the bytes after", () => {
    const rewriter = new ListRequestRewriter();
    expect(texts(rewriter.push(bytes("GET /v1/a HTTP/1.1\r\n\r\nLIST /v1/b HTTP/1.1\r\n\r\n")))).toEqual([
      "GET /v1/a HTTP/1.1\r\n\r\n",
      "GET /v1/b?list=true HTTP/1.1\r\n",
      "\r\n",
    ]);
    // Nothing before it, nothing after it: the new line alone.
    expect(texts(rewriter.push(bytes("LIST /v1/c HTTP/1.1\r\n")))).toEqual(["GET /v1/c?list=true HTTP/1.1\r\n"]);
    expect(texts(rewriter.push(bytes("\r\nLI")))).toEqual(["\r\n"]);
    expect(texts(rewriter.push(bytes("ST /v1/d HTTP/1.1\r\n\r\n")))).toEqual(["GET /v1/d?list=true HTTP/1.1\r\n", "\r\n"]);
  });

  it("never holds the rest of a request line whose beginning went on already", () => {
    const rewriter = new ListRequestRewriter();
    const out = [...rewriter.push(bytes("X")), ...rewriter.push(bytes("LIST /v1/a")), ...rewriter.push(bytes(" HTTP/1.1\r\n\r\n"))];
    expect(Buffer.concat(out).toString("latin1")).toBe("XLIST /v1/a HTTP/1.1\r\n\r\n");
  });

  it("keeps every byte of a long LIST line that comes in many pieces", () => {
    const target = `/v1/${"a".repeat(300)}`;
    const input = `LIST ${target} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const cuts = Array.from({ length: Math.floor(input.length / 100) }, (_, i) => (i + 1) * 100);
    expect(rewriteAll(input, cuts)).toBe(`GET ${target}?list=true HTTP/1.1\r\nHost: x\r\n\r\n`);
  });

  it("holds nothing back in headers, however a header line begins", () => {
    const rewriter = new ListRequestRewriter();
    expect(texts(rewriter.push(bytes("GET /v1/a HTTP/1.1\r\nLIS")))).toEqual(["GET /v1/a HTTP/1.1\r\nLIS"]);
    expect(rewriter.holding).toBe(false);
  });

  it("hands held bytes on unchanged when released (the hold timed out) or at the end of the stream, and never rewrites that line after", () => {
    const released = new ListRequestRewriter();
    expect(released.push(bytes("LIS"))).toEqual([]);
    const out: Buffer[] = [];
    released.release((part) => out.push(part));
    expect(texts(out)).toEqual(["LIS"]);
    expect(released.holding).toBe(false);
    // The rest of the line passes as it comes: its beginning is gone already.
    expect(texts(released.push(bytes("T /v1/a HTTP/1.1\r\n\r\n")))).toEqual(["T /v1/a HTTP/1.1\r\n\r\n"]);

    const ended = new ListRequestRewriter();
    ended.push(bytes("LIST /v1/b"));
    const atEnd: Buffer[] = [];
    ended.end((part) => atEnd.push(part));
    expect(texts(atEnd)).toEqual(["LIST /v1/b"]);
  });

  it("passes everything on unchanged after a Content-Length it cannot read (a request the parser refuses)", () => {
    const input = "POST /v1/x HTTP/1.1\r\nContent-Length: 4x\r\n\r\n" + LIST;
    expect(rewriteAll(input)).toBe(input);
    expect(rewriteAll(input, [10, 40])).toBe(input);
  });

  it("reads Transfer-Encoding and Content-Length by their exact names, not a name of the same length", () => {
    // `Transfer-Encodinz` is 17 letters long like Transfer-Encoding: not a framing header.
    const body = "POST /v1/x HTTP/1.1\r\nTransfer-Encodinz: chunked\r\nContent-Length: 4\r\n\r\nbody";
    expect(rewriteAll(body + LIST)).toBe(body + GET);
    const length = "POST /v1/x HTTP/1.1\r\nContent-Lengtx: 40\r\n\r\n";
    expect(rewriteAll(length + LIST)).toBe(length + GET);
  });

  it("ends the headers only at an empty line: a two-byte header line does not end them", () => {
    const input = `POST /v1/x HTTP/1.1\r\nX\nContent-Length: ${LIST.length}\r\n\r\n${LIST}`;
    expect(rewriteAll(input)).toBe(input);
  });
});

// ---- on a server --------------------------------------------------------------------------------

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const echo: Handler = (req, res) => {
  req.resume();
  req.on("end", () => {
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ method: req.method, url: req.url }));
  });
};

async function withServer<T>(handler: Handler, use: (port: number, server: Server) => Promise<T>, setup?: (server: Server) => void): Promise<T> {
  const server = createServer(handler);
  setup?.(server);
  acceptListMethod(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await use((server.address() as AddressInfo).port, server);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Connects, sends, and resolves with what came back once the server closed the connection. */
async function exchange(port: number, data: string, options: { halfClose: boolean }): Promise<string> {
  return (await exchangeFrom(port, data, options)).received;
}

function exchangeFrom(port: number, data: string, { halfClose }: { halfClose: boolean }): Promise<{ received: string; localPort: number }> {
  return new Promise((resolve, reject) => {
    let localPort = 0;
    const socket = connect(port, "127.0.0.1", () => {
      localPort = socket.localPort!;
      socket.write(data);
      if (halfClose) socket.end();
    });
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("close", () => resolve({ received, localPort }));
    socket.on("error", reject);
  });
}

describe("a connection of an HTTP server that accepts LIST", () => {
  it("serves LIST as GET ?list=true; other methods are untouched", async () => {
    await withServer(echo, async (port) => {
      const answer = await exchange(port, "LIST /v1/roles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", { halfClose: false });
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).toContain('{"method":"GET","url":"/v1/roles?list=true"}');
    });
  });

  it("reads on after bytes that complete no line yet: a request line sent in pieces is served", async () => {
    await withServer(echo, async (port) => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => {
          socket.write("LI");
          setTimeout(() => socket.write("ST /v1/roles HTT"), 30);
          setTimeout(() => socket.write("P/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 60);
        });
        let received = "";
        socket.on("data", (chunk) => (received += chunk.toString("latin1")));
        socket.on("close", () => resolve(received));
        socket.on("error", reject);
      });
      expect(answer).toContain('{"method":"GET","url":"/v1/roles?list=true"}');
    });
  });

  it("serves a connection that is a stream without a socket handle (given to the server as a duplex)", async () => {
    const server = createServer(echo);
    acceptListMethod(server);
    const { stream: connection, text: answer } = duplexConnection();
    const done = new Promise<void>((resolve) => connection.on("finish", () => resolve()));
    server.emit("connection", connection);
    connection.push(Buffer.from("LIST /v1/roles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    await done;
    expect(answer()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer()).toContain('{"method":"GET","url":"/v1/roles?list=true"}');
  });

  it("answers a client that half-closes after its request, and then closes", async () => {
    await withServer(echo, async (port) => {
      const answer = await exchange(port, "LIST /v1/roles HTTP/1.1\r\nHost: x\r\n\r\n", { halfClose: true });
      expect(answer).toContain('{"method":"GET","url":"/v1/roles?list=true"}');
    });
  });

  it("closes the connection after the answer when the request says Connection: close", async () => {
    await withServer(echo, async (port) => {
      const answer = await exchange(port, "GET /v1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", { halfClose: false });
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close/);
    });
  });

  it("closes an idle connection when the server's timeout passes", async () => {
    const timedOut: Socket[] = [];
    await withServer(
      echo,
      async (port) => {
        const answer = await exchange(port, "", { halfClose: false });
        expect(answer).toBe("");
        expect(timedOut).toHaveLength(1);
      },
      (server) => server.setTimeout(150, (socket) => {
        timedOut.push(socket);
        socket.destroy();
      }),
    );
  });

  it("tells the server when the client goes away in the middle of a request", async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => (closed = resolve));
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    await withServer(
      (req) => {
        req.on("close", () => closed());
        arrived();
      },
      async (port) => {
        const socket = connect(port, "127.0.0.1", () => socket.write("POST /v1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial"));
        socket.on("error", () => {});
        await requestArrived;
        socket.destroy();
        await requestClosed;
      },
    );
  });

  it("carries a large body to the handler and a large answer back (flow control)", async () => {
    const size = 4 * 1024 * 1024;
    await withServer(
      (req, res) => {
        let received = 0;
        req.on("data", (chunk: Buffer) => (received += chunk.length));
        req.on("end", () => res.end(JSON.stringify({ received, echo: "x".repeat(size) })));
      },
      async (port) => {
        const answer = await exchange(port, `POST /v1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${size}\r\n\r\n${"b".repeat(size)}`, { halfClose: false });
        expect(answer).toContain(`{"received":${size},"echo":"xxx`);
        expect(answer.length).toBeGreaterThan(size);
      },
    );
  });

  it("calls a handler's own socket timeout back when the connection stays idle", async () => {
    let fired!: () => void;
    const timedOut = new Promise<void>((resolve) => (fired = resolve));
    await withServer(
      (req, res) => {
        req.socket.setTimeout(100, () => {
          fired();
          req.socket.destroy();
        });
        res.writeHead(200);
        res.write("waiting");
      },
      async (port) => {
        const answer = await exchange(port, "GET /v1/x HTTP/1.1\r\nHost: x\r\n\r\n", { halfClose: false });
        await timedOut;
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
      },
    );
  });

  it("hands handlers a connection with its socket's properties: both ends' addresses, not encrypted, its calls returning it", async () => {
    let seen: Record<string, unknown> = {};
    await withServer(
      (req, res) => {
        const s = req.socket;
        seen = {
          remoteAddress: s.remoteAddress,
          remotePort: s.remotePort,
          remoteFamily: s.remoteFamily,
          localAddress: s.localAddress,
          localPort: s.localPort,
          // The stream the rewriter feeds, over the connection's own socket.
          own: s instanceof ListConnection && s.socket instanceof Socket,
          encrypted: Boolean((s as unknown as { encrypted?: boolean }).encrypted),
          chained: [s.setNoDelay(true), s.setKeepAlive(true, 1000), s.ref(), s.unref(), s.setTimeout(0)].every((r) => r === s),
        };
        res.end("ok");
      },
      async (port) => {
        const { localPort: local } = await exchangeFrom(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", { halfClose: false });
        expect(seen).toEqual({ remoteAddress: "127.0.0.1", remotePort: local, remoteFamily: "IPv4", localAddress: "127.0.0.1", localPort: port, own: true, encrypted: false, chained: true });
      },
    );
  });
});

describe("ListRequestRewriter: header names as a lenient parser reads them", () => {
  it("takes Content-Length and Transfer-Encoding with white space before the colon (insecureHTTPParser frames by them)", () => {
    const sneaky = "LIST /v1/secret HTTP/1.1\r\n";
    const withLength = `POST /v1/x HTTP/1.1\r\nContent-Length : ${sneaky.length}\r\n\r\n${sneaky}${LIST}`;
    expect(rewriteAll(withLength)).toBe(withLength.replace(LIST, GET));
    const withTab = `POST /v1/x HTTP/1.1\r\nCONTENT-LENGTH\t: ${sneaky.length}\r\n\r\n${sneaky}${LIST}`;
    expect(rewriteAll(withTab)).toBe(withTab.replace(LIST, GET));
    const chunked = `POST /v1/x HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n${sneaky.length.toString(16)}\r\n${sneaky}\r\n0\r\n\r\n${LIST}`;
    expect(rewriteAll(chunked)).toBe(chunked.replace(LIST, GET));
  });

  it("reads no other header, however it begins", () => {
    const input = `POST /v1/x HTTP/1.1\r\nConnection: keep-alive\r\nContent-Type: text/plain\r\nTrailer: x\r\nContent-Length: 4\r\n\r\nLIST${LIST}`;
    expect(rewriteAll(input)).toBe(input.replace(`LIST${LIST}`, `LIST${GET}`));
  });
});
