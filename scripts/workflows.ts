// npm run workflows [-- <file.arazzo.yaml>...] [respect options, e.g. -w configThenChain -v]
// For each workflows/**/*.arazzo.yaml: starts, in this process, a reference server for every source
// description of the file (several of one API when the file names several, e.g. `secrets` and
// `secretsDr`) and the workflow utilities (workflows/utilities.openapi.yaml) when it names them,
// runs `redocly respect` on the file against them, then checks the traffic respect recorded
// (dist/workflows/<file>.har) against each description. An API of redocly.yaml that has no
// reference server here is served by its mock (scripts/mock/start.ts) for its workflows. Against a
// deployment, run respect directly: see docs/workflows.md.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parse } from "yaml";
import { decodeToken } from "../server/secrets/replication/domain/otp.ts";
import { APIS, PROJECT_ROOT, readBundle } from "./apis.ts";
import type { OpenApiDoc } from "./contract/document.ts";
import { startMock } from "./mock/start.ts";
import { outputRoot, redoclyCommand } from "./project.ts";
import { formatHarViolation, validateHar, type Har } from "./contract/har.ts";
import { REFERENCE_SERVERS } from "./contract/reference-servers.ts";
import { failureReport, workflowResults } from "./workflows-report.ts";

const root = PROJECT_ROOT;
const args = process.argv.slice(2);
const chosen = args.filter((a) => a.endsWith(".arazzo.yaml"));
const passThrough = args.filter((a) => !a.endsWith(".arazzo.yaml"));

// A file argument that is not an Arazzo file, or one that is not there, is named here: passed on to
// respect it would run every file and fail with respect's own words about something else.
const notArazzo = passThrough.find((a) => !a.startsWith("-") && /\.(ya?ml|json)$/i.test(a));
if (notArazzo) {
  console.error(`workflows: ${notArazzo} is not an Arazzo file (the files this runs are named *.arazzo.yaml)`);
  process.exit(2);
}
const missing = chosen.find((file) => !existsSync(path.resolve(root, file)));
if (missing) {
  console.error(`workflows: no such file: ${missing}`);
  process.exit(2);
}

function findWorkflows(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findWorkflows(full);
    return entry.name.endsWith(".arazzo.yaml") ? [path.relative(root, full)] : [];
  });
}

const files = chosen.length ? chosen : existsSync(path.join(root, "workflows")) ? findWorkflows(path.join(root, "workflows")).sort() : [];
if (!files.length) {
  console.error("no workflows/**/*.arazzo.yaml");
  process.exit(2);
}

interface Source {
  /** The source description's name: `--server <name>=<url>`. */
  name: string;
  /** The API of redocly.yaml it describes, or "utilities" (workflows/utilities.openapi.yaml, served here). */
  api: string;
}

const UTILITIES = path.join(root, "workflows", "utilities.openapi.yaml");
const camel = (api: string) => api.replace(/-(.)/g, (_, c: string) => c.toUpperCase());

/**
 * The instances a workflow file calls: its OpenAPI source descriptions. One pointing at an API's
 * bundle (../generated/<api>/openapi.json) is a reference server of that API, started for the
 * file; it is named after the API (`secrets`), or after the API and a role (`secretsDr`) when the
 * file needs several servers of one API.
 */
function sourcesOf(file: string): Source[] {
  const doc = parse(readFileSync(path.resolve(root, file), "utf8")) as { sourceDescriptions?: { name: string; url: string; type?: string }[] };
  return (doc.sourceDescriptions ?? [])
    .filter((s) => (s.type ?? "openapi") === "openapi")
    .map(({ name, url }) => {
      if (path.resolve(root, path.dirname(file), url) === UTILITIES) return { name, api: "utilities" };
      const api = /^\.\.\/generated\/([^/]+)\/openapi\.json$/.exec(url)?.[1];
      if (!api || !APIS.some((a) => a.name === api)) throw new Error(`${file}: source description "${name}" points at ${url}, not at the bundle of an API of redocly.yaml`);
      if (name !== api && !new RegExp(`^${camel(api)}[A-Z]`).test(name)) throw new Error(`${file}: source description "${name}" of ${api} is named neither ${api} nor ${camel(api)}<Role>`);
      return { name, api };
    });
}

