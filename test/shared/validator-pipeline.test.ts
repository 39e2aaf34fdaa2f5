// The validator as the servers run it (server/shared/openapi.ts, validator-route-cache.ts): what it
// keeps per request is bounded, and what it reuses gives the answers the library gives.
import { request as httpRequest, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMeshApp } from "../../server/mesh/app.ts";
import { createOrgPlatformApp } from "../../server/org-platform/app.ts";
import { express, openApiValidator, requestValidatorKey } from "../../server/shared/openapi.ts";
import { serviceApp } from "../../server/shared/express-app.ts";
import { validatorLibrary } from "../../server/shared/validator-route-cache.ts";

function listen(app: { listen(port: number, host: string): Server }): Promise<{ server: Server; port: number }> {
  const server = app.listen(0, "127.0.0.1");
  return new Promise((resolve) => server.once("listening", () => resolve({ server, port: (server.address() as { port: number }).port })));
}

function send(port: number, path: string, headers: Record<string, string>, method = "GET", body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * An app validating requests and answers against `doc`, with the given routes, errors answered with
 * their status and message. `app`: the app to use (a plain Express 5 app unless given), with what it
 * already has before the validator.
 */
function listenValidated(
  doc: object,
  routes: (app: ReturnType<typeof express>) => void,
  { app = express(), allowUnknownQueryParameters = true }: { app?: ReturnType<typeof express>; allowUnknownQueryParameters?: boolean } = {},
): Promise<{ server: Server; port: number }> {
  app.use(openApiValidator(doc as never, { basePath: "", validateResponses: true, allowUnknownQueryParameters }));
  routes(app);
  app.use((error: { status?: number; message?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ error: error.message });
  });
  return listen(app);
}

describe("requestValidatorKey", () => {
  const withBody = { expressRoute: "/v1/config", schema: { requestBody: { content: { "application/json": {} } } } };
  const withoutBody = { expressRoute: "/v1/discovery-chain/:service_name", schema: {} };

  it("ignores the Content-Type of a request whose operation takes no body", () => {
    const keys = new Set(["application/x-1", "application/x-2", "text/plain; q=1", undefined].map((t) => requestValidatorKey("GET", withoutBody, t).key));
    expect([...keys]).toEqual(["GET-/v1/discovery-chain/:service_name-not_provided"]);
  });

  it("keys a body by its media type alone: parameters and case do not make a new validator", () => {
    for (const type of ["application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;x=1"]) {
      expect(requestValidatorKey("PUT", withBody, type)).toEqual({ key: "PUT-/v1/config-application/json", mediaType: "application/json" });
    }
    expect(requestValidatorKey("PUT", withBody, undefined)).toEqual({ key: "PUT-/v1/config-not_provided", mediaType: undefined });
  });
});

describe("the request stage", () => {
  let mesh: { server: Server; port: number };
  beforeAll(async () => {
    mesh = await listen(createMeshApp({ entries: [{ Kind: "service-defaults", Name: "web", Protocol: "http" }] }).app);
  });
  afterAll(() => mesh.server.close());

  it("builds one validator for an operation however many Content-Types clients send (was one per spelling: memory without bound)", async () => {
    const build = vi.spyOn(validatorLibrary.RequestValidator.prototype, "buildMiddleware");
    try {
      for (let i = 0; i < 200; i++) {
        const answer = await send(mesh.port, "/v1/discovery-chain/web", { "content-type": `application/x-spelling-${i}` });
        expect(answer.status).toBe(200);
      }
      expect(build.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      build.mockRestore();
    }
  });

  it("refuses an invalid body every time with the validator it reuses", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await send(mesh.port, "/v1/acl/policy", { "content-type": "application/json" }, "PUT", JSON.stringify({ Name: 5 }));
      expect(answer.status).toBe(400);
    }
  });
});

describe("query parameters worked out once per query string", () => {
  let org: { server: Server; port: number };
  const token = { authorization: "Bearer alice.atlasv1.dev-user-token" };
  beforeAll(async () => {
    org = await listen(createOrgPlatformApp().app);
  });
  afterAll(() => org.server.close());

  it("answer the same query string alike every time, valid or not", async () => {
    const page = "/api/v2/organizations/acme/teams?page%5Bnumber%5D=1&page%5Bsize%5D=2";
    const first = await send(org.port, page, token);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).meta.pagination).toMatchObject({ "current-page": 1, "page-size": 2 });
    for (let i = 0; i < 3; i++) expect(await send(org.port, page, token)).toEqual(first);
    const tooBig = "/api/v2/organizations/acme/teams?page%5Bsize%5D=1000";
    const refused = await send(org.port, tooBig, token);
    expect(refused.status).toBe(422);
    for (let i = 0; i < 3; i++) expect(await send(org.port, tooBig, token)).toEqual(refused);
  });
});

