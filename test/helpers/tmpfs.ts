// A size-limited tmpfs mounted for a test (the machine's kernel, not a mocked fs), and a way to fill
// it to the last byte. Mounting needs root (or CAP_SYS_ADMIN), as the CI machines run the suite.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A tmpfs of `size` mounted on a new directory; `unmount` takes it away. */
export function mountTmpfs(size: string): { dir: string; unmount(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "disk-fault-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=700`, "tmpfs", dir]);
  return {
    dir,
    unmount: () => {
      execFileSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `dir` to the last byte; returns the filler's path. */
export function fill(dir: string): string {
  const filler = path.join(dir, "filler");
  for (const size of [1 << 20, 1 << 16, 1 << 12, 512, 1]) {
    try {
      for (;;) appendFileSync(filler, Buffer.alloc(size));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
    }
  }
  return filler;
}
