// npm run diff -- <git-ref> [--json]: lists the changes of every API's bundle
// (generated/<api>/openapi.json) between the ref and the working tree, breaking ones marked; exits 1
// when an API has a breaking change and the same info.version.
// npm run check:breaking (CI) is `--auto`: the baseline is chosen as scripts/contract/git.ts says
// (BREAKING_BASE=<ref> overrides it), and a baseline this clone does not have passes with a note.
import path from "node:path";
import { APIS } from "./apis.ts";
import { checkBreaking } from "./contract/breaking.ts";

const args = process.argv.slice(2);
const auto = args.includes("--auto");
const ref = args.find((a) => !a.startsWith("--")) ?? (auto ? process.env.BREAKING_BASE || undefined : undefined);
if (!ref && !auto) {
  console.error("usage: npm run diff -- <git-ref> [--json]   |   npm run check:breaking (baseline chosen as in CI)");
  process.exit(2);
}

const result = checkBreaking({ root: path.resolve(import.meta.dirname, ".."), apis: APIS.map((a) => a.name), ref, auto });
if (args.includes("--json")) console.log(JSON.stringify({ baseline: result.baseline, results: result.results }, null, 2));
else for (const line of result.lines) (result.exitCode === 2 ? console.error : console.log)(line);
process.exit(result.exitCode);
