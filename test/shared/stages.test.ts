// `under(basePath, stage)` runs a stage for exactly the requests Express would give a router mounted
// at basePath (app.use(basePath, ...)): compared here on the same requests, sent as raw request
// targets (case, segment boundaries, queries, fragments, escapes, absolute form).
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { under } from "../../server/shared/stages.ts";

let server: Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.seen = { under: false, mounted: false };
    next();
  });
  app.use(
    under("/v1", (_req, res, next) => {
      res.locals.seen.under = true;
      next();
    }),
  );
  app.use("/v1", (_req, res, next) => {
    res.locals.seen.mounted = true;
    next();
  });
  app.use((_req, res) => res.json(res.locals.seen));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** What the app saw for a raw request target. */
function seen(target: string): Promise<{ under: boolean; mounted: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: target, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(JSON.parse(body) as { under: boolean; mounted: boolean }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("under(basePath, stage)", () => {
  const targets = [
    "/v1",
    "/v1/",
    "/v1/sys/health",
    "/V1/sys/health",
    "/v1?x=1",
    "/v1#x",
    "/v1/#x",
    "/v10/sys",
    "/v",
    "/",
    "/v1%2Fsys",
    "/v1.json",
    "/api/v1/sys",
    "//v1/sys",
    `http://127.0.0.1/v1/sys`,
    `http://127.0.0.1/v2/sys`,
    `http://127.0.0.1/V1?x`,
  ];
  it.each(targets)("%s: the stage runs exactly when a router mounted at /v1 would", async (target) => {
    const { under: ran, mounted } = await seen(target);
    expect(ran).toBe(mounted);
  });

  it("runs for the base path and below it, not for a path that only starts with its letters", async () => {
    expect(await seen("/v1/sys/health")).toEqual({ under: true, mounted: true });
    expect(await seen("/v10/sys")).toEqual({ under: false, mounted: false });
  });
});
