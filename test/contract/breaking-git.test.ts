// The breaking-change check against real git history: a temporary repository whose descriptions
// are split over several files (bundled on the fly on both sides), a few commits, explicit refs,
// the baseline CI picks, the major-bump rule, the Markdown report, and a shallow clone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { checkBreaking } from "../../scripts/contract/breaking.ts";
import { autoBaseline } from "../../scripts/contract/git.ts";

const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
let repo: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/**
 * A mesh-like description in several files, as an author writes it: GET /things answers
 * {ID, Name} through a $ref to a path file and a schema file; without `name`, Name is gone.
 */
function describe_(api: string, version: string, name = true) {
  const properties: Record<string, unknown> = { ID: { type: "string" } };
  if (name) properties.Name = { type: "string" };
  write(`openapi/${api}/openapi.yaml`, YAML.stringify({ openapi: "3.1.0", info: { title: "t", version }, paths: { "/things": { $ref: "paths/things.yaml" } } }));
  write(
    `openapi/${api}/paths/things.yaml`,
    YAML.stringify({
      get: {
        operationId: "listThings",
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "../components/schemas/Thing.yaml" } } } } },
      },
    }),
  );
  write(`openapi/${api}/components/schemas/Thing.yaml`, YAML.stringify({ type: "object", properties }));
}

function write(file: string, content: string) {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), content);
}

