// Hostile bodies and slow or vanishing clients: the secrets server refuses before it parses (token
// first, then the declared size, then the shape), answers 413 as soon as Content-Length is over
// the limit, never answers 500 and keeps serving everyone else.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BODY_LIMITS } from "../../server/secrets/app.ts";
import fc from "fast-check";
import { JsonShapeScanner, shapeProblem } from "../../server/shared/json-body.ts";
import { ROOT_TOKEN, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
const errors: string[] = [];
beforeAll(async () => {
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errors.push(args.join(" ")));
  secrets = await startSecrets();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await secrets.close();
});

/** Sends raw bytes on a fresh connection; resolves with what came back once the server answers or closes. */
function exchange(bytes: Array<string | Buffer>, { waitMs = 3000, endAfter = false } = {}): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(secrets.secrets.port, "127.0.0.1");
    let text = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ text, closed, ms: Date.now() - started });
    };
    socket.on("connect", () => {
      for (const part of bytes) socket.write(part);
      if (endAfter) socket.end();
    });
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      // One whole answer with a body is enough for these tests.
      const head = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (head !== -1 && length !== undefined && text.length >= head + 4 + Number(length)) setTimeout(() => finish(false), 20);
    });
    socket.on("close", () => finish(true));
    socket.on("error", (error) => (text ? finish(true) : reject(error)));
    setTimeout(() => finish(false), waitMs);
  });
}

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;
const status = (text: string) => Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
const body = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as unknown;

describe("refusing before parsing", () => {
  it("answers a declared Content-Length over the limit with 413 at once, without reading the body, and closes", async () => {
    const answer = await exchange([head("POST", "/v1/sys/rekey/init", { "X-Secrets-Token": ROOT_TOKEN, "Content-Length": 99999999999999 })]);
    expect(status(answer.text)).toBe(413);
    expect(body(answer.text)).toEqual({ errors: ["http: request body too large"] });
    expect(answer.text).toMatch(/connection: close/i);
  });

  it("answers an unauthenticated request with a huge body 403 before reading it", async () => {
    const answer = await exchange([head("POST", "/v1/sys/rekey/init", { "Content-Length": 30 * 1024 * 1024 }), "[".repeat(1024)]);
    expect(status(answer.text)).toBe(403);
    expect(body(answer.text)).toEqual({ errors: ["permission denied"] });
    expect(answer.text).toMatch(/connection: close/i);
  });

  it("stops reading a chunked body at the limit with 413", async () => {
    const limited = await startSecrets({ bodyLimits: { maxBytes: 1024 } });
    try {
      const socket = connect(limited.secrets.port, "127.0.0.1");
      const chunk = "x".repeat(600);
      const text = await new Promise<string>((resolve) => {
        let got = "";
        socket.on("data", (data) => (got += data.toString()));
        socket.on("close", () => resolve(got));
        socket.on("error", () => resolve(got));
        socket.write(head("POST", "/v1/sys/rekey/init", { "X-Secrets-Token": ROOT_TOKEN, "Transfer-Encoding": "chunked" }));
        for (let i = 0; i < 3; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        setTimeout(() => socket.destroy(), 2000);
      });
      expect(status(text)).toBe(413);
    } finally {
      await limited.close();
    }
  });

  it("refuses JSON nested deeper than the limit with 400, before building it", async () => {
    const deep = "[".repeat(BODY_LIMITS.maxDepth + 1) + "]".repeat(BODY_LIMITS.maxDepth + 1);
    const response = await fetch(`${secrets.baseUrl}/sys/rekey/init`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: deep });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: [`failed to parse JSON input: JSON nested more than ${BODY_LIMITS.maxDepth} levels deep`] });
  });

  it("answers 15 million nested brackets from a stranger with 403, quickly, and serves others meanwhile", async () => {
    const size = 15 * 1024 * 1024;
    const attack = exchange([head("POST", "/v1/sys/rekey/init", { "Content-Length": size }), Buffer.alloc(size, "[")], { waitMs: 10_000 });
    const other = await fetch(`${secrets.baseUrl}/sys/rekey/init`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(other.status).toBe(200);
    expect(status((await attack).text)).toBe(403);
  });

  it("refuses cluster traffic without a secondary's credential before reading its body", async () => {
    const response = await fetch(`${secrets.secrets.clusterUrl}/v1/replication/dr/wal`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "[".repeat(100_000) });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ errors: ["unknown or revoked secondary credential"] });
    const large = await fetch(`${secrets.secrets.clusterUrl}/v1/replication/dr/wal`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer x" }, body: `{"a":"${"x".repeat(100_000)}"}` });
    expect(large.status).toBe(413);
  });

  it("checks every shape limit on the text", () => {
    const limits = { maxBytes: 1e9, maxDepth: 3, maxStringLength: 5, maxObjectEntries: 2, maxArrayElements: 3 };
    expect(shapeProblem('{"a":[1,2,3],"b":{"c":"12345"}}', limits)).toBeUndefined();
    expect(shapeProblem("[[[[]]]]", limits)).toBe("JSON nested more than 3 levels deep");
    expect(shapeProblem('"123456"', limits)).toBe("JSON string of more than 5 bytes");
    expect(shapeProblem('{"a":1,"b":2,"c":3}', limits)).toBe("JSON object with more than 2 members");
    expect(shapeProblem("[1,2,3,4]", limits)).toBe("JSON array with more than 3 elements");
    // Brackets and commas inside strings are text, not structure.
    expect(shapeProblem('["[[[[,,,,", "\\"[[[["]', limits)).toBe("JSON string of more than 5 bytes");
    expect(shapeProblem('["[[[", "a\\"b"]', limits)).toBeUndefined();
  });
});

