// The request pipeline (server/shared/pipeline.ts) on express-openapi-validator's public chain
// (server/shared/openapi.ts): the stages run in the real services' order, the validator is cut where
// the services put theirs (and refuses to start if its chain changes), and a checked answer is
// written the service's way, or becomes a 500 naming the violation.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { answerWith, serviceApp } from "../../server/shared/express-app.ts";
import { openApiValidator, validationProblems, type OpenApiDocument } from "../../server/shared/openapi.ts";
import { matchedRoute, operationHandler, operationMatch, RouteTable } from "../../server/shared/operation-router.ts";
import { requestPipeline, type ServiceStages } from "../../server/shared/pipeline.ts";
import type { Stage } from "../../server/shared/stages.ts";

const doc: OpenApiDocument = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/items/{id}": {
      get: {
        operationId: "readItem",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "integer" } },
          { name: "limit", in: "query", schema: { type: "integer", maximum: 10 } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", required: ["id"], properties: { id: { type: "integer" } } } } } } },
      },
      put: {
        operationId: "writeItem",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string", minLength: 1 } } } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  },
};

const routes = new RouteTable([
  { method: "get", path: "/items/:id", operationId: "readItem" },
  { method: "put", path: "/items/:id", operationId: "writeItem" },
]);

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A service on the pipeline: token "good" passes, "other" may not touch item 2 (404), each stage logged. */
async function serve(jsonStyle = {}, validateResponses = true) {
  const log: string[] = [];
  const logged = (name: string, stage: Stage): Stage => (req, res, next) => {
    log.push(name);
    return stage(req, res, next);
  };
  const refuse = (status: number, message: string) => Object.assign(new Error(message), { status });
  const validator = openApiValidator(doc, { basePath: "", validateResponses });
  const service: ServiceStages = {
    prepare: [logged("prepare", (_req, _res, next) => next())],
    match: logged("match", operationMatch(routes, true)),
    authenticate: logged("authenticate", (req, res, next) => {
      if (!["good", "other"].includes(req.get("x-token") ?? "")) throw refuse(401, "who are you");
      res.locals.caller = req.get("x-token");
      next();
    }),
    authorize: logged("authorize", (req, res, next) => {
      if (!matchedRoute(res)) throw refuse(405, "no such operation");
      if (res.locals.caller === "other" && req.params.id === "2") throw refuse(404, "not found");
      next();
    }),
    readBody: logged("readBody", (req, _res, next) => {
      let text = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (text += chunk));
      req.on("end", () => {
        req.body = text === "" ? undefined : JSON.parse(text);
        next();
      });
    }),
    handle: logged(
      "handle",
      operationHandler(routes, (route, req, res) => {
        if ((req.query.limit as unknown) === 9) return res.json({ id: "not a number" });
        res.json(route.operationId === "readItem" ? { id: req.params.id, limit: req.query.limit ?? null } : { name: req.body.name, id: req.params.id });
      }),
    ),
    notFound: (_req, _res, next) => next(refuse(404, "nothing here")),
  };
  const app = serviceApp(jsonStyle);
  answerWith(app, requestPipeline(service, validator), (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status = 500, message } = error as { status?: number; message: string };
    res.status(status).json({ status, message, problems: validationProblems(error, req.path) ?? null });
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, log };
}

const put = (base: string, path: string, token: string, body: string) => fetch(`${base}${path}`, { method: "PUT", headers: { "x-token": token, "content-type": "application/json" }, body });

