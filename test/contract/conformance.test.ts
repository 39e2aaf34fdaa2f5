// `npm run conformance -- <api> <base-url>`: the contract property check and the API's workflows
// against any server. The reference servers pass it: each is started on a free port (here, or by
// the CI kit's test: below) and the command runs against it as a user would run it against their own
// implementation (bounded: a few generated requests per operation and kind, a fixed seed).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { checkProperties } from "../../scripts/contract/conformance.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { describedProfile, REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

async function conformance(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, ["scripts/run.mjs", "scripts/conformance.ts", ...args], { cwd: root, maxBuffer: 16 << 20 });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout + e.stderr };
  }
}

// The CI kit's test (test/toolkit/ci-kit.test.ts) runs this command against the reference servers
// too, as the workflow does: `npm run -s conformance -- <api> <url> ...` for each line of the
// workflow's `conformance` input, against `npm start`'s servers, and checks the same lines of output.
// An API it runs with its workflows is not run a second time here; the others (the secrets service,
// whose workflows need the key shares only its running server knows: --input) are.
const workflow = YAML.parse(readFileSync(path.join(root, ".github", "workflows", "contract.yml"), "utf8")) as {
  jobs: { contract: { steps: { uses?: string; with?: { conformance?: string } }[] } };
};
const checkedByTheCiKit = new Set(
  String(workflow.jobs.contract.steps.find((s) => s.uses === "./.github/actions/contract")?.with?.conformance ?? "")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((words) => words[0] && !words.includes("--no-workflows"))
    .map((words) => words[0]!),
);
const here = REFERENCE_SERVERS.filter((s) => !checkedByTheCiKit.has(s.api));

it("every reference server is checked with its workflows, here or by the CI kit's test", () => {
  expect(here.map((s) => s.api)).toEqual(["secrets"]);
  expect([...checkedByTheCiKit, ...here.map((s) => s.api)].sort()).toEqual(REFERENCE_SERVERS.map((s) => s.api).sort());
});

describe.each(here.map((s) => [s.api, s] as const))("npm run conformance against the %s reference server", (api, entry) => {
  it("passes: every contract property holds and every workflow of the API succeeds", { timeout: 240_000 }, async () => {
    const server = await entry.start();
    try {
      // What only the running server knows (its key shares) goes in as workflow inputs.
      const inputs = Object.entries(server.workflowInputs ?? {}).flatMap(([k, v]) => ["--input", `${k}=${v}`]);
      const { code, stdout } = await conformance([api, server.baseUrl, "--runs", "2", "--seed", "7", ...inputs]);
      expect(stdout).toMatch(/contract properties: (\d+) of \1 hold/);
      expect(stdout).toMatch(/workflows: (\d+) of \1 file\(s\) passed/);
      expect(stdout).toContain("conformance: passed");
      expect(code, stdout).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("npm run conformance on a server that is not fresh", () => {
  const meshEntry = REFERENCE_SERVERS.find((s) => s.api === "mesh")!;
  const mesh = () => meshEntry.start();

  // The property check's generated writes stay on the server; the workflows expect a server holding
  // nothing they did not put there. This seed and count write a proxy-defaults entry that sets a
  // protocol (with the workflow as it first was, that made its refused delete succeed).
  it("runs the workflows before the property check, whose writes stay on the server", { timeout: 120_000 }, async () => {
    const server = await mesh();
    try {
      const { code, stdout } = await conformance(["mesh", server.baseUrl, "--runs", "30", "--seed", "777"]);
      expect(stdout.indexOf("workflows: 1 of 1 file(s) passed"), stdout).toBeGreaterThan(0);
      expect(stdout.indexOf("workflows: 1 of 1 file(s) passed")).toBeLessThan(stdout.indexOf("contract properties: 30 generated requests"));
      expect(code, stdout).toBe(0);
    } finally {
      await server.close();
    }
  });

  // Meshes often set their protocol for every service in proxy-defaults: the mesh workflow holds
  // there too (it compares the last chain with the first, and checks the refusal with tcp written
  // for its own service, not with its service-defaults deleted).
  it("passes the mesh workflow on a server whose proxy-defaults sets http for every service", { timeout: 120_000 }, async () => {
    const server = await mesh();
    try {
      // The reference server runs with ACLs on: written with its management token.
      const written = await fetch(`${server.baseUrl}/config`, { method: "PUT", headers: meshEntry.headers, body: JSON.stringify({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } }) });
      expect(await written.json()).toBe(true);
      const { code, stdout } = await conformance(["mesh", server.baseUrl, "--no-properties"]);
      expect(stdout).toContain("workflows: 1 of 1 file(s) passed");
      expect(code, stdout).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe("npm run conformance, bad input", () => {
  it("names the problem and exits 2", async () => {
    for (const args of [["nope", "http://x"], ["mesh", "not a url"], ["mesh", "http://127.0.0.1:1/v1", "--header", "no colon"], ["mesh", "http://127.0.0.1:1/v1", "--query", "no-equals"]]) {
      const { code, stdout } = await conformance(args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout).toMatch(/^conformance: .+\nusage: npm run conformance/m);
    }
  });
});

describe("the property check with query parameters for every request (--query)", () => {
  // An API whose key goes in the query (a security scheme, apiKey in: query).
  const doc: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Keyed", version: "1.0.0" },
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" } } },
    paths: {
      "/things": {
        get: {
          parameters: [{ name: "n", in: "query", schema: { type: "integer" } }],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
            "400": { description: "bad", content: { "application/json": { schema: { type: "object" } } } },
            "401": { description: "no key", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
      },
    },
  };

  it("sends them with every generated request, so that the key reaches the operations", async () => {
    const keys: (string | null)[] = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      keys.push(url.searchParams.get("api_key"));
      const bad = url.searchParams.has("n") && !/^-?\d+$/.test(url.searchParams.get("n")!);
      res.writeHead(url.searchParams.get("api_key") !== "k" ? 401 : bad ? 400 : 200, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const check = (query?: [string, string][]) => checkProperties({ doc, baseUrl, headers: {}, query, profile: describedProfile("keyed"), numRuns: 5, seed: 1 });
      const results = await check([["api_key", "k"]]);
      expect(results.filter((r) => r.failure)).toEqual([]);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key === "k")).toBe(true);
      keys.length = 0;
      await check();
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key === null)).toBe(true);
    } finally {
      server.close();
    }
  });
});
