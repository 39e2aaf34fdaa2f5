// What a request pays for a property added to its req or res object, and for the first header, on
// the server app.listen makes and on the reference servers' own (createAppServer). Express 5 gives
// each request the app's prototypes (Object.setPrototypeOf); on app.listen's server V8 then keeps no
// shared shape for them, and each property a stage adds later costs about 1.5-2 µs. On
// createAppServer's, whose requests are born with those prototypes, the same writes cost what they
// cost on any object (docs/pipeline.md, "The HTTP server").
//   npx tsx bench/property-cost.ts   (20,000 requests on each server, one plain Express app, 127.0.0.1)
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createAppServer } from "../server/shared/app-server.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const WHAT = ["req.body = ...", "res.json = ...", "first res.setHeader", "res.locals member", "(the clock itself)"] as const;
const noneSpent = () => Object.fromEntries(WHAT.map((what) => [what, 0n])) as Record<(typeof WHAT)[number], bigint>;
let spent = noneSpent();
const writer = function json() {};
const app = express();
app.use((req, res) => {
  const t0 = process.hrtime.bigint();
  req.body = undefined;
  const t1 = process.hrtime.bigint();
  (res as { json: unknown }).json = writer;
  const t2 = process.hrtime.bigint();
  res.setHeader("Cache-Control", "no-store");
  const t3 = process.hrtime.bigint();
  res.locals.request = { a: 1 };
  const t4 = process.hrtime.bigint();
  const t5 = process.hrtime.bigint();
  spent["req.body = ..."] += t1 - t0;
  spent["res.json = ..."] += t2 - t1;
  spent["first res.setHeader"] += t3 - t2;
  spent["res.locals member"] += t4 - t3;
  spent["(the clock itself)"] += t5 - t4;
  res.end("x");
});
const rows: string[] = [];
// app.listen's server is http.createServer(app).
for (const [name, server] of [["app.listen", http.createServer(app)], ["createAppServer", createAppServer(app)]] as const) {
  spent = noneSpent();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  for (let i = 0; i < REQUESTS; i++) {
    await new Promise((done) => http.get({ host: "127.0.0.1", port, path: `/x?n=${i}`, agent }, (res) => res.resume().on("end", done)));
  }
  agent.destroy();
  server.close();
  rows.push(`| ${name} | ${WHAT.map((what) => (Number(spent[what]) / REQUESTS).toFixed(0)).join(" | ")} |`);
}
console.log(`| server (${REQUESTS} requests each), ns a request | ${WHAT.join(" | ")} |\n|---|${WHAT.map(() => "---").join("|")}|`);
for (const row of rows) console.log(row);