describe("the request pipeline", () => {
  it("runs match, authenticate, authorize, body, request check, handler, in that order, with coerced input", async () => {
    const { base, log } = await serve();
    const response = await fetch(`${base}/items/7?limit=5`, { headers: { "x-token": "good" } });
    expect(await response.json()).toEqual({ id: 7, limit: 5 });
    expect(log).toEqual(["prepare", "match", "authenticate", "authorize", "readBody", "handle"]);
  });

  it("refuses a stranger before the resource or the body is looked at", async () => {
    const { base, log } = await serve();
    const response = await put(base, "/items/2", "nobody", '{"name":""}');
    expect(response.status).toBe(401);
    expect(log).toEqual(["prepare", "match", "authenticate"]);
  });

  it("answers 404 to a caller who may not act on the resource, before the body is read or checked (a bad body is not revealed)", async () => {
    const { base, log } = await serve();
    const response = await put(base, "/items/2", "other", '{"name":""}');
    expect(response.status).toBe(404);
    expect(log).not.toContain("readBody");
    // The same bad body on a resource the caller may change: the request check's 400, naming the field.
    const refused = await put(base, "/items/3", "other", '{"name":""}');
    expect(refused.status).toBe(400);
    expect((await refused.json()).problems).toEqual([{ location: "body", field: "name", message: "must NOT have fewer than 1 characters" }]);
  });

  it("refuses parameters the description refuses (400), and a method the path does not have in the service's stage", async () => {
    const { base } = await serve();
    expect((await fetch(`${base}/items/7?limit=50`, { headers: { "x-token": "good" } })).status).toBe(400);
    expect((await fetch(`${base}/items/x`, { headers: { "x-token": "good" } })).status).toBe(400);
    expect((await fetch(`${base}/items/7`, { method: "DELETE", headers: { "x-token": "good" } })).status).toBe(405);
    expect((await fetch(`${base}/elsewhere`, { headers: { "x-token": "good" } })).status).toBe(405);
  });

  it("turns an answer that breaks the description into a 500 naming the violation, written by the error handler", async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/items/7?limit=9`, { headers: { "x-token": "good" } });
    expect(response.status).toBe(500);
    expect((await response.json()).problems).toEqual([{ location: "response", field: "id", message: "must be integer" }]);
  });

  it("writes a checked answer the service's way (exactly application/json and a newline)", async () => {
    const { base } = await serve({ jsonCharset: false, jsonNewline: true });
    const response = await fetch(`${base}/items/7`, { headers: { "x-token": "good" } });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe('{"id":7,"limit":null}\n');
    const broken = await fetch(`${base}/items/7?limit=9`, { headers: { "x-token": "good" } });
    expect(broken.status).toBe(500);
  });
});

describe("openApiValidator", () => {
  it("cuts the library's chain into match, request and response stages", () => {
    const stages = openApiValidator(doc, { basePath: "", validateResponses: true });
    expect(stages.match.map((s) => s.name)).toEqual(["pathParamsMiddleware", "metadataMiddleware", "securityMiddleware"]);
    expect(stages.request.map((s) => s.name)).toEqual(["requestMiddleware"]);
    expect(stages.response.map((s) => s.name)).toEqual(["responseMiddleware"]);
    expect(openApiValidator(doc, { basePath: "", validateResponses: false }).response).toEqual([]);
  });

  it("is built once per description and options in a process: another app on it finds its validators compiled and checks the same", async () => {
    const chain = openApiValidator(doc, { basePath: "", validateResponses: true });
    expect(openApiValidator(structuredClone(doc), { basePath: "", validateResponses: true })).toBe(chain);
    expect(openApiValidator(doc, { basePath: "/v1", validateResponses: true })).not.toBe(chain);
    expect(openApiValidator(doc, { basePath: "", validateResponses: true, allowUnknownQueryParameters: true })).not.toBe(chain);
    const changed = structuredClone(doc);
    (changed.info as { version: string }).version = "2";
    expect(openApiValidator(changed, { basePath: "", validateResponses: true })).not.toBe(chain);
    // Two apps in turn on the one chain: each coerces, refuses and checks its answers.
    for (let app = 0; app < 2; app++) {
      const { base } = await serve();
      expect(await (await fetch(`${base}/items/7?limit=5`, { headers: { "x-token": "good" } })).json()).toEqual({ id: 7, limit: 5 });
      expect((await fetch(`${base}/items/x`, { headers: { "x-token": "good" } })).status).toBe(400);
      expect((await fetch(`${base}/items/7?limit=9`, { headers: { "x-token": "good" } })).status).toBe(500);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });
});

describe("openApiValidator on a library whose chain changed", () => {
  beforeAll(() => {
    vi.resetModules();
    vi.doMock("express-openapi-validator", () => ({ middleware: () => [function metadataMiddleware() {}, function requestMiddleware() {}] }));
  });
  afterAll(() => {
    vi.doUnmock("express-openapi-validator");
    vi.resetModules();
  });

  it("refuses to start, naming what it got", async () => {
    const { openApiValidator: fresh } = await import("../../server/shared/openapi.ts");
    expect(() => fresh(doc, { basePath: "", validateResponses: true })).toThrow(/returned \[metadataMiddleware, requestMiddleware\]/);
  });
});
