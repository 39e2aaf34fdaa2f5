// The breaking-change check against real git history: a temporary repository with a few commits,
// explicit refs, the baseline CI picks, a version bump, and a shallow clone without the baseline.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkBreaking } from "../../scripts/contract/breaking.ts";
import { autoBaseline } from "../../scripts/contract/git.ts";

const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
let repo: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A mesh-like bundle: GET /things answers {ID, Name}; without `name`, Name is gone. */
function bundle(version: string, name = true): string {
  const properties: Record<string, unknown> = { ID: { type: "string" } };
  if (name) properties.Name = { type: "string" };
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version },
    paths: {
      "/things": {
        get: {
          operationId: "listThings",
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties } } } } },
        },
      },
    },
  };
  return JSON.stringify(doc, null, 2) + "\n";
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

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), "breaking-"));
  git(repo, "init", "-q", "-b", "main");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("breaking-change check over git", () => {
  let first: string;

  it("compares with an explicit ref: an API absent there is new; a removed response field fails", () => {
    write("generated/mesh/openapi.json", bundle("1.0.0"));
    first = commit("mesh 1.0.0");
    write("README.md", "docs only\n");
    commit("docs");
    write("generated/secrets/openapi.json", bundle("0.1.0"));
    write("generated/mesh/openapi.json", bundle("1.0.0", false));

    const result = check({ ref: first, auto: false });
    expect(result.exitCode).toBe(1);
    expect(result.lines[0]).toBe(`Breaking-change check of generated/ against ${first.slice(0, 12)} (${first})`);
    expect(result.lines).toContain("mesh 1.0.0: 1 breaking, 0 other");
    expect(result.lines.some((l) => l.includes('BREAKING response-property-removed  GET /things (listThings): field "Name" was removed'))).toBe(true);
    expect(result.lines).toContain("secrets: new (0.1.0), nothing to compare with");
  });

  it("in CI mode, compares uncommitted changes with HEAD", () => {
    const result = check({ auto: true });
    expect(result.baseline).toBe(git(repo, "rev-parse", "HEAD"));
    expect(result.lines[0]).toContain("uncommitted changes under generated/, compared with HEAD");
    expect(result.exitCode).toBe(1);
  });

  it("in CI mode on a clean tree, compares with the parent of the last commit that changed generated/", () => {
    const breaking = commit("mesh: drop Name");
    write("README.md", "more docs\n");
    commit("docs again");
    const result = check({ auto: true });
    expect(result.baseline).toBe(git(repo, "rev-parse", `${breaking}^`));
    expect(result.lines[0]).toContain(`parent of ${breaking.slice(0, 7)}, the last commit that changed generated/`);
    expect(result.exitCode).toBe(1);
  });

  it("passes a breaking change that comes with a new info.version", () => {
    write("generated/mesh/openapi.json", bundle("2.0.0", false));
    commit("mesh 2.0.0");
    expect(check({ ref: first, auto: false })).toMatchObject({ exitCode: 0 });
    expect(check({ ref: first, auto: false }).lines).toContain("  passes: info.version changed (1.0.0 -> 2.0.0)");
  });

  it("a ref this clone does not have: an error when asked for, a pass with a note in CI", () => {
    expect(check({ ref: "no-such-ref", auto: false })).toMatchObject({ exitCode: 2, lines: ["breaking-change check: no-such-ref is not in this clone"] });
    expect(check({ ref: "origin/main", auto: true })).toMatchObject({ exitCode: 0, lines: ["breaking-change check: origin/main is not in this clone; skipped"] });
  });

  it("a shallow clone without the baseline passes and says why", () => {
    const shallow = mkdtempSync(path.join(tmpdir(), "breaking-shallow-"));
    try {
      git(shallow, "clone", "-q", "--depth", "1", `file://${repo}`, "clone");
      const clone = path.join(shallow, "clone");
      expect(autoBaseline(clone, "generated").commit).toBeUndefined();
      const result = check({ auto: true }, clone);
      expect(result.exitCode).toBe(0);
      expect(result.lines[0]).toMatch(/^breaking-change check skipped: the commit before [0-9a-f]{7} \(the last that changed generated\/\) is not in this clone/);
    } finally {
      rmSync(shallow, { recursive: true, force: true });
    }
  });

  it("outside a git repository, passes and says why", () => {
    const plain = mkdtempSync(path.join(tmpdir(), "breaking-plain-"));
    try {
      expect(check({ auto: true }, plain)).toMatchObject({ exitCode: 0, lines: ["breaking-change check skipped: not a git repository: nothing to compare with"] });
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