describe("passed checks of requests without a body, kept", () => {
  // A description of its own: an integer path parameter, an integer query parameter and an
  // integer header (a header the check coerces: such operations are not kept).
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/items/{id}": {
        get: {
          operationId: "readItem",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer" } },
            { name: "limit", in: "query", schema: { type: "integer" } },
          ],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/counted": {
        get: {
          operationId: "readCounted",
          parameters: [{ name: "x-count", in: "header", schema: { type: "integer" } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };
  let target: { server: Server; port: number };
  const seen: unknown[] = [];
  beforeAll(async () => {
    target = await listenValidated(doc, (app) => {
      app.get("/items/:id", (req, res) => {
        const openapi = (req as unknown as { openapi: { pathParams: unknown } }).openapi;
        // Express's own route sets req.params again from the path: the services use the validator's.
        seen.push({ params: openapi.pathParams, query: req.query, frozen: Object.isFrozen(req.query) });
        res.json({});
      });
      app.get("/counted", (req, res) => {
        seen.push({ header: req.headers["x-count"] });
        res.json({});
      });
    });
  });
  afterAll(() => target.server.close());

  it("give the same request the parameters the check made of them, as the first one got", async () => {
    seen.length = 0;
    for (let i = 0; i < 3; i++) expect((await send(target.port, "/items/7?limit=5", {})).status).toBe(200);
    expect(seen).toHaveLength(3);
    for (const s of seen) expect(s).toMatchObject({ params: { id: 7 }, query: { limit: 5 } });
    // The first request's are its own; the kept ones are shared, frozen.
    expect(seen.slice(1).every((s) => (s as { frozen: boolean }).frozen)).toBe(true);
  });

  it("refuse a request that failed every time", async () => {
    for (let i = 0; i < 3; i++) expect((await send(target.port, "/items/7?limit=many", {})).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await send(target.port, "/items/seven", {})).status).toBe(400);
  });

  it("are not kept for an operation whose check changes a header", async () => {
    seen.length = 0;
    for (let i = 0; i < 2; i++) expect((await send(target.port, "/counted", { "x-count": "3" })).status).toBe(200);
    expect(seen).toEqual([{ header: 3 }, { header: 3 }]);
  });
});

describe("passed checks of answers, kept", () => {
  // Answers of a described shape: an object with an integer `n`; `?n=` picks the answer.
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/answer": {
        get: {
          operationId: "answer",
          parameters: [{ name: "n", in: "query", schema: { type: "string" } }],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: { type: "object", required: ["n"], properties: { n: { type: "integer" } } } } } },
            "201": { description: "other", content: { "application/json": { schema: { type: "object", required: ["m"] } } } },
          },
        },
      },
    },
  };
  let target: { server: Server; port: number };
  beforeAll(async () => {
    target = await listenValidated(doc, (app) => {
      app.get("/answer", (req, res) => {
        const n = String(req.query.n);
        res.status(req.query.status === "201" ? 201 : 200).json(/^\d+$/.test(n) ? { n: Number(n) } : { n });
      });
    });
  });
  afterAll(() => target.server.close());

  it("checks an answer once: the same text, status and media type are sent again without the check, as res.json sends them", async () => {
    const validate = vi.spyOn(validatorLibrary.ResponseValidator.prototype, "_validate");
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await send(target.port, "/answer?n=7", {}));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => a.text)).toEqual(['{"n":7}', '{"n":7}', '{"n":7}']);
      expect(validate).toHaveBeenCalledTimes(1);
      // Another text, or the same text under another status, is checked.
      expect((await send(target.port, "/answer?n=8", {})).status).toBe(200);
      expect((await send(target.port, "/answer?n=7&status=201", {})).status).toBe(500);
      expect(validate).toHaveBeenCalledTimes(3);
    } finally {
      validate.mockRestore();
    }
  });

  it("refuses an answer that does not match every time", async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await send(target.port, "/answer?n=seven", {});
      expect(answer.status).toBe(500);
      expect(answer.text).toContain("must be integer");
    }
  });

  it("sends JSON with the Content-Type res.json gives", async () => {
    const response = await fetch(`http://127.0.0.1:${target.port}/answer?n=9`);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("content-length")).toBe("7");
  });
});