function commit(message: string): string {
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

const check = (options: { ref?: string; auto: boolean }, root = repo) => checkBreaking({ root, apis: ["mesh", "secrets"], ...options });
// The check compares openapi/ (what the author edits); generated/ plays no part.

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), "breaking-"));
  git(repo, "init", "-q", "-b", "main");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("breaking-change check over git", () => {
  let first: string;

  it("compares the descriptions under openapi/, bundled on both sides: an API absent at the ref is new; a removed response field fails", async () => {
    describe_("mesh", "1.0.0");
    first = commit("mesh 1.0.0");
    write("README.md", "docs only\n");
    commit("docs");
    describe_("secrets", "0.1.0");
    // Only the schema file changes: the path file and the root stay as they were.
    describe_("mesh", "1.0.0", false);
    expect(git(repo, "status", "--porcelain", "--", "openapi/mesh")).toBe("M openapi/mesh/components/schemas/Thing.yaml");

    const result = await check({ ref: first, auto: false });
    expect(result.exitCode).toBe(1);
    expect(result.lines[0]).toBe(`Breaking-change check of openapi/ against ${first.slice(0, 12)} (${first})`);
    expect(result.lines).toContain("mesh 1.0.0: 1 breaking, 0 other");
    expect(result.lines.some((l) => l.includes('BREAKING response-property-removed  GET /things (listThings): field "Name" was removed'))).toBe(true);
    expect(result.lines).toContain("  version: needs a major version bump (breaking changes), at least 2.0.0; info.version is still 1.0.0");
    expect(result.lines).toContain("  FAIL: 1 breaking change(s) and info.version is still 1.0.0: bump the major version or change the description");
    expect(result.lines).toContain("secrets: new (0.1.0), nothing to compare with");
    // The pointer and the place the schema is defined are those of the bundle.
    expect(result.results[0]!.changes[0]).toMatchObject({ pointer: "/paths/~1things/get/responses/200/content/application~1json/schema/properties/Name" });
    expect(existsSync(path.join(repo, "generated"))).toBe(false);
  });

  it("in CI mode, compares uncommitted changes with HEAD", async () => {
    const result = await check({ auto: true });
    expect(result.baseline).toBe(git(repo, "rev-parse", "HEAD"));
    expect(result.lines[0]).toContain("uncommitted changes under openapi/, compared with HEAD");
    expect(result.exitCode).toBe(1);
  });

  it("in CI mode on a clean tree, compares with the parent of the last commit that changed openapi/", async () => {
    const breaking = commit("mesh: drop Name");
    write("README.md", "more docs\n");
    commit("docs again");
    const result = await check({ auto: true });
    expect(result.baseline).toBe(git(repo, "rev-parse", `${breaking}^`));
    expect(result.lines[0]).toContain(`parent of ${breaking.slice(0, 7)}, the last commit that changed openapi/`);
    expect(result.exitCode).toBe(1);
  });

  it("a minor or patch bump does not carry a breaking change; a major bump does", async () => {
    for (const [version, made] of [["1.1.0", "minor"], ["1.0.1", "patch"]] as const) {
      describe_("mesh", version, false);
      const result = await check({ ref: first, auto: false });
      expect(result.exitCode).toBe(1);
      expect(result.results[0]!.verdict).toMatchObject({ required: "major", made, fails: true });
      expect(result.lines).toContain(
        `  FAIL: 1 breaking change(s) and info.version 1.0.0 -> ${version} is a ${made} bump; a breaking change needs a new major version (2.0.0): bump the major version or change the description`,
      );
    }
    describe_("mesh", "0.9.0", false);
    expect((await check({ ref: first, auto: false })).lines).toContain(
      "  FAIL: 1 breaking change(s) and info.version went down (1.0.0 -> 0.9.0): bump the major version or change the description",
    );
    describe_("mesh", "2.0.0", false);
    commit("mesh 2.0.0");
    const passed = await check({ ref: first, auto: false });
    expect(passed.exitCode).toBe(0);
    expect(passed.lines).toContain("  passes: the major bump (1.0.0 -> 2.0.0) carries the breaking change(s)");
  });

  it("prints the same report as Markdown for a pull request", async () => {
    const result = await check({ ref: first, auto: false });
    expect(result.markdown).toContain(`## Breaking-change check against \`${first.slice(0, 12)}\``);
    expect(result.markdown).toContain("| mesh | 1.0.0 → 2.0.0 | 1 | 0 | major (≥ 2.0.0) | ✅ passes (major bump) |");
    expect(result.markdown).toContain("| secrets | 0.1.0 (new) | 0 | 0 | – | ✅ passes |");
    expect(result.markdown).toContain('| **breaking** | `response-property-removed` | GET /things (listThings) | field "Name" was removed |');
  });

  it("a description that does not bundle is bad input, said so", async () => {
    write("openapi/mesh/paths/things.yaml", "get: { $ref: '../nowhere.yaml' }\n");
    const result = await check({ ref: first, auto: false });
    expect(result.exitCode).toBe(2);
    expect(result.lines[0]).toMatch(/^bundling the descriptions failed/);
    git(repo, "checkout", "-q", "--", "openapi/mesh/paths/things.yaml");
  });

  it("a ref this clone does not have: an error when asked for, a pass with a note in CI", async () => {
    expect(await check({ ref: "no-such-ref", auto: false })).toMatchObject({ exitCode: 2, lines: ["breaking-change check: no-such-ref is not in this clone"] });
    expect(await check({ ref: "origin/main", auto: true })).toMatchObject({ exitCode: 0, lines: ["breaking-change check: origin/main is not in this clone; skipped"] });
  });

  it("a shallow clone without the baseline passes and says why", async () => {
    const shallow = mkdtempSync(path.join(tmpdir(), "breaking-shallow-"));
    try {
      git(shallow, "clone", "-q", "--depth", "1", `file://${repo}`, "clone");
      const clone = path.join(shallow, "clone");
      expect(autoBaseline(clone, "openapi").commit).toBeUndefined();
      const result = await check({ auto: true }, clone);
      expect(result.exitCode).toBe(0);
      expect(result.lines[0]).toMatch(/^breaking-change check skipped: the commit before [0-9a-f]{7} \(the last that changed openapi\/\) is not in this clone/);
    } finally {
      rmSync(shallow, { recursive: true, force: true });
    }
  });

  it("outside a git repository, passes and says why", async () => {
    const plain = mkdtempSync(path.join(tmpdir(), "breaking-plain-"));
    try {
      expect(await check({ auto: true }, plain)).toMatchObject({ exitCode: 0, lines: ["breaking-change check skipped: not a git repository: nothing to compare with"] });
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
