// npm run diff -- <git-ref> [<git-ref>] | <old> <new> [--json | --markdown] [--markdown-file=<path>] [--json-file=<path>] [--api=<name>]
// With one ref: bundles every API's description of redocly.yaml as it is now and as it was at the
// ref; with two refs, as they were at each. With two descriptions (files or http(s) URLs, e.g. the
// published one and a candidate): those two, as one API (--api names it; default its title). Lists
// the changes, breaking ones marked, with the version bump they need (semver: major for a breaking
// change). Exits 1 when an API has a breaking change without a major bump of info.version.
// Output: text (default), JSON (--json) or Markdown for a pull request (--markdown; each reason said
// once); the --*-file options also write that form to a file, whatever is printed (CI: post the Markdown).
// npm run check:breaking (CI) is `--auto`: the baseline is chosen as scripts/contract/git.ts says
// (BREAKING_BASE=<ref> overrides it), and a baseline this clone does not have passes with a note.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APIS, PROJECT_ROOT } from "./apis.ts";
import { checkBreaking, diffSources, isDescriptionSource } from "./contract/breaking.ts";

const args = process.argv.slice(2);
const auto = args.includes("--auto");
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const positional = args.filter((a) => !a.startsWith("--"));
const ref = positional[0] ?? (auto ? process.env.BREAKING_BASE || undefined : undefined);
const usage = () => {
  console.error("usage: npm run diff -- <git-ref> [<git-ref>] [--json | --markdown] [--markdown-file=<path>] [--json-file=<path>]");
  console.error("       npm run diff -- <old-file-or-URL> <new-file-or-URL> [--api=<name>] [--json | --markdown] ...");
  console.error("       npm run check:breaking [-- --markdown-file=<path>]   (baseline chosen as in CI)");
  process.exit(2);
};
if ((!ref && !auto) || args.includes("--help") || positional.length > 2) usage();

const sources = positional.map((p) => isDescriptionSource(p));
if (positional.length === 2 && sources[0] !== sources[1]) {
  console.error(`diff: compare two git refs or two descriptions (files or URLs), not one of each: ${positional.map((p, i) => `${p} is ${sources[i] ? "a description" : "taken as a git ref"}`).join(", ")}`);
  process.exit(2);
}
if (positional.length === 1 && sources[0] && !auto) {
  console.error(`diff: ${positional[0]} is a description; give the other one too (npm run diff -- <old> <new>), or a git ref`);
  process.exit(2);
}
const result =
  positional.length === 2 && sources[0]
    ? await diffSources(PROJECT_ROOT, positional[0]!, positional[1]!, option("api"))
    : await checkBreaking({ root: PROJECT_ROOT, apis: APIS.map((a) => a.name), roots: Object.fromEntries(APIS.map((a) => [a.name, a.root])), ref, to: positional[1], auto });
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