describe("a checked JSON answer is sent as res.json sends it", () => {
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/small": { get: { operationId: "small", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } },
      "/large": { get: { operationId: "large", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } },
      "/typed": { get: { operationId: "typed", responses: { "200": { description: "ok", content: { "application/vnd.api+json": { schema: { type: "object" } } } } } } },
      "/unicode": { get: { operationId: "unicode", responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } } } },
    },
  };
  const routes = (app: ReturnType<typeof express>) => {
    app.get("/small", (_req, res) => res.json({ a: 1 }));
    app.get("/large", (_req, res) => res.json({ text: "x".repeat(3000) }));
    app.get("/typed", (_req, res) => res.type("application/vnd.api+json").json({ data: null }));
    app.get("/unicode", (_req, res) => res.json({ name: "zoë ✓" }));
  };
  let checked: { server: Server; port: number };
  let plain: { server: Server; port: number };
  beforeAll(async () => {
    const a = express();
    a.set("etag", false);
    a.use(openApiValidator(doc as never, { basePath: "", validateResponses: true }));
    routes(a);
    const b = express();
    b.set("etag", false);
    routes(b);
    [checked, plain] = await Promise.all([listen(a), listen(b)]);
  });
  afterAll(() => {
    checked.server.close();
    plain.server.close();
  });

  it("with the same status, Content-Type, Content-Length and bytes, twice (checked, then kept)", async () => {
    for (const path of ["/small", "/large", "/typed", "/unicode"]) {
      for (const method of ["GET", "GET"]) {
        const [a, b] = await Promise.all([checked, plain].map((t) => fetch(`http://127.0.0.1:${t.port}${path}`, { method })));
        const view = async (r: Response) => ({ status: r.status, type: r.headers.get("content-type"), length: r.headers.get("content-length"), body: await r.text() });
        expect(await view(a!)).toEqual(await view(b!));
      }
    }
  });
});

describe("the request check on a serviceApp (req.query assigned, never redefined)", () => {
  const doc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/items/{id}": {
        get: {
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "integer" } },
            { name: "limit", in: "query", schema: { type: "integer", maximum: 10 } },
            { name: "tags", in: "query", style: "form", explode: false, schema: { type: "array", items: { type: "string" } } },
            { name: "page", in: "query", style: "deepObject", schema: { type: "object", properties: { number: { type: "integer" } } } },
            { name: "X-Count", in: "header", schema: { type: "integer" } },
          ],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/items": {
        post: {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object", required: ["name"], properties: { name: { type: "string" }, size: { type: "integer", default: 1 } }, additionalProperties: false } } },
          },
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    },
  };
  const targets: Record<"library" | "service", { server: Server; port: number }> = {} as never;
  const seen: Record<"library" | "service", unknown[]> = { library: [], service: [] };
  beforeAll(async () => {
    for (const name of ["library", "service"] as const) {
      // The library's own check (a plain Express 5 app: its step that makes req.query writable) beside serviceApp's.
      const app = name === "library" ? express() : serviceApp();
      app.use(express.json());
      const record = (req: express.Request, res: express.Response) => {
        seen[name].push({ query: req.query, params: (req as unknown as { openapi: { pathParams: unknown } }).openapi.pathParams, count: req.headers["x-count"], body: req.body, ownQuery: Object.getOwnPropertyDescriptor(req, "query") !== undefined });
        res.json({});
      };
      const routes = (routed: ReturnType<typeof express>) => {
        routed.get("/items/:id", record);
        routed.post("/items", record);
      };
      targets[name] = await listenValidated(doc, routes, { app, allowUnknownQueryParameters: false });
    }
  });
  afterAll(() => Promise.all(Object.values(targets).map(({ server }) => new Promise((resolve) => server.close(resolve)))));

  const exchanges: [string, string, Record<string, string>, string?][] = [
    ["GET", "/items/7?limit=5&tags=a,b&page%5Bnumber%5D=2", { "x-count": "3" }],
    ["GET", "/items/7?limit=5&tags=a,b&page%5Bnumber%5D=2", { "x-count": "3" }], // the same again: kept
    ["GET", "/items/7", {}],
    ["GET", "/items/x", {}],
    ["GET", "/items/7?limit=50", {}],
    ["GET", "/items/7?limit=", {}],
    ["GET", "/items/7?other=1", {}],
    ["GET", "/items/7", { "x-count": "many" }],
    ["POST", "/items", { "content-type": "application/json" }, '{"name":"a"}'],
    ["POST", "/items", { "content-type": "application/json" }, '{"name":1,"extra":true}'],
    ["POST", "/items", { "content-type": "application/json" }, ""],
    ["POST", "/items", { "content-type": "text/plain" }, "name"],
  ];

  it("answers every request as the library's check does, with the same parameters, defaults and errors", async () => {
    for (const [method, path, headers, body] of exchanges) {
      const library = await send(targets.library.port, path, headers, method, body);
      const service = await send(targets.service.port, path, headers, method, body);
      expect(service, `${method} ${path}`).toEqual(library);
    }
    const withoutOwn = (entries: unknown[]) => entries.map((e) => ({ ...(e as object), ownQuery: undefined }));
    expect(withoutOwn(seen.service)).toEqual(withoutOwn(seen.library));
    expect(seen.service).toHaveLength(4);
    expect(seen.service[0]).toMatchObject({ query: { limit: 5, tags: ["a", "b"], page: { number: 2 } }, params: { id: 7 }, count: 3 });
    expect(seen.service[3]).toMatchObject({ body: { name: "a", size: 1 } });
  });

  it("leaves req.query as the app's getter on a serviceApp (the library's check defines it on the request)", () => {
    expect(seen.service.map((e) => (e as { ownQuery: boolean }).ownQuery)).toEqual([false, false, false, false]);
    expect((seen.library[0] as { ownQuery: boolean }).ownQuery).toBe(true);
  });
});
