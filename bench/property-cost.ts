// What a request pays for a property added to its req or res object, and for the first header:
// Express 5 and Node give every request objects with the properties they set themselves, and each
// property a stage adds later costs about 1.5-2 µs (measured: this file), a tenth of what the
// pipeline's stages cost together. Why the services set their JSON writer once on the app's response
// prototype, and leave req.body unset for a request without a body (docs/pipeline.md).
//   npx tsx bench/property-cost.ts   (20,000 requests on one plain Express app, 127.0.0.1)
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const spent = { "req.body = ...": 0n, "res.json = ...": 0n, "first res.setHeader": 0n, "res.locals member": 0n, "(the clock itself)": 0n };
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
const server = app.listen(0, "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const { port } = server.address() as AddressInfo;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
for (let i = 0; i < REQUESTS; i++) {
  await new Promise((done) => http.get({ host: "127.0.0.1", port, path: `/x?n=${i}`, agent }, (res) => res.resume().on("end", done)));
}
agent.destroy();
server.close();
console.log(`| what a request does | ns a request (${REQUESTS} requests) |\n|---|---|`);
for (const [what, ns] of Object.entries(spent)) console.log(`| ${what} | ${(Number(ns) / REQUESTS).toFixed(0)} |`);
