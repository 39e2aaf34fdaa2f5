// The breaking-change check over a repository: every API's description as the author edits it
// (openapi/<api>/openapi.yaml and the files it refers to) against the same description at a
// baseline commit. Both sides are bundled on the fly with Redocly, in one run: the baseline's
// openapi/ tree is taken out of git into a temporary directory, so neither `npm run generate` nor
// a checkout is needed. Prints nothing (the CLI prints `lines` or `markdown`).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import YAML from "yaml";
import { diffApi, formatApiDiff, formatMarkdown, type ApiDiff } from "./diff.ts";
import { autoBaseline, materialize, resolveCommit } from "./git.ts";
import { redoclyCommand } from "../project.ts";

/** The folder holding the descriptions, openapi/<api>/openapi.yaml each. */
export const DESCRIPTIONS = "openapi";

export interface BreakingCheckOptions {
  /** Repository (and project) root. */
  root: string;
  /** API names: openapi/<api>/openapi.yaml each, unless `roots` names another file. */
  apis: string[];
  /** Root description of an API, relative to the project root (redocly.yaml's `root`), when not openapi/<api>/openapi.yaml. */
  roots?: Record<string, string>;
  /** The baseline; with `auto`, undefined means "choose it" (see autoBaseline). */
  ref?: string;
  /** The other side, a second ref; undefined: the working tree as it is. */
  to?: string;
  /** CI mode: a baseline that cannot be had is reported and passes. */
  auto: boolean;
}

export interface BreakingCheckResult {
  /** 0 pass, 1 breaking change without a major version bump, 2 bad input. */
  exitCode: number;
  lines: string[];
  /** The same report in Markdown, for a pull request (empty when nothing was compared). */
  markdown: string;
  baseline?: string;
  results: ApiDiff[];
}

let roots: Record<string, string> = {};
const entry = (api: string) => roots[api] ?? path.join(DESCRIPTIONS, api, "openapi.yaml");

/**
 * Bundles the descriptions found under each side's root with one Redocly run. The bundling
 * settings of the project's redocly.yaml (decorators and the like) apply to both sides alike; its
 * `apis` are replaced by one entry per side and API. Returns the bundles by side and API name.
 */
