// The installable CLI: the package is built (cli/build.ts) and packed with `npm pack`, installed into
// an empty folder offline (`npm ci --offline` from the npm cache, with the lock the build makes from
// its npm-shrinkwrap.json, and better-sqlite3's binary from the kit's prebuilds), and each verb is run there, from a folder with no redocly.yaml (so on the
// toolkit's own three APIs), as a user would. The Node.js version check is run with an older version.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolkitPackage, offlineInstallKit, packToolkit } from "../../cli/build.ts";
import { nodeVersionProblem } from "../../cli/node-version.mjs";
import { harRecorder } from "../../scripts/contract/har.ts";
import { freePort, outputMatching, run, start, until, type Started } from "../helpers/run.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const work = mkdtempSync(path.join(tmpdir(), "cli-package-"));
const empty = path.join(work, "empty");
let bin = "";
let tarball = "";
let serve: Started | undefined;
let meshUrl = "";
const running: Started[] = [];

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => run(bin, args, { cwd: empty, env, timeoutMs: 120_000 });

beforeAll(async () => {
  const built = await buildToolkitPackage(path.join(work, "toolkit"));
  tarball = packToolkit(built, path.join(work, "packages"));
  const kit = offlineInstallKit(tarball, path.join(work, "install"));
  const installed = await run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: kit, timeoutMs: 400_000 });
  if (installed.code !== 0) throw new Error(`npm ci --offline failed:\n${installed.output}`);
  bin = path.join(kit, "node_modules", ".bin", "contract-toolkit");
  mkdirSync(empty);
  serve = await start(bin, ["serve"], { cwd: empty, env: { ORG_PLATFORM_PORT: "0", SECRETS_PORT: "0", MESH_PORT: "0" }, ready: /mesh .*http:\/\/127\.0\.0\.1:\d+\/v1/ });
  meshUrl = /mesh .*(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(serve.output())![1]!;
}, 600_000);

