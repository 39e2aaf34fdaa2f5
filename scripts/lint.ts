// Lints every API's description with Redocly, as redocly.yaml configures it: an error fails the
// lint, a warning is printed (Redocly's own verdict). The toolkit's three APIs are held to the house
// rules there, under which every problem is an error; an API added with `npm run add-api` gets
// Redocly's recommended rules until its entry says otherwise (docs/own-api.md).
import { spawnSync } from "node:child_process";
import { APIS, PROJECT_ROOT, type ApiInfo } from "./apis.ts";
import { redoclyCommand, isProgram } from "./project.ts";

/** The JSON documents written one after another in `text` (Redocly writes one per API linted), anything before the first skipped. */
function concatenatedJson(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && depth > 0 && --depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)));
  }
  return documents;
}

type Totals = { errors: number; warnings: number };
const totalsOf = (document: unknown): Totals | undefined => (document as { totals?: Totals } | undefined)?.totals;

/**
 * Lints the APIs' descriptions, printing one line per API (and Redocly's report of any that has a
 * problem). Answers whether every one is free of errors.
 */
export function lintApis(apis: ApiInfo[], root = PROJECT_ROOT): boolean {
  let failed = false;
  // One Redocly process for every API (it writes one JSON report per API, in order): a Redocly start
  // costs about as much as linting a description. Should the reports not be one per API (an API that
  // Redocly could not load at all), each API is linted on its own, to name which one.
  const all = redoclyCommand(["lint", ...apis.map((api) => api.redoclyName), "--format=json"]);
  const together = spawnSync(all.command, all.args, { cwd: root, env: all.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  let reports: (Totals | undefined)[] = [];
  try {
    reports = concatenatedJson(together.stdout).map(totalsOf);
  } catch {
    reports = [];
  }
  if (reports.length !== apis.length || reports.some((r) => !r)) reports = apis.map(() => undefined);

  apis.forEach((api, i) => {
    let totals = reports[i];
    let stderr = together.stderr;
    if (!totals) {
      const redocly = redoclyCommand(["lint", api.redoclyName, "--format=json"]);
      const run = spawnSync(redocly.command, redocly.args, { cwd: root, env: redocly.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      const start = run.stdout.indexOf("{");
      totals = start >= 0 ? totalsOf(JSON.parse(run.stdout.slice(start))) : undefined;
      stderr = run.stderr;
    }
    if (!totals) {
      console.error(`${api.name}: redocly lint gave no result\n${stderr}`);
      failed = true;
      return;
    }
    console.log(`${api.name}: ${totals.errors} errors, ${totals.warnings} warnings`);
    if (totals.errors > 0) failed = true;
    if (totals.errors + totals.warnings > 0) {
      const again = redoclyCommand(["lint", api.redoclyName]);
      spawnSync(again.command, again.args, { cwd: root, env: again.env, stdio: "inherit" });
    }
  });
  return !failed;
}

// `npm run lint -- <api>...` lints only those. (The CLI's `lint` verb runs this file as its program too.)
if (isProgram(import.meta.url)) {
  const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const unknown = names.filter((n) => !APIS.some((a) => a.name === n));
  if (unknown.length) {
    console.error(`lint: no API ${unknown.join(", ")} in redocly.yaml (APIs: ${APIS.map((a) => a.name).join(", ")})`);
    process.exit(2);
  }
  process.exit(lintApis(names.length ? APIS.filter((a) => names.includes(a.name)) : APIS) ? 0 : 1);
}
