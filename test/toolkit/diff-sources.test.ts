// `npm run diff` beyond one ref against the working tree: two descriptions (files or URLs) and two
// git refs, with Markdown fit for a pull request.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { checkBreaking, diffSources } from "../../scripts/contract/breaking.ts";
import { REPO } from "../helpers/project-copy.ts";
import { run } from "../helpers/run.ts";

/**
 * The command itself, `scripts/diff.ts`, in a process of its own as `npm run diff` runs it
 * (package.json: node scripts/run.mjs scripts/diff.ts): npm would only add its own start-up.
 */
const diffCommand = (args: string[]) => run(process.execPath, ["scripts/run.mjs", "scripts/diff.ts", ...args], { cwd: REPO });

const work = mkdtempSync(path.join(tmpdir(), "diff-sources-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const museum = YAML.parse(readFileSync(path.join(REPO, "test", "fixtures", "third-party", "museum", "openapi.yaml"), "utf8"));
const older = path.join(work, "old.yaml");
const newer = path.join(work, "new.yaml");
writeFileSync(older, YAML.stringify(museum));
const changed = structuredClone(museum);
delete changed.paths["/museum-hours"];
changed.info.version = "1.3.0";
writeFileSync(newer, YAML.stringify(changed));

describe("two descriptions", { timeout: 120_000 }, () => {
  it("files: the removed operation is breaking, a minor bump does not carry it", async () => {
    const result = await diffSources(REPO, older, newer);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain("  BREAKING operation-removed  GET /museum-hours (getMuseumHours): the operation was removed");
    expect(result.markdown).toContain("| Redocly Museum API | 1.2.1 → 1.3.0 | 1 | 0 | major (≥ 2.0.0) | ❌ fails |");
    // Said once.
    expect(result.markdown.match(/is a minor bump/g)).toHaveLength(1);
  });

  it("files without info: named by the later file, their versions said to be missing", async () => {
    const bare = (paths: string[]) => `openapi: 3.1.0\npaths:\n${paths.map((p) => `  ${p}:\n    get:\n      responses:\n        "200":\n          description: ok\n`).join("")}`;
    const [a, b] = [path.join(work, "bare-a.yaml"), path.join(work, "bare-b.yaml")];
    writeFileSync(a, bare(["/a"]));
    writeFileSync(b, bare(["/a", "/b"]));
    const result = await diffSources(REPO, a, b);
    expect(result.exitCode).toBe(0);
    expect(result.lines).toContain("bare-b.yaml (no version): 0 breaking, 1 other");
    expect(result.lines).toContain("  version: needs a minor version bump (changes that break no client); info.version is still (no version)");
    expect(result.lines.join("\n")).not.toContain("undefined");
    expect(result.markdown).not.toContain("undefined");
  });

  it("URLs, named with --api, through the command", async () => {
    const server = createServer((req, res) => {
      const file = req.url === "/old.yaml" ? older : req.url === "/new.yaml" ? newer : undefined;
      if (file) res.writeHead(200, { "Content-Type": "application/yaml" }).end(readFileSync(file));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const diff = await diffCommand([`${base}/old.yaml`, `${base}/new.yaml`, "--api=museum", "--markdown"]);
      expect(diff.code, diff.output).toBe(1);
      expect(diff.stdout).toContain("**Fails**: museum (1 breaking change without a major version bump).");
      const same = await diffCommand([`${base}/old.yaml`, `${base}/old.yaml`]);
      expect(same.code, same.output).toBe(0);
      expect(same.stdout).toContain("Redocly Museum API 1.2.1: no changes");
      const gone = await diffCommand([`${base}/old.yaml`, `${base}/gone.yaml`]);
      expect(gone.code).toBe(2);
      expect(gone.output).toContain("bundling the descriptions failed");
    } finally {
      server.close();
    }
  });

  it("refuses a file with a ref, and one file alone, in a sentence", async () => {
    const mixed = await diffCommand([older, "HEAD"]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("compare two git refs or two descriptions (files or URLs), not one of each");
    const alone = await diffCommand([older]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("is a description; give the other one too");
  });
});

describe("two git refs", { timeout: 120_000 }, () => {
  it("compares the descriptions as they were at each, whatever the working tree holds", async () => {
    const repo = path.join(work, "repo");
    mkdirSync(path.join(repo, "openapi", "museum"), { recursive: true });
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo, stdio: "pipe" });
    git("init", "-q");
    const file = path.join(repo, "openapi", "museum", "openapi.yaml");
    writeFileSync(file, YAML.stringify(museum));
    git("add", "-A");
    git("commit", "-qm", "one");
    writeFileSync(file, YAML.stringify(changed));
    git("commit", "-qam", "two");
    // The working tree goes back: only the refs count.
    writeFileSync(file, YAML.stringify(museum));
    const result = await checkBreaking({ root: repo, apis: ["museum"], ref: "HEAD~1", to: "HEAD", auto: false });
    expect(result.exitCode).toBe(1);
    expect(result.lines[0]).toMatch(/^Breaking-change check of openapi\/ from [0-9a-f]{12} \(HEAD~1\) to [0-9a-f]{12} \(HEAD\)$/);
    expect(result.lines).toContain("  BREAKING operation-removed  GET /museum-hours (getMuseumHours): the operation was removed");
    const missing = await checkBreaking({ root: repo, apis: ["museum"], ref: "HEAD~1", to: "no-such-ref", auto: false });
    expect(missing).toMatchObject({ exitCode: 2, lines: ["breaking-change check: no-such-ref is not in this clone"] });
  });
});
