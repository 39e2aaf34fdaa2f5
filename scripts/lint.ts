// Lints every API's description with Redocly and fails on any problem, warnings included
// (redocly lint itself exits 0 when there are only warnings).
import { spawnSync } from "node:child_process";
import { APIS, PROJECT_ROOT as root } from "./apis.ts";
import { redoclyCommand } from "./project.ts";

let failed = false;
// `npm run lint -- <api>...` lints only those.
const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = names.filter((n) => !APIS.some((a) => a.name === n));
if (unknown.length) {
  console.error(`lint: no API ${unknown.join(", ")} in redocly.yaml (APIs: ${APIS.map((a) => a.name).join(", ")})`);
  process.exit(2);
}

for (const api of names.length ? APIS.filter((a) => names.includes(a.name)) : APIS) {
  const redocly = redoclyCommand(["lint", api.redoclyName, "--format=json"]);
  const run = spawnSync(redocly.command, redocly.args, { cwd: root, env: redocly.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const start = run.stdout.indexOf("{");
  const totals = start >= 0 ? (JSON.parse(run.stdout.slice(start)) as { totals: { errors: number; warnings: number } }).totals : undefined;
  if (!totals) {
    console.error(`${api.name}: redocly lint gave no result\n${run.stderr}`);
    failed = true;
    continue;
  }
  console.log(`${api.name}: ${totals.errors} errors, ${totals.warnings} warnings`);
  if (totals.errors + totals.warnings > 0) {
    failed = true;
    const again = redoclyCommand(["lint", api.redoclyName]);
    spawnSync(again.command, again.args, { cwd: root, env: again.env, stdio: "inherit" });
  }
}
process.exit(failed ? 1 : 0);
