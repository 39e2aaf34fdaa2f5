// npm run validate -- <api> <file.har> [--base-path /v1] [--allow-unknown-query]: checks every
// recorded exchange of the API (its whole path matches a server path of the description and one of
// its path templates; with --base-path, every exchange under that path) against
// generated/<api>/openapi.json and prints each violation (entry, operationId, JSON pointer, reason). Exit 1 on any violation, 2 on
// bad input. --allow-unknown-query: query parameters the description does not name are no violation.
import { readFileSync } from "node:fs";
import { APIS, readBundle } from "./apis.ts";
import { formatHarViolation, harProblems, validateHar, type Har } from "./contract/har.ts";

const args = process.argv.slice(2);
const basePathFlag = args.indexOf("--base-path");
const basePathOverride = basePathFlag >= 0 ? args.splice(basePathFlag, 2)[1] : undefined;
const allowFlag = args.indexOf("--allow-unknown-query");
if (allowFlag >= 0) args.splice(allowFlag, 1);
const [apiName, harFile] = args;

const api = APIS.find((a) => a.name === apiName);
if (!api || !harFile) {
  console.error(`usage: npm run validate -- <${APIS.map((a) => a.name).join("|")}> <file.har> [--base-path /v1] [--allow-unknown-query]`);
  process.exit(2);
}

let har: Har;
try {
  har = JSON.parse(readFileSync(harFile, "utf8"));
} catch (error) {
  console.error(`cannot read ${harFile}: ${(error as Error).message}`);
  process.exit(2);
}
const problems = harProblems(har);
if (problems.length) {
  console.error(`${harFile} is not a HAR 1.2 file that validate can read: ${problems.join("; ")}`);
  process.exit(2);
}
const bundle = readBundle(api);
// Without --base-path an entry is the API's when its whole path matches a server path of the
// description (or none: the mock) followed by one of its path templates.
const report = validateHar(bundle, har, { basePath: basePathOverride, unknownQueryParameters: allowFlag >= 0 ? "allow" : "refuse" });

for (const v of report.violations) console.log(formatHarViolation(v));
const entries = new Set(report.violations.map((v) => v.entry)).size;
const outside = basePathOverride === undefined ? "matching no operation of the description" : `outside ${basePathOverride || "/"}`;
console.log(
  `${api.name}: ${report.checked} entries checked against generated/${api.name}/openapi.json` +
    (report.skipped ? ` (${report.skipped} ${outside} skipped)` : "") +
    `: ${report.violations.length ? `${report.violations.length} violation(s) in ${entries} entries` : "no violations"}`,
);
if (report.checked === 0) {
  // Checking nothing is not a pass: the file or the API is probably wrong.
  console.error(`no entry of ${harFile} is an exchange of ${api.name} (${outside}: ${report.unmatched.slice(0, 5).join(", ") || "the file has no entries"}): wrong API or --base-path?`);
  process.exit(2);
}
process.exit(report.violations.length ? 1 : 0);
