// What a fresh read of the org platform's team page costs before any pipeline, measured in-process
// (CPU µs per page, best of five rounds of 2,000): building the document (the service's listTeams,
// its teams kept per state version), serializing it (JSON.stringify, and jsonText as the services'
// res.json does, from the teams' kept texts) and checking it against its schema (ajv, as the
// response validator does). Beside plain Express's whole request for the same 16 KB of bytes
// (`npm run bench -- fresh`), these say how close to it any server that renders, serializes and
// validates each answer can come.
//   npx tsx bench/org-floor.ts
import { Ajv2020 } from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";
import { loadWorld } from "../server/org-platform/domain/world.ts";
import { OrgPlatformService } from "../server/org-platform/service.ts";
import { MemoryOrgPlatformStore } from "../server/org-platform/store/store.ts";
import { jsonText } from "../server/shared/json-text.ts";
import { orgWorldOf, ORG_TOKEN } from "./worlds.ts";

const service = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(orgWorldOf(100, 0))));
const caller = service.authenticate(ORG_TOKEN);
const page = (n: number) =>
  service.listTeams(caller, "acme", {}, { page: { number: 2, size: 20 }, include: [], location: { url: "/api/v2/organizations/acme/teams", query: [["fresh", String(n)]] } });

const description = JSON.parse(readFileSync(new URL("../generated/org-platform/openapi.json", import.meta.url), "utf8")) as object;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
ajv.addSchema(description, "description");
const validate = ajv.compile({ $ref: "description#/components/schemas/TeamListDocument" });

/** CPU µs per call of `work`, the best of five rounds. */
function cpuMicros(work: (n: number) => unknown, rounds = 5, calls = 2_000): number {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (let n = 0; n < calls; n++) work(n);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / calls);
  }
  return best;
}

const sample = page(0);
if (!validate(sample)) throw new Error(`the page breaks its schema: ${ajv.errorsText(validate.errors)}`);
const render = cpuMicros(page);
const serialize = cpuMicros(() => JSON.stringify(sample));
// As the services' res.json writes it: the teams' kept texts (server/shared/json-text.ts), the links and meta anew.
const written = cpuMicros(() => jsonText(sample));
const check = cpuMicros(() => validate(sample));
console.log(`org team page (20 of 104 teams, ${Buffer.byteLength(JSON.stringify(sample))} bytes), CPU µs per page, in-process:\n`);
console.log("| render (listTeams: teams kept per state version) | JSON.stringify of the page | the services' writer (jsonText: kept texts) | check (ajv, TeamListDocument) | together, as served (render, writer, check) |");
console.log("|---|---|---|---|---|");
console.log(`| ${render.toFixed(1)} | ${serialize.toFixed(1)} | ${written.toFixed(1)} | ${check.toFixed(1)} | ${(render + written + check).toFixed(1)} |`);
