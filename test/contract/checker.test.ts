// The contract checker on a small hand-made description: routing, parameter rules of OpenAPI
// (empty values, reserved characters, undocumented parameters), bodies, media types, status
// ranges, and errors that name the discriminated alternative's field.
import { describe, expect, it } from "vitest";
import { contractChecker, holdsMoreValuesThan, MAX_VALUES_FOR_EVERY_PROBLEM, MAX_VIOLATIONS, type WireRequest, type WireResponse } from "../../scripts/contract/checker.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { withFormBody, withMultipartBody } from "../fixtures/form-body.ts";
import { withObjectParameters } from "../fixtures/object-parameters.ts";
import { WITH_IGNORED_HEADER_PARAMETERS } from "../fixtures/ignored-header-parameters.ts";

const doc: OpenApiDoc = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/pets/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
      get: {
        operationId: "readPet",
        parameters: [
          { name: "fields", in: "query", schema: { type: "string" } },
          { name: "flag", in: "query", allowEmptyValue: true, schema: { type: "string" } },
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
          { name: "X-Limit", in: "header", schema: { type: "integer", maximum: 10 } },
        ],
        responses: {
          "200": { description: "ok", content: { "application/vnd.api+json": { schema: { $ref: "#/components/schemas/Pet" } } } },
          "4XX": { description: "error", content: { "application/*": { schema: { type: "object", required: ["errors"] } } } },
        },
      },
    },
    "/pets/mine": {
      get: { operationId: "readMyPet", responses: { "204": { description: "none" } } },
    },
    "/pets": {
      put: {
        operationId: "putPet",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } } },
        responses: { default: { description: "any", content: { "text/plain": { schema: { type: "string", minLength: 1 } } } } },
      },
    },
  },
  components: {
    schemas: {
      Pet: {
        oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }],
        discriminator: { propertyName: "kind", mapping: { cat: "#/components/schemas/Cat", dog: "Dog" } },
      },
      Cat: { type: "object", additionalProperties: false, required: ["kind", "lives"], properties: { kind: { type: "string" }, lives: { type: "integer", maximum: 9 } } },
      Dog: { type: "object", additionalProperties: false, required: ["kind", "good"], properties: { kind: { type: "string" }, good: { type: "boolean" } } },
    },
  },
};

const checker = contractChecker(doc);
const get = (path: string, query: [string, string][] = [], headers: Record<string, string> = {}, rawQuery?: string): WireRequest => ({
  method: "GET",
  path,
  query,
  headers,
  rawQuery: rawQuery ?? query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&"),
});
const put = (body: string | undefined, contentType = "application/json"): WireRequest => ({
  method: "PUT",
  path: "/pets",
  query: [],
  headers: body === undefined ? {} : { "content-type": contentType },
  body,
});
const pointersOf = (request: WireRequest, response?: WireResponse) => checker.checkExchange(request, response).map((v) => `${v.pointer}: ${v.reason}`);

describe("routing", () => {
  it("prefers a concrete path to a templated one, and decodes path parameters", () => {
    expect(checker.match("GET", "/pets/mine")?.operation.operationId).toBe("readMyPet");
    expect(checker.match("get", "/pets/7")).toMatchObject({ operation: { operationId: "readPet" }, pathParams: { id: "7" } });
    expect(pointersOf(get("/pets/%37"))).toEqual([]);
    expect(pointersOf(get("/pets/seven"))).toEqual(["/request/path/id: must be integer"]);
  });

  it("reports a method or path the description does not have", () => {
    expect(checker.checkExchange({ method: "DELETE", path: "/pets/7", query: [], headers: {} })).toEqual([
      { kind: "undocumented-operation", operation: "DELETE /pets/7", pointer: "/request", reason: "no operation is documented for DELETE /pets/7" },
    ]);
  });
});