/** The instance's inputs: its API's (`secretsToken`, `secretsKey1`), renamed after a second instance (`secretsDrToken`). */
function inputsOf(source: Source, inputs: Record<string, string>): Record<string, string> {
  const prefix = camel(source.api);
  if (source.name === source.api) return inputs;
  return Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key.startsWith(prefix) ? source.name + key.slice(prefix.length) : key, value]));
}

interface Instance {
  source: Source;
  baseUrl: string;
  inputs: Record<string, string>;
  description(): OpenApiDoc;
  refusesUnknownQueryParameters: boolean;
  close(): Promise<void>;
}

async function start(source: Source): Promise<Instance> {
  if (source.api === "utilities") {
    const running = await serveUtilities();
    return { source, ...running, inputs: {}, description: () => parse(readFileSync(UTILITIES, "utf8")) as OpenApiDoc, refusesUnknownQueryParameters: false };
  }
  const server = REFERENCE_SERVERS.find((s) => s.api === source.api);
  if (!server) {
    // No reference server: the API's mock answers, from the description's examples.
    const mock = await startMock(source.api, { port: 0 });
    return { source, baseUrl: mock.url, inputs: {}, description: () => readBundle<OpenApiDoc>({ name: source.api }), refusesUnknownQueryParameters: false, close: () => mock.close() };
  }
  const running = await server.start();
  return {
    source,
    baseUrl: running.baseUrl,
    // The fixed inputs of its entry, then those known once it runs (addresses, key shares).
    inputs: inputsOf(source, { ...server.workflowInputs, ...running.workflowInputs }),
    description: () => server.description?.() ?? readBundle<OpenApiDoc>({ name: source.api }),
    refusesUnknownQueryParameters: server.refusesUnknownQueryParameters,
    close: () => running.close(),
  };
}

/**
 * workflows/utilities.openapi.yaml, served on 127.0.0.1: what a workflow needs computed that
 * Arazzo expressions cannot compute. POST /decode-operation-token decodes a DR operation token
 * with the secrets server's own function.
 */
