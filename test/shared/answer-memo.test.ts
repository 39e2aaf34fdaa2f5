// The memo of read answers (server/shared/answer-memo.ts): what it sends again, and when it must not.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type Request, type Response } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerMemo, type AnswerMemoOptions } from "../../server/shared/answer-memo.ts";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

interface Harness {
  url: string;
  runs: () => number;
  state: { version: number; status: number; body: string; moveDuringAnswer: boolean };
  memo: AnswerMemo;
}

async function harness(options: Partial<AnswerMemoOptions> = {}): Promise<Harness> {
  const state = { version: 1, status: 200, body: "", moveDuringAnswer: false };
  let runs = 0;
  let perRequest = 0;
  const memo = new AnswerMemo({ version: () => state.version, ...options });
  const app = express();
  app.set("etag", false);
  app.use((_req, res, next) => {
    res.set("X-Before-Handler", String(++perRequest));
    next();
  });
  app.get("/thing/:name", (req, res) =>
    memo.serve(req, res, () => {
      runs++;
      if (state.moveDuringAnswer) state.version++;
      res.status(state.status).set("X-From-Handler", `v${state.version}`);
      res.json({ name: req.params.name, version: state.version, run: runs, body: state.body });
    }),
  );
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, runs: () => runs, state, memo };
}

const read = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
};

/** Reads twice: an answer is kept the second time its request comes. */
const readTwice = async (url: string, headers: Record<string, string> = {}) => {
  await read(url, headers);
  return read(url, headers);
};

