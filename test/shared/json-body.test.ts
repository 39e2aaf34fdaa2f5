// Reading a JSON request body with its limits (server/shared/json-body.ts), on a request stream of
// its own: what is refused before a byte is read, as the bytes come, and after; which requests have
// no body to wait for; and the words of each refusal.
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { BODY_BUDGET_MESSAGE, processLimits } from "../../server/shared/bounds.ts";
import {
  declaredLengthOverLimit,
  declaresBody,
  JsonBodyError,
  JsonShapeScanner,
  objectMembers,
  readBodyText,
  readJsonBody,
  withJsonBody,
  type JsonLimits,
} from "../../server/shared/json-body.ts";
import { rejectionOf } from "../helpers/thrown.ts";

const LIMITS: JsonLimits = { maxBytes: 64, maxDepth: 4, maxStringLength: 32, maxObjectEntries: 8, maxArrayElements: 8 };

/** A request whose body comes as these chunks (after the test has started reading), then ends. */
function request(headers: Record<string, string>, chunks: (string | Buffer)[] = [], end = true): IncomingMessage & PassThrough {
  const stream = new PassThrough() as unknown as IncomingMessage & PassThrough;
  Object.assign(stream, { headers, socket: { remoteAddress: "127.0.0.1" } });
  setImmediate(() => {
    for (const chunk of chunks) stream.write(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    if (end) stream.end();
  });
  return stream;
}

async function problemOf(reading: Promise<unknown>): Promise<JsonBodyError["problem"]> {
  const error = await rejectionOf(reading);
  expect(error).toBeInstanceOf(JsonBodyError);
  return (error as JsonBodyError).problem;
}

describe("what a request says of its body", () => {
  it("declares one with a Transfer-Encoding or a Content-Length other than 0", () => {
    expect(declaresBody(request({ "transfer-encoding": "chunked" }))).toBe(true);
    expect(declaresBody(request({ "content-length": "5" }))).toBe(true);
    expect(declaresBody(request({ "content-length": "0" }))).toBe(false);
    expect(declaresBody(request({}))).toBe(false);
  });

  it("a declared length over the limit is known before anything is read", () => {
    expect(declaredLengthOverLimit(request({ "content-length": "64" }), 64)).toBeUndefined();
    expect(declaredLengthOverLimit(request({ "content-length": "65" }), 64)).toBe(65);
    expect(declaredLengthOverLimit(request({}), 64)).toBeUndefined();
    expect(declaredLengthOverLimit(request({ "content-length": "lots" }), 64)).toBeUndefined();
  });
});

describe("readBodyText", () => {
  it("is the body's text, whatever the chunks, a character cut between two of them included", async () => {
    const text = '{"name":"caf\u00e9 \u2713"}';
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(0xe2) + 1; // inside the three bytes of ✓
    expect(await readBodyText(request({ "content-length": String(bytes.length) }, [bytes.subarray(0, cut), bytes.subarray(cut)]), 64)).toBe(text);
  });

  it("takes a body of exactly the limit, and refuses one byte more as it comes, reading no further", async () => {
    expect(await readBodyText(request({ "transfer-encoding": "chunked" }, ["a".repeat(40), "b".repeat(24)]), 64)).toBe("a".repeat(40) + "b".repeat(24));
    const over = request({ "transfer-encoding": "chunked" }, ["a".repeat(40), "b".repeat(25), "c".repeat(10)], false);
    expect(await problemOf(readBodyText(over, 64))).toEqual({ kind: "too-large", bytes: 65 });
    expect(over.isPaused()).toBe(true);
    for (const event of ["data", "end", "error", "aborted"]) expect(over.listenerCount(event), event).toBe(0);
  });

  it("refuses a declared length over the limit before reading, with that length", async () => {
    const declared = request({ "content-length": "1000" }, ["x"]);
    expect(await problemOf(readBodyText(declared, 64))).toEqual({ kind: "too-large", bytes: 1000 });
    expect(declared.listenerCount("data")).toBe(0);
  });

  it("has nothing to read when no body is declared, or the request has ended", async () => {
    expect(await readBodyText(request({}, ["ignored"]), 64)).toBeUndefined();
    const ended = request({ "content-length": "2" });
    Object.defineProperty(ended, "readableEnded", { value: true });
    expect(await readBodyText(ended, 64)).toBeUndefined();
    expect(await readBodyText(request({ "transfer-encoding": "chunked" }, []), 64)).toBeUndefined();
  });

  it("counts its bytes against the process's budget of body bytes in flight, by the client's address, and gives them back", async () => {
    const budget = processLimits().bodies;
    const before = budget.total;
    // The budget nearly full with another body of the same address: this one does not fit (503 busy).
    const sameAddress = {};
    expect(budget.take(sameAddress, "127.0.0.1", budget.max - before - 10, () => undefined)).toBe(true);
    try {
      const busy = request({ "transfer-encoding": "chunked" }, ["x".repeat(20)], false);
      expect(await problemOf(readBodyText(busy, 64))).toEqual({ kind: "busy" });
      expect(busy.isPaused()).toBe(true);
      for (const event of ["data", "end", "error", "aborted"]) expect(busy.listenerCount(event), event).toBe(0);
    } finally {
      budget.release(sameAddress);
    }
    // Nearly full with another address's body, which holds more: that one is pushed out, this one read.
    let evicted = false;
    const otherAddress = {};
    expect(budget.take(otherAddress, "10.0.0.9", budget.max - before - 10, () => (evicted = true))).toBe(true);
    try {
      expect(await readBodyText(request({ "transfer-encoding": "chunked" }, ["x".repeat(20)]), 64)).toBe("x".repeat(20));
      expect(evicted).toBe(true);
    } finally {
      budget.release(otherAddress);
    }
    expect(budget.total).toBe(before);
  });

  it("reads a request that has no socket (made some other way), its bytes counted under no address", async () => {
    const detached = request({ "content-length": "2" }, ["[]"]);
    Object.assign(detached, { socket: undefined });
    expect(await readBodyText(detached, 64)).toBe("[]");
  });

  it("refuses a body too complex as soon as it shows, with the scanner's words", async () => {
    const deep = request({ "transfer-encoding": "chunked" }, ["[[[[[", "1]]]]]"], false);
    expect(await problemOf(readBodyText(deep, 64, new JsonShapeScanner(LIMITS)))).toEqual({ kind: "too-complex", message: "JSON nested more than 4 levels deep" });
    expect(deep.isPaused()).toBe(true);
  });

  it("is aborted when the stream fails or the client goes away", async () => {
    const failing = request({ "transfer-encoding": "chunked" }, ["{"], false);
    setImmediate(() => setImmediate(() => failing.emit("error", new Error("socket hang up"))));
    expect(await problemOf(readBodyText(failing, 64))).toEqual({ kind: "aborted" });
    const gone = request({ "transfer-encoding": "chunked" }, ["{"], false);
    setImmediate(() => setImmediate(() => gone.emit("aborted")));
    expect(await problemOf(readBodyText(gone, 64))).toEqual({ kind: "aborted" });
  });
});

describe("readJsonBody and withJsonBody", () => {
  it("parse a body within every limit; a blank one is none", async () => {
    expect(await readJsonBody(request({ "content-length": "13" }, ['{"a":[1,2,3]}']), LIMITS)).toEqual({ a: [1, 2, 3] });
    expect(await readJsonBody(request({ "content-length": "3" }, [" \n "]), LIMITS)).toBeUndefined();
    expect(await readJsonBody(request({}), LIMITS)).toBeUndefined();
  });

  it("refuse text that is not JSON with JSON.parse's words", async () => {
    let words = "";
    try {
      JSON.parse("{nope");
    } catch (error) {
      words = (error as Error).message;
    }
    expect(await problemOf(readJsonBody(request({ "content-length": "5" }, ["{nope"]), LIMITS))).toEqual({ kind: "syntax", message: words });
  });

  it("withJsonBody answers at once, not in a later turn, for a request that declares no body", async () => {
    expect(withJsonBody(request({}), LIMITS, (body) => ({ body }))).toEqual({ body: undefined });
    const later = withJsonBody(request({ "content-length": "2" }, ["[]"]), LIMITS, (body) => ({ body }));
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toEqual({ body: [] });
  });
});

describe("JsonBodyError", () => {
  it("words each problem", () => {
    expect(new JsonBodyError({ kind: "too-large", bytes: 65 }).message).toBe("body of 65 bytes or more");
    expect(new JsonBodyError({ kind: "too-complex", message: "JSON nested more than 4 levels deep" }).message).toBe("JSON nested more than 4 levels deep");
    expect(new JsonBodyError({ kind: "syntax", message: "Unexpected token" }).message).toBe("Unexpected token");
    expect(new JsonBodyError({ kind: "busy" }).message).toBe(BODY_BUDGET_MESSAGE);
    expect(new JsonBodyError({ kind: "aborted" }).message).toBe("aborted");
  });
});

describe("objectMembers", () => {
  it("is the members of a JSON object, and nothing for any other JSON value", () => {
    expect(objectMembers({ a: 1 })).toEqual({ a: 1 });
    for (const other of [[1], null, "x", 1, true, undefined]) expect(objectMembers(other), JSON.stringify(other)).toBeUndefined();
  });
});
