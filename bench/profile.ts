// Where a hot operation spends its time: profiles the reference server with V8's CPU profiler (the
// one --cpu-prof uses) while one operation is loaded, and prints self time per request by place
// (package or server module) and by function, validated beside unvalidated, so the cost of
// validation shows as the difference.
//   [BENCH_SIZE=n] npx tsx bench/profile.ts <mesh|org|secrets> <operation number, from 0> [--fresh]
//   npx tsx bench/profile.ts --case "<a case of bench/fresh.bench.ts, e.g. secrets GET role, fresh>"
// --fresh: a query parameter of its own on every request (no kept answer serves it); a fresh read
// of --case has one too.
// PROFILE_NODE_ARGS: flags for the profiled server's node, e.g. `--no-turbo-inlining`, so that a
// function's time is not counted in the function it was inlined into (slower, but each place exact).
// PROFILE_TOP: how many functions to list (40).
// PROFILE_BASE=<another checkout, its node_modules installed>: this checkout's server beside that one's,
// both validated, instead of validated beside unvalidated (what a change costs; functions by name
// and module, without line numbers, which differ between the two).
// PROFILE_PLAIN=1 (with --case): the validated server beside plain Express answering the same bytes
// (what the fresh bench's ratio compares), instead of validated beside unvalidated;
// PROFILE_PLAIN=app: beside plain Express on the reference servers' own HTTP server (createAppServer).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { cannedFor, FRESH_APIS } from "./fresh.bench.ts";
import { APIS } from "./http.bench.ts";
import { bundled, load, startChild } from "./lib.ts";
import type { ServeSpec } from "./serve.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const caseAt = process.argv.indexOf("--case");
const caseName = caseAt >= 0 ? process.argv[caseAt + 1] : undefined;
const freshCase = caseName === undefined ? undefined : FRESH_APIS.flatMap((a) => a.cases.map((c) => ({ api: a, c }))).find(({ c }) => c.name === caseName);
if (caseName !== undefined && !freshCase) throw new Error(`no case named ${JSON.stringify(caseName)} in bench/fresh.bench.ts`);
const [apiName = freshCase?.api.api ?? "mesh", index = "0"] = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--case");
const found = freshCase ? { ...freshCase.api, operations: [freshCase.c] } : APIS.find((a) => a.api === apiName)!;
// BENCH_SIZE: the data size of the target (teams, roles, services) instead of the hot-path one.
const api = process.env.BENCH_SIZE ? { ...found, spec: { ...found.spec, size: Number(process.env.BENCH_SIZE) } } : found;
const op = freshCase ? freshCase.c : api.operations[Number(index)]!;
const FRESH = process.argv.includes("--fresh") || freshCase?.c.kind === "fresh read";
const pathAt = FRESH ? (n: number) => `${api.base}${op.path}${op.path.includes("?") ? "&" : "?"}fresh=${n}` : undefined;
const dir = mkdtempSync(path.join(tmpdir(), "bench-prof-"));

// Profiles bench/serve.ts bundled by esbuild (as npm start runs the servers, and as the benchmarks
// do), so that functions show with their lines; the bundle's `// server/...` comments say which
// module a line is in. (`--bundle`, once needed for that, is accepted and changes nothing.)
const BASE = process.env.PROFILE_BASE;
const PLAIN = process.env.PROFILE_PLAIN === "1" || process.env.PROFILE_PLAIN === "app";
if (PLAIN && !freshCase) throw new Error("PROFILE_PLAIN needs --case");

/** Which server module each line of a bundle is in. */
function bundleModulesOf(script: string): (line: number) => string {
  const modules: { line: number; module: string }[] = [];
  readFileSync(script, "utf8")
    .split("\n")
    .forEach((text, line) => {
      const m = /^\/\/ ((?:server|bench|test)\/\S+\.ts)$/.exec(text);
      if (m) modules.push({ line, module: m[1]! });
    });
  return (line) => {
    let found = "bundle";
    for (const m of modules) if (m.line <= line) found = m.module;
    return found;
  };
}

const where = (bundleModule: (line: number) => string, url: string, line = 0): string => {
  if (url === "") return "(V8: native code, builtins, socket writes)";
  if (url.endsWith(".bundle.mjs")) return /(server\/[^/]+|bench)\//.exec(bundleModule(line))?.[1] ?? "bundle";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith("node:")) return "node core";
  return /(server\/[^/]+|bench)\//.exec(url)?.[1] ?? url;
};