describe("the answer memo", () => {
  it("sends a kept answer again, status, headers and body, without running the handler", async () => {
    const h = await harness();
    const first = await read(`${h.url}/thing/a`);
    await read(`${h.url}/thing/a`);
    expect(h.runs()).toBe(2);
    const third = await read(`${h.url}/thing/a`);
    expect(h.runs()).toBe(2);
    expect(third.status).toBe(200);
    expect(JSON.parse(third.body)).toEqual({ ...JSON.parse(first.body), run: 2 });
    expect(third.headers.get("x-from-handler")).toBe("v1");
    expect(third.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(third.headers.get("content-length")).toBe(String(Buffer.byteLength(third.body)));
    // What the steps before the handler set is theirs, for every request.
    expect(first.headers.get("x-before-handler")).toBe("1");
    expect(third.headers.get("x-before-handler")).toBe("3");
  });

  it("keeps an answer the second time its request comes: a request made once is not copied and pushes out no kept answer", async () => {
    const h = await harness({ maxAnswers: 2 });
    await readTwice(`${h.url}/thing/a`);
    await readTwice(`${h.url}/thing/b`);
    expect(h.memo.size).toMatchObject({ answers: 2, seenOnce: 0 });
    for (let n = 0; n < 5; n++) await read(`${h.url}/thing/once-${n}`);
    // Held: the keys of the last two (the count bounds them too), no answer of theirs.
    expect(h.memo.size).toMatchObject({ answers: 2, seenOnce: 2 });
    const runs = h.runs();
    await read(`${h.url}/thing/a`);
    await read(`${h.url}/thing/b`);
    expect(h.runs()).toBe(runs);
    // The second time of a request seen once: answered, and kept.
    await read(`${h.url}/thing/once-4`);
    expect(h.runs()).toBe(runs + 1);
    expect(h.memo.size).toMatchObject({ answers: 2, seenOnce: 1 });
  });

  it("answers anew once the state moved", async () => {
    const h = await harness();
    await readTwice(`${h.url}/thing/a`);
    h.state.version++;
    const after = await read(`${h.url}/thing/a`);
    expect(h.runs()).toBe(3);
    expect(JSON.parse(after.body)).toMatchObject({ version: 2, run: 3 });
    expect(after.headers.get("x-from-handler")).toBe("v2");
    // Seen once at the new version only: its next answer is kept, not served from before.
    expect(h.memo.size).toMatchObject({ answers: 0, seenOnce: 1 });
  });

  it("keys by method, URL and every header: a request that differs in any is answered anew", async () => {
    const h = await harness();
    await readTwice(`${h.url}/thing/a`);
    await read(`${h.url}/thing/a`);
    expect(h.runs()).toBe(2);
    await readTwice(`${h.url}/thing/a?x=1`);
    await readTwice(`${h.url}/thing/b`);
    await readTwice(`${h.url}/thing/a`, { authorization: "Bearer other" });
    await readTwice(`${h.url}/thing/a`, { "x-namespace": "team-a" });
    expect(h.runs()).toBe(10);
    await read(`${h.url}/thing/a`, { "x-namespace": "team-a" });
    expect(h.runs()).toBe(10);
  });

  it("keeps no answer of 500 or more, and none read while the state moved", async () => {
    const h = await harness();
    h.state.status = 500;
    for (let n = 0; n < 3; n++) await read(`${h.url}/thing/a`);
    expect(h.runs()).toBe(3);
    h.state.status = 404;
    await readTwice(`${h.url}/thing/c`);
    expect((await read(`${h.url}/thing/c`)).status).toBe(404);
    expect(h.runs()).toBe(5);

    h.state.status = 200;
    h.state.version++;
    await read(`${h.url}/thing/b`);
    h.state.moveDuringAnswer = true;
    await read(`${h.url}/thing/b`);
    h.state.moveDuringAnswer = false;
    await read(`${h.url}/thing/b`);
    expect(h.runs()).toBe(8);
  });

  it("gives every kept answer what changes per answer", async () => {
    let n = 0;
    const h = await harness({ perAnswer: (body) => Buffer.from(body.toString().replace(/"run":\d+/, `"run":${++n + 100}`)) });
    await readTwice(`${h.url}/thing/a`);
    expect(JSON.parse((await read(`${h.url}/thing/a`)).body).run).toBe(101);
    expect(JSON.parse((await read(`${h.url}/thing/a`)).body).run).toBe(102);
    expect(h.runs()).toBe(2);
  });

  it("holds at most its bytes and its count, dropping the oldest answers first", async () => {
    const h = await harness({ maxBytes: 4_000, maxAnswers: 3 });
    for (const name of ["a", "b", "c", "d"]) await readTwice(`${h.url}/thing/${name}`);
    expect(h.memo.size.answers).toBe(3);
    await read(`${h.url}/thing/a`); // dropped: answered anew
    expect(h.runs()).toBe(9);
    await read(`${h.url}/thing/d`); // kept
    expect(h.runs()).toBe(9);

    h.state.version++;
    h.state.body = "x".repeat(600);
    for (const name of ["a", "b", "c"]) await readTwice(`${h.url}/thing/${name}`);
    const { answers, bytes, seenOnceBytes } = h.memo.size;
    expect(bytes).toBeLessThanOrEqual(4_000);
    expect(answers).toBeLessThan(3);
    expect(seenOnceBytes).toBeLessThanOrEqual(500);

    // An answer over a quarter of the bytes is never kept.
    h.state.body = "x".repeat(1_100);
    for (let n = 0; n < 3; n++) await read(`${h.url}/thing/big`);
    expect(h.runs()).toBe(18);
  });
});

describe("the answer memo's byte count", () => {
  // Requests and responses with nothing but what the memo reads: an answer's bytes are its key
  // ("GET /a\n": 7 characters, counted twice) plus its body, here 86 bytes: 100 in all.
  const request = (path: string) => ({ method: "GET", originalUrl: path, rawHeaders: [] as string[] }) as unknown as Request;
  function respond(memo: AnswerMemo, path: string, body: string): { ran: boolean } {
    const headers: Record<string, unknown> = {};
    const res = {
      statusCode: 200,
      getHeaders: () => ({ ...headers }),
      setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = value),
      end: (_chunk?: unknown) => res,
    };
    let ran = false;
    memo.serve(request(path), res as unknown as Response, () => {
      ran = true;
      res.end(body);
    });
    return { ran };
  }

  it("holds each kept body in memory of its own, so that the bytes it counts are the bytes it holds", () => {
    // A short Buffer (Buffer.from, a slice) shares an 8 KiB pool with others: kept, it would keep the
    // whole pool alive (measured: 164 KB of kept answers held 41 MB).
    const memo = new AnswerMemo({ version: () => 1 });
    const sent: unknown[] = [];
    const answer = (path: string, body: string | Buffer) => {
      const res = { statusCode: 200, getHeaders: () => ({}), setHeader: () => undefined, end: (chunk?: unknown) => (sent.push(chunk), res) };
      memo.serve(request(path), res as unknown as Response, () => res.end(body));
    };
    const pooled = Buffer.from("a pooled answer");
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    const store = Buffer.allocUnsafeSlow(64).fill("s");
    const owning = Buffer.allocUnsafeSlow(5).fill("o");
    const bodies: [string, string | Buffer][] = [["/text", "a text answer"], ["/pooled", pooled], ["/head", store.subarray(0, 5)], ["/tail", store.subarray(59)], ["/owning", owning]];
    for (let n = 0; n < 3; n++) for (const [path, body] of bodies) answer(path, body);
    // The third of each was sent from what the memo kept.
    const replayed = sent.slice(2 * bodies.length) as Buffer[];
    expect(replayed.map((b) => b.toString())).toEqual(["a text answer", "a pooled answer", "sssss", "sssss", "ooooo"]);
    for (const body of replayed) expect([body.byteOffset, body.buffer.byteLength]).toEqual([0, body.length]);
    // A body that owns its memory is kept as it is, not copied.
    expect(replayed[4]).toBe(owning);
  });

  it("keeps answers up to exactly its bytes, and counts what it drops", () => {
    const memo = new AnswerMemo({ version: () => 1, maxBytes: 400, maxAnswers: 100 });
    for (const path of ["/a", "/b", "/c", "/d"]) for (let n = 0; n < 2; n++) respond(memo, path, "x".repeat(86));
    expect(memo.size).toEqual({ answers: 4, bytes: 400, seenOnce: 0, seenOnceBytes: 0 });
    respond(memo, "/e", "x".repeat(86));
    // Seen once: its key alone is held (7 characters, counted twice).
    expect(memo.size).toEqual({ answers: 4, bytes: 400, seenOnce: 1, seenOnceBytes: 14 });
    respond(memo, "/e", "x".repeat(86));
    expect(memo.size).toEqual({ answers: 4, bytes: 400, seenOnce: 0, seenOnceBytes: 0 });
    expect(respond(memo, "/b", "x".repeat(86)).ran).toBe(false);
    expect(respond(memo, "/a", "x".repeat(86)).ran).toBe(true); // the oldest went first
    expect(memo.size).toMatchObject({ answers: 4, bytes: 400 });
  });

  it("lets the answer used least recently go first, not the one kept first", () => {
    const memo = new AnswerMemo({ version: () => 1, maxBytes: 400, maxAnswers: 100 });
    for (const path of ["/a", "/b", "/c", "/d"]) for (let n = 0; n < 2; n++) respond(memo, path, "x".repeat(86));
    // /a, kept first, is asked again: /b is now the one used least recently.
    expect(respond(memo, "/a", "x".repeat(86)).ran).toBe(false);
    for (let n = 0; n < 2; n++) respond(memo, "/e", "x".repeat(86));
    expect(respond(memo, "/a", "x".repeat(86)).ran).toBe(false);
    expect(respond(memo, "/b", "x".repeat(86)).ran).toBe(true);
    expect(memo.size).toMatchObject({ answers: 4, bytes: 400 });
  });

  it("holds the keys of requests seen once in an eighth of its bytes, the oldest going first", () => {
    const memo = new AnswerMemo({ version: () => 1, maxBytes: 400, maxAnswers: 100 });
    // Each key is "GET /n\n" or "GET /nn\n": 14 or 16 bytes; 50 of them fit in 400 / 8.
    for (let n = 0; n < 10; n++) respond(memo, `/${n}`, "x");
    expect(memo.size).toMatchObject({ answers: 0, seenOnce: 3, seenOnceBytes: 42 });
    expect(respond(memo, "/9", "x").ran).toBe(true);
    expect(memo.size).toMatchObject({ answers: 1, seenOnce: 2 });
    expect(respond(memo, "/9", "x").ran).toBe(false);
  });

  it("holds seen-once keys up to exactly an eighth of its bytes, and never one larger", () => {
    const memo = new AnswerMemo({ version: () => 1, maxBytes: 400, maxAnswers: 100 });
    // 14 + 16 + 20 bytes: exactly the 50 of an eighth, all held.
    for (const path of ["/0", "/01", "/0123"]) respond(memo, path, "x");
    expect(memo.size).toMatchObject({ seenOnce: 3, seenOnceBytes: 50 });
    // A key of 52 bytes ("GET /" and 20 characters and a line end) is never held: its answer is never kept.
    const long = `/${"y".repeat(20)}`;
    for (let n = 0; n < 3; n++) expect(respond(memo, long, "x").ran).toBe(true);
    expect(memo.size).toMatchObject({ answers: 0, seenOnce: 3, seenOnceBytes: 50 });
    // One of exactly 50 bytes is held (the others make room).
    const fits = `/${"y".repeat(19)}`;
    respond(memo, fits, "x");
    expect(memo.size).toMatchObject({ seenOnce: 1, seenOnceBytes: 50 });
    expect(respond(memo, fits, "x").ran).toBe(true);
    expect(respond(memo, fits, "x").ran).toBe(false);
  });

  it("keeps an answer of a quarter of its bytes, and none larger", () => {
    const memo = new AnswerMemo({ version: () => 1, maxBytes: 400, maxAnswers: 100 });
    for (let n = 0; n < 2; n++) respond(memo, "/a", "x".repeat(86));
    for (let n = 0; n < 2; n++) respond(memo, "/b", "x".repeat(87));
    expect(memo.size).toMatchObject({ answers: 1, bytes: 100 });
  });
});

