// npm run bench [-- --quick] [sections...]: figures and ratios measured in one run.
//   sections: http, fresh, growth, memory, startup (all five when none is named), tests (only when named:
//   it runs the whole test suite), load (only when named: two minutes of 300 connections, then
//   under attack; LOAD_SECONDS per phase, 60). BENCH_SECONDS: seconds of load per target (5; 1 with --quick).
//   --quick: 1 s loads, growth at 1x and 10x only: about two minutes.
// Figures go to stdout as Markdown tables (paste into docs/benchmarks.md); progress to stderr.
import os from "node:os";
import { freshSection } from "./fresh.bench.ts";
import { growthSection } from "./growth.bench.ts";
import { loadSection } from "./load.bench.ts";
import { httpSection } from "./http.bench.ts";
import { CONNECTIONS, progress, QUICK, SECONDS, SECTIONS } from "./lib.ts";
import { memorySection } from "./memory.bench.ts";
import { startupSection } from "./startup.bench.ts";
import { testsSection } from "./tests.bench.ts";

const all = ["http", "fresh", "growth", "memory", "startup"];
const chosen = SECTIONS.length > 0 ? SECTIONS : all;
const unknown = chosen.filter((s) => ![...all, "tests", "load"].includes(s));
if (unknown.length > 0) {
  console.error(`unknown section ${unknown.join(", ")}; sections: ${all.join(", ")}, tests, load`);
  process.exit(2);
}
console.log(
  `## npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}\n\n` +
    `${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; ` +
    `${QUICK ? "quick mode, " : ""}${SECONDS}s of load per target, ${CONNECTIONS} connections`,
);
const started = Date.now();
const sections: Record<string, () => Promise<unknown>> = { http: httpSection, fresh: freshSection, growth: growthSection, memory: memorySection, startup: startupSection, tests: testsSection, load: loadSection };
let failed = 0;
for (const section of chosen) {
  // A section that fails is reported and the others still run.
  try {
    await sections[section]!();
  } catch (error) {
    failed++;
    console.log(`\n### ${section}: failed\n\n${(error as Error).stack?.split("\n").slice(0, 6).join("\n")}`);
  }
}
if (failed > 0) process.exitCode = 1;
progress(`bench: done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
