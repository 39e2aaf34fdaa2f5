// The fixes under patches/ (applied by patch-package on install), each tested through the library's
// public API the way an upstream test would: without the patch these tests fail.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

describe("express-openapi-validator+5.6.2+001+empty-array-parameter.patch: an empty non-exploded array parameter", () => {
  let base: string;
  let close: () => void;
  beforeAll(async () => {
    const app = express();
    app.use(
      OpenApiValidator.middleware({
        apiSpec: {
          openapi: "3.1.0",
          info: { title: "empty array", version: "1", summary: "an empty non-exploded array parameter" },
          components: {},
          webhooks: {},
          paths: {
            "/items": {
              get: {
                parameters: [
                  { name: "include", in: "query", style: "form", explode: false, allowEmptyValue: true, schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
                  { name: "tags", in: "query", style: "pipeDelimited", explode: false, schema: { type: "array", items: { type: "string" } } },
                ],
                responses: { "200": { description: "the parsed query", content: { "application/json": { schema: { type: "object" } } } } },
              },
            },
          },
        },
        validateRequests: true,
      }),
    );
    app.get("/items", (req, res) => res.json(req.query));
    app.use((error: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(error.status ?? 500).json({ message: error.message });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it("is read as the empty array (OpenAPI's serialization of an empty list: include=)", async () => {
    const response = await fetch(`${base}/items?include=`);
    expect(await response.json()).toEqual({ include: [] });
    expect(response.status).toBe(200);
  });

  it("as for every non-exploded style (pipeDelimited: tags=)", async () => {
    const response = await fetch(`${base}/items?tags=`);
    expect(await response.json()).toEqual({ tags: [] });
  });

  it("leaves values alone: one value, several, and a value the schema refuses", async () => {
    expect(await (await fetch(`${base}/items?include=a`)).json()).toEqual({ include: ["a"] });
    expect(await (await fetch(`${base}/items?include=a,b`)).json()).toEqual({ include: ["a", "b"] });
    const refused = await fetch(`${base}/items?include=c`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/include/);
  });
});

// The library's own modules, as an upstream test reaches them: each patch changes one of them.
const library = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
const fromLibrary = <T>(file: string): T => library(`./${file}`) as T;

/** Counts the instances made of the library's class `name` (exported by `file`) while `run` runs; puts the class back after. */
async function countingInstances(file: string, name: string, run: (built: () => number) => Promise<void>): Promise<void> {
  const module = fromLibrary<Record<string, new (...args: unknown[]) => object>>(file);
  const Original = module[name]!;
  let built = 0;
  module[name] = class extends Original {
    constructor(...args: unknown[]) {
      super(...args);
      built++;
    }
  };
  try {
    await run(() => built);
  } finally {
    module[name] = Original;
  }
}

/** An app validating against `apiSpec` with the library's middleware, `routes` after it, errors as `{ message }`. */
async function serve(
  apiSpec: object,
  routes: (app: express.Express) => void,
  options: Partial<Parameters<typeof OpenApiValidator.middleware>[0]> = {},
  before: express.RequestHandler[] = [],
): Promise<{ base: string; close: () => void }> {
  const app = express();
  app.use(...before, ...(OpenApiValidator.middleware({ apiSpec: apiSpec as never, validateRequests: true, validateResponses: true, ...options }) as unknown as express.RequestHandler[]));
  routes(app);
  app.use((error: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ message: error.message });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** `serve` for the tests of one describe block: started before them, closed after them. */
function servedForBlock(...args: Parameters<typeof serve>): { readonly base: string } {
  let target: Awaited<ReturnType<typeof serve>> | undefined;
  beforeAll(async () => {
    target = await serve(...args);
  });
  afterAll(() => target?.close());
  return {
    get base() {
      return target!.base;
    },
  };
}

/** An OpenAPI 3.1 description of `paths`, titled `title`. */
const describing = (title: string, paths: object) => ({ openapi: "3.1.0", info: { title, version: "1" }, paths });
const json = (schema: object) => ({ "application/json": { schema } });

/** A description of POST /items taking and answering an Item whose `name` is a $ref to a non-empty string; `extra` goes into Item. */
const itemsDescription = (extra: object = {}) => ({
  openapi: "3.1.0",
  info: { title: "items", version: "1" },
  components: {
    schemas: {
      Item: { type: "object", required: ["name"], properties: { name: { $ref: "#/components/schemas/Name" } }, ...extra },
      Name: { type: "string", minLength: 1 },
    },
  },
  paths: {
    "/items": {
      post: {
        requestBody: { required: true, content: json({ $ref: "#/components/schemas/Item" }) },
        responses: { "200": { description: "ok", content: json({ $ref: "#/components/schemas/Item" }) } },
      },
    },
  },
});
const ok = { "200": { description: "ok", content: json({ type: "object" }) } };
/** A deepObject query parameter page[number] (1 by default) and page[size]. */
const pageParameter = { name: "page", in: "query", style: "deepObject", explode: true, schema: { type: "object", properties: { number: { type: "integer", default: 1 }, size: { type: "integer" } } } };

describe("express-openapi-validator+5.6.2+002+route-expressions-once.patch: route expressions compiled once", () => {
  const paths: Record<string, object> = {};
  for (let i = 0; i < 20; i++) paths[`/things${i}/{id}`] = { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: ok } };
  const target = servedForBlock(describing("routes", paths), (app) => app.get("/things19/:id", (req, res) => res.json({ id: req.params.id })));

  it("compiles each described route at most once, however many requests come (was every route on every request)", async () => {
    const pathToRegexp = library(library.resolve("path-to-regexp")) as { pathToRegexp: (...args: unknown[]) => unknown };
    const compile = vi.spyOn(pathToRegexp, "pathToRegexp");
    try {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${target.base}/things19/x${i}`);
        expect(await response.json()).toEqual({ id: `x${i}` });
      }
      expect(compile.mock.calls.length).toBeLessThanOrEqual(20);
      const before = compile.mock.calls.length;
      await fetch(`${target.base}/things19/again`);
      expect(compile.mock.calls.length).toBe(before);
    } finally {
      compile.mockRestore();
    }
  });

  it("still matches, decodes and refuses as before", async () => {
    expect(await (await fetch(`${target.base}/things19/a%20b`)).json()).toEqual({ id: "a b" });
    expect((await fetch(`${target.base}/things19/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${target.base}/nothing`)).status).toBe(404);
  });
});

describe("express-openapi-validator+5.6.2+003+parameter-mutator-per-operation.patch: the parameter mutator", () => {
  const spec = describing("mutator", {
    "/teams": {
      get: {
        parameters: [
          pageParameter,
          { name: "q", in: "query", schema: { type: "string" } },
        ],
        responses: ok,
      },
    },
  });
  const target = servedForBlock(spec, (app) => app.get("/teams", (req, res) => res.json({ query: req.query })));

  it("does not JSON.parse a value that is not text (an absent deepObject's default: a throw and catch on every request)", async () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const response = await fetch(`${target.base}/teams?q=a`);
      expect(response.status).toBe(200);
      expect(parse.mock.calls.filter(([value]) => typeof value !== "string")).toEqual([]);
    } finally {
      parse.mockRestore();
    }
  });

  it("builds one mutator per operation, not one per request", async () => {
    await countingInstances("middlewares/parsers/req.parameter.mutator.js", "RequestParameterMutator", async (built) => {
      const fresh = await serve(spec, (app) => app.get("/teams", (req, res) => res.json({ query: req.query })));
      try {
        for (let i = 0; i < 4; i++) expect((await fetch(`${fresh.base}/teams?q=${i}`)).status).toBe(200);
        expect(built()).toBe(1);
      } finally {
        fresh.close();
      }
    });
  });

  it("reads parameters as before: deepObject members coerced, defaults filled in, bad values refused", async () => {
    expect(await (await fetch(`${target.base}/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20`)).json()).toEqual({ query: { page: { number: 2, size: 20 } } });
    expect(await (await fetch(`${target.base}/teams`)).json()).toEqual({ query: { page: { number: 1 } } });
    expect((await fetch(`${target.base}/teams?page%5Bnumber%5D=two`)).status).toBe(400);
  });
});

describe("express-openapi-validator+5.6.2+004+loaded-spec-without-promise-hops.patch: once loaded, the chain runs at once", () => {
  const pingDescription = describing("hops", { "/ping": { get: { responses: ok } } });
  // Marks the request "sync" now and "async" at the next microtask: a stage reached after a promise hop sees "async".
  const mark: express.RequestHandler = (req, _res, next) => {
    const marked = req as express.Request & { turn?: string };
    marked.turn = "sync";
    queueMicrotask(() => (marked.turn = "async"));
    next();
  };
  const target = servedForBlock(
    pingDescription,
    (app) => app.get("/ping", (req, res) => res.json({ turn: (req as express.Request & { turn?: string }).turn })),
    {},
    [mark],
  );
  beforeAll(async () => {
    await fetch(`${target.base}/ping`); // the description is loaded by the first request
  });

  it("reaches the handler in the same turn as the request entered the chain (was a promise hop per stage)", async () => {
    expect(await (await fetch(`${target.base}/ping`)).json()).toEqual({ turn: "sync" });
  });

  it("still gives the first request, which waits for the description, its answer, and errors to the error handler", async () => {
    const fresh = await serve(pingDescription, (app) => app.get("/ping", (_req, res) => res.json({ pong: true })));
    try {
      expect(await (await fetch(`${fresh.base}/ping`)).json()).toEqual({ pong: true });
      expect((await fetch(`${fresh.base}/nothing`)).status).toBe(404);
    } finally {
      fresh.close();
    }
  });
});

describe("express-openapi-validator+5.6.2+005+validators-keyed-by-what-they-check.patch: one set of validators per operation", () => {
  const spec = describing("keys", {
    "/items": {
      get: { responses: ok },
      post: { requestBody: { required: true, content: json({ type: "object", required: ["name"] }) }, responses: ok },
    },
  });
  const target = servedForBlock(
    spec,
    (app) => {
      app.get("/items", (_req, res) => res.json({ items: [] }));
      app.post("/items", (req, res) => res.json(req.body));
    },
    {},
    [express.json({ type: () => true })],
  );

  it("builds one request and one response validator for a GET whatever Content-Type clients send (was one per spelling: memory without bound)", async () => {
    const requests = fromLibrary<{ RequestValidator: { prototype: { buildMiddleware: () => unknown } } }>("middlewares/openapi.request.validator.js");
    const responses = fromLibrary<{ ResponseValidator: { prototype: { buildValidators: () => unknown } } }>("middlewares/openapi.response.validator.js");
    const buildRequest = vi.spyOn(requests.RequestValidator.prototype, "buildMiddleware");
    const buildResponse = vi.spyOn(responses.ResponseValidator.prototype, "buildValidators");
    try {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${target.base}/items`, { headers: { "content-type": `text/x-${i}` } });
        expect(response.status).toBe(200);
      }
      expect(buildRequest.mock.calls.length).toBeLessThanOrEqual(1);
      expect(buildResponse.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      buildRequest.mockRestore();
      buildResponse.mockRestore();
    }
  });

  it("still picks the body's schema by its media type, and refuses one the operation does not take", async () => {
    const post = (type: string, body: string) => fetch(`${target.base}/items`, { method: "POST", headers: { "content-type": type }, body });
    expect((await post("application/json", '{"name":"a"}')).status).toBe(200);
    expect((await post("application/json", "{}")).status).toBe(400);
    expect((await post("text/plain", '{"name":"a"}')).status).toBe(415);
  });
});

describe("express-openapi-validator+5.6.2+006+response-media-type-chosen-once.patch: an answer's media type worked out once", () => {
  const spec = {
    openapi: "3.1.0",
    info: { title: "answers", version: "1" },
    paths: {
      "/answer": {
        get: {
          parameters: [{ name: "n", in: "query", schema: { type: "string" } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", required: ["n"], properties: { n: { type: "integer" } } } }, "text/csv": { schema: { type: "string" } } } } },
        },
      },
    },
  };
  const target = servedForBlock(spec, (app) =>
    app.get("/answer", (req, res) => {
      const n = String(req.query.n);
      res.json(/^\d+$/.test(n) ? { n: Number(n) } : { n });
    }),
  );

  it("chooses the described media type of an answer, and whether it is JSON, once per kind of answer (was parsed again for every answer)", async () => {
    const util = fromLibrary<{ findResponseContent: (...args: unknown[]) => unknown }>("middlewares/util.js");
    const responses = fromLibrary<{ ResponseValidator: { prototype: { canValidateContentType: () => boolean } } }>("middlewares/openapi.response.validator.js");
    const choose = vi.spyOn(util, "findResponseContent");
    const parse = vi.spyOn(responses.ResponseValidator.prototype, "canValidateContentType");
    try {
      // The first answer builds the operation's validators (which asks whether each described type is JSON) and chooses.
      expect(await (await fetch(`${target.base}/answer?n=0`)).json()).toEqual({ n: 0 });
      choose.mockClear();
      parse.mockClear();
      for (let i = 1; i < 4; i++) expect(await (await fetch(`${target.base}/answer?n=${i}`)).json()).toEqual({ n: i });
      expect(choose).not.toHaveBeenCalled();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      choose.mockRestore();
      parse.mockRestore();
    }
  });

  it("still refuses an answer that breaks the schema, every time", async () => {
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${target.base}/answer?n=seven`);
      expect(response.status).toBe(500);
      expect(((await response.json()) as { message: string }).message).toContain("must be integer");
    }
  });
});

describe("express-openapi-validator+5.6.2+007+meta-schema-only-when-checking.patch: no meta-schema compiled when the description is not checked", () => {
  const spec = describing("start", { "/ping": { get: { responses: ok } } });

  it("builds the OpenAPI meta-schema checker only with validateApiSpec on (was at every start: a compile of the meta-schema)", async () => {
    await countingInstances("framework/openapi.schema.validator.js", "OpenAPISchemaValidator", async (built) => {
      for (const validateApiSpec of [false, true]) {
        const target = await serve(spec, (app) => app.get("/ping", (_req, res) => res.json({})), { validateApiSpec });
        try {
          expect((await fetch(`${target.base}/ping`)).status).toBe(200);
        } finally {
          target.close();
        }
        expect(built()).toBe(validateApiSpec ? 1 : 0);
      }
    });
  });

  it("still refuses a description that breaks the meta-schema when it is checked", async () => {
    const broken = { openapi: "3.1.0", info: { title: "broken" }, paths: { "/ping": { get: { responses: ok } } } };
    const target = await serve(broken, (app) => app.get("/ping", (_req, res) => res.json({})), { validateApiSpec: true });
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect((await fetch(`${target.base}/ping`)).status).toBe(500);
    } finally {
      error.mockRestore();
      target.close();
    }
  });
});

describe("express-openapi-validator+5.6.2+008+local-references-by-pointer.patch: local $refs found by their pointer", () => {
  const spec = itemsDescription();

  it("resolves them without compiling each target into a validator (was a quarter of the servers' start)", async () => {
    const Ajv = library(library.resolve("ajv/dist/core")) as { default: { prototype: { getSchema: (key: string) => unknown } } };
    const getSchema = vi.spyOn(Ajv.default.prototype, "getSchema");
    const target = await serve(spec, (app) => app.post("/items", (req, res) => res.json(req.body)), {}, [express.json()]);
    try {
      const post = (body: string) => fetch(`${target.base}/items`, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(await (await post('{"name":"a"}')).json()).toEqual({ name: "a" });
      expect(getSchema.mock.calls.filter(([key]) => typeof key === "string" && key.startsWith("#/"))).toEqual([]);
      // The references still check what they name.
      expect((await post('{"name":""}')).status).toBe(400);
      expect((await post("{}")).status).toBe(400);
    } finally {
      getSchema.mockRestore();
      target.close();
    }
  });
});

describe("express-openapi-validator+5.6.2+009+request-content-type-and-object-schemas-once.patch: per-request parses kept", () => {
  const spec = describing("writes", {
    "/teams": {
      post: {
        parameters: [
          { name: "page", in: "query", style: "deepObject", explode: true, schema: { type: "object", properties: { size: { type: "integer" } } } },
          { name: "q", in: "query", schema: { type: "string" } },
        ],
        requestBody: { required: true, content: json({ type: "object", required: ["name"], properties: { name: { type: "string" } } }) },
        responses: ok,
      },
    },
  });
  const target = servedForBlock(spec, (app) => app.post("/teams", (req, res) => res.json({ query: req.query, body: req.body })), {}, [express.json()]);
  const post = (body: unknown, contentType = "application/json", query = "?q=a&page[size]=2") =>
    fetch(`${target.base}/teams${query}`, { method: "POST", headers: { "content-type": contentType }, body: JSON.stringify(body) });

  it("parses a request's Content-Type once per spelling (was on every request with a body)", async () => {
    const util = fromLibrary<{ ContentType: { fromString: (type?: string) => unknown; from: (req: unknown) => unknown } }>("middlewares/util.js");
    expect((await post({ name: "a" })).status).toBe(200);
    const fromString = vi.spyOn(util.ContentType, "fromString");
    const from = vi.spyOn(util.ContentType, "from");
    try {
      for (let i = 0; i < 3; i++) expect((await post({ name: `t${i}` })).status).toBe(200);
      expect(fromString).not.toHaveBeenCalled();
      expect(from).not.toHaveBeenCalled();
      // A new spelling is parsed (with its operation's validators built for it) at its first request, then kept too.
      expect((await post({ name: "b" }, "application/json; charset=utf-8")).status).toBe(200);
      expect(fromString).toHaveBeenCalledWith("application/json; charset=utf-8");
      fromString.mockClear();
      for (let i = 0; i < 2; i++) expect((await post({ name: "b" }, "application/json; charset=utf-8")).status).toBe(200);
      expect(fromString).not.toHaveBeenCalled();
    } finally {
      fromString.mockRestore();
      from.mockRestore();
    }
  });

  it("asks once per schema whether a query parameter's schema holds an object (was a walk for every parameter of every request)", async () => {
    const module = fromLibrary<{ RequestParameterMutator: { prototype: { walkObjectOrXOf?: (schema: unknown) => boolean } } }>("middlewares/parsers/req.parameter.mutator.js");
    expect(typeof module.RequestParameterMutator.prototype.walkObjectOrXOf).toBe("function");
    expect((await post({ name: "a" })).status).toBe(200);
    const walk = vi.spyOn(module.RequestParameterMutator.prototype as { walkObjectOrXOf: (schema: unknown) => boolean }, "walkObjectOrXOf");
    try {
      for (let i = 0; i < 3; i++) expect((await post({ name: `t${i}` })).status).toBe(200);
      expect(walk).not.toHaveBeenCalled();
    } finally {
      walk.mockRestore();
    }
  });

  it("still reads and refuses as before: deepObject members coerced, a bad body and a media type it does not take refused", async () => {
    expect(await (await post({ name: "a" })).json()).toEqual({ query: { q: "a", page: { size: 2 } }, body: { name: "a" } });
    expect((await post({ name: 7 })).status).toBe(400);
    expect((await post({ name: "a" }, "text/plain")).status).toBe(415);
    expect((await post({ name: "a" }, "application/json", "?page[size]=x")).status).toBe(400);
  });
});

describe("express-openapi-validator+5.6.2+010+deep-object-members-without-qs.patch: plain deepObject members read without qs.parse", () => {
  const spec = describing("pages", {
    "/teams": {
      get: {
        parameters: [
          pageParameter,
          { name: "filter", in: "query", style: "deepObject", explode: true, schema: { type: "object", additionalProperties: { type: "string" } } },
        ],
        responses: ok,
      },
    },
  });
  const target = servedForBlock(spec, (app) => app.get("/teams", (req, res) => res.json({ query: req.query })));
  const qs = library(library.resolve("qs")) as { parse: (text: string) => Record<string, unknown> };

  it("reads page[number]=2&page[size]=20 without qs.parse (was one qs.parse per bracketed member, every request)", async () => {
    expect((await fetch(`${target.base}/teams?page[number]=1`)).status).toBe(200);
    const parse = vi.spyOn(qs, "parse");
    try {
      const response = await fetch(`${target.base}/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20&filter[names]=a,b`);
      expect(await response.json()).toEqual({ query: { page: { number: 2, size: 20 }, filter: { names: "a,b" } } });
      expect(parse).not.toHaveBeenCalled();
      // What qs reads otherwise than it is written still goes to qs: a plus (a space to qs).
      expect(await (await fetch(`${target.base}/teams?filter[names]=a%2Bb`)).json()).toEqual({ query: { page: { number: 1 }, filter: { names: "a b" } } });
      expect(parse).toHaveBeenCalledWith("filter[names]=a+b");
    } finally {
      parse.mockRestore();
    }
  });

  it("reads every bracketed pair exactly as qs.parse does (2,000 random pairs of names, members and values)", () => {
    const { RequestParameterMutator } = fromLibrary<{ RequestParameterMutator: new (...args: unknown[]) => { handleBracketNotationQueryFields: (query: Record<string, unknown>) => Record<string, unknown> } }>(
      "middlewares/parsers/req.parameter.mutator.js",
    );
    const mutator = new RequestParameterMutator(undefined, undefined, "/", {});
    // Pieces qs reads in its own way: decoding (%, +), splitting (&, =), brackets, array indexes, Object.prototype's names.
    const pieces = ["a", "b", "0", "12", "[", "]", "%", "%41", "+", "&", "=", "_", ".", " ", "__proto__", "constructor", "toString", "?", ",", "é"];
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = (length: number) => Array.from({ length }, () => pieces[random(pieces.length)]).join("");
    for (let i = 0; i < 2_000; i++) {
      const key = `${text(1 + random(2))}[${text(1 + random(2))}]`;
      const value = random(10) === 0 ? [text(1), text(2)] : text(random(4));
      // The library's reading before the patch: qs.parse of the pair, its value under the name before the bracket.
      const name = key.split("[")[0]!;
      const expected = qs.parse(`${key}=${String(value)}`)[name];
      const query = mutator.handleBracketNotationQueryFields({ [key]: value });
      expect({ key, value, read: query[name] }).toEqual({ key, value, read: expected });
    }
  });
});

describe("express-openapi-validator+5.6.2+011+routes-passed-over-by-literal-prefix.patch: a route's expression runs only for paths that start with its text", () => {
  const paths: Record<string, object> = {};
  for (let i = 0; i < 20; i++) paths[`/things${i}/{id}`] = { get: { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: ok } };
  paths["/things19/{id}/parts/{part}"] = {
    get: {
      parameters: ["id", "part"].map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      responses: ok,
    },
  };
  const target = servedForBlock(describing("routes", paths), (app) => {
    app.get("/things19/:id", (req, res) => res.json({ id: req.params.id }));
    app.get("/things19/:id/parts/:part", (req, res) => res.json(req.params));
  });

  it("runs none of the other routes' expressions (was every route's until one matched)", async () => {
    expect((await fetch(`${target.base}/things19/warm`)).status).toBe(200);
    const exec = vi.spyOn(RegExp.prototype, "exec");
    try {
      expect(await (await fetch(`${target.base}/things19/x`)).json()).toEqual({ id: "x" });
      const routesRun = new Set(exec.mock.contexts.map((re) => /things(\d+)/.exec((re as RegExp).source)?.[1]).filter((n) => n !== undefined));
      expect([...routesRun]).toEqual(["19"]);
    } finally {
      exec.mockRestore();
    }
  });

  it("still matches as before: any letter case, parameters between literal parts, and 404 for what no route takes", async () => {
    expect(await (await fetch(`${target.base}/THINGS19/Y`)).json()).toEqual({ id: "Y" });
    expect(await (await fetch(`${target.base}/things19/a/parts/b`)).json()).toEqual({ id: "a", part: "b" });
    expect((await fetch(`${target.base}/things19/a/parts`)).status).toBe(404);
    expect((await fetch(`${target.base}/things2`)).status).toBe(404);
  });
});

describe("express-openapi-validator+5.6.2+013+route-match-read-once-per-route.patch: what a route's match gives is worked out once", () => {
  const paths = {
    "/owners/{owner}/things/{id}": {
      get: {
        parameters: ["owner", "id"].map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
        responses: { "200": { description: "ok", content: json({ type: "object", required: ["owner"], properties: { owner: { type: "string" } } }) } },
      },
    },
  };
  const target = servedForBlock(describing("routes", paths), (app) =>
    app.get("/owners/:owner/things/:id", (req, res) => res.json(req.params.id === "bad-answer" ? { owner: 1 } : { owner: req.params.owner, id: req.params.id, openapi: (req as typeof req & { openapi?: unknown }).openapi })),
  );

  /** Whether an array of path-to-regexp's parameter keys ({ type, name }) was mapped. */
  const keysMapped = (contexts: unknown[]) => contexts.some((c) => Array.isArray(c) && c.length > 0 && c.every((k) => typeof k === "object" && k !== null && "name" in k && (k as { type?: string }).type === "param"));

  it("maps the route's parameter names once, not on every request", async () => {
    expect((await fetch(`${target.base}/owners/o/things/warm`)).status).toBe(200);
    const map = vi.spyOn(Array.prototype, "map");
    try {
      expect((await fetch(`${target.base}/owners/o/things/x`)).status).toBe(200);
      expect(keysMapped(map.mock.contexts)).toBe(false);
    } finally {
      map.mockRestore();
    }
  });

  it("still gives the same match: decoded parameters, req.openapi with both schemas, a 400 for a malformed escape, the answer checked", async () => {
    const body = (await (await fetch(`${target.base}/owners/a%20b/things/%C3%A9`)).json()) as { owner: string; id: string; openapi: Record<string, unknown> };
    expect([body.owner, body.id]).toEqual(["a b", "é"]);
    expect(body.openapi).toMatchObject({ expressRoute: "/owners/:owner/things/:id", openApiRoute: "/owners/{owner}/things/{id}", pathParams: { owner: "a b", id: "é" }, serial: expect.any(Number) });
    expect(Object.keys(body.openapi)).toEqual(expect.arrayContaining(["schema", "_responseSchema"]));
    const malformed = await fetch(`${target.base}/owners/%E0%A4%A/things/x`);
    expect([malformed.status, ((await malformed.json()) as { message: string }).message]).toEqual([400, "malformed uri'"]);
    expect((await fetch(`${target.base}/owners/o/things/bad-answer`)).status).toBe(500);
  });
});

describe("express-openapi-validator+5.6.2+014+array-parameter-without-url-parse.patch: a non-exploded array parameter read without parsing the URL again", () => {
  const paths = {
    "/items": {
      get: {
        // allowReserved: the library's check of reserved characters (which does need the raw query) is off.
        parameters: [{ name: "include", in: "query", style: "form", explode: false, allowReserved: true, schema: { type: "array", items: { type: "string" } } }],
        responses: ok,
      },
    },
  };
  const target = servedForBlock(describing("arrays", paths), (app) => app.get("/items", (req, res) => res.json(req.query)));

  it("does not url.parse the request's URL (its raw values were made and dropped: a parse of the whole URL on every request)", async () => {
    expect((await fetch(`${target.base}/items?include=warm`)).status).toBe(200);
    const nodeUrl = createRequire(import.meta.url)("node:url") as { parse: (...args: unknown[]) => unknown };
    const parse = vi.spyOn(nodeUrl, "parse");
    try {
      expect(await (await fetch(`${target.base}/items?include=a,b`)).json()).toEqual({ include: ["a", "b"] });
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it("splits the values as before: at commas, an encoded comma too (decoded first), one value alone", async () => {
    expect(await (await fetch(`${target.base}/items?include=a,b`)).json()).toEqual({ include: ["a", "b"] });
    expect(await (await fetch(`${target.base}/items?include=a%2Cb`)).json()).toEqual({ include: ["a", "b"] });
    expect(await (await fetch(`${target.base}/items?include=a%20b`)).json()).toEqual({ include: ["a b"] });
  });
});

describe("express-openapi-validator+5.6.2+012+description-walked-once.patch: the description is not walked again for each validator", () => {

  /** The members of each schema ajv's addSchema walks for identifiers (getSchemaRefs), for POSTs of `bodies`; and the statuses. */
  async function walked(spec: object, answer: (body: { name?: string }) => object, bodies: string[]) {
    const resolve = library(library.resolve("ajv/dist/compile/resolve")) as { getSchemaRefs: (schema: object, baseId: string) => unknown };
    const getSchemaRefs = vi.spyOn(resolve, "getSchemaRefs");
    const target = await serve(spec, (app) => app.post("/items", (req, res) => res.json(answer(req.body))), {}, [express.json()]);
    try {
      const statuses: number[] = [];
      for (const body of bodies) statuses.push((await fetch(`${target.base}/items`, { method: "POST", headers: { "content-type": "application/json" }, body })).status);
      const members = getSchemaRefs.mock.calls.map(([schema]) => Object.keys(schema));
      return { members, statuses };
    } finally {
      getSchemaRefs.mockRestore();
      target.close();
    }
  }

  it("gives ajv each validator's schema without the description's paths and components to walk (was the whole description per validator)", async () => {
    const { members, statuses } = await walked(itemsDescription(), (body) => body, ['{"name":"a"}']);
    expect(statuses).toEqual([200]);
    expect(members.length).toBeGreaterThanOrEqual(3); // the request's parameters and body, the answer
    for (const keys of members) expect(keys).not.toEqual(expect.arrayContaining(["components"]));
    for (const keys of members) expect(keys).not.toEqual(expect.arrayContaining(["paths"]));
  });

  it("still resolves their $refs: a bad body and a bad answer are refused", async () => {
    const { statuses } = await walked(itemsDescription(), (body) => (body.name === "b" ? { name: "" } : body), ['{"name":"a"}', '{"name":""}', "{}", '{"name":"b"}']);
    expect(statuses).toEqual([200, 400, 400, 500]);
  });

  it("walks them as before when the description declares an identifier or an anchor in them", async () => {
    // What the library then makes of the identifier is its own business, unchanged by the patch.
    const { members } = await walked(itemsDescription({ $anchor: "item" }), (body) => body, ['{"name":"a"}']);
    expect(members.some((keys) => keys.includes("components"))).toBe(true);
  });
});

describe("fast-check+4.10.2+001+string-unit-code-point-index.patch: a string unit of code points unmaps a character by arithmetic", () => {
  // The binary units (and grapheme-composite) are mapToConstant over ranges of single code points. Its
  // unmapper looked characters up in a reverse map of every value it can build, 1,112,064 entries for
  // the full alphabet, built as soon as a string of that unit was created (its slices are tokenized
  // with it): about 0.7 s of CPU and 85 MB in every process that builds fc.webUrl() or a binary string.
  /** Heap kept (MB) by building the first binary string arbitrary in a fresh process, with the ESM and the CJS build. */
  const heapKept = (load: string) =>
    Number(
      execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", `${load}\nglobalThis.gc(); const before = process.memoryUsage().heapUsed;\nconst arb = fc.string({ unit: "binary" }); arb.canShrinkWithoutContext("a");\nglobalThis.gc(); console.log((process.memoryUsage().heapUsed - before) / 1e6);`], {
        cwd: import.meta.dirname,
        encoding: "utf8",
      }),
    );

  it("keeps no reverse map of the million characters (was about 85 MB), in the ESM and the CJS build", () => {
    expect(heapKept('import fc from "fast-check";')).toBeLessThan(10);
    expect(heapKept('import { createRequire } from "node:module"; const fc = createRequire(import.meta.url)("fast-check");')).toBeLessThan(10);
  });

  // The reference: the same code points as the full alphabet ([0, 0xd7ff] and [0xe000, 0x10ffff]) and
  // the ASCII one, their indexes computed independently.
  const fullReference = fc.nat({ max: 0x10ffff - 0x800 }).map(
    (i) => String.fromCodePoint(i < 0xd800 ? i : i + 0x800),
    (value) => {
      const codePoint = typeof value === "string" && [...value].length === 1 ? value.codePointAt(0)! : -1;
      if (codePoint < 0 || (codePoint >= 0xd800 && codePoint <= 0xdfff)) throw new Error("not a code point");
      return codePoint < 0xd800 ? codePoint : codePoint - 0x800;
    },
  );
  const asciiReference = fc.mapToConstant({ num: 128, build: (i) => String.fromCodePoint(i) });
  const probes = ["", "a", "Zz9", "\x7f", "\x80", "é", "\ud7ff", "\ud800", "\udc00", "\ue000", "\ud800\udc00", "😀", "😀x", "\u{10ffff}", "a\ud800b", "\udbff\udfff"];

  for (const [unit, reference] of [["binary", fullReference], ["binary-ascii", asciiReference]] as const) {
    it(`${unit}: the same values for a seed, and the same answers to canShrinkWithoutContext and shrink without context`, () => {
      const patched = fc.string({ unit });
      const expected = fc.string({ unit: reference });
      const values = fc.sample(patched, { seed: 42, numRuns: 300 });
      expect(values).toEqual(fc.sample(expected, { seed: 42, numRuns: 300 }));
      for (const value of [...probes, ...values.slice(0, 60)]) {
        const can = expected.canShrinkWithoutContext(value);
        expect(patched.canShrinkWithoutContext(value), JSON.stringify(value)).toBe(can);
        if (can) expect([...patched.shrink(value, undefined).take(20)].map((s) => s.value)).toEqual([...expected.shrink(value, undefined).take(20)].map((s) => s.value));
      }
    });
  }
});

describe("@redocly+openapi-core+1.34.24+001+discriminator-mapping-schema-names.patch: a discriminator mapping value may be a schema name", () => {
  // Through openapi-typescript (what `npm run generate` runs), whose lint and bundle are openapi-core's.
  const withMapping = (mapping: Record<string, string>) => ({
    openapi: "3.1.0",
    info: { title: "pets", version: "1" },
    paths: {
      "/pets": {
        post: {
          requestBody: { content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }], discriminator: { propertyName: "kind", mapping } } } } },
          responses: { "204": { description: "taken" } },
        },
      },
    },
    components: {
      schemas: {
        Cat: { type: "object", required: ["kind"], properties: { kind: { type: "string" }, meows: { type: "boolean" } } },
        Dog: { type: "object", required: ["kind"], properties: { kind: { type: "string" }, barks: { type: "boolean" } } },
      },
    },
  });
  const typesOf = async (doc: object) => {
    const { default: openapiTS, astToString } = await import("openapi-typescript");
    return astToString(await openapiTS(doc as never, { silent: true }));
  };

  it("bundles a description whose mapping names a schema (OpenAPI: mapping values are schema names or references)", async () => {
    const types = await typesOf(withMapping({ cat: "Cat", dog: "#/components/schemas/Dog" }));
    expect(types).toContain("meows?: boolean;");
    expect(types).toContain('kind: "dog";');
  });

  it("still refuses a reference that resolves to nothing", async () => {
    await expect(typesOf(withMapping({ cat: "Cat", bird: "#/components/schemas/Bird" }))).rejects.toThrow("Can't resolve $ref");
  });
});

describe("openapi-typescript+7.13.0+001+discriminator-mapping-schema-names.patch: a mapping value that names a schema types its discriminator", () => {
  it("gives the schema the mapped value (cat), as for a reference (dog), not its name (Cat)", async () => {
    const { default: openapiTS, astToString } = await import("openapi-typescript");
    const pet = (kind: string) => ({ type: "object", required: ["kind"], properties: { kind: { type: "string" } }, title: kind });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const types = astToString(
      await openapiTS({
        openapi: "3.1.0",
        info: { title: "pets", version: "1" },
        paths: {},
        components: {
          schemas: {
            Pet: { oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }], discriminator: { propertyName: "kind", mapping: { cat: "Cat", dog: "#/components/schemas/Dog" } } },
            Cat: pet("Cat"),
            Dog: pet("Dog"),
          },
        },
      } as never),
    );
    const warned = warn.mock.calls.flat().join("\n");
    warn.mockRestore();
    expect(types.match(/kind: "[^"]*";/g)).toEqual(['kind: "cat";', 'kind: "dog";']);
    expect(warned).not.toContain("Discriminator mapping has an invalid schema");
  });
});