afterAll(async () => {
  await Promise.all([serve, ...running].map((s) => s?.stop()));
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("the packed toolkit", { timeout: 120_000 }, () => {
  it("is JavaScript only, with a bin, a shrinkwrap and the toolkit's own APIs", async () => {
    const listing = await run("tar", ["-tzf", tarball], { cwd: work });
    const files = listing.stdout.split("\n").filter(Boolean);
    expect(files).toContain("package/bin/contract-toolkit.mjs");
    expect(files).toContain("package/dist/cli.mjs");
    expect(files).toContain("package/npm-shrinkwrap.json");
    expect(files).toContain("package/generated/mesh/openapi.json");
    expect(files).toContain("package/redocly.yaml");
    // The libraries fixed under patches/, as patched here, JavaScript only.
    expect(files).toContain("package/vendor/express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js");
    expect(files.filter((f) => f.startsWith("package/vendor/") && /\.(d\.ts|map)$/.test(f))).toEqual([]);
    // Only those the built code imports: not openapi-typescript (npm run generate's), nor what it requires.
    const vendored = new Set(files.filter((f) => f.startsWith("package/vendor/")).map((f) => f.split("/")[2]));
    expect([...vendored].sort()).toEqual(["express-openapi-validator", "fast-check"]);
    // RapiDoc's built file with its licences, not RapiDoc's package (whose dependencies only build it).
    expect(files).toContain("package/assets/rapidoc/rapidoc-min.js");
    expect(files).toContain("package/assets/rapidoc/LICENSE.txt");
    // Nothing to compile when it runs.
    expect(files.filter((f) => f.endsWith(".ts"))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(work, "toolkit", "package.json"), "utf8"));
    expect(manifest.bin).toEqual({ "contract-toolkit": "bin/contract-toolkit.mjs" });
    expect(manifest.dependencies).not.toHaveProperty("tsx");
    expect(manifest.dependencies).not.toHaveProperty("typescript");
    expect(manifest.dependencies).not.toHaveProperty("rapidoc");
  });

  it("installs its native dependency from the kit's prebuild, not by compiling it", async () => {
    const sqlite = path.join(work, "install", "node_modules", "better-sqlite3");
    expect(existsSync(path.join(sqlite, "build", "Release", "better_sqlite3.node"))).toBe(true);
    // What node-gyp leaves when it compiles.
    expect(existsSync(path.join(sqlite, "build", "Release", "obj.target"))).toBe(false);
    const loaded = await run(process.execPath, ["-e", 'const D = require("better-sqlite3"); console.log(new D(":memory:").prepare("select 6 * 7 as n").get().n)'], { cwd: path.join(work, "install") });
    expect(loaded.stdout.trim(), loaded.output).toBe("42");
  });

  it("--help lists every verb; --version; an unknown verb is named", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    for (const verb of ["serve", "mock", "validate", "proxy", "diff", "conformance", "docs", "lint"]) expect(help.stdout).toContain(`\n  ${verb}`);
    expect((await cli(["--version"])).stdout.trim()).toBe(JSON.parse(readFileSync(path.join(work, "toolkit", "package.json"), "utf8")).version);
    const bogus = await cli(["bogus"]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('contract-toolkit: no verb "bogus"');
  });

  it("says in a sentence, not a stack trace, that an older Node.js will not do", async () => {
    const fake = path.join(work, "old-node.mjs");
    writeFileSync(fake, 'Object.defineProperty(process.versions, "node", { value: "18.19.1" });\n');
    const old = await run(process.execPath, ["--import", fake, bin, "--help"], { cwd: empty });
    expect(old.code).toBe(1);
    expect(old.stderr.trim()).toBe(nodeVersionProblem("18.19.1"));
    expect(old.stderr).not.toMatch(/^\s+at /m);
    expect(nodeVersionProblem("20.19.0")).toBeUndefined();
    expect(nodeVersionProblem("22.12.0")).toBeUndefined();
    expect(nodeVersionProblem("24.1.0")).toBeUndefined();
    expect(nodeVersionProblem("20.18.3")).toContain("this is Node.js 20.18.3");
    expect(nodeVersionProblem("21.7.0")).toContain("this is Node.js 21.7.0");
  });

  it("serve: the reference servers answer", async () => {
    const self = await fetch(`${meshUrl}/agent/self`);
    expect(self.status).toBe(200);
  });

  it("serve: with the repository's fixed libraries (an empty include= is no include, as go-tfe sends it)", async () => {
    const orgUrl = /org-platform .*(http:\/\/127\.0\.0\.1:\d+\/api\/v2)/.exec(serve!.output())![1]!;
    const teams = await fetch(`${orgUrl}/organizations/acme/teams?include=`, { headers: { Authorization: "Bearer alice.atlasv1.dev-user-token" } });
    expect(teams.status).toBe(200);
    // The installed package runs its own patched copy of the library, byte for byte the one patched here
    // (npm put the registry's copy beside it, for nothing but its dependencies).
    const installed = path.join(work, "install", "node_modules", "@contract-first", "toolkit");
    for (const file of ["dist/middlewares/parsers/req.parameter.mutator.js", "dist/framework/index.js"]) {
      expect(readFileSync(path.join(installed, "vendor", "express-openapi-validator", file), "utf8")).toBe(readFileSync(path.join(root, "node_modules", "express-openapi-validator", file), "utf8"));
    }
  });

  it("mock: a Ready line, and the mock answers", async () => {
    const port = await freePort();
    const mock = await start(bin, ["mock", "mesh"], { cwd: empty, env: { MESH_MOCK_PORT: String(port) }, ready: /^Ready: .*$/m });
    running.push(mock);
    expect(mock.output()).toContain(`Ready: mesh http://127.0.0.1:${port} (Ctrl-C stops)`);
    expect((await fetch(`http://127.0.0.1:${port}/discovery-chain/web`)).status).toBe(200);
    const bad = await fetch(`http://127.0.0.1:${port}/config`, { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: ["http"] }) });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/^Request decoding failed: Protocol must be string/);
  });

  it("validate: traffic recorded against the server", async () => {
    const recorder = harRecorder();
    await recorder.fetch(`${meshUrl}/discovery-chain/web`);
    await recorder.fetch(`${meshUrl}/agent/self`);
    writeFileSync(path.join(empty, "traffic.har"), JSON.stringify(recorder.har()));
    const validate = await cli(["validate", "mesh", "traffic.har"]);
    expect(validate.code, validate.output).toBe(0);
    expect(validate.stdout).toContain("mesh: 2 entries checked against generated/mesh/openapi.json: no violations");
  });

  it("proxy: forwards to the server and checks the exchange", async () => {
    const port = await freePort();
    const proxy = await start(bin, ["proxy", "mesh", meshUrl, "--port", String(port)], { cwd: empty, ready: /validating proxy on/ });
    running.push(proxy);
    expect((await fetch(`http://127.0.0.1:${port}/v1/discovery-chain/web`)).status).toBe(200);
    // The proxy prints its verdict after it has answered: wait for the line, not for a time.
    expect(await outputMatching(proxy, /GET \/v1\/discovery-chain\/web → \d+/)).toContain("✓ GET /v1/discovery-chain/web → 200");
  });

  it("conformance: the server against the description", async () => {
    const conformance = await cli(["conformance", "mesh", meshUrl, "--runs", "1", "--seed", "3", "--no-workflows", "--header", "X-Mesh-Token: unused"]);
    expect(conformance.code, conformance.output).toBe(0);
    expect(conformance.stdout).toContain("conformance: passed");
  });

  it("docs: the reference into ./dist/docs of the working folder", async () => {
    const docs = await cli(["docs", "mesh"]);
    expect(docs.code, docs.output).toBe(0);
    expect(existsSync(path.join(empty, "dist", "docs", "mesh.html"))).toBe(true);
    expect(existsSync(path.join(empty, "dist", "docs", "index.html"))).toBe(true);
  });

  it("lint: the descriptions", async () => {
    const lint = await cli(["lint", "mesh"]);
    expect(lint.code, lint.output).toBe(0);
    expect(lint.stdout.trim()).toBe("mesh: 0 errors, 0 warnings");
  });

  it("diff: two description files, Markdown for a pull request; a git ref where there is no repository is said so", async () => {
    const bundle = JSON.parse(readFileSync(path.join(work, "toolkit", "generated", "mesh", "openapi.json"), "utf8"));
    writeFileSync(path.join(empty, "before.json"), JSON.stringify(bundle));
    delete bundle.paths["/agent/self"];
    writeFileSync(path.join(empty, "after.json"), JSON.stringify(bundle));
    const diff2 = await cli(["diff", "before.json", "after.json", "--api=mesh", "--markdown"]);
    expect(diff2.code, diff2.output).toBe(1);
    expect(diff2.stdout).toContain("**Fails**: mesh (1 breaking change without a major version bump).");
    expect(diff2.stdout).toContain("`operation-removed`");
    const diff = await cli(["diff", "HEAD"]);
    expect(diff.code).toBe(2);
    expect(diff.output).toContain("HEAD is not in this clone");
  });

  it("proxy --record: the file validate reads back", async () => {
    const port = await freePort();
    const file = path.join(empty, "recorded.har");
    const proxy = await start(bin, ["proxy", "mesh", meshUrl, "--port", String(port), "--record", file], { cwd: empty, ready: /validating proxy on/ });
    running.push(proxy);
    expect((await fetch(`http://127.0.0.1:${port}/v1/agent/self`)).status).toBe(200);
    await until(() => existsSync(file) && JSON.parse(readFileSync(file, "utf8")).log.entries.length === 1);
    const validate = await cli(["validate", "mesh", "recorded.har"]);
    expect(validate.code, validate.output).toBe(0);
    expect(validate.stdout).toContain("mesh: 1 entries checked");
  });

  it("docs: the try-it console is in the package's output too", () => {
    expect(existsSync(path.join(empty, "dist", "docs", "mesh-try.html"))).toBe(true);
    expect(existsSync(path.join(empty, "dist", "docs", "assets", "rapidoc-min.js"))).toBe(true);
  });

  it("workflows: the toolkit's own, against servers it starts", async () => {
    const workflows = await cli(["workflows", "workflows/mesh-config-then-chain.arazzo.yaml"]);
    expect(workflows.code, workflows.output).toBe(0);
    expect(workflows.stdout).toContain("workflows: all passed");
  });

  it("--config: a project's redocly.yaml, with a sentence when it does not exist", async () => {
    const missing = await cli(["--config", "nowhere/redocly.yaml", "lint"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^contract-toolkit lint: .*nowhere\/redocly\.yaml does not exist/);
  });
});
