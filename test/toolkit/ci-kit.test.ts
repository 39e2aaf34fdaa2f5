// The CI kit: .github/workflows/contract.yml and the composite action it uses. The YAML is parsed,
// its commands are compared with those of this repository's CI (scripts/test.sh), and the action's
// steps are run the way GitHub Actions runs them (bash, the inputs of the workflow, RUNNER_TEMP and
// GITHUB_STEP_SUMMARY set) in a copy of this repository with its git history. Only the ports differ:
// the server under test listens on free ports, so that the test runs beside others.
// This is also where `npm test` runs the lint, the drift check and the breaking-change gate: once,
// here, as the workflow runs them (scripts/test.sh does not run them again; docs/testing.md).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import vitestConfig from "../../vitest.config.ts";
import { projectCopy, REPO } from "../helpers/project-copy.ts";
import { freePort, run } from "../helpers/run.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}

const workflow = YAML.parse(readFileSync(path.join(REPO, ".github", "workflows", "contract.yml"), "utf8")) as {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[] }>;
};
const action = YAML.parse(readFileSync(path.join(REPO, ".github", "actions", "contract", "action.yml"), "utf8")) as {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: Step[] };
};
const scripts = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const jobSteps = workflow.jobs.contract!.steps;
const actionStep = jobSteps.find((s) => s.uses === "./.github/actions/contract")!;

/** The npm scripts a piece of shell runs (`npm run -s <script>`). */
const npmScripts = (shell: string) => [...shell.matchAll(/npm run -s ([\w:-]+)/g)].map((m) => m[1]!);

describe("the workflow and the action", () => {
  it("check out the history, install with npm ci, then run the action", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(["pull_request", "push"]);
    expect(jobSteps[0]).toMatchObject({ uses: "actions/checkout@v4", with: { "fetch-depth": 0 } });
    expect(jobSteps[1]).toMatchObject({ uses: "actions/setup-node@v4" });
    expect(jobSteps[2]).toMatchObject({ run: "npm ci" });
    expect(actionStep.with).toMatchObject({ "base-ref": "${{ github.base_ref }}", "server-command": "npm start" });
    expect(action.runs.using).toBe("composite");
  });

  it("run lint, the drift check, the breaking-change gate (its Markdown in the job summary), conformance and docs, uploaded", () => {
    const runs = action.runs.steps.filter((s) => s.run);
    expect(runs.map((s) => npmScripts(s.run!))).toEqual([["lint"], ["check:generated"], ["check:breaking"], ["conformance"], ["docs"]]);
    expect(runs.every((s) => s.shell === "bash")).toBe(true);
    expect(action.runs.steps.find((s) => s.name === "Breaking-change gate")!.run).toContain('>> "$GITHUB_STEP_SUMMARY"');
    expect(action.runs.steps.at(-1)).toMatchObject({ uses: "actions/upload-artifact@v4", with: { path: "dist/docs" } });
  });

  it("call the npm scripts this repository's CI runs", () => {
    // This repository's CI (scripts/test.sh) runs lint, check:generated and check:breaking through this
    // file, by running the action's steps below: so they are the same commands, run the same way.
    // Either test.sh runs a script itself, or it runs the whole vitest suite, this file included.
    const ci = readFileSync(path.join(REPO, "scripts", "test.sh"), "utf8");
    const wholeSuite = /^npx vitest run$/m.test(ci) && (vitestConfig.test?.include ?? []).includes("test/**/*.test.ts");
    for (const script of ["lint", "check:generated", "check:breaking"]) {
      expect(scripts[script], script).toBeDefined();
      expect(ci.includes(`npm run -s ${script}`) || wholeSuite, script).toBe(true);
    }
    for (const script of ["conformance", "docs"]) expect(scripts[script], script).toBeDefined();
  });
});