export async function bundleSides(projectRoot: string, sides: Record<string, string>, apis: string[], work: string): Promise<Record<string, Record<string, unknown>>> {
  const configFile = path.join(projectRoot, "redocly.yaml");
  const config: Record<string, unknown> = existsSync(configFile) ? (YAML.parse(readFileSync(configFile, "utf8")) ?? {}) : {};
  const entries: Record<string, { root: string; output: string }> = {};
  for (const [side, dir] of Object.entries(sides)) {
    for (const api of apis) {
      if (!existsSync(path.join(dir, entry(api)))) continue;
      entries[`${side}-${api}@bundle`] = { root: path.join(dir, entry(api)), output: path.join(work, "out", side, `${api}.json`) };
    }
  }
  const out: Record<string, Record<string, unknown>> = Object.fromEntries(Object.keys(sides).map((s) => [s, {}]));
  if (!Object.keys(entries).length) return out;
  writeFileSync(path.join(work, "redocly.yaml"), YAML.stringify({ ...config, apis: entries }));
  try {
    const redocly = redoclyCommand(["bundle", "--config", path.join(work, "redocly.yaml")]);
    await promisify(execFile)(redocly.command, redocly.args, { cwd: work, env: redocly.env, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? error).split("\n").filter((l) => l.trim() && !/[║═╔╗╚╝]/.test(l));
    throw new Error(`bundling the descriptions failed:\n${stderr.slice(-15).join("\n")}`);
  }
  for (const [name, { output }] of Object.entries(entries)) {
    const [, side, api] = /^(.*?)-(.*)@bundle$/.exec(name)!;
    out[side!]![api!] = JSON.parse(readFileSync(output, "utf8"));
  }
  return out;
}

export async function checkBreaking({ root, apis, ref, to, auto, roots: given = {} }: BreakingCheckOptions): Promise<BreakingCheckResult> {
  roots = given;
  const target = to === undefined ? undefined : resolveCommit(root, to);
  if (to !== undefined && !target) return { exitCode: 2, lines: [`breaking-change check: ${to} is not in this clone`], markdown: "", results: [] };
  const fail = (exitCode: number, lines: string[]): BreakingCheckResult => ({ exitCode, lines, markdown: "", results: [] });
  let commit: string | undefined;
  let why: string;
  if (ref) {
    commit = resolveCommit(root, ref);
    why = ref;
    if (!commit) {
      const line = `breaking-change check: ${ref} is not in this clone`;
      // In CI a missing baseline is not the change's fault: say so and pass.
      return auto ? fail(0, [`${line}; skipped`]) : fail(2, [line]);
    }
  } else {
    const baseline = autoBaseline(root, DESCRIPTIONS);
    if (!baseline.commit) return fail(0, [`breaking-change check skipped: ${baseline.reason}`]);
    commit = baseline.commit;
    why = baseline.reason;
  }
  const missing = target ? [] : apis.filter((api) => !existsSync(path.join(root, entry(api))));
  if (missing.length) return fail(2, missing.map((api) => `${entry(api)} is missing`));
  const folders = new Set([DESCRIPTIONS, ...apis.map((api) => entry(api).split(/[\\/]/)[0]!)]);

  const work = mkdtempSync(path.join(tmpdir(), "breaking-"));
  let bundles: Record<string, Record<string, unknown>>;
  try {
    const before = path.join(work, "before");
    // The descriptions' folders at the baseline (openapi/, and any other folder a root lives in).
    for (const dir of folders) materialize(root, commit, dir, before);
    let after = root;
    if (target) {
      after = path.join(work, "after");
      for (const dir of folders) materialize(root, target, dir, after);
    }
    bundles = await bundleSides(root, { before, after }, apis, work);
  } catch (error) {
    return fail(2, [(error as Error).message]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // An API that is not on the later side (a second ref older than the API) has nothing to compare.
  const results = apis.filter((api) => bundles.after![api]).map((api) => diffApi(api, bundles.before![api] as never, bundles.after![api] as never));
  const short = commit.slice(0, 12);
  const against = target ? `${short}..${target.slice(0, 12)}` : short;
  const lines = [`Breaking-change check of ${DESCRIPTIONS}/ ${target ? `from ${short} (${why}) to ${target.slice(0, 12)} (${to})` : `against ${short} (${why})`}`, ...results.flatMap(formatApiDiff)];
  return { exitCode: results.some((r) => r.verdict.fails) ? 1 : 0, lines, markdown: formatMarkdown(results, against), baseline: commit, results };
}

/** Whether a diff argument names a description (a file that exists, or an http(s) URL) rather than a git ref. */
export function isDescriptionSource(arg: string, cwd = process.cwd()): boolean {
  return /^https?:\/\//i.test(arg) || existsSync(path.resolve(cwd, arg));
}

/**
 * Two descriptions compared, each a file (with the files it refers to) or an http(s) URL, bundled
 * with one Redocly run. `api` names the API in the report (default: the later one's info.title).
 */
export async function diffSources(projectRoot: string, before: string, after: string, api?: string): Promise<BreakingCheckResult> {
  const fail = (lines: string[]): BreakingCheckResult => ({ exitCode: 2, lines, markdown: "", results: [] });
  const resolve = (source: string) => (/^https?:\/\//i.test(source) ? source : path.resolve(source));
  const work = mkdtempSync(path.join(tmpdir(), "diff-"));
  let bundles: { before: unknown; after: unknown };
  try {
    const configFile = path.join(projectRoot, "redocly.yaml");
    const config: Record<string, unknown> = existsSync(configFile) ? (YAML.parse(readFileSync(configFile, "utf8")) ?? {}) : {};
    const entries = { "before@bundle": { root: resolve(before), output: path.join(work, "before.json") }, "after@bundle": { root: resolve(after), output: path.join(work, "after.json") } };
    writeFileSync(path.join(work, "redocly.yaml"), YAML.stringify({ ...config, apis: entries }));
    const redocly = redoclyCommand(["bundle", "--config", path.join(work, "redocly.yaml")]);
    try {
      await promisify(execFile)(redocly.command, redocly.args, { cwd: work, env: redocly.env, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      const stderr = String((error as { stderr?: string }).stderr ?? error).split("\n").filter((l) => l.trim() && !/[║═╔╗╚╝]/.test(l));
      return fail([`bundling the descriptions failed:`, ...stderr.slice(-15)]);
    }
    bundles = { before: JSON.parse(readFileSync(entries["before@bundle"].output, "utf8")), after: JSON.parse(readFileSync(entries["after@bundle"].output, "utf8")) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // Named by the later description's title, else its file name (a description without info).
  const name = api ?? String((bundles.after as { info?: { title?: unknown } }).info?.title ?? path.basename(after));
  const result = diffApi(name, bundles.before as never, bundles.after as never);
  const label = `${before} → ${after}`;
  return {
    exitCode: result.verdict.fails ? 1 : 0,
    lines: [`Breaking-change check of ${after} against ${before}`, ...formatApiDiff(result)],
    markdown: formatMarkdown([result], label),
    results: [result],
  };
}
