// The mutation script's reviewed equivalents: an entry matches a surviving mutant by mutator, the
// exact text mutated, the replacement and (when given) a text of the mutated line, so that a short
// original such as `false` is pinned to the place it was reviewed at.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { MutantResult } from "@stryker-mutator/api/core";
import { reviewedEquivalents, type GuardModule } from "../../scripts/mutation.ts";

const FILE = "server/secrets/http/list-method.ts";
const source = readFileSync(FILE, "utf8").split("\n");

/** A surviving mutant of `original` on the first line holding `lineText` (one-based lines and columns, as Stryker's report). */
function survivor(lineText: string, original: string, mutatorName: string, replacement: string, status: MutantResult["status"] = "Survived"): MutantResult {
  const index = source.findIndex((l) => l.includes(lineText));
  expect(index, lineText).toBeGreaterThanOrEqual(0);
  const column = source[index]!.indexOf(original, source[index]!.indexOf(lineText));
  expect(column).toBeGreaterThanOrEqual(0);
  return {
    id: "1",
    mutatorName,
    replacement,
    status,
    location: { start: { line: index + 1, column: column + 1 }, end: { line: index + 1, column: column + 1 + original.length } },
  } as MutantResult;
}

const module = (equivalent: GuardModule["equivalent"]): GuardModule => ({ name: "t", mutate: FILE, tests: [], equivalent });

describe("reviewedEquivalents", () => {
  const chunkedReset = survivor("#chunked = false;", "false", "BooleanLiteral", "true");
  const refusedReturn = survivor("#socketPaused = false;", "false", "BooleanLiteral", "true");

  it("matches by mutator, text and replacement, wherever the text is when no line is given", () => {
    const found = reviewedEquivalents(module([{ mutator: "BooleanLiteral", original: "false", replacement: "true", why: "w" }]), [chunkedReset, refusedReturn]);
    expect(found).toHaveLength(2);
  });

  it("with a line, matches only the mutant on a line holding it", () => {
    const entry = { mutator: "BooleanLiteral", original: "false", replacement: "true", line: "#chunked = false;", why: "w" };
    expect(reviewedEquivalents(module([entry]), [chunkedReset, refusedReturn])).toEqual([entry]);
  });

  it("matches neither another replacement, another mutator, nor a killed mutant", () => {
    const entry = { mutator: "BooleanLiteral", original: "false", replacement: "true", why: "w" };
    expect(reviewedEquivalents(module([{ ...entry, replacement: "x" }]), [chunkedReset])).toEqual([]);
    expect(reviewedEquivalents(module([{ ...entry, mutator: "StringLiteral" }]), [chunkedReset])).toEqual([]);
    expect(reviewedEquivalents(module([entry]), [{ ...chunkedReset, status: "Killed" }])).toEqual([]);
  });
});