/** µs per request, by key. */
async function profileOnce(label: string, validate: boolean, checkout?: string, spec?: ServeSpec): Promise<{ rps: number; byPlace: Map<string, number>; byFunction: Map<string, number> }> {
  const serveScript = await bundled("bench/serve.ts", checkout);
  const bundleModule = bundleModulesOf(serveScript);
  const child = await startChild(serveScript, spec ?? { ...api.spec, validate }, {}, undefined, process.env.PROFILE_NODE_ARGS?.split(" ").filter(Boolean));
  try {
    const url = `http://127.0.0.1:${child.port}${api.base}${op.path}`;
    const method = spec?.api === "express" ? (freshCase?.c.plainMethod ?? op.method) : op.method;
    await load({ url, method, headers: op.headers, body: op.body, bodyAt: op.bodyAt, pathAt, seconds: 2, cold: true }); // warm-up, not profiled
    await child.ask({ profile: "start" });
    const result = await load({ url, method, headers: op.headers, body: op.body, bodyAt: op.bodyAt, pathAt, cold: true });
    const { profile } = await child.ask<{ profile: Profile }>({ profile: "stop" });
    const file = path.join(dir, `${apiName}-${index}-${label.replaceAll(" ", "-")}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`${op.name}, ${label}: ${Math.round(result.rps)} requests/s; profile ${file}`);
    const requests = result.ok + result.bad;
    const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
    const byPlace = new Map<string, number>();
    const byFunction = new Map<string, number>();
    profile.samples.forEach((id, i) => {
      const { functionName, url, lineNumber } = byNode.get(id)!.callFrame;
      if (functionName === "(idle)") return;
      const t = (profile.timeDeltas[i] ?? 0) / requests;
      const place = functionName.startsWith("(") ? functionName : where(bundleModule, url, lineNumber);
      byPlace.set(place, (byPlace.get(place) ?? 0) + t);
      const file = url.endsWith(".bundle.mjs") ? path.basename(bundleModule(lineNumber)) : path.basename(url);
      const fn = `${functionName || "(anonymous)"} ${where(bundleModule, url, lineNumber)} ${file}${BASE ? "" : `:${lineNumber + 1}`}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + t);
    });
    return { rps: result.rps, byPlace, byFunction };
  } finally {
    await child.stop();
  }
}

/** Plain Express's spec: the bytes the validated server answers each operation of the case's API with. */
async function plainSpec(): Promise<ServeSpec> {
  const server = await startChild("bench/serve.ts", { ...freshCase!.api.spec, validate: true });
  try {
    return { api: "express", canned: await cannedFor(server, freshCase!.api), appServer: process.env.PROFILE_PLAIN === "app" };
  } finally {
    await server.stop();
  }
}

// PROFILE_PLAIN=1 PROFILE_UNVALIDATED=1: the server without the validator beside plain Express (the server's own share).
const FIRST_UNVALIDATED = PLAIN && process.env.PROFILE_UNVALIDATED === "1";
const [first, second] = BASE ? ["this checkout", "base"] : PLAIN ? [FIRST_UNVALIDATED ? "unvalidated" : "validated", "plain Express"] : ["validated", "unvalidated"];
const validated = await profileOnce(first, !FIRST_UNVALIDATED);
const unvalidated = BASE ? await profileOnce(second, true, path.resolve(BASE)) : PLAIN ? await profileOnce(second, true, undefined, await plainSpec()) : await profileOnce(second, false);
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const print = (title: string, v: Map<string, number>, u: Map<string, number>, limit: number) => {
  console.log(`\n${title}: µs per request, ${first} / ${second} / difference`);
  const keys = [...new Set([...v.keys(), ...u.keys()])].sort((a, b) => (v.get(b) ?? 0) - (v.get(a) ?? 0));
  for (const key of keys.slice(0, limit)) {
    const a = v.get(key) ?? 0;
    const b = u.get(key) ?? 0;
    console.log(`  ${a.toFixed(1).padStart(7)} ${b.toFixed(1).padStart(7)} ${(a - b).toFixed(1).padStart(7)}  ${key}`);
  }
};
console.log(`\nbusy CPU per request: ${first} ${total(validated.byPlace).toFixed(0)} µs, ${second} ${total(unvalidated.byPlace).toFixed(0)} µs`);
print("by place", validated.byPlace, unvalidated.byPlace, 18);
print("by function", validated.byFunction, unvalidated.byFunction, Number(process.env.PROFILE_TOP ?? 40));