async function serveUtilities(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const answer = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  const server = createServer(async (req, res) => {
    if (req.method !== "POST" || req.url !== "/decode-operation-token") return answer(res, 404, { errors: [`no operation ${req.method} ${req.url}`] });
    let body: { encoded_token?: unknown; otp?: unknown };
    try {
      body = JSON.parse(Buffer.concat(await req.toArray()).toString("utf8")) as typeof body;
    } catch {
      return answer(res, 400, { errors: ["the body is not JSON"] });
    }
    const { encoded_token, otp } = body ?? {};
    if (typeof encoded_token !== "string" || !encoded_token || typeof otp !== "string" || !otp) return answer(res, 400, { errors: ["encoded_token and otp are non-empty strings"] });
    try {
      answer(res, 200, { token: decodeToken(encoded_token, otp) });
    } catch (error) {
      answer(res, 400, { errors: [(error as Error).message] });
    }
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let status = 0;
let exchanges = 0;
// -v (respect's verbose flag) also prints the servers, respect's report and every check.
const verbose = passThrough.includes("-v") || passThrough.includes("--verbose");
const sources = new Map<string, Source[]>();
try {
  for (const file of files) sources.set(file, sourcesOf(file));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

// Kept for a look afterwards (dist/ is not committed): npm run validate -- <api> dist/workflows/<file>.har
const harDir = path.join(outputRoot(), "dist", "workflows");
rmSync(harDir, { recursive: true, force: true });
mkdirSync(harDir, { recursive: true });
// One respect run per file (respect records a HAR file for one workflow file at a time), against
// servers started for the file: a flow may change a server for good (a DR failover demotes one).
for (const [n, file] of files.entries()) {
  const running: Instance[] = [];
  // Progress on stderr: each file takes seconds (servers, then respect).
  console.error(`workflows: ${file} (${n + 1} of ${files.length})...`);
  try {
    for (const source of sources.get(file)!) running.push(await start(source));
    if (verbose) for (const r of running) console.log(`${file}: ${r.source.name} (${r.source.api}) on ${r.baseUrl}`);
    const servers = Object.fromEntries(running.map((r) => [r.source.name, r.baseUrl]));
    const inputs = Object.assign({}, ...running.map((r) => r.inputs)) as Record<string, string>;
    const harFile = path.join(harDir, `${path.basename(file, ".arazzo.yaml")}.har`);
    const jsonFile = path.join(harDir, `${path.basename(file, ".arazzo.yaml")}.json`);
    const started = Date.now();
    const { code, output } = await runRespect(file, servers, inputs, harFile, jsonFile);
    const results = workflowResults(jsonFile);
    for (const w of results) console.log(`${w.passed ? "✓" : "✖"} ${file} ${w.id}${w.detail ? ` (${w.detail})` : ""}`);
    if (!results.length) console.log(`${code === 0 ? "✓" : "✖"} ${file} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    // Respect's own report only when something failed (or with -v): it names the failing step and why.
    if (verbose) process.stdout.write(output);
    else if (code !== 0) process.stdout.write(failureReport(output));
    if (code !== 0) console.error(`${file}: respect exited with status ${code}`);
    status ||= code;

    // Respect checks each answer against its own step; this checks every exchange of the run,
    // requests included, with the same checker as `npm run validate`.
    if (!existsSync(harFile)) {
      console.error(`${file}: respect recorded no traffic`);
      status ||= 1;
      continue;
    }
    const har = JSON.parse(readFileSync(harFile, "utf8")) as Har;
    let checked = 0;
    for (const r of running) {
      const entries = har.log.entries.filter((e) => e.request.url.startsWith(`${r.baseUrl}/`));
      const report = validateHar(
        r.description(),
        { log: { ...har.log, entries } },
        { basePath: new URL(r.baseUrl).pathname, unknownQueryParameters: r.refusesUnknownQueryParameters ? "refuse" : "allow" },
      );
      for (const v of report.violations) console.log(formatHarViolation(v));
      if (verbose || report.violations.length) console.log(`${file}, ${r.source.name}: ${report.checked} recorded exchanges checked against the description, ${report.violations.length} violation(s)`);
      if (report.violations.length) status ||= 1;
      checked += report.checked;
    }
    exchanges += checked;
    // Every exchange is checked; a workflow chosen with -w may call only some of the file's sources, but one at least.
    if (checked !== har.log.entries.length) console.error(`${file}: ${har.log.entries.length - checked} recorded exchange(s) outside the sources' base URLs`);
    if (!checked || checked !== har.log.entries.length) status ||= 1;
  } catch (error) {
    console.error(`${file}: ${(error as Error).message}`);
    status ||= 1;
  } finally {
    await Promise.all(running.map((r) => r.close()));
  }
}
console.log(`${status === 0 ? "workflows: all passed" : "workflows: FAILED"}: ${files.length} file(s), ${exchanges} recorded exchanges checked against the descriptions`);
process.exit(status);

/**
 * Runs respect on one file; asynchronous, so that the servers answer from this process's event loop
 * meanwhile. Its output is kept and printed by the caller only when it is needed.
 */
function runRespect(file: string, servers: Record<string, string>, inputs: Record<string, string>, harFile: string, jsonFile: string): Promise<{ code: number; output: string }> {
  const command = redoclyCommand(["respect", file, "--server", JSON.stringify(servers), "--input", JSON.stringify(inputs), "--har-output", harFile, "--json-output", jsonFile, ...passThrough]);
  const respect = spawn(command.command, command.args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: command.env });
  let output = "";
  respect.stdout.on("data", (chunk: Buffer) => (output += chunk));
  respect.stderr.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => respect.once("exit", (code) => resolve({ code: code ?? 1, output })));
}
