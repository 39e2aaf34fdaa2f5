// The shape limits of a JSON body, checked on its bytes as they arrive, before anything is parsed
// (server/shared/json-body.ts, JsonShapeScanner): nesting depth, string length (keys included, in
// bytes of JSON text between the quotes), members of an object, elements of an array.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonShapeScanner, shapeProblem, type JsonLimits } from "../../server/shared/json-body.ts";

type Limits = Omit<JsonLimits, "maxBytes">;

/** The least limits a value passes: its own depth, longest string, biggest object and array. */
function shapeOf(value: unknown): Limits {
  const text = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2;
  if (typeof value === "string") return { maxDepth: 0, maxStringLength: text(value), maxObjectEntries: 0, maxArrayElements: 0 };
  if (value === null || typeof value !== "object") return { maxDepth: 0, maxStringLength: 0, maxObjectEntries: 0, maxArrayElements: 0 };
  const entries = Array.isArray(value) ? value.map((v) => ["", v] as const) : Object.entries(value);
  const inner = entries.map(([key, v]) => {
    const s = shapeOf(v);
    return Array.isArray(value) ? s : { ...s, maxStringLength: Math.max(s.maxStringLength, text(key)) };
  });
  const most = (pick: (l: Limits) => number) => Math.max(0, ...inner.map(pick));
  return {
    maxDepth: 1 + most((l) => l.maxDepth),
    maxStringLength: most((l) => l.maxStringLength),
    maxObjectEntries: Math.max(Array.isArray(value) ? 0 : entries.length, most((l) => l.maxObjectEntries)),
    maxArrayElements: Math.max(Array.isArray(value) ? entries.length : 0, most((l) => l.maxArrayElements)),
  };
}

const MESSAGES: Record<keyof Limits, (n: number) => string> = {
  maxDepth: (n) => `JSON nested more than ${n} levels deep`,
  maxStringLength: (n) => `JSON string of more than ${n} bytes`,
  maxObjectEntries: (n) => `JSON object with more than ${n} members`,
  maxArrayElements: (n) => `JSON array with more than ${n} elements`,
};

/** The text pushed in pieces cut at these offsets. */
function pushedInPieces(text: string, limits: Limits, cuts: number[]): string | undefined {
  const bytes = Buffer.from(text, "utf8");
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const scanner = new JsonShapeScanner(limits);
  let from = 0;
  for (const to of [...at, bytes.length]) {
    const problem = scanner.push(bytes.subarray(from, to));
    if (problem) return problem;
    from = to;
  }
  return undefined;
}

describe("JsonShapeScanner", () => {
  it("passes a text at its own limits and refuses it, with that limit's words, one under any of them, however the bytes come", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (value, cuts, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        const limits = shapeOf(value);
        expect(shapeProblem(text, limits)).toBeUndefined();
        expect(pushedInPieces(text, limits, cuts)).toBeUndefined();
        for (const name of Object.keys(limits) as (keyof Limits)[]) {
          if (limits[name] === 0) continue;
          const tighter = { ...limits, [name]: limits[name] - 1 };
          expect(shapeProblem(text, tighter), name).toBe(MESSAGES[name](limits[name] - 1));
          expect(pushedInPieces(text, tighter, cuts), name).toBe(MESSAGES[name](limits[name] - 1));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads brackets, commas, colons and escaped quotes inside strings as string bytes", () => {
    const limits = { maxDepth: 1, maxStringLength: 12, maxObjectEntries: 1, maxArrayElements: 1 };
    expect(shapeProblem(JSON.stringify({ "a,b:c": '[{"x",}]\\' }), limits)).toBeUndefined();
    expect(shapeProblem(JSON.stringify(['"\\"\\"]']), limits)).toBeUndefined();
    // Each escape is two bytes of text: `\"` counts 2.
    expect(shapeProblem(JSON.stringify(['"'.repeat(7)]), limits)).toBe("JSON string of more than 12 bytes");
  });

  it("counts the bytes of a string's UTF-8, and a key as a string", () => {
    const limits = { maxDepth: 1, maxStringLength: 4, maxObjectEntries: 2, maxArrayElements: 2 };
    expect(shapeProblem(JSON.stringify(["éé"]), limits)).toBeUndefined();
    expect(shapeProblem(JSON.stringify(["ééé"]), limits)).toBe("JSON string of more than 4 bytes");
    expect(shapeProblem(JSON.stringify({ abcde: 1 }), limits)).toBe("JSON string of more than 4 bytes");
  });

  it("counts members per container, each container on its own, and an empty one as none", () => {
    const limits = { maxDepth: 3, maxStringLength: 10, maxObjectEntries: 2, maxArrayElements: 2 };
    expect(shapeProblem(JSON.stringify({ a: [1, 2], b: { c: [], d: {} } }), limits)).toBeUndefined();
    expect(shapeProblem(JSON.stringify([[1, 2], [3, 4]]), limits)).toBeUndefined();
    expect(shapeProblem(JSON.stringify([[1, 2, 3]]), limits)).toBe("JSON array with more than 2 elements");
    expect(shapeProblem(JSON.stringify([{ a: 1, b: 2, c: 3 }]), limits)).toBe("JSON object with more than 2 members");
    expect(shapeProblem("[[],[],[]]", limits)).toBe("JSON array with more than 2 elements");
    expect(shapeProblem('{"a":{},"b":[],"c":""}', limits)).toBe("JSON object with more than 2 members");
  });

  it("ignores what is outside any container, and whitespace", () => {
    const limits = { maxDepth: 1, maxStringLength: 3, maxObjectEntries: 1, maxArrayElements: 1 };
    expect(shapeProblem(' \n\t"abc" ', limits)).toBeUndefined();
    expect(shapeProblem("1,2,3", limits)).toBeUndefined();
    expect(shapeProblem("[ 1 ,\n ]", limits)).toBe("JSON array with more than 1 elements");
    // Whitespace inside an empty container is no member of it.
    const none = { maxDepth: 1, maxStringLength: 0, maxObjectEntries: 0, maxArrayElements: 0 };
    for (const empty of ["[ ]", "[\n]", "[\t\r]", "{ }", "{\n  }"]) expect(shapeProblem(empty, none), empty).toBeUndefined();
    expect(shapeProblem("[ 0 ]", none)).toBe("JSON array with more than 0 elements");
    expect(shapeProblem('{ "" : 0 }', none)).toBe("JSON object with more than 0 members");
  });
});