describe("the shape scanner (property)", () => {
  const depthOf = (value: unknown): number =>
    value !== null && typeof value === "object" ? 1 + Math.max(0, ...Object.values(value as object).map(depthOf)) : 0;
  const widthOf = (value: unknown): number =>
    value !== null && typeof value === "object" ? Math.max(Object.keys(value as object).length, ...Object.values(value as object).map(widthOf)) : 0;
  const longestString = (value: unknown): number =>
    typeof value === "string"
      ? Buffer.byteLength(JSON.stringify(value)) - 2
      : value !== null && typeof value === "object"
        ? Math.max(0, ...Object.entries(value as object).flatMap(([k, v]) => [Array.isArray(value) ? 0 : Buffer.byteLength(JSON.stringify(k)) - 2, longestString(v)]))
        : 0;

  it("finds a problem exactly when the parsed value breaks a limit, wherever the text is cut", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.nat({ max: 6 }), fc.integer({ min: 1, max: 6 }), fc.nat({ max: 12 }), fc.array(fc.nat(), { maxLength: 5 }), (value, maxDepth, width, maxStringLength, cuts) => {
        const text = JSON.stringify(value, null, cuts.length % 2 ? 1 : undefined);
        const limits = { maxDepth, maxStringLength, maxObjectEntries: width, maxArrayElements: width };
        const broken = depthOf(value) > maxDepth || widthOf(value) > width || longestString(value) > maxStringLength;
        expect(shapeProblem(text, limits) !== undefined).toBe(broken);
        const bytes = Buffer.from(text, "utf8");
        const scanner = new JsonShapeScanner(limits);
        let found: string | undefined;
        let from = 0;
        for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
          found ??= scanner.push(bytes.subarray(from, Math.max(from, cut)));
          from = Math.max(from, cut);
        }
        expect(found).toBe(shapeProblem(text, limits));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("bodies real clients send", () => {
  it("takes `null` and an empty body as no data: the same answer as {}", async () => {
    const put = (body: string) => fetch(`${secrets.baseUrl}/sys/leases/lookup`, { method: "PUT", headers: { "X-Secrets-Token": ROOT_TOKEN }, body });
    const empty = await put("{}");
    expect(empty.status).toBe(400);
    const expected = await empty.json();
    for (const sent of ["null", "", "  \n", " null "]) {
      const response = await put(sent);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(expected);
    }
  });

  // http/sys_rekey.go: the rekey handlers take parseJSONRequest's io.EOF (no JSON value at all) as an
  // error, where the logical paths take it as no data; `null` is a value, and is no data there too.
  it("the rekey writes refuse a missing or empty body with 400 EOF, and take `null` as {}", async () => {
    const send = (method: string, path: string, body?: string) =>
      fetch(`${secrets.baseUrl}${path}`, { method, headers: { "X-Secrets-Token": ROOT_TOKEN }, body });
    for (const path of ["/sys/rekey/init", "/sys/rekey/update", "/sys/rekey/verify"]) {
      for (const method of ["POST", "PUT"]) {
        for (const sent of [undefined, "", "  \n"]) {
          const response = await send(method, path, sent);
          expect(response.status, `${method} ${path} ${JSON.stringify(sent)}`).toBe(400);
          expect(await response.json()).toEqual({ errors: ["EOF"] });
        }
        const asEmpty = await (await send(method, path, "{}")).json();
        for (const sent of ["null", " null "]) expect(await (await send(method, path, sent)).json()).toEqual(asEmpty);
      }
    }
    expect((await (await send("GET", "/sys/rekey/init")).json()).started).toBe(false);
  });

  it("takes the token from Authorization: Bearer as well as from its own header", async () => {
    const bearer = await fetch(`${secrets.baseUrl}/sys/rekey/init`, { headers: { Authorization: `Bearer ${ROOT_TOKEN}` } });
    expect(bearer.status).toBe(200);
    const wrong = await fetch(`${secrets.baseUrl}/sys/rekey/init`, { headers: { Authorization: `Basic ${ROOT_TOKEN}` } });
    expect(wrong.status).toBe(403);
  });
});

describe("clients that go away", () => {
  it("does not log a client that aborts its body as a server error", async () => {
    errors.length = 0;
    const answer = await exchange([head("POST", "/v1/sys/rekey/init", { "X-Secrets-Token": ROOT_TOKEN, "Content-Length": 1000 }), "{\"secret_"], { waitMs: 300 });
    expect(answer.text).toBe("");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errors).toEqual([]);
    expect((await fetch(`${secrets.baseUrl}/sys/rekey/init`, { headers: { "X-Secrets-Token": ROOT_TOKEN } })).status).toBe(200);
  });
});
