// `npm run conformance -- <api> <base-url>`: the contract property check and the API's workflows
// against any server. The reference servers pass it: each is started here on a free port and the
// command runs against it as a user would run it against their own implementation (bounded: a few
// generated requests per operation and kind, a fixed seed).
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

async function conformance(args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "scripts/conformance.ts", ...args], { cwd: root, maxBuffer: 16 << 20 });
    return { code: 0, stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout + e.stderr };
  }
}

describe.each(REFERENCE_SERVERS.map((s) => [s.api, s] as const))("npm run conformance against the %s reference server", (api, entry) => {
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

describe("npm run conformance, bad input", () => {
  it("names the problem and exits 2", async () => {
    for (const args of [["nope", "http://x"], ["mesh", "not a url"], ["mesh", "http://127.0.0.1:1/v1", "--header", "no colon"]]) {
      const { code, stdout } = await conformance(args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout).toMatch(/^conformance: .+\nusage: npm run conformance/m);
    }
  });
});
