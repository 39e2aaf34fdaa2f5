// What `npm test` spends its time on: each stage of it timed, and vitest's slowest files.
// Runs the whole suite: only for an otherwise idle machine (`npm run bench -- tests`).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { progress, report, root, table } from "./lib.ts";

function timed(label: string, command: string, args: string[]): [string, string, string] {
  progress(`tests: ${label}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"], env: process.env });
  return [label, ((Date.now() - started) / 1000).toFixed(1), result.status === 0 ? "ok" : `exit ${result.status}`];
}

export async function testsSection(): Promise<void> {
  const npx = (args: string[]) => ["npx", args] as const;
  const jsonFile = path.join(mkdtempSync(path.join(tmpdir(), "bench-vitest-")), "report.json");
  // npm test as CI runs it (scripts/test.sh: vitest, then the lint beside the workflows), then each stage alone.
  const whole = timed("npm test (scripts/test.sh), target < 150 s", "npm", ["test"]);
  const stages = [
    timed("check:generated", "npm", ["run", "--silent", "check:generated"]),
    timed("check:breaking", "npm", ["run", "--silent", "check:breaking"]),
    timed("lint (Redocly, then tsc --noEmit)", "npm", ["run", "--silent", "lint"]),
    timed("vitest run", ...npx(["vitest", "run", "--reporter=json", `--outputFile=${jsonFile}`])),
    timed("workflows", "npm", ["run", "--silent", "workflows"]),
  ];
  const total = stages.reduce((s, [, t]) => s + Number(t), 0);
  report(
    "npm test, and its stages one after the other (seconds)",
    table(["stage", "seconds", "result"], [whole, ...stages, ["stages one after the other", total.toFixed(1), ""]]),
  );
  try {
    const vitest = JSON.parse(readFileSync(jsonFile, "utf8")) as { testResults: { name: string; startTime: number; endTime: number; assertionResults: { duration?: number }[] }[] };
    const files = vitest.testResults
      .map((f) => ({ file: path.relative(root, f.name), seconds: (f.endTime - f.startTime) / 1000, tests: f.assertionResults.length }))
      .sort((a, b) => b.seconds - a.seconds);
    const sum = files.reduce((s, f) => s + f.seconds, 0);
    report(
      `vitest: the 15 slowest of ${files.length} files (file time, summed over workers: ${sum.toFixed(0)} s)`,
      table(["file", "seconds", "tests"], files.slice(0, 15).map((f) => [f.file, f.seconds.toFixed(1), f.tests])),
    );
  } catch (error) {
    report("vitest", `no report: ${(error as Error).message}`);
  }
}
