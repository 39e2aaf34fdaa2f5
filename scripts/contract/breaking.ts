// The breaking-change check over a repository: every API's bundle in the working tree against the
// same file at a baseline commit. Reads git and files; prints nothing (the CLI prints `lines`).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { diffApi, formatApiDiff, type ApiDiff } from "./diff.ts";
import { autoBaseline, fileAt, resolveCommit } from "./git.ts";

export interface BreakingCheckOptions {
  /** Repository (and project) root. */
  root: string;
  /** API names: generated/<api>/openapi.json each. */
  apis: string[];
  /** The baseline; with `auto`, undefined means "choose it" (see autoBaseline). */
  ref?: string;
  /** CI mode: a baseline that cannot be had is reported and passes. */
  auto: boolean;
}

export interface BreakingCheckResult {
  /** 0 pass, 1 breaking change without a version change, 2 bad input. */
  exitCode: number;
  lines: string[];
  baseline?: string;
  results: ApiDiff[];
}

export function checkBreaking({ root, apis, ref, auto }: BreakingCheckOptions): BreakingCheckResult {
  let commit: string | undefined;
  let why: string;
  if (ref) {
    commit = resolveCommit(root, ref);
    why = ref;
    if (!commit) {
      const line = `breaking-change check: ${ref} is not in this clone`;
      // In CI a missing baseline is not the change's fault: say so and pass.
      return auto ? { exitCode: 0, lines: [`${line}; skipped`], results: [] } : { exitCode: 2, lines: [line], results: [] };
    }
  } else {
    const baseline = autoBaseline(root, "generated");
    if (!baseline.commit) return { exitCode: 0, lines: [`breaking-change check skipped: ${baseline.reason}`], results: [] };
    commit = baseline.commit;
    why = baseline.reason;
  }

  const results: ApiDiff[] = [];
  for (const api of apis) {
    const file = `generated/${api}/openapi.json`;
    if (!existsSync(path.join(root, file))) return { exitCode: 2, lines: [`${file} is missing: run npm run generate`], results };
    const after = JSON.parse(readFileSync(path.join(root, file), "utf8"));
    const old = fileAt(root, commit, file);
    results.push(diffApi(api, old === undefined ? undefined : JSON.parse(old), after));
  }
  const lines = [`Breaking-change check of generated/ against ${commit.slice(0, 12)} (${why})`, ...results.flatMap(formatApiDiff)];
  return { exitCode: results.some((r) => r.verdict.fails) ? 1 : 0, lines, baseline: commit, results };
}
