// The git questions the breaking-change check asks: which version to compare with, and a file's
// content at a ref. Shallow clones and missing history are answers, not crashes.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function tryGit(cwd: string, args: string[]): string | undefined {
  try {
    return git(cwd, args);
  } catch {
    return undefined;
  }
}

export function isGitRepository(cwd: string): boolean {
  return tryGit(cwd, ["rev-parse", "--is-inside-work-tree"]) === "true";
}

/** The commit a ref names, or undefined when this clone does not have it. */
export function resolveCommit(cwd: string, ref: string): string | undefined {
  return tryGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]) || undefined;
}

/** A file's content at a commit (path relative to cwd), or undefined when it does not exist there. */
export function fileAt(cwd: string, commit: string, path: string): string | undefined {
  const spec = `${commit}:./${path}`;
  if (tryGit(cwd, ["cat-file", "-e", spec]) === undefined) return undefined;
  return execFileSync("git", ["show", spec], { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
}

export interface Baseline {
  /** The commit to compare with; undefined when there is none to be had (the check then passes). */
  commit?: string;
  /** Why this one, or why none: printed. */
  reason: string;
}

/**
 * The version of `dir` to compare the working tree with, for CI and for developers alike:
 * - uncommitted changes under dir: HEAD (the change being made);
 * - otherwise the parent of the last commit that changed dir (the change last made), so a commit
 *   that only touches other files still checks the last description change.
 * A shallow clone or a first commit has no such parent: no baseline, said so.
 */
export function autoBaseline(cwd: string, dir: string): Baseline {
  if (!isGitRepository(cwd)) return { reason: "not a git repository: nothing to compare with" };
  if (git(cwd, ["status", "--porcelain", "--", dir]) !== "") {
    const head = resolveCommit(cwd, "HEAD");
    return head ? { commit: head, reason: `uncommitted changes under ${dir}/, compared with HEAD` } : { reason: "no commit yet" };
  }
  const last = tryGit(cwd, ["log", "-1", "--format=%H", "--", dir]);
  if (!last) return { reason: `no commit changed ${dir}/ yet` };
  const parent = resolveCommit(cwd, `${last}^`);
  if (!parent) {
    return { reason: `the commit before ${last.slice(0, 7)} (the last that changed ${dir}/) is not in this clone (shallow clone or first commit)` };
  }
  return { commit: parent, reason: `parent of ${last.slice(0, 7)}, the last commit that changed ${dir}/` };
}

/**
 * Writes the tree of `dir` at a commit into `into` (which then holds `dir/...`), without touching
 * the work tree or the index. A commit without that folder leaves `into` empty.
 */
export function materialize(cwd: string, commit: string, dir: string, into: string): void {
  mkdirSync(into, { recursive: true });
  // `<commit>:./` is the tree of cwd at that commit, so a project in a subfolder of its repository works too.
  const tree = `${commit}:./`;
  if (!tryGit(cwd, ["ls-tree", "-d", "--name-only", tree, "--", dir])) return;
  const tar = execFileSync("git", ["archive", "--format=tar", tree, "--", dir], { cwd, maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-f", "-", "-C", into], { input: tar, stdio: ["pipe", "ignore", "pipe"] });
}