describe("parameters", () => {
  it("refuses an empty value unless allowEmptyValue, and undocumented query parameters", () => {
    expect(pointersOf(get("/pets/1", [["flag", ""]]))).toEqual([]);
    expect(pointersOf(get("/pets/1", [["fields", ""]]))).toEqual(["/request/query/fields: empty value (allowEmptyValue is not set)"]);
    expect(pointersOf(get("/pets/1", [["debug", "1"]]))).toEqual(["/request/query/debug: is not a documented query parameter"]);
  });

  it("refuses reserved characters that are not percent-encoded, as allowReserved says", () => {
    expect(pointersOf(get("/pets/1", [["fields", "a*b"]], {}, "fields=a%2Ab"))).toEqual([]);
    expect(pointersOf(get("/pets/1", [["fields", "a*b"]], {}, "fields=a*b"))).toEqual([
      '/request/query/fields: reserved character not percent-encoded in "a*b" (allowReserved is not set)',
    ]);
  });

  it("splits an array that is not exploded by its style's delimiter: a comma, a space or a pipe", () => {
    const styled = contractChecker({
      openapi: "3.1.0",
      info: { title: "s", version: "1" },
      paths: {
        "/s": {
          get: {
            parameters: [
              { name: "c", in: "query", explode: false, schema: { type: "array", items: { type: "integer" } } },
              { name: "s", in: "query", style: "spaceDelimited", explode: false, schema: { type: "array", items: { type: "integer" } } },
              { name: "p", in: "query", style: "pipeDelimited", explode: false, schema: { type: "array", items: { type: "integer" } } },
            ],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const problems = (query: [string, string][], raw: string) => styled.checkExchange(get("/s", query, {}, raw)).map((v) => `${v.pointer}: ${v.reason}`);
    expect(problems([["c", "1,2"], ["s", "3 4"], ["p", "5|6"]], "c=1,2&s=3%204&p=5|6")).toEqual([]);
    expect(problems([["s", "3,4"], ["p", "5,6"]], "s=3%2C4&p=5%2C6")).toEqual(["/request/query/s/0: must be integer", "/request/query/p/0: must be integer"]);
  });

  it("reads repeated query parameters as an array, and a repeated scalar as a mistake", () => {
    expect(pointersOf(get("/pets/1", [["tags", "a"], ["tags", "b"]]))).toEqual([]);
    expect(pointersOf(get("/pets/1", [["fields", "a"], ["fields", "b"]]))).toEqual(["/request/query/fields: given 2 times but is not an array"]);
  });

  it("parses header parameters by their schema (names are case-insensitive)", () => {
    expect(pointersOf(get("/pets/1", [], { "x-limit": "5" }))).toEqual([]);
    expect(pointersOf(get("/pets/1", [], { "x-limit": "50" }))).toEqual(["/request/header/X-Limit: must be <= 10"]);
  });
});

describe("an object query parameter in style form, exploded (the default)", () => {
  const things = contractChecker({
    openapi: "3.1.0",
    info: { title: "o", version: "1" },
    paths: {
      "/things": {
        get: {
          parameters: [
            { name: "filter", in: "query", required: true, schema: { type: "object", properties: { color: { type: "string", enum: ["red"] }, size: { type: "integer" } } } },
            { name: "page", in: "query", schema: { type: "integer" } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const query = (pairs: [string, string][]) => things.checkExchange(get("/things", pairs)).map((v) => `${v.pointer}: ${v.reason}`);

  it("is its properties as fields of the query, each read by its schema", () => {
    expect(query([["color", "red"], ["size", "2"], ["page", "1"]])).toEqual([]);
    expect(query([["size", "x"], ["color", "blue"]])).toEqual(['/request/query/filter/color: must be equal to one of the allowed values: ["red"]', "/request/query/filter/size: must be integer"]);
  });

  it("is missing when none of its fields is there; a field it does not have is still undocumented", () => {
    expect(query([["page", "1"]])).toEqual(["/request/query/filter: required query parameter is missing"]);
    expect(query([["size", "2"], ["shape", "round"]])).toEqual(["/request/query/shape: is not a documented query parameter"]);
  });
});

describe("an API key in the query", () => {
  // Declared by a security scheme (apiKey, in: query), not as a parameter: a request carries it.
  const keyed = (security: Record<string, string[]>[] | undefined) =>
    contractChecker({
      openapi: "3.1.0",
      info: { title: "k", version: "1" },
      security: [{ key: [] }],
      components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" }, header: { type: "apiKey", in: "header", name: "X-Key" } } },
      paths: { "/things": { get: { ...(security ? { security } : {}), parameters: [{ name: "page", in: "query", schema: { type: "integer" } }], responses: { "200": { description: "ok" } } } } },
    });
  const sent = (security?: Record<string, string[]>[]) =>
    keyed(security)
      .checkExchange(get("/things", [["api_key", "s3cret"], ["page", "1"]]))
      .map((v) => `${v.pointer}: ${v.reason}`);

  it("is no undocumented parameter where the operation's security (or the document's) names its scheme", () => {
    expect(sent()).toEqual([]);
    expect(sent([{ header: [] }, { key: [] }])).toEqual([]);
  });

  it("is one where the operation's security does not name it", () => {
    expect(sent([{ header: [] }])).toEqual(["/request/query/api_key: is not a documented query parameter"]);
    expect(sent([])).toEqual(["/request/query/api_key: is not a documented query parameter"]);
  });
});

describe("header parameters OpenAPI ignores", () => {
  it("does not check one named Accept, Content-Type or Authorization, in any letter case; other headers still", () => {
    const reports = contractChecker(WITH_IGNORED_HEADER_PARAMETERS);
    const check = (headers: Record<string, string>) => reports.checkExchange(get("/reports/1", [], headers)).map((v) => `${v.pointer}: ${v.reason}`);
    expect(check({ accept: "*/*", "x-trace": "abcd" })).toEqual([]);
    expect(check({ accept: "text/html", authorization: "Basic eA==", "content-type": "text/plain", "x-trace": "abcd" })).toEqual([]);
    expect(check({ accept: "*/*" })).toEqual(["/request/header/X-Trace: required header parameter is missing"]);
    expect(check({ "x-trace": "ab" })).toEqual(["/request/header/X-Trace: must NOT have fewer than 4 characters"]);
  });
});

describe("readOnly and writeOnly properties", () => {
  // OpenAPI: a required readOnly property is required in a response only, a required writeOnly one
  // in a request only (here readOnly beside a $ref, and writeOnly in the $ref's target).
  const users = contractChecker({
    openapi: "3.1.0",
    info: { title: "u", version: "1" },
    paths: {
      "/users": {
        post: {
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } },
          responses: { "201": { description: "made", content: { "application/json": { schema: { $ref: "#/components/schemas/User" } } } } },
        },
      },
    },
    components: {
      schemas: {
        User: {
          type: "object",
          required: ["id", "name", "password"],
          properties: { id: { $ref: "#/components/schemas/Id", readOnly: true }, name: { type: "string" }, password: { $ref: "#/components/schemas/Secret" } },
        },
        Id: { type: "string" },
        Secret: { type: "string", writeOnly: true },
      },
    },
  });
  const exchange = (request: object, response: object) =>
    users
      .checkExchange(
        { method: "POST", path: "/users", query: [], headers: { "content-type": "application/json" }, body: JSON.stringify(request) },
        { status: 201, headers: { "content-type": "application/json" }, body: JSON.stringify(response) },
      )
      .map((v) => `${v.pointer}: ${v.reason}`);

  it("asks a request for the writeOnly ones and not the readOnly ones, a response the other way round", () => {
    expect(exchange({ name: "a", password: "p" }, { id: "1", name: "a" })).toEqual([]);
    expect(exchange({ name: "a" }, { name: "a" })).toEqual(["/request/body/password: is required", "/response/body/id: is required"]);
  });

  it("still asks both for the other required properties, and checks the flagged ones when they are sent", () => {
    expect(exchange({ password: "p" }, { id: "1" })).toEqual(["/request/body/name: is required", "/response/body/name: is required"]);
    expect(exchange({ id: 1, name: "a", password: "p" }, { id: "1", name: "a", password: 2 })).toEqual(["/request/body/id: must be string", "/response/body/password: must be string"]);
  });
});

describe("an OpenAPI 3.0 description", () => {
  // Its schemas read as 3.0 says: nullable, and exclusive bounds as booleans beside the bound.
  // Before, a nullable without a type made ajv refuse the schema: the check threw.
  const thirty = (openapi: string): OpenApiDoc => ({
    openapi,
    info: { title: "v", version: "1" },
    paths: {
      "/things": {
        get: {
          parameters: [{ name: "above", in: "query", schema: { type: "integer", minimum: 0, exclusiveMinimum: true } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: "object",
          properties: {
            name: { type: "string", nullable: true },
            color: { type: "string", enum: ["red"], nullable: true },
            owner: { allOf: [{ $ref: "#/components/schemas/Owner" }], nullable: true },
            size: { type: "number", maximum: 10, exclusiveMaximum: false },
            example: { type: "object", nullable: true, example: { nullable: true } },
          },
        },
        Owner: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
      },
    },
  });
  const answer = (openapi: string, query: [string, string][], body: object) =>
    contractChecker(thirty(openapi))
      .checkExchange(
        { method: "GET", path: "/things", query, headers: {}, rawQuery: query.map(([k, v]) => `${k}=${v}`).join("&") },
        { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      )
      .map((v) => `${v.pointer}: ${v.reason}`);

  it("takes null where a schema is nullable (beside a type, an enum, or an allOf without a type), and only there", () => {
    expect(answer("3.0.3", [], { name: null, color: null, owner: null, example: null })).toEqual([]);
    expect(answer("3.0.3", [], { name: "n", color: "red", owner: { id: "1" }, size: 10 })).toEqual([]);
    expect(answer("3.0.3", [], { color: "blue", owner: {}, size: null })).toEqual([
      "/response/body/color: must be equal to one of the allowed values: [\"red\",null]",
      "/response/body/owner/id: is required",
      "/response/body/size: must be number",
    ]);
  });

  it("reads exclusiveMinimum: true as a bound that is not taken, and exclusiveMaximum: false as none", () => {
    expect(answer("3.0.3", [["above", "1"]], {})).toEqual([]);
    expect(answer("3.0.3", [["above", "0"]], {})).toEqual(["/request/query/above: must be > 0"]);
  });

  it("reads them so in a 3.1 description that kept them too (before, ajv refused such a schema and the check threw)", () => {
    expect(answer("3.1.0", [["above", "0"]], { owner: null, color: null })).toEqual(["/request/query/above: must be > 0"]);
  });
});

describe("form bodies (application/x-www-form-urlencoded)", () => {
  // OpenAPI: an object schema whose properties are the fields; arrays repeat their name (explode),
  // or are one comma-separated field with explode: false in the encoding.
  const tokens = contractChecker(
    withFormBody(
      {
        type: "object",
        required: ["grant_type"],
        properties: {
          grant_type: { type: "string", enum: ["client_credentials"] },
          scope: { type: "array", items: { type: "string" } },
          tags: { type: "array", items: { type: "integer" } },
          ttl: { type: "integer", minimum: 1 },
          renew: { type: "boolean" },
        },
      },
      { tags: { explode: false } },
    ),
  );
  const form = (body: string) =>
    tokens.checkExchange({ method: "POST", path: "/token", query: [], headers: { "content-type": "application/x-www-form-urlencoded" }, body }).map((v) => `${v.pointer}: ${v.reason}`);

  it("reads the fields by their schemas: numbers, booleans, repeated and comma-separated arrays, + as a space", () => {
    expect(form("grant_type=client_credentials&ttl=30&renew=true&scope=read+all&scope=write&tags=1,2")).toEqual([]);
  });

  it("refuses what the schema refuses, field by field", () => {
    expect(form("ttl=30")).toEqual(["/request/body/grant_type: is required"]);
    // An empty form is a form with no field, not a missing body.
    expect(form("")).toEqual(["/request/body/grant_type: is required"]);
    expect(form("grant_type=password&ttl=0&renew=yes&tags=1,x")).toEqual([
      '/request/body/grant_type: must be equal to one of the allowed values: ["client_credentials"]',
      "/request/body/tags/1: must be integer",
      "/request/body/ttl: must be >= 1",
      "/request/body/renew: must be boolean",
    ]);
    expect(form("grant_type=client_credentials&grant_type=client_credentials")).toEqual([
      "/request/body/grant_type: must be string",
      '/request/body/grant_type: must be equal to one of the allowed values: ["client_credentials"]',
    ]);
  });

  it("reads fields named with brackets as the nested objects and arrays they name (style deepObject, as Stripe's forms)", () => {
    const charges = contractChecker(
      withFormBody({
        type: "object",
        required: ["amount"],
        properties: {
          amount: { type: "integer" },
          card: { type: "object", properties: { number: { type: "string" }, exp_month: { type: "integer", minimum: 1, maximum: 12 } } },
          items: { type: "array", items: { type: "object", required: ["price"], properties: { price: { type: "string" }, quantity: { type: "integer" } } } },
          metadata: { anyOf: [{ type: "object", additionalProperties: { type: "string" } }, { type: "string", enum: [""] }] },
          expand: { type: "array", items: { type: "string" } },
          capture: { type: "boolean" },
        },
      }),
    );
    const charge = (body: string) =>
      charges.checkExchange({ method: "POST", path: "/token", query: [], headers: { "content-type": "application/x-www-form-urlencoded" }, body }).map((v) => `${v.pointer}: ${v.reason}`);
    expect(charge("amount=500&card[number]=4242&card[exp_month]=12&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2&metadata[order]=7&expand[]=customer&expand[]=invoice&capture=false")).toEqual([]);
    expect(charge("amount=500&card%5Bnumber%5D=4242&metadata=&expand=customer")).toEqual([]);
    expect(charge("amount=5.5&card[exp_month]=13&items[0][quantity]=two&capture=maybe")).toEqual([
      "/request/body/amount: must be integer",
      "/request/body/card/exp_month: must be <= 12",
      "/request/body/items/0/price: is required",
      "/request/body/items/0/quantity: must be integer",
      "/request/body/capture: must be boolean",
    ]);
    expect(charge("amount=1&card[number][x]=1&metadata=set")).toEqual([
      "/request/body/card/number: must be string",
      '/request/body/metadata: must be equal to one of the allowed values: [""]',
    ]);
  });
});

describe("multipart bodies (multipart/form-data)", () => {
  // OpenAPI: an object schema whose properties are the parts; an array is repeated parts of its name,
  // an object is JSON (its default Content-Type), a file is its content (format binary).
  const uploads = contractChecker(
    withMultipartBody({
      type: "object",
      required: ["file", "title"],
      properties: {
        title: { type: "string", minLength: 1 },
        pages: { type: "integer", minimum: 1 },
        draft: { type: "boolean" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        meta: { type: "object", required: ["lang"], properties: { lang: { type: "string" } } },
        file: { type: "string", format: "binary" },
      },
    }),
  );
  const BOUNDARY = "----form7MA4YWxkTrZu0gW";
  const part = (name: string, value: string, headers = "") => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${value}\r\n`;
  const body = (...parts: string[]) => `${parts.join("")}--${BOUNDARY}--\r\n`;
  const upload = (text: string, contentType = `multipart/form-data; boundary=${BOUNDARY}`) =>
    uploads.checkExchange({ method: "POST", path: "/token", query: [], headers: { "content-type": contentType }, body: text }).map((v) => `${v.pointer}: ${v.reason}`);
  const file = part("file", "%PDF-1.7\r\n\u0000binary", 'Content-Type: application/pdf\r\n').replace('name="file"', 'name="file"; filename="a \\"b\\".pdf"');

  it("reads each part by its schema: numbers, booleans, repeated parts, JSON objects and files", () => {
    expect(upload(body(part("title", "Report"), part("pages", "12"), part("draft", "false"), part("tags", "a"), part("tags", "b"), part("meta", '{"lang":"en"}'), file))).toEqual([]);
    // A JSON part said so, a quoted boundary, a preamble and an epilogue.
    const quoted = `preamble\r\n${body(part("title", "R"), part("meta", '{"lang":"en"}', "Content-Type: application/json\r\n"), file)}epilogue`;
    expect(upload(quoted, `multipart/form-data; boundary="${BOUNDARY}"`)).toEqual([]);
  });

  it("refuses what the schema refuses, part by part", () => {
    expect(upload(body(part("title", "R")))).toEqual(["/request/body/file: is required"]);
    expect(upload(body(part("title", ""), part("pages", "0"), part("draft", "yes"), part("tags", "c"), part("meta", "{}"), file))).toEqual([
      "/request/body/title: must NOT have fewer than 1 characters",
      "/request/body/pages: must be >= 1",
      "/request/body/draft: must be boolean",
      "/request/body/tags/0: must be equal to one of the allowed values: [\"a\",\"b\"]",
      "/request/body/meta/lang: is required",
    ]);
    expect(upload(body(part("title", "R"), part("meta", "not json"), file))).toEqual(["/request/body/meta: must be object"]);
    expect(upload(body(part("title", "R"), part("title", "S"), file))).toEqual(["/request/body/title: must be string"]);
  });

  it("refuses a body that is not multipart under its boundary, saying why", () => {
    expect(upload(body(part("title", "R"), file), "multipart/form-data")).toEqual(["/request/body: body is multipart/form-data without a boundary in its Content-Type"]);
    const under = `body is not multipart/form-data under the boundary "${BOUNDARY}"`;
    expect(upload("title=R")).toEqual([`/request/body: ${under}: no delimiter line`]);
    expect(upload(part("title", "R"))).toEqual([`/request/body: ${under}: no closing delimiter (--boundary--)`]);
    expect(upload(body(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n`))).toEqual([`/request/body: ${under}: a part has no name`]);
    expect(upload(body(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n`))).toEqual([`/request/body: ${under}: a part has no Content-Disposition: form-data`]);
    expect(upload(body(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\nR\r\n`))).toEqual([`/request/body: ${under}: a part's headers do not end with an empty line`]);
    expect(upload(`--${BOUNDARY}xyz\r\n`)).toEqual([`/request/body: ${under}: a delimiter line does not end after the boundary`]);
  });
});

describe("parameters described by content (a JSON value in the query or a header), and one without a schema", () => {
  const searches = contractChecker({
    openapi: "3.1.0",
    info: { title: "content", version: "1" },
    paths: {
      "/search": {
        get: {
          parameters: [
            { name: "filter", in: "query", required: true, content: { "application/json": { schema: { type: "object", required: ["a"], properties: { a: { type: "integer" } } } } } },
            { name: "X-Context", in: "header", content: { "application/json": { schema: { type: "array", items: { type: "string" } } } } },
            { name: "note", in: "query", content: { "text/plain": { schema: { type: "string", maxLength: 3 } } } },
            // OpenAPI asks for a schema or content; one with neither is taken as any value.
            { name: "anything", in: "query" },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const search = (query: string, headers: Record<string, string> = {}) =>
    searches.checkExchange({ method: "GET", path: "/search", query: [...new URLSearchParams(query)], rawQuery: query, headers }).map((v) => `${v.pointer}: ${v.reason}`);
  const filter = (value: string) => `filter=${encodeURIComponent(value)}`;

  it("reads the value in its media type and checks it against the content's schema", () => {
    expect(search(`${filter('{"a":1}')}&note=abc&anything=x`, { "x-context": '["a","b"]' })).toEqual([]);
    expect(search(filter('{"a":"x"}'), { "x-context": '{"a":1}' })).toEqual(["/request/query/filter/a: must be integer", "/request/header/X-Context: must be array"]);
    expect(search(`${filter('{"a":1}')}&note=abcd`)).toEqual(["/request/query/note: must NOT have more than 3 characters"]);
  });

  it("refuses text that is not JSON, a value given twice, and a missing required one", () => {
    expect(search("filter=notjson")).toEqual(["/request/query/filter: is not valid JSON (its content is application/json)"]);
    expect(search(`${filter('{"a":1}')}&${filter('{"a":2}')}`)).toEqual(["/request/query/filter: given 2 times but is one application/json value"]);
    expect(search("")).toEqual(["/request/query/filter: required query parameter is missing"]);
  });
});

describe("path parameters in style label and matrix", () => {
  const styled = contractChecker({
    openapi: "3.1.0",
    info: { title: "styles", version: "1" },
    paths: {
      "/label/{id}/{ids}/{tags}": {
        get: {
          parameters: [
            { name: "id", in: "path", required: true, style: "label", schema: { type: "integer" } },
            { name: "ids", in: "path", required: true, style: "label", explode: true, schema: { type: "array", items: { type: "integer" } } },
            { name: "tags", in: "path", required: true, style: "label", schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
      "/matrix/{id}/{ids}/{tags}": {
        get: {
          parameters: [
            { name: "id", in: "path", required: true, style: "matrix", schema: { type: "integer" } },
            { name: "ids", in: "path", required: true, style: "matrix", explode: true, schema: { type: "array", items: { type: "integer" } } },
            { name: "tags", in: "path", required: true, style: "matrix", schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const get = (path: string) => styled.checkExchange({ method: "GET", path, query: [], headers: {} }).map((v) => `${v.pointer}: ${v.reason}`);

  it("reads each value after its style's prefix, an exploded array's items each after one", () => {
    expect(get("/label/.5/.3.4/.a,b")).toEqual([]);
    expect(get("/matrix/;id=5/;ids=3;ids=4/;tags=a,b")).toEqual([]);
    expect(get("/label/.x/.3.y/.a,c")).toEqual(["/request/path/id: must be integer", "/request/path/ids/1: must be integer", '/request/path/tags/1: must be equal to one of the allowed values: ["a","b"]']);
  });

  it("reads an object as OpenAPI's style examples write it (.R,100,G,200 / .R=100.G=200 / ;color=R,100,G,200 / ;R=100;G=200)", () => {
    const color = { type: "object", additionalProperties: false, properties: { R: { type: "integer" }, G: { type: "integer" } } };
    const colors = contractChecker({
      openapi: "3.1.0",
      info: { title: "objects", version: "1" },
      paths: {
        "/colors/{a}/{b}/{color}/{d}": {
          get: {
            parameters: [
              { name: "a", in: "path", required: true, style: "label", schema: color },
              { name: "b", in: "path", required: true, style: "label", explode: true, schema: color },
              { name: "color", in: "path", required: true, style: "matrix", schema: color },
              { name: "d", in: "path", required: true, style: "matrix", explode: true, schema: color },
            ],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const check = (path: string) => colors.checkExchange({ method: "GET", path, query: [], headers: {} }).map((v) => `${v.pointer}: ${v.reason}`);
    expect(check("/colors/.R,100,G,200/.R=100.G=200/;color=R,100,G,200/;R=100;G=200")).toEqual([]);
    expect(check("/colors/.R,x/.R=1.B=2/;color=R,1/R=1")).toEqual([
      "/request/path/a/R: must be integer",
      "/request/path/b/B: is not allowed (not a documented property)",
      "/request/path/d: is not written in style matrix (;<name>=<value>...)",
    ]);
  });

  it("refuses a value not written in its style", () => {
    expect(get("/label/5/.3/.a")).toEqual(["/request/path/id: is not written in style label (a value after a '.')"]);
    expect(get("/matrix/5/;ids=3/;tags=a")).toEqual(["/request/path/id: is not written in style matrix (;id=<value>)"]);
    expect(get("/matrix/;other=5/;ids=3/;tags=a")).toEqual(["/request/path/id: is not written in style matrix (;id=<value>)"]);
  });
});

describe("object parameters written as one text (style form not exploded, style simple)", () => {
  const color = { type: "object", additionalProperties: false, properties: { R: { type: "integer" }, G: { type: "integer" }, name: { type: "string" } } };
  const objects = contractChecker(withObjectParameters(color));
  const get = (path: string, query = "", headers: Record<string, string> = {}) =>
    objects.checkExchange({ method: "GET", path, query: [...new URLSearchParams(query)], rawQuery: query, headers }).map((v) => `${v.pointer}: ${v.reason}`);

  it("reads names and values in turn (R,100,G,200), or name=value pairs when exploded in style simple", () => {
    expect(get("/colors/R,1,name,x", "color=R,100,G,200", { "x-color": "G,3", "x-exploded": "R=1,G=2" })).toEqual([]);
  });

  it("checks each value by its property, and says what is not such an object", () => {
    expect(get("/colors/R,x", "color=R,1,B,2", { "x-exploded": "R=y" })).toEqual([
      "/request/path/path/R: must be integer",
      "/request/query/color/B: is not allowed (not a documented property)",
      "/request/header/X-Exploded/R: must be integer",
    ]);
    expect(get("/colors/R", "color=R,1,G", { "x-exploded": "=1" })).toEqual([
      "/request/path/path: must be object",
      "/request/query/color: must be object",
      "/request/header/X-Exploded: must be object",
    ]);
  });
});

describe("cookie parameters", () => {
  const sessions = contractChecker({
    openapi: "3.1.0",
    info: { title: "cookies", version: "1" },
    paths: {
      "/me": {
        get: {
          parameters: [
            { name: "session", in: "cookie", required: true, schema: { type: "string", minLength: 4 } },
            { name: "theme", in: "cookie", schema: { type: "string", enum: ["dark", "light"] } },
            { name: "visits", in: "cookie", schema: { type: "integer", minimum: 0 } },
            { name: "ids", in: "cookie", schema: { type: "array", items: { type: "integer" } } },
          ],
          responses: { "200": { description: "ok" } },
        },
      },
    },
  });
  const me = (cookie?: string) =>
    sessions.checkExchange({ method: "GET", path: "/me", query: [], headers: cookie === undefined ? {} : { cookie } }).map((v) => `${v.pointer}: ${v.reason}`);

  it("reads them from the Cookie header by their schemas, percent-decoded", () => {
    expect(me("session=s%3D1234; theme=dark; visits=3; ids=1,2; other=x")).toEqual([]);
    // The first of a name counts (a client sends the most specific path's first).
    expect(me("session=abcd; theme=dark; theme=blue")).toEqual([]);
  });

  it("refuses a missing required cookie and values the schemas refuse", () => {
    expect(me()).toEqual(["/request/cookie/session: required cookie parameter is missing"]);
    expect(me("sessionx=abcd")).toEqual(["/request/cookie/session: required cookie parameter is missing"]);
    expect(me("session=ab; theme=blue; visits=-1; ids=1,x")).toEqual([
      "/request/cookie/session: must NOT have fewer than 4 characters",
      '/request/cookie/theme: must be equal to one of the allowed values: ["dark","light"]',
      "/request/cookie/visits: must be >= 0",
      "/request/cookie/ids/1: must be integer",
    ]);
  });
});

describe("hostile bodies and queries: one name repeated", () => {
  // 99,000 values of one name (under the count past which only a first problem is looked for): each
  // was once added by copying the list so far (quadratic: 40,000 form fields took 11 s, a 1 MiB body
  // minutes of a mock front's or proxy's CPU). Linear, each check below takes a fraction of a second;
  // quadratic, it outlasts the test's time limit.
  const REPEATS = 99_000;
  const schema = { type: "object", properties: { b: { type: "array", items: { type: "integer" } } } } as const;
  const problems = (checker: ReturnType<typeof contractChecker>, request: Omit<WireRequest, "method" | "path">) =>
    checker.checkExchange({ method: "POST", path: "/token", ...request }).map((v) => `${v.pointer}: ${v.reason}`);
  const last = `/request/body/b/${REPEATS - 1}: must be integer`;

  it("a form", () => {
    const body = `${"b=1&".repeat(REPEATS - 1)}b=x`;
    expect(problems(contractChecker(withFormBody(schema)), { query: [], headers: { "content-type": "application/x-www-form-urlencoded" }, body })).toEqual([last]);
  });

  it("a multipart body", () => {
    const part = (value: string) => `--x\r\nContent-Disposition: form-data; name="b"\r\n\r\n${value}\r\n`;
    const body = `${part("1").repeat(REPEATS - 1)}${part("x")}--x--\r\n`;
    expect(problems(contractChecker(withMultipartBody(schema)), { query: [], headers: { "content-type": "multipart/form-data; boundary=x" }, body })).toEqual([last]);
  });

  it("a query", () => {
    const api = withFormBody({ type: "object" });
    (api.paths!["/token"]!.post as { parameters?: unknown[] }).parameters = [{ name: "b", in: "query", schema: { type: "array", items: { type: "integer" } } }];
    const query: [string, string][] = Array.from({ length: REPEATS }, (_, i) => ["b", i === REPEATS - 1 ? "x" : "1"]);
    const rawQuery = query.map(([name, value]) => `${name}=${value}`).join("&");
    expect(problems(contractChecker(api), { query, rawQuery, headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" })).toEqual([
      `/request/query/b/${REPEATS - 1}: must be integer`,
    ]);
  });
});

describe("hostile bodies: nesting deeper than the call stack", () => {
  it("is reported as a violation of the body, not thrown", () => {
    const trees = contractChecker({
      openapi: "3.1.0",
      info: { title: "trees", version: "1" },
      components: { schemas: { Tree: { type: "object", properties: { c: { type: "array", items: { $ref: "#/components/schemas/Tree" } } } } } },
      paths: { "/t": { post: { requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Tree" } } } }, responses: { "200": { description: "ok" } } } } },
    });
    const post = (depth: number) =>
      trees.checkExchange({ method: "POST", path: "/t", query: [], headers: { "content-type": "application/json" }, body: `${'{"c":['.repeat(depth)}{}${"]}".repeat(depth)}` });
    expect(post(100)).toEqual([]);
    expect(post(100_000).map((v) => `${v.pointer}: ${v.reason}`)).toEqual(["/request/body: is nested too deeply to be checked (Maximum call stack size exceeded)"]);
  });
});

describe("hostile bodies: millions of wrong values", () => {
  const numbers = contractChecker({
    openapi: "3.1.0",
    info: { title: "numbers", version: "1" },
    paths: { "/n": { post: { requestBody: { required: true, content: { "application/json": { schema: { type: "array", items: { type: "integer" } } } } }, responses: { "200": { description: "ok" } } } } },
  });
  const post = (items: unknown[]) => numbers.checkExchange({ method: "POST", path: "/n", query: [], headers: { "content-type": "application/json" }, body: JSON.stringify(items) }).map((v) => `${v.pointer}: ${v.reason}`);

  it("lists the first 100 problems of a value and counts the rest", () => {
    expect(post(Array.from({ length: MAX_VIOLATIONS }, () => "x"))).toHaveLength(MAX_VIOLATIONS);
    const said = post(Array.from({ length: 150 }, (_, i) => (i === 0 ? 1 : "x")));
    expect(said).toHaveLength(MAX_VIOLATIONS + 1);
    expect(said.slice(0, 2)).toEqual(["/request/body/1: must be integer", "/request/body/2: must be integer"]);
    expect(said[MAX_VIOLATIONS - 1]).toBe("/request/body/100: must be integer");
    expect(said[MAX_VIOLATIONS]).toBe("/request/body: has 49 more problems, not listed (the first 100 are)");
  });

  it("checks a value of more than 100,000 values to its first problem only", () => {
    // One value short of the limit (the array counts as one): every problem is found, then listed up to 100.
    expect(post(Array.from({ length: MAX_VALUES_FOR_EVERY_PROBLEM - 1 }, () => "x")).at(-1)).toBe(`/request/body: has ${MAX_VALUES_FOR_EVERY_PROBLEM - 1 - MAX_VIOLATIONS} more problems, not listed (the first 100 are)`);
    expect(post(Array.from({ length: 1_000_000 }, (_, i) => (i < 5 ? 1 : "x")))).toEqual([
      "/request/body/5: must be integer",
      "/request/body: holds more than 100000 values: only its first problem is listed",
    ]);
    // A valid value of any size has no problem.
    expect(post(Array.from({ length: 1_000_000 }, () => 1))).toEqual([]);
  });

  it("counts values all the way down, and stops counting at the limit", () => {
    expect(holdsMoreValuesThan(1, 1)).toBe(false);
    expect(holdsMoreValuesThan(null, 0)).toBe(true);
    expect(holdsMoreValuesThan({ a: [1, 2], b: { c: null } }, 6)).toBe(false);
    expect(holdsMoreValuesThan({ a: [1, 2], b: { c: null } }, 5)).toBe(true);
    expect(holdsMoreValuesThan([[[[[[[1]]]]]]], 7)).toBe(true);
    expect(holdsMoreValuesThan([[[[[[[1]]]]]]], 8)).toBe(false);
  });
});

describe("request bodies", () => {
  it("checks the alternative the discriminator names, and names its field", () => {
    expect(pointersOf(put('{"kind":"cat","lives":7}'))).toEqual([]);
    expect(pointersOf(put('{"kind":"cat","lives":70}'))).toEqual(["/request/body/lives: must be <= 9"]);
    expect(pointersOf(put('{"kind":"dog","lives":7}'))).toEqual(["/request/body/good: is required", "/request/body/lives: is not allowed (not a documented property)"]);
    expect(pointersOf(put('{"kind":"cow"}'))).toEqual(['/request/body/kind: must be equal to one of the allowed values: ["cat","dog"]']);
  });

  it("reports a missing required body, an undocumented media type and broken JSON", () => {
    expect(pointersOf(put(undefined))).toEqual(["/request/body: request body is required"]);
    expect(pointersOf(put("kind=cat", "application/x-www-form-urlencoded"))).toEqual([
      "/request/headers/content-type: content type application/x-www-form-urlencoded is not documented (documented: application/json)",
    ]);
    expect(pointersOf(put("{"))[0]).toMatch(/^\/request\/body: body is not valid JSON/);
  });
});

describe("responses", () => {
  const answer = (status: number, contentType: string | undefined, body?: string): WireResponse => ({
    status,
    headers: contentType ? { "content-type": contentType } : {},
    body,
  });

  it("matches statuses exactly, then by range, then default", () => {
    expect(pointersOf(get("/pets/1"), answer(200, "application/vnd.api+json", '{"kind":"dog","good":true}'))).toEqual([]);
    expect(pointersOf(get("/pets/1"), answer(404, "application/problem+json", '{"errors":[]}'))).toEqual([]);
    expect(pointersOf(get("/pets/1"), answer(500, "text/plain", "boom"))).toEqual(["/response/status: status 500 is not documented (documented: 200, 4XX)"]);
    expect(pointersOf(put('{"kind":"cat","lives":1}'), answer(201, "text/plain", "made"))).toEqual([]);
    expect(pointersOf(put('{"kind":"cat","lives":1}'), answer(201, "text/plain; charset=utf-8", ""))).toEqual([
      "/response/body: must NOT have fewer than 1 characters",
    ]);
  });

  it("reports content types and bodies the status does not document", () => {
    expect(pointersOf(get("/pets/1"), answer(200, "application/json", "{}"))).toEqual([
      "/response/headers/content-type: content type application/json is not documented (documented: application/vnd.api+json)",
    ]);
    expect(pointersOf(get("/pets/mine"), answer(204, undefined, ""))).toEqual([]);
    expect(pointersOf(get("/pets/mine"), answer(204, "text/plain", "x"))).toEqual(["/response/body: status 204 documents no body"]);
    expect(pointersOf(get("/pets/1"), answer(200, undefined, ""))).toEqual(["/response/body: status 200 documents a body and there is none"]);
  });
});

describe("binary bodies", () => {
  const binary: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/qr": { get: { operationId: "getQr", responses: { "200": { description: "ok", content: { "image/png": { schema: { type: "string", format: "binary" } } } } } } },
    },
  };
  const request: WireRequest = { method: "GET", path: "/qr", query: [], rawQuery: "", headers: {} };

  it("are not checked against their schema (they are not decoded), but their media type is", () => {
    const checker = contractChecker(binary);
    expect(checker.checkExchange(request, { status: 200, headers: { "content-type": "image/png" }, body: "\x89PNG..." })).toEqual([]);
    expect(checker.checkExchange(request, { status: 200, headers: { "content-type": "image/gif" }, body: "GIF89a" }).map((v) => v.pointer)).toEqual(["/response/headers/content-type"]);
  });
});

describe("patterns as ECMA-262 reads them", () => {
  const withPattern = (pattern: string) =>
    contractChecker({
      openapi: "3.1.0",
      info: { title: "patterns", version: "1" },
      paths: { "/keys/{key}": { get: { parameters: [{ name: "key", in: "path", required: true, schema: { type: "string", pattern } }], responses: { "200": { description: "ok" } } } } },
    });
  const check = (pattern: string, key: string) => withPattern(pattern).checkExchange({ method: "GET", path: `/keys/${key}`, query: [], headers: {} }).map((v) => v.reason);

  it("reads a pattern the u flag refuses as Annex B does (a { that starts no quantifier is a brace), where it threw", () => {
    const braces = "^(?:{[0-9a-f]{4}}|[0-9a-f]{4})$";
    expect(() => new RegExp(braces, "u")).toThrow();
    expect(check(braces, encodeURIComponent("{beef}"))).toEqual([]);
    expect(check(braces, "beef")).toEqual([]);
    expect(check(braces, "{beer}".replace(/[{}]/g, encodeURIComponent))).toEqual([`must match pattern "${braces}"`]);
  });

  it("keeps the u flag where it is valid (a code point is one character), and takes anything for a pattern no engine reads", () => {
    expect(check("^.$", encodeURIComponent("😀"))).toEqual([]);
    expect(check("^\\p{Lu}+$", "ABC")).toEqual([]);
    expect(check("^\\p{Lu}+$", "abc")).toEqual(['must match pattern "^\\p{Lu}+$"']);
    expect(check("(", "anything")).toEqual([]);
  });
});
