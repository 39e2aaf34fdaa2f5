// What each stage of express-openapi-validator's public chain costs a fresh read of each API, timed
// around the stage on real requests (µs a request, from the stage's call until it calls next: its
// own work). The chain is the one the servers build (server/shared/openapi.ts), on a plain Express
// app that answers after the request check.
//   npx tsx bench/validator-stages.ts   (20,000 requests per API, 127.0.0.1)
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { loadBundle, openApiValidator } from "../server/shared/openapi.ts";
import type { Stage } from "../server/shared/stages.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CASES = [
  { api: "mesh", base: "/v1", path: "/v1/discovery-chain/web" },
  { api: "secrets", base: "/v1", path: "/v1/aws/roles/bench-7" },
  { api: "org-platform", base: "/api/v2", path: "/api/v2/organizations/acme/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20" },
] as const;

const rows: string[] = [];
let names: string[] = [];
for (const c of CASES) {
  const chain = openApiValidator(loadBundle(c.api), { basePath: c.base, validateResponses: true, allowUnknownQueryParameters: true });
  const stages: Stage[] = [...chain.match, ...chain.request];
  names = stages.map((stage) => stage.name);
  const spent = stages.map(() => 0);
  let answered = 0;
  const app = express();
  app.use((req, res) => {
    let at = 0;
    const run = (): void => {
      const stage = stages[at];
      if (!stage) {
        answered++;
        res.end("x");
        return;
      }
      const start = performance.now();
      stage(req, res, (error?: unknown) => {
        spent[at]! += performance.now() - start;
        if (error) {
          res.statusCode = 500;
          res.end(String(error));
          return;
        }
        at++;
        run();
      });
    };
    run();
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  for (let i = 0; i < REQUESTS; i++) {
    const path = `${c.path}${c.path.includes("?") ? "&" : "?"}fresh=${i}`;
    await new Promise((done) => http.get({ host: "127.0.0.1", port, path, agent }, (res) => res.resume().on("end", done)));
  }
  agent.destroy();
  server.close();
  if (answered !== REQUESTS) throw new Error(`${c.api}: ${REQUESTS - answered} requests failed the check`);
  rows.push(`| ${c.api} \`${c.path}\` | ${spent.map((ms) => ((ms * 1000) / REQUESTS).toFixed(1)).join(" | ")} |`);
}
console.log(`| fresh read (µs a request, ${REQUESTS} requests) | ${names.join(" | ")} |\n|---|${names.map(() => "---").join("|")}|`);
for (const row of rows) console.log(row);
