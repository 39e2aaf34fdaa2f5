// A directory of its own for a test file's inputs (world files, config files) and a way to write
// one there, so that a test reads real files by path as the servers do.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TempFiles {
  /** The new directory (under the system's temporary directory, its name starting with the prefix). */
  dir: string;
  /** Writes `text` to `name` in the directory; returns the file's full path. */
  file(name: string, text: string): string;
}

export function tempFiles(prefix: string): TempFiles {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const full = path.join(dir, name);
      writeFileSync(full, text);
      return full;
    },
  };
}
