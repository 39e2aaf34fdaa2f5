// The Express app the reference servers start from: no X-Powered-By or ETag, the stages as one
// middleware with Express's own final handler for what no stage answers, and JSON written as each
// service writes it (exactly application/json and a newline where the real service does).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { answerWith, sendJsonText, serviceApp, type JsonStyle } from "../../server/shared/express-app.ts";
import type { Stage } from "../../server/shared/stages.ts";
import { rawGet } from "../helpers/raw-get.ts";

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

type ErrorHandler = (error: unknown, req: Request, res: Response, next: NextFunction) => void;
const answer418: ErrorHandler = (error, _req, res) => void res.status(418).send(String(error));

async function serve(stages: Stage[], onError: ErrorHandler = answer418, style: JsonStyle = {}) {
  const app = serviceApp(style);
  answerWith(app, stages, onError);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("serviceApp", () => {
  it("sends neither X-Powered-By nor an ETag", async () => {
    const base = await serve([(_req, res) => res.json({ ok: true })]);
    const response = await fetch(base);
    expect(response.headers.get("x-powered-by")).toBeNull();
    expect(response.headers.get("etag")).toBeNull();
  });

  it("writes JSON as res.json does by default, and exactly `application/json` with a newline when the service does", async () => {
    const stages: Stage[] = [(req, res) => (req.path === "/text" ? sendJsonText(res.status(400), '{"errors":["x"]}') : res.json({ name: "zoë ✓" }))];
    const plain = await serve(stages);
    let response = await fetch(plain);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.text()).toBe('{"name":"zoë ✓"}');
    server!.close();
    const exact = await serve(stages, answer418, { jsonCharset: false, jsonNewline: true });
    response = await fetch(exact);
    expect(response.headers.get("content-type")).toBe("application/json");
    const text = '{"name":"zoë ✓"}\n';
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(await response.text()).toBe(text);
    response = await fetch(`${exact}/text`);
    expect([response.status, response.headers.get("content-type"), await response.text()]).toEqual([400, "application/json", '{"errors":["x"]}\n']);
    // The style is the app's own: an app made after it writes Express's way again.
    server!.close();
    response = await fetch(await serve(stages));
    expect([response.headers.get("content-type"), await response.text()]).toEqual(["application/json; charset=utf-8", '{"name":"zoë ✓"}']);
  });
});

describe("indentFor", () => {
  it("indents the JSON of the requests it names, with a newline after, and no other's", async () => {
    const stages: Stage[] = [(_req, res) => res.json({ a: [1, { b: "zoë" }], c: {} })];
    const base = await serve(stages, answer418, { jsonCharset: false, indentFor: (req) => (req.query.pretty !== undefined ? "    " : undefined) });
    const pretty = await fetch(`${base}/?pretty`);
    const text = '{\n    "a": [\n        1,\n        {\n            "b": "zoë"\n        }\n    ],\n    "c": {}\n}\n';
    expect([pretty.headers.get("content-type"), pretty.headers.get("content-length"), await pretty.text()]).toEqual(["application/json", String(Buffer.byteLength(text)), text]);
    expect(await (await fetch(base)).text()).toBe('{"a":[1,{"b":"zoë"}],"c":{}}');
  });
});

describe("answerWith", () => {
  it("runs the stages in order, as one middleware of the app", async () => {
    const base = await serve([
      (req, _res, next) => {
        req.url = "/rewritten";
        next();
      },
      (req, res) => res.json({ url: req.url, originalUrl: req.originalUrl, baseUrl: req.baseUrl, hasGet: typeof req.get, locals: typeof res.locals }),
    ]);
    expect(await (await fetch(`${base}/asked?q=1`)).json()).toEqual({ url: "/rewritten", originalUrl: "/asked?q=1", baseUrl: "", hasGet: "function", locals: "object" });
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

describe("sendJsonText", () => {
  const stages: Stage[] = [(_req, res) => res.json({ name: "zoë" })];

  it("answers a conditional request as any other: no 304 of its own, as the real services", async () => {
    const base = await serve(stages, answer418, { jsonCharset: false, jsonNewline: true });
    const conditions: Record<string, string>[] = [{ "if-none-match": "*" }, { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() }];
    for (const headers of conditions) {
      expect(await rawGet(base, headers)).toEqual({ status: 200, body: '{"name":"zoë"}\n' });
    }
  });

  it("gives a HEAD the headers of the answer, its length included, and no body", async () => {
    const base = await serve(stages, answer418, { jsonCharset: false, jsonNewline: true });
    const response = await fetch(base, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength('{"name":"zoë"}\n')));
    expect(await response.text()).toBe("");
  });

  it("keeps a media type set on the answer, with the charset unless the service writes exactly its type", async () => {
    const typed: Stage[] = [(_req, res) => sendJsonText(res.type("application/vnd.api+json"), "{}")];
    let response = await fetch(await serve(typed));
    expect(response.headers.get("content-type")).toBe("application/vnd.api+json; charset=utf-8");
    server!.close();
    response = await fetch(await serve(typed, answer418, { jsonCharset: false }));
    expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
  });
});
