// npm run diff -- <git-ref> [--json | --markdown] [--markdown-file=<path>] [--json-file=<path>]
// Bundles every API's description under openapi/ as it is now and as it was at the ref, and lists
// the changes, breaking ones marked, with the version bump they need (semver: major for a breaking
// change). Exits 1 when an API has a breaking change without a major bump of info.version.
// Output: text (default), JSON (--json) or Markdown for a pull request (--markdown); the
// --*-file options also write that form to a file, whatever is printed (CI: post the Markdown).
// npm run check:breaking (CI) is `--auto`: the baseline is chosen as scripts/contract/git.ts says
// (BREAKING_BASE=<ref> overrides it), and a baseline this clone does not have passes with a note.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APIS, PROJECT_ROOT } from "./apis.ts";
import { checkBreaking } from "./contract/breaking.ts";

const args = process.argv.slice(2);
const auto = args.includes("--auto");
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ref = args.find((a) => !a.startsWith("--")) ?? (auto ? process.env.BREAKING_BASE || undefined : undefined);
if ((!ref && !auto) || args.includes("--help")) {
  console.error("usage: npm run diff -- <git-ref> [--json | --markdown] [--markdown-file=<path>] [--json-file=<path>]");
  console.error("       npm run check:breaking [-- --markdown-file=<path>]   (baseline chosen as in CI)");
  process.exit(2);
}

const result = await checkBreaking({ root: PROJECT_ROOT, apis: APIS.map((a) => a.name), roots: Object.fromEntries(APIS.map((a) => [a.name, a.root])), ref, auto });
const json = JSON.stringify({ baseline: result.baseline, results: result.results }, null, 2) + "\n";
const write = (file: string | undefined, text: string) => {
  if (!file) return;
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, text);
};
write(option("markdown-file"), result.markdown || result.lines.join("\n") + "\n");
write(option("json-file"), json);
if (args.includes("--json")) process.stdout.write(json);
else if (args.includes("--markdown") && result.markdown) process.stdout.write(result.markdown);
else for (const line of result.lines) (result.exitCode === 2 ? console.error : console.log)(line);
process.exit(result.exitCode);
