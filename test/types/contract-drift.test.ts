// The type tests' directives are each needed: with every `@ts-expect-error` of a fixture taken out, the compiler reports an error on each line that followed one, and none elsewhere.
// (tsc --noEmit already fails on a directive with no error under it; this proves the converse:
// each kind of drift the file shows is caught by the compiler, not by a typo in the test.)
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
/** The type tests: the contract's own, and each service's over its real handlers. */
const FIXTURES = ["contract.test-d.ts", "secrets-handlers.test-d.ts"];

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(root, "tsconfig.json"), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

describe("the type tests of the contract", () => {
  for (const name of FIXTURES) {
    it(`${name}: fail on every drift line once their @ts-expect-error is removed`, () => {
      const fixture = path.join(import.meta.dirname, name);
      // The copy without directives, compiled in place of the fixture (same folder, so its imports resolve).
      const stripped = fixture.replace(/\.test-d\.ts$/, "-stripped.test-d.ts");
      const lines = readFileSync(fixture, "utf8").split("\n");
      const expected = new Set<number>();
      const text = lines
        .map((line, index) => {
          if (!line.trim().startsWith("// @ts-expect-error")) return line;
          expected.add(index + 1); // zero-based index of the next line
          return "";
        })
        .join("\n");
      expect(expected.size).toBeGreaterThanOrEqual(8);

      const options = compilerOptions();
      const host = ts.createCompilerHost(options);
      const read = host.readFile.bind(host);
      host.readFile = (file) => (path.resolve(file) === stripped ? text : read(file));
      const exists = host.fileExists.bind(host);
      host.fileExists = (file) => path.resolve(file) === stripped || exists(file);
      const getSourceFile = host.getSourceFile.bind(host);
      host.getSourceFile = (file, language, ...rest) =>
        path.resolve(file) === stripped ? ts.createSourceFile(file, text, language, true) : getSourceFile(file, language, ...rest);
      const program = ts.createProgram([stripped], options, host);
      const source = program.getSourceFile(stripped)!;
      const errorLines = new Set(
        ts.getPreEmitDiagnostics(program, source).map((d) => source.getLineAndCharacterOfPosition(d.start ?? 0).line),
      );
      expect([...errorLines].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
    });
  }
});
