// The Express app the reference servers start from: a query parsed once per request (and again when
// the URL changes), and requests answered by the stages without the router, with Express's final
// handler for what no stage answers and for errors the error handler passes on.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { answerWith, serviceApp } from "../../server/shared/express-app.ts";
import type { Stage } from "../../server/shared/stages.ts";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

type ErrorHandler = (error: unknown, req: Request, res: Response, next: NextFunction) => void;
const answer418: ErrorHandler = (error, _req, res) => void res.status(418).send(String(error));

async function serve(stages: Stage[], onError: ErrorHandler = answer418) {
  const app = serviceApp();
  answerWith(app, stages, onError);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("serviceApp", () => {
  it("parses a request's query once, and again after its URL changed", async () => {
    const seen: unknown[] = [];
    const base = await serve([
      (req, res) => {
        const first = req.query;
        seen.push(first === req.query, { ...first });
        req.url = "/other?b=2";
        seen.push({ ...req.query });
        res.json(seen);
      },
    ]);
    expect(await (await fetch(`${base}/x?a=1`)).json()).toEqual([true, { a: "1" }, { b: "2" }]);
  });

  it("sends neither X-Powered-By nor an ETag", async () => {
    const base = await serve([(_req, res) => res.json({ ok: true })]);
    const response = await fetch(base);
    expect(response.headers.get("x-powered-by")).toBeNull();
    expect(response.headers.get("etag")).toBeNull();
  });
});

describe("answerWith", () => {
  it("runs the stages in order with what Express's router sets: originalUrl, baseUrl, params, the app's request and response", async () => {
    const base = await serve([
      (req, _res, next) => {
        req.url = "/rewritten";
        next();
      },
      (req, res) => res.json({ url: req.url, originalUrl: req.originalUrl, baseUrl: req.baseUrl, params: req.params, hasGet: typeof req.get, locals: typeof res.locals }),
    ]);
    expect(await (await fetch(`${base}/asked?q=1`)).json()).toEqual({ url: "/rewritten", originalUrl: "/asked?q=1", baseUrl: "", params: {}, hasGet: "function", locals: "object" });
  });

  it("gives a stage's error, thrown or rejected, to the error handler", async () => {
    const base = await serve([
      async (req) => {
        if (req.path === "/reject") throw new Error("rejected");
        throw new Error("unreachable");
      },
    ]);
    const response = await fetch(`${base}/reject`);
    expect(response.status).toBe(418);
    expect(await response.text()).toBe("Error: rejected");
  });

  it("answers what no stage answers with Express's 404, and an error the handler passes on with Express's final handler (its status)", async () => {
    const base = await serve(
      [(req, _res, next) => (req.path === "/fail" ? next(Object.assign(new Error("passed on"), { status: 503 })) : next())],
      (error, _req, _res, next) => next(error),
    );
    const missing = await fetch(`${base}/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Cannot GET /nothing");
    const failed = await fetch(`${base}/fail`);
    expect(failed.status).toBe(503);
  });
});
