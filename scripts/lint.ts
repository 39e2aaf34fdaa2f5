// Lints every API's description with Redocly and fails on any problem, warnings included
// (redocly lint itself exits 0 when there are only warnings).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { APIS } from "./apis.ts";

const root = path.resolve(import.meta.dirname, "..");
const redocly = path.join(root, "node_modules", ".bin", "redocly");
const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
let failed = false;

for (const api of APIS) {
  const run = spawnSync(redocly, ["lint", api.redoclyName, "--format=json"], { cwd: root, env, encoding: "utf8" });
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
    spawnSync(redocly, ["lint", api.redoclyName], { cwd: root, env, stdio: "inherit" });
  }
}
process.exit(failed ? 1 : 0);
