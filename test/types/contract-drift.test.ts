// The type tests' directives are each needed: with every `@ts-expect-error` of a type-test file
// taken out, the compiler reports an error on each line that followed one, and none elsewhere.
// (tsc --noEmit already fails on a directive with no error under it; this proves the converse:
// each kind of drift the file shows is caught by the compiler, not by a typo in the test.)
import { createRequire } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CompilerOptions, Program } from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

// TypeScript is one 9 MB CommonJS file: `require` loads it in 0.2 s of CPU, an ES `import` in 0.5 s
// (Node scans the whole file for its exports and its module format first).
const ts = createRequire(import.meta.url)("typescript") as typeof import("typescript");

const root = path.resolve(import.meta.dirname, "..", "..");
/** Every type-test file of this folder; each shows at least this many kinds of drift. */
const AT_LEAST = 8;
const fixtures: [file: string, atLeast: number][] = readdirSync(import.meta.dirname)
  .filter((file) => file.endsWith(".test-d.ts") && !file.endsWith("-stripped.test-d.ts"))
  .sort()
  .map((file) => [file, AT_LEAST]);

function compilerOptions(): CompilerOptions {
  const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

/** A type-test file with its directives taken out: its text, and the lines that followed one (zero-based). */
function strippedCopy(file: string): { path: string; text: string; expected: number[] } {
  const lines = readFileSync(path.join(import.meta.dirname, file), "utf8").split("\n");
  const expected: number[] = [];
  const text = lines
    .map((line, index) => {
      if (!line.trim().startsWith("// @ts-expect-error")) return line;
      expected.push(index + 1); // zero-based index of the next line
      return "";
    })
    .join("\n");
  // Compiled in place of the file (same folder, so its imports resolve).
  return { path: path.join(import.meta.dirname, file.replace(/\.test-d\.ts$/, "-stripped.test-d.ts")), text, expected };
}

describe("the type tests of the contract", () => {
  const copies = new Map(fixtures.map(([file]) => [file, strippedCopy(file)]));
  const byPath = new Map([...copies.values()].map((copy) => [copy.path, copy.text]));
  let program: Program;

  beforeAll(() => {
    // One program for every copy: the generated types they share are checked once.
    const options = compilerOptions();
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    host.readFile = (file) => byPath.get(path.resolve(file)) ?? read(file);
    const exists = host.fileExists.bind(host);
    host.fileExists = (file) => byPath.has(path.resolve(file)) || exists(file);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, ...rest) => {
      const text = byPath.get(path.resolve(file));
      return text === undefined ? getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language, true);
    };
    program = ts.createProgram([...byPath.keys()], options, host);
  });

  it.each(fixtures)("%s fails on every drift line once its @ts-expect-error is removed", (file, atLeast) => {
    const copy = copies.get(file)!;
    expect(copy.expected.length).toBeGreaterThanOrEqual(atLeast);
    const source = program.getSourceFile(copy.path)!;
    const errorLines = new Set(
      ts.getPreEmitDiagnostics(program, source).map((d) => source.getLineAndCharacterOfPosition(d.start ?? 0).line),
    );
    expect([...errorLines].sort((a, b) => a - b)).toEqual(copy.expected);
  });
});