describe("the action's steps, run as GitHub Actions runs them", { timeout: 600_000 }, () => {
  let copy: string;
  let temp: string;
  const results: { name: string; code: number | null; output: string }[] = [];
  let summary = "";

  beforeAll(async () => {
    // A copy with this repository's history: the gate compares with earlier commits.
    copy = projectCopy("ci-kit-");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: copy, stdio: "pipe" });
    git("init", "-q");
    git("fetch", "-q", REPO, "HEAD");
    git("reset", "-q", "FETCH_HEAD");
    temp = path.join(copy, ".runner-temp");
    mkdirSync(temp);
    const summaryFile = path.join(temp, "step-summary.md");
    writeFileSync(summaryFile, "");

    // The inputs as the workflow gives them (github.base_ref is empty on a push), the server on free
    // ports. The ports are taken right before the step that starts the server: taken earlier, another
    // test file's server could be given one of them while the steps before run.
    const ports = { ORG_PLATFORM_PORT: 8080, SECRETS_PORT: 8200, MESH_PORT: 8500 };
    const free: Record<string, string> = {};
    const inputs: Record<string, string> = {
      ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ""])),
      ...Object.fromEntries(Object.entries(actionStep.with!).map(([k, v]) => [k, String(v)])),
      "base-ref": "",
    };
    const takeFreePorts = async () => {
      // The secrets server's cluster port too (default: SECRETS_PORT + 1, which a free port may not leave free).
      free.SECRETS_CLUSTER_PORT = String(await freePort());
      let conformance = String(actionStep.with!.conformance);
      for (const [variable, port] of Object.entries(ports)) {
        free[variable] = String(await freePort());
        conformance = conformance.replace(`127.0.0.1:${port}/`, `127.0.0.1:${free[variable]}/`);
      }
      inputs.conformance = conformance;
    };
    await takeFreePorts();
    const expand = (text: string) => text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => inputs[name] ?? "");
    for (const step of action.runs.steps) {
      if (step.uses) continue;
      const condition = /^inputs\.([\w-]+) != ''$/.exec(step.if ?? "");
      if (condition && !inputs[condition[1]!]) continue;
      if (step.env?.SERVER_COMMAND !== undefined) await takeFreePorts();
      const env = { ...actionStep.env, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)])), ...free, RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: summaryFile, CI: "true" };
      const result = await run("bash", ["-e", "-c", expand(step.run!)], { cwd: copy, env, timeoutMs: 300_000 });
      results.push({ name: step.name!, ...result });
    }
    summary = readFileSync(summaryFile, "utf8");
  }, 900_000);

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("every step passes", () => {
    expect(results.map((r) => r.name)).toEqual(["Lint", "Drift check (generated files up to date)", "Breaking-change gate", "Conformance of the server under test", "Docs"]);
    for (const r of results) expect(r.code, `${r.name}:\n${r.output.slice(-3000)}`).toBe(0);
  });

  it("the gate's Markdown is in the job summary", () => {
    expect(summary).toMatch(/^## Breaking-change check against `[0-9a-f]{12}`/);
    expect(summary).toContain("| API | version | breaking | other | needs | verdict |");
  });

  it("conformance checked each server under test", () => {
    const output = results.find((r) => r.name.startsWith("Conformance"))!.output;
    expect(output.match(/^conformance: passed$/gm)).toHaveLength(3);
    // Each server's part, as test/contract/conformance.test.ts checks it (which leaves to this test the
    // APIs whose workflows run here): every contract property holds and every workflow succeeds.
    const lines = String(actionStep.with!.conformance).split("\n").map((l) => l.trim().split(/\s+/)).filter((w) => w[0]);
    const parts = output.split(/^conformance: waiting for .*$/m).slice(1);
    expect(parts).toHaveLength(lines.length);
    lines.forEach(([api, , ...options], i) => {
      const part = parts[i]!;
      expect(part, api).toMatch(/contract properties: (\d+) of \1 hold/);
      if (!options.includes("--no-workflows")) expect(part, api).toMatch(/workflows: (\d+) of \1 file\(s\) passed/);
      expect(part, api).toContain("conformance: passed");
    });
  });

  it("the docs are where the upload step takes them", () => {
    const upload = action.runs.steps.find((s) => s.uses?.startsWith("actions/upload-artifact"))!;
    expect(existsSync(path.join(copy, String(upload.with!.path), "index.html"))).toBe(true);
  });
});