describe("sendKept: a kept answer sent before the request checks", () => {
  it("sends what serve() kept for the same request, and nothing for another request or after the state moved", async () => {
    const h = await harness();
    const first = await readTwice(`${h.url}/thing/a`);
    const sent: string[] = [];
    const fake = (url: string, rawHeaders: string[]) => {
      const res = {
        statusCode: 0,
        headers: {} as Record<string, unknown>,
        setHeader(name: string, value: unknown) {
          this.headers[name.toLowerCase()] = value;
        },
        end(body: Buffer) {
          sent.push(body.toString());
        },
      };
      return { req: { method: "GET", originalUrl: url, rawHeaders } as unknown as Request, res: res as unknown as Response & { statusCode: number } };
    };
    // The request fetch sent, as the server received it: the same method, URL and raw headers.
    const headersSent = await new Promise<string[]>((resolve) => {
      const probe = express();
      probe.get("/thing/a", (req, res) => {
        resolve(req.rawHeaders);
        res.end();
      });
      const s = probe.listen(0, "127.0.0.1", () => void fetch(`http://127.0.0.1:${(s.address() as AddressInfo).port}/thing/a`).then(() => s.close()));
    });
    const host = headersSent.indexOf("host");
    const rawHeaders = [...headersSent];
    rawHeaders[host + 1] = new URL(h.url).host;
    const same = fake("/thing/a", rawHeaders);
    expect(h.memo.sendKept(same.req, same.res)).toBe(true);
    expect(same.res.statusCode).toBe(200);
    expect(sent).toEqual([first.body]);
    const other = fake("/thing/b", rawHeaders);
    expect(h.memo.sendKept(other.req, other.res)).toBe(false);
    h.state.version++;
    expect(h.memo.sendKept(same.req, same.res)).toBe(false);
    expect(sent).toHaveLength(1);
  });
});
