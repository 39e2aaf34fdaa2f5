// A temporary copy of this repository for tests that change what a user changes (redocly.yaml,
// openapi/, generated/): the files git knows of (tracked and untracked, not ignored), with
// node_modules linked, so the repository's own files are never touched.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "..", "..");

export function projectCopy(prefix = "project-"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const to = path.join(dir, file);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      cpSync(path.join(REPO, file), to);
    } catch (error) {
      // A file deleted in the work tree but still in the index.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}
