// npm run conformance -- <api> <base-url> [--header "Name: value"]... [--query name=value]... [--input name=value]...
//                        [--runs N] [--seed S] [--no-properties] [--no-workflows]
// Checks any server that implements one of the APIs against the contract: the API's Arazzo
// workflows (workflows/<api>-*.arazzo.yaml whose only source is this API, run by redocly respect),
// then the contract property check (scripts/contract/conformance.ts: generated valid and invalid
// requests for every operation). Both change the server's state: point it at a test deployment.
// --header: credentials for every generated request (default: the reference server's dev
// credentials); --query: query parameters for every generated request (an API key a security
// scheme puts in the query); --input: workflow inputs (tokens, key shares), over the reference
// server's defaults.
// One line per operation and per workflow; details for what failed; exit 1 if anything failed.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { APIS, PROJECT_ROOT, readBundle } from "./apis.ts";
import { checkProperties } from "./contract/conformance.ts";
import type { OpenApiDoc } from "./contract/document.ts";
import { describedProfile, REFERENCE_SERVERS } from "./contract/reference-servers.ts";
import { redoclyCommand } from "./project.ts";
import { failureReport, workflowResults } from "./workflows-report.ts";

const root = PROJECT_ROOT;
const args = process.argv.slice(2);
const take = (name: string): string[] => {
  const values: string[] = [];
  for (let i = args.indexOf(name); i >= 0; i = args.indexOf(name)) values.push(...args.splice(i, 2).slice(1));
  return values;
};
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const headerArgs = take("--header");
const queryArgs = take("--query");
const inputArgs = take("--input");
const runs = Number(take("--runs")[0] ?? 10);
const seed = Number(take("--seed")[0] ?? Math.floor(Math.random() * 2 ** 31));
const noProperties = flag("--no-properties");
const noWorkflows = flag("--no-workflows");
const [apiName, baseUrlArg] = args;
const usage = `usage: npm run conformance -- <${APIS.map((a) => a.name).join("|")}> <base-url> [--header "Name: value"]... [--query name=value]... [--input name=value]... [--runs N] [--seed S] [--no-properties] [--no-workflows]`;

const api = APIS.find((a) => a.name === apiName);
// An API without a reference server here is judged by its description alone (its documented errors).
const entry = REFERENCE_SERVERS.find((s) => s.api === apiName) ?? (api ? describedProfile(api.name) : undefined);
const fail = (message: string) => {
  console.error(`conformance: ${message}\n${usage}`);
  process.exit(2);
};
if (!api || !entry || !baseUrlArg) fail(apiName ? `unknown API ${apiName}` : "which API, and where?");
let baseUrl = "";
try {
  const url = new URL(baseUrlArg!);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  baseUrl = baseUrlArg!.replace(/\/+$/, "");
} catch {
  fail(`${baseUrlArg} is not an http(s) URL (with the API's base path, e.g. http://127.0.0.1:${api!.serverPort}${api!.basePath})`);
}
if (!Number.isInteger(runs) || runs < 1) fail("--runs takes a positive whole number");
const headers: Record<string, string> = headerArgs.length ? {} : { ...entry!.headers };
for (const h of headerArgs) {
  const at = h.indexOf(":");
  if (at <= 0) fail(`--header "${h}": not "Name: value"`);
  headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
}
const query: [string, string][] = [];
for (const q of queryArgs) {
  const at = q.indexOf("=");
  if (at <= 0) fail(`--query "${q}": not name=value`);
  query.push([q.slice(0, at), q.slice(at + 1)]);
}
const inputs: Record<string, string> = { ...entry!.workflowInputs };
for (const i of inputArgs) {
  const at = i.indexOf("=");
  if (at <= 0) fail(`--input "${i}": not name=value`);
  inputs[i.slice(0, at)] = i.slice(at + 1);
}

let failed = false;
console.log(`${api!.title} at ${baseUrl}`);

// The workflows first: they expect a server holding nothing they did not put there, and the
// property check's generated writes leave entries behind (a proxy-defaults entry that sets a
// protocol once made the mesh workflow fail: --seed 777 --runs 30).
if (!noWorkflows) {
  const dir = path.join(root, "workflows");
  const files = (existsSync(dir) ? readdirSync(dir) : [])
    .filter((f) => f.startsWith(`${api!.name}-`) && f.endsWith(".arazzo.yaml"))
    .sort();
  const out = mkdtempSync(path.join(tmpdir(), "conformance-"));
  let passed = 0;
  let ran = 0;
  for (const file of files) {
    const doc = parse(readFileSync(path.join(dir, file), "utf8")) as { sourceDescriptions?: { name: string; type?: string }[] };
    const sources = (doc.sourceDescriptions ?? []).filter((s) => (s.type ?? "openapi") === "openapi").map((s) => s.name);
    if (sources.length !== 1 || sources[0] !== api!.name) {
      console.log(`- workflows/${file}: skipped (it also calls ${sources.filter((s) => s !== api!.name).join(", ")}; run it with redocly respect, see docs/workflows.md)`);
      continue;
    }
    ran++;
    const jsonFile = path.join(out, `${file}.json`);
    const { code, output } = await respect(path.join("workflows", file), { [api!.name]: baseUrl }, inputs, jsonFile);
    const results = workflowResults(jsonFile);
    for (const w of results) console.log(`${w.passed ? "✓" : "✖"} workflows/${file} ${w.id}${w.detail ? ` (${w.detail})` : ""}`);
    if (!results.length) console.log(`${code === 0 ? "✓" : "✖"} workflows/${file}`);
    if (code === 0) passed++;
    else {
      failed = true;
      process.stdout.write(failureReport(output));
    }
  }
  rmSync(out, { recursive: true, force: true });
  console.log(`workflows: ${passed} of ${ran} file(s) passed`);
}

if (!noProperties) {
  console.log(`contract properties: ${runs} generated requests per operation and kind, seed ${seed} (replay with --seed ${seed})`);
  const doc = (entry!.description?.() ?? readBundle(api!)) as OpenApiDoc;
  const results = await checkProperties({
    doc,
    baseUrl,
    headers,
    query,
    profile: entry!,
    numRuns: runs,
    seed,
    onResult: (r) => {
      console.log(`${r.failure ? "✖" : "✓"} ${r.operation}: ${r.kind} requests (${r.sent} sent)`);
      if (r.failure) console.log(r.failure.replace(/^/gm, "    "));
    },
  });
  const broken = results.filter((r) => r.failure).length;
  console.log(`contract properties: ${results.length - broken} of ${results.length} hold`);
  if (broken) failed = true;
}

console.log(failed ? "conformance: FAILED" : "conformance: passed");
process.exit(failed ? 1 : 0);

function respect(file: string, servers: Record<string, string>, inputs: Record<string, string>, jsonFile: string): Promise<{ code: number; output: string }> {
  mkdirSync(path.dirname(jsonFile), { recursive: true });
  const command = redoclyCommand(["respect", file, "--server", JSON.stringify(servers), "--input", JSON.stringify(inputs), "--json-output", jsonFile]);
  const child = spawn(command.command, command.args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: command.env });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code: code ?? 1, output })));
}
