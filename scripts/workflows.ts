// npm run workflows [-- <file.arazzo.yaml>...] [respect options, e.g. -w configThenChain -v]
// Starts, in this process, the reference server of every API the workflows use (their source
// descriptions are named after the APIs), runs `redocly respect` on each workflows/**/*.arazzo.yaml
// against them, then checks the traffic respect recorded (dist/workflows/<file>.har) against each
// bundle. Against a deployment, run respect directly: see "Contract validation in CI" in README.md.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { APIS } from "./apis.ts";
import { formatHarViolation, validateHar, type Har } from "./contract/har.ts";
import { REFERENCE_SERVERS, type ReferenceServer, type RunningReferenceServer } from "./contract/reference-servers.ts";

const root = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const chosen = args.filter((a) => a.endsWith(".arazzo.yaml"));
const passThrough = args.filter((a) => !a.endsWith(".arazzo.yaml"));

function findWorkflows(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findWorkflows(full);
    return entry.name.endsWith(".arazzo.yaml") ? [path.relative(root, full)] : [];
  });
}

const files = chosen.length ? chosen : findWorkflows(path.join(root, "workflows")).sort();
if (!files.length) {
  console.error("no workflows/**/*.arazzo.yaml");
  process.exit(2);
}

/** The APIs a workflow file calls: its OpenAPI source descriptions, named after scripts/apis.ts. */
function apisOf(file: string): string[] {
  const doc = parse(readFileSync(path.resolve(root, file), "utf8")) as { sourceDescriptions?: { name: string; type?: string }[] };
  return (doc.sourceDescriptions ?? []).filter((s) => (s.type ?? "openapi") === "openapi").map((s) => s.name);
}

const needed = new Map<string, ReferenceServer>();
for (const api of new Set(files.flatMap(apisOf))) {
  const server = REFERENCE_SERVERS.find((s) => s.api === api);
  if (!APIS.some((a) => a.name === api)) {
    console.error(`a workflow has a source description "${api}", which is not an API of scripts/apis.ts`);
    process.exit(2);
  }
  if (!server) {
    console.error(`no reference server for ${api} in scripts/contract/reference-servers.ts: add one to run its workflows`);
    process.exit(2);
  }
  needed.set(api, server);
}

const running = new Map<string, RunningReferenceServer>();
let status = 0;
try {
  for (const [api, server] of needed) running.set(api, await server.start());
  for (const [api, r] of running) console.log(`${api} reference server on ${r.baseUrl}`);

  // Kept for a look afterwards (dist/ is not committed): npm run validate -- <api> dist/workflows/<file>.har
  const harDir = path.join(root, "dist", "workflows");
  rmSync(harDir, { recursive: true, force: true });
  mkdirSync(harDir, { recursive: true });
  // One respect run per file: respect records a HAR file for one workflow file at a time.
  for (const file of files) {
    const apis = apisOf(file);
    const servers = Object.fromEntries(apis.map((api) => [api, running.get(api)!.baseUrl]));
    // Each API's inputs: the fixed ones of its entry, then those known once it runs (addresses, key shares).
    const inputs = Object.assign({}, ...apis.flatMap((api) => [needed.get(api)!.workflowInputs, running.get(api)!.workflowInputs ?? {}]));
    const harFile = path.join(harDir, `${path.basename(file, ".arazzo.yaml")}.har`);
    const code = await runRespect(file, servers, inputs, harFile);
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
    for (const api of apis) {
      const r = running.get(api)!;
      const server = needed.get(api)!;
      const entries = har.log.entries.filter((e) => e.request.url.startsWith(r.baseUrl));
      const bundle = server.description?.() ?? JSON.parse(readFileSync(path.join(root, "generated", api, "openapi.json"), "utf8"));
      const report = validateHar(
        bundle,
        { log: { ...har.log, entries } },
        { basePath: new URL(r.baseUrl).pathname, unknownQueryParameters: server.refusesUnknownQueryParameters ? "refuse" : "allow" },
      );
      for (const v of report.violations) console.log(formatHarViolation(v));
      console.log(`${file}, ${api}: ${report.checked} recorded exchanges checked against the description, ${report.violations.length} violation(s)`);
      if (report.violations.length) status ||= 1;
      checked += report.checked;
    }
    // A workflow chosen with -w may call only some of the file's APIs, but a run calls one at least.
    if (!checked) status ||= 1;
  }
} catch (error) {
  console.error((error as Error).message);
  status ||= 1;
} finally {
  await Promise.all([...running.values()].map((r) => r.close()));
}
process.exit(status);

/** Runs respect on one file; asynchronous, so that the servers answer from this process's event loop meanwhile. */
function runRespect(file: string, servers: Record<string, string>, inputs: Record<string, string>, harFile: string): Promise<number> {
  const respect = spawn(
    path.join(root, "node_modules", ".bin", "redocly"),
    ["respect", file, "--server", JSON.stringify(servers), "--input", JSON.stringify(inputs), "--har-output", harFile, ...passThrough],
    {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    },
  );
  return new Promise<number>((resolve) => respect.once("exit", (code) => resolve(code ?? 1)));
}
