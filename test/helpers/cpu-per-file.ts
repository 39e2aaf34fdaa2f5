// With TEST_CPU_LOG=<file> (vitest.config.ts), each test file appends one JSON line to that file:
// its CPU seconds in the worker (`self`: the test code and the servers it runs in-process), in the
// child processes it started and waited for (`kids`: CLIs, Prism, Chromium, npm, go, python), and
// its wall seconds. A worker runs one file at a time, so the differences of the worker's counters
// (/proc/self/stat, Linux) between a file's start and its end are that file's. docs/testing.md.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";

function cpu(): { self: number; kids: number } {
  // Fields 14-17 of /proc/<pid>/stat: utime, stime, cutime, cstime, in clock ticks (1/100 s here).
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return { self: (Number(fields[11]) + Number(fields[12])) / 100, kids: (Number(fields[13]) + Number(fields[14])) / 100 };
}

const start = cpu();
const started = Date.now();
let file = "";

beforeAll(({}, suite) => {
  file = (suite as { filepath?: string; file?: { filepath: string } }).filepath ?? (suite as { file?: { filepath: string } }).file?.filepath ?? "";
});

afterAll(() => {
  const end = cpu();
  const line = { file, self: +(end.self - start.self).toFixed(2), kids: +(end.kids - start.kids).toFixed(2), wall: (Date.now() - started) / 1000 };
  appendFileSync(process.env.TEST_CPU_LOG!, JSON.stringify(line) + "\n");
});
