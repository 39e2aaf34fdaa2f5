// How long each regular expression takes on a hostile text: every `pattern` of the three
// descriptions (run by the validator, the mock and the contract tools on any input) and every
// regular expression literal under server/, scripts/ and cli/, each on runs of one or two of the
// characters it may meet, ended by one that fails the match. An expression that backtracks over a
// run (`\d+\.?\d*`, `/\/+$/`, `.*_.*`, a lazy `[\s\S]*?` per start) takes time that grows with the
// square of the run: it shows here as milliseconds where the others take microseconds.
//   npx tsx bench/regex-backtracking.ts [run length, default 3000]
// Prints the expressions above 3 ms, worst first. Those that read only trusted text (the
// descriptions, options, the service's own output) may stay; any that reads a request may not.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const RUN = Number(process.argv[2] ?? 3000);
const THRESHOLD_MS = 3;
const SEEDS = ["a", "A", "1", "0", "_", "-", ".", "/", " ", "1.", "a-", "a.", "0x", "1_", "a/", "ab", "a1", "=", "+", "1s", ":", "a:", "*", "\\", '"', "%", "%2", "\t", "a ", "[", "a[", "{", "a=", ",", "a,", "#", "é", "-----BEGIN X-----"];
const ENDINGS = ["!", "\u0000", "", "\n", "x"];

function worstCase(expression: RegExp): { ms: number; input: string } {
  let worst = { ms: 0, input: "" };
  for (const seed of SEEDS) {
    for (const ending of ENDINGS) {
      const text = seed.repeat(RUN) + ending;
      const started = performance.now();
      expression.lastIndex = 0;
      expression.test(text);
      const ms = performance.now() - started;
      if (ms > worst.ms) worst = { ms, input: `${JSON.stringify(seed)} x ${RUN} + ${JSON.stringify(ending)}` };
    }
  }
  return worst;
}

const found: { where: string; source: string; expression: RegExp }[] = [];
for (const api of ["org-platform", "secrets", "mesh"]) {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [key, member] of Object.entries(value)) {
        if (key === "pattern" && typeof member === "string") found.push({ where: `generated/${api}/openapi.json`, source: member, expression: new RegExp(member, "u") });
        else walk(member);
      }
    }
  };
  walk(JSON.parse(readFileSync(`generated/${api}/openapi.json`, "utf8")));
}
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []));
for (const file of ["server", "scripts", "cli"].flatMap(files)) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = /^\/(.*)\/([a-z]*)$/s.exec(node.getText())!;
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({ where: `${file}:${line}`, source: node.getText(), expression: new RegExp(literal[1]!, literal[2]!.replace(/[gy]/g, "")) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const slow = found.map((f) => ({ ...f, ...worstCase(f.expression) })).filter((f) => f.ms > THRESHOLD_MS).sort((a, b) => b.ms - a.ms);
console.log(`${found.length} expressions, runs of ${RUN}: ${slow.length} above ${THRESHOLD_MS} ms\n`);
if (slow.length > 0) {
  console.log("| ms | where | expression | input |\n|---|---|---|---|");
  for (const f of slow) console.log(`| ${f.ms.toFixed(1)} | ${f.where} | \`${f.source.slice(0, 80)}\` | ${f.input} |`);
}
