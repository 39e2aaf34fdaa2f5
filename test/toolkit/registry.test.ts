// The registry of APIs (redocly.yaml's `apis:`) and what an API with only a description gets from
// it: derived settings, and the mock's errors in the envelope its description documents.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { APIS, readApis } from "../../scripts/apis.ts";
import { operationsOf, type JsonObject, type OpenApiDoc } from "../../scripts/contract/document.ts";
import { describedErrorsProfile, errorBody } from "../../scripts/mock/described-errors.ts";
import { startMock, withoutBodySchemasPrismMisreads, withoutParametersForPrism } from "../../scripts/mock/start.ts";
import { validRequestArbitrary, toWire } from "../../scripts/contract/arbitrary.ts";
import { contractChecker } from "../../scripts/contract/checker.ts";
import { withFormBody, withMultipartBody } from "../fixtures/form-body.ts";
import { rawGet } from "../helpers/raw-get.ts";
import { WITH_IGNORED_HEADER_PARAMETERS } from "../fixtures/ignored-header-parameters.ts";
import { projectRoot } from "../../scripts/project.ts";

const work = mkdtempSync(path.join(tmpdir(), "registry-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(config: string, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(work, "p-"));
  writeFileSync(path.join(dir, "redocly.yaml"), config);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("readApis", () => {
  it("reads this repository's three APIs, in redocly.yaml's order, with their settings", () => {
    // First in the list; a clone's own APIs (npm run add-api) come after them.
    expect(APIS.slice(0, 3).map((a) => [a.name, a.redoclyName, a.basePath, a.serverPort, a.mockPort, a.clientFactory, a.hasReferenceServer])).toEqual([
      ["org-platform", "org-platform@v2", "/api/v2", 8080, 4010, "createOrgPlatformClient", true],
      ["secrets", "secrets@v1", "/v1", 8200, 4020, "createSecretsClient", true],
      ["mesh", "mesh@v1", "/v1", 8500, 4030, "createMeshClient", true],
    ]);
  });

  it("derives an added API's settings from its description, and gives it the next free mock port", () => {
    const dir = project(
      "apis:\n  a@v1:\n    root: openapi/a/openapi.yaml\n    x-toolkit:\n      mockPort: 4010\n  pet-store@v2:\n    root: openapi/pet-store/openapi.yaml\n  bare@v1:\n    root: bare.yaml\n",
      {
        "openapi/a/openapi.yaml": "openapi: 3.1.0\ninfo: { title: A, version: 1.0.0 }\nservers: [{ url: 'http://127.0.0.1:8080/a' }]\npaths: {}\n",
        "openapi/pet-store/openapi.yaml":
          "openapi: 3.1.0\ninfo: { title: Pet Store, version: 2.0.0 }\nservers:\n  - url: 'https://{region}.pets.example.com/api/v2/'\n    variables: { region: { default: eu } }\npaths: {}\n",
        "bare.yaml": "openapi: 3.1.0\ninfo: { title: Bare, version: 0.1.0 }\npaths: {}\n",
      },
    );
    const [a, pets, bare] = readApis(path.join(dir, "redocly.yaml"));
    expect(a).toMatchObject({ name: "a", mockPort: 4010, serverPort: 8080, basePath: "/a" });
    expect(pets).toMatchObject({
      name: "pet-store",
      root: path.join("openapi", "pet-store", "openapi.yaml"),
      title: "Pet Store",
      serverUrl: "https://eu.pets.example.com/api/v2",
      basePath: "/api/v2",
      serverPort: 443,
      mockPort: 4020,
      clientFactory: "createPetStoreClient",
      hasReferenceServer: false,
    });
    expect(bare).toMatchObject({ name: "bare", serverUrl: "", basePath: "", mockPort: 4030, title: "Bare" });
  });

  it("says which entry is wrong, in a sentence", () => {
    const missing = project("apis:\n  gone@v1:\n    root: openapi/gone/openapi.yaml\n", {});
    expect(() => readApis(path.join(missing, "redocly.yaml"))).toThrow("redocly.yaml: apis.gone@v1: openapi/gone/openapi.yaml does not exist");
    const rootless = project("apis:\n  x@v1: {}\n", {});
    expect(() => readApis(path.join(rootless, "redocly.yaml"))).toThrow("apis.x@v1 has no root");
    expect(() => readApis(path.join(work, "nowhere", "redocly.yaml"))).toThrow("does not exist: the list of APIs is redocly.yaml's `apis:`");
  });

  it("finds the project from a subfolder, or from TOOLKIT_CONFIG", () => {
    const dir = project("apis: {}\n", { "deep/er/x.txt": "" });
    expect(projectRoot({}, path.join(dir, "deep", "er"))).toBe(dir);
    expect(projectRoot({ TOOLKIT_CONFIG: path.join(dir, "redocly.yaml") }, "/")).toBe(dir);
  });
});

const museumLike: OpenApiDoc = {
  openapi: "3.1.0",
  info: { title: "T", version: "1" },
  paths: {
    "/things/{id}": {
      get: {
        operationId: "getThing",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
        responses: {
          "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
          "400": { $ref: "#/components/responses/BadRequest" },
          "404": { description: "none", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Error" } } } },
        },
      },
    },
  },
  components: {
    responses: { BadRequest: { description: "bad", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Error" } } } } },
    schemas: { Error: { type: "object", required: ["type"], properties: { type: { type: "string", example: "object" }, title: { type: "string" } } } },
  },
};

describe("the mock's errors for an API without a profile", () => {
  const profile = describedErrorsProfile(museumLike);
  const operation = operationsOf(museumLike)[0]!;

  it("answers a bad request with the operation's documented 400, the message in its text field", () => {
    const answer = profile.render({ kind: "invalid", operation, violations: [{ kind: "request-parameter", operation: operation.label, pointer: "/request/path/id", reason: "must be integer" }] });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toBe("application/problem+json");
    expect(JSON.parse(answer.body)).toEqual({ type: "object", title: 'path parameter "id" must be integer' });
  });

  it("answers an unknown path with the 404 the description documents somewhere", () => {
    expect(profile.render({ kind: "not-found", path: "/nope" })).toMatchObject({ status: 404, contentType: "application/problem+json" });
  });

  it("falls back to an RFC 9457 problem document when nothing is documented", () => {
    const answer = profile.render({ kind: "unauthenticated" });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ type: "about:blank", title: "Unauthorized", status: 401, detail: "credentials are required" });
  });

  it("puts the message where the schema means it to go", () => {
    const doc: OpenApiDoc = { paths: {} };
    const said = (status: number, ...messages: string[]) => ({ messages, status });
    expect(errorBody(doc, { type: "object", required: ["code", "message"], properties: { code: { type: "integer" }, message: { type: "string" } } }, said(422, "m"))).toEqual({ code: 422, message: "m" });
    expect(errorBody(doc, { type: "object", properties: { errors: { type: "array", items: { type: "string" } } }, required: ["errors"] }, said(400, "m"))).toEqual({ errors: ["m"] });
    expect(errorBody(doc, { type: "string" }, said(400, "m"))).toBe("m");
    // Several problems: joined in the message, one by one in a list of errors (required or not).
    const jsonApi = { type: "object", required: ["errors"], properties: { errors: { type: "array", items: { type: "object", properties: { status: { type: "string" }, detail: { type: "string" } } } } } };
    expect(errorBody(doc, jsonApi, said(422, "a is required", "b must be integer"))).toEqual({ errors: [{ status: "422", detail: "a is required" }, { status: "422", detail: "b must be integer" }] });
    const simple = { type: "object", required: ["message"], properties: { message: { type: "string" }, errors: { type: "array", items: { type: "string" } } } };
    expect(errorBody(doc, simple, said(422, "a", "b"))).toEqual({ message: "a; b", errors: ["a", "b"] });
  });

  // GitHub's errors: {"message": ..., "documentation_url": "https://docs.github.com/rest/issues/issues#list-repository-issues"}.
  const githubLike: OpenApiDoc = {
    openapi: "3.0.3",
    info: { title: "G", version: "1" },
    externalDocs: { url: "https://docs.example.com/rest" },
    paths: {
      "/issues": {
        get: {
          externalDocs: { url: "https://docs.example.com/rest/issues#list" },
          parameters: [{ name: "state", in: "query", schema: { type: "string", enum: ["open", "closed"] } }],
          responses: {
            "200": { description: "ok", content: { "application/json": { schema: { type: "array" } } } },
            "422": { description: "bad", content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationErrorSimple" } } } },
            "404": { description: "none", content: { "application/json": { schema: { $ref: "#/components/schemas/BasicError" } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        ValidationErrorSimple: {
          type: "object",
          required: ["message", "documentation_url"],
          properties: { message: { type: "string" }, documentation_url: { type: "string" }, errors: { type: "array", items: { type: "string" } } },
        },
        BasicError: { type: "object", required: ["message", "documentation_url"], properties: { message: { type: "string" }, documentation_url: { type: "string" }, helpUrl: { type: "string", format: "uri" } } },
      },
    },
  };

  it("answers a well-formed body that breaks its schema with 422 where the operation documents both, anything else with 400", () => {
    const both: OpenApiDoc = {
      openapi: "3.1.0",
      info: { title: "B", version: "1" },
      paths: {
        "/issues": {
          post: {
            parameters: [{ name: "dry", in: "query", schema: { type: "boolean" } }],
            requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { title: { type: "string" } } } } } },
            responses: {
              "201": { description: "made" },
              "400": { description: "bad", content: { "application/json": { schema: { type: "object", properties: { message: { type: "string" } } } } } },
              "422": { description: "invalid", content: { "application/json": { schema: { type: "object", properties: { message: { type: "string" } } } } } },
            },
          },
        },
      },
    };
    const post = operationsOf(both)[0]!;
    const statusFor = (...violations: { kind: "request-body" | "request-parameter"; pointer: string; reason: string }[]) =>
      describedErrorsProfile(both).render({ kind: "invalid", operation: post, violations: violations.map((v) => ({ ...v, operation: post.label })) }).status;
    const badTitle = { kind: "request-body" as const, pointer: "/request/body/title", reason: "must be string" };
    expect(statusFor(badTitle)).toBe(422);
    expect(statusFor({ kind: "request-body", pointer: "/request/body", reason: "must be object" })).toBe(422);
    expect(statusFor({ kind: "request-body", pointer: "/request/body", reason: "body is not valid JSON: Unexpected end of JSON input" })).toBe(400);
    expect(statusFor({ kind: "request-body", pointer: "/request/body", reason: "request body is required" })).toBe(400);
    expect(statusFor({ kind: "request-parameter", pointer: "/request/query/dry", reason: "must be boolean" })).toBe(400);
    expect(statusFor(badTitle, { kind: "request-parameter", pointer: "/request/query/dry", reason: "must be boolean" })).toBe(400);
    // Only a 400 documented: that one, whatever was wrong.
    const only400 = structuredClone(both);
    delete (only400.paths!["/issues"]!.post as { responses: Record<string, unknown> }).responses["422"];
    expect(describedErrorsProfile(only400).render({ kind: "invalid", operation: operationsOf(only400)[0]!, violations: [{ ...badTitle, operation: post.label }] }).status).toBe(400);
  });

  it("puts the operation's documentation link in a field named as a link, else the description's, else about:blank", () => {
    const github = describedErrorsProfile(githubLike);
    const list = operationsOf(githubLike)[0]!;
    const bad = { kind: "request-parameter" as const, operation: list.label, pointer: "/request/query/state", reason: "must be equal to one of the allowed values: open, closed" };
    const answer = github.render({ kind: "invalid", operation: list, violations: [bad, bad] });
    expect(answer.status).toBe(422);
    const said = 'query parameter "state" must be equal to one of the allowed values: open, closed';
    expect(JSON.parse(answer.body)).toEqual({ message: `${said}; ${said}`, documentation_url: "https://docs.example.com/rest/issues#list", errors: [said, said] });
    // No operation (an unknown path): the description's own link.
    expect(JSON.parse(github.render({ kind: "not-found", path: "/nope" }).body)).toEqual({ message: "no operation at /nope", documentation_url: "https://docs.example.com/rest" });
    const { externalDocs: _, ...undocumented } = githubLike;
    expect(JSON.parse(describedErrorsProfile(undocumented).render({ kind: "not-found", path: "/nope" }).body)).toEqual({ message: "no operation at /nope", documentation_url: "about:blank" });
    // A link field with an example of its own: the operation's link still says more.
    const schema = { type: "object", required: ["more_info_url", "kind"], properties: { more_info_url: { type: "string", example: "https://x.example/other" }, kind: { type: "string", enum: ["a_url"] } } };
    expect(errorBody({ paths: {} }, schema, { messages: ["m"], status: 400, docsUrl: "https://d.example/op" })).toEqual({ more_info_url: "https://d.example/op", kind: "a_url" });
  });
});

describe("the mock of a description that defines Accept, Content-Type or Authorization as header parameters", { timeout: 60_000 }, () => {
  const reports = WITH_IGNORED_HEADER_PARAMETERS;

  it("leaves every parameter out of Prism's copy of the description (the front checks them), and only them", () => {
    const copy = withoutParametersForPrism(reports)!;
    const item = copy.paths!["/reports/{id}"]!;
    expect(item.parameters).toEqual([]);
    expect((item.get as JsonObject).parameters).toEqual([]);
    expect((item.get as JsonObject).responses).toBe((reports.paths!["/reports/{id}"]!.get as JsonObject).responses);
    expect(copy.components).toBe(reports.components);
    expect(withoutParametersForPrism({ paths: { "/a": { get: { responses: {} } } } })).toBeUndefined();
  });

  it("answers a request with any Accept and no Authorization, and still checks the other headers", async () => {
    const root = project("apis:\n  reports@v1:\n    root: openapi.json\n", { "generated/reports/openapi.json": JSON.stringify(reports), "openapi.json": JSON.stringify(reports) });
    const mock = await startMock("reports", { root });
    try {
      for (const accept of ["*/*", "application/json", "application/*"]) {
        const good = await fetch(`${mock.url}/reports/7`, { headers: { accept, "x-trace": "abcd" } });
        expect([accept, good.status, await good.json()]).toEqual([accept, 200, { id: 1 }]);
      }
      const short = await fetch(`${mock.url}/reports/7`, { headers: { accept: "*/*", "x-trace": "ab" } });
      expect(short.status).toBe(400);
      expect(await short.json()).toEqual({ message: 'header parameter "X-Trace" must NOT have fewer than 4 characters' });
      // Prism itself, behind the front, is given the copy: it too takes the request.
      const direct = await fetch(`${mock.prismUrl}/reports/7`, { headers: { accept: "*/*", "x-trace": "abcd" } });
      expect(direct.status).toBe(200);
      // The copy stays while Prism runs (Prism watches it: one removed under it stopped Prism), and goes with it.
      expect(mock.prismDescription).not.toBe(path.join(root, "generated", "reports", "openapi.json"));
      expect(existsSync(mock.prismDescription)).toBe(true);
      await mock.close();
      expect(existsSync(mock.prismDescription)).toBe(false);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description whose API key goes in the query or a cookie, or whose token is OAuth 2's", { timeout: 60_000 }, () => {
  const keyed: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Keyed", version: "1.0.0" },
    security: [{ query: [] }, { cookie: [] }],
    components: {
      securitySchemes: {
        query: { type: "apiKey", in: "query", name: "api_key" },
        cookie: { type: "apiKey", in: "cookie", name: "session" },
        oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://example.com/token", scopes: { read: "read" } } } },
      },
    },
    paths: {
      "/things": { get: { responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } } } } },
      "/reports": { get: { security: [{ oauth: ["read"] }], responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } } } } },
    },
  };

  it("answers a request that carries the key, and refuses one without it as it refuses a missing header key", async () => {
    const root = project("apis:\n  keyed@v1:\n    root: openapi.json\n", { "generated/keyed/openapi.json": JSON.stringify(keyed), "openapi.json": JSON.stringify(keyed) });
    const mock = await startMock("keyed", { root });
    try {
      const status = async (query: string, headers: Record<string, string> = {}) => (await fetch(`${mock.url}/things${query}`, { headers })).status;
      expect(await status("?api_key=k")).toBe(200);
      expect(await status("", { cookie: "theme=dark; session=s1" })).toBe(200);
      expect(await status("")).toBe(401);
      expect(await status("?api_key=")).toBe(401);
      expect(await status("", { cookie: "session=; theme=dark" })).toBe(401);
      expect(await status("?key=k", { cookie: "sessionx=s1" })).toBe(401);
      // An OAuth 2 operation asks for a bearer token.
      const report = async (headers: Record<string, string>) => (await fetch(`${mock.url}/reports`, { headers })).status;
      expect(await report({ authorization: "Bearer t0k3n" })).toBe(200);
      for (const headers of [{}, { authorization: "Basic eDp5" }] as Record<string, string>[]) {
        const refused = await fetch(`${mock.url}/reports`, { headers });
        // The front's answer (the envelope the description documents, here RFC 9457's), not Prism's.
        expect([refused.status, await refused.json()]).toEqual([401, { type: "about:blank", title: "Unauthorized", status: 401, detail: "credentials are required" }]);
      }
    } finally {
      await mock.close();
    }
  });
});

/** A description of POST /token (test/fixtures/form-body.ts) whose 200 has an example, as a mock answers it. */
function answering(doc: OpenApiDoc): OpenApiDoc {
  doc.paths!["/token"]!.post = {
    ...(doc.paths!["/token"]!.post as JsonObject),
    responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } } },
  };
  return doc;
}

/** The mock of `doc` as the API `name`, in a project of its own. */
async function mockOf(name: string, doc: OpenApiDoc) {
  const root = project(`apis:\n  ${name}@v1:\n    root: openapi.json\n`, { [`generated/${name}/openapi.json`]: JSON.stringify(doc), "openapi.json": JSON.stringify(doc) });
  return startMock(name, { root });
}

/** Conformance's generated valid requests for the operation, sent to the mock: each status and body. */
async function generatedAnswers(doc: OpenApiDoc, url: string, seed: number): Promise<[number, string][]> {
  const checker = contractChecker(doc);
  const answers: [number, string][] = [];
  for (const request of fc.sample(validRequestArbitrary(doc, checker.operations[0]!), { numRuns: 10, seed })) {
    const wire = toWire(request);
    const answer = await fetch(`${url}${wire.path}`, { method: wire.method, headers: wire.headers, body: wire.body });
    answers.push([answer.status, await answer.text()]);
  }
  return answers;
}

const refusal = async (answer: Response) => [answer.status, ((await answer.json()) as { detail?: string }).detail];

describe("the mock of a description whose operation takes a multipart body", { timeout: 60_000 }, () => {
  const uploads = answering(
    withMultipartBody({
      type: "object",
      required: ["title", "file"],
      properties: {
        title: { type: "string", minLength: 1 },
        pages: { type: "integer", minimum: 1 },
        file: { type: "string", format: "binary" },
        meta: { type: "object", properties: { lang: { type: "string" } } },
        tags: { type: "array", items: { type: "string" } },
      },
    }),
  );

  it("answers the bodies conformance generates, and refuses a body that breaks the schema or is not multipart", async () => {
    const mock = await mockOf("uploads", uploads);
    try {
      // Both the front and Prism behind it read the generated bodies.
      expect(await generatedAnswers(uploads, mock.url, 3)).toEqual(Array(10).fill([200, '{"ok":true}']));
      const post = (body: string, type = "multipart/form-data; boundary=b") => fetch(`${mock.url}/token`, { method: "POST", headers: { "content-type": type }, body });
      // Nothing documented: RFC 9457's document, 422 for a body read that breaks its schema, 400 for one that cannot be read.
      expect(await refusal(await post('--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nR\r\n--b--\r\n'))).toEqual([422, "file is required"]);
      // A file part without a Content-Type (RFC 7578 allows it) stopped Prism's whole process, so
      // that every request after it was a 502; a JSON part and repeated parts Prism read as text.
      const part = (name: string, value: string, headers = "") => `--b\r\nContent-Disposition: form-data; name="${name}"${headers}\r\n\r\n${value}\r\n`;
      const file = part("file", "%PDF", '; filename="a.pdf"');
      const full = `${part("title", "R")}${file}${part("meta", '{"lang":"en"}', "\r\nContent-Type: application/json")}${part("tags", "a")}${part("tags", "b")}--b--\r\n`;
      for (let n = 0; n < 2; n++) {
        const answer = await post(full);
        expect([answer.status, await answer.text()]).toEqual([200, '{"ok":true}']);
      }
      expect(await refusal(await post("title=R"))).toEqual([400, 'request body is not multipart/form-data under the boundary "b": no delimiter line']);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description whose form nests objects and arrays of them (card[number], items[0][price])", { timeout: 60_000 }, () => {
  const charges = answering(
    withFormBody(
      {
      type: "object",
      required: ["amount"],
      properties: {
        amount: { type: "integer", minimum: 1 },
        card: { type: "object", required: ["number"], properties: { number: { type: "string" }, exp_month: { type: "integer", minimum: 1, maximum: 12 } } },
        items: { type: "array", items: { type: "object", required: ["price"], properties: { price: { type: "string" }, quantity: { type: "integer" } } } },
        expand: { type: "array", items: { type: "string" } },
      },
    },
    // As Stripe's description says how its forms nest.
    { card: { style: "deepObject", explode: true }, items: { style: "deepObject", explode: true }, expand: { style: "deepObject", explode: true } },
    ),
  );

  it("answers such forms, which Prism given the description refuses, and refuses a bad nested value", async () => {
    const mock = await mockOf("charges", charges);
    try {
      const post = (body: string) => fetch(`${mock.url}/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
      // Prism given the description itself refused the first (an array of objects in brackets) and
      // the second (no card: it read the absent deepObject field as {}, without its required number).
      for (const form of ["amount=5&card[number]=4242&card[exp_month]=12&items[0][price]=p1&items[0][quantity]=2&items[1][price]=p2&expand[]=customer", "amount=5"]) {
        const answer = await post(form);
        expect([form, answer.status, await answer.text()]).toEqual([form, 200, '{"ok":true}']);
      }
      expect(await generatedAnswers(charges, mock.url, 4)).toEqual(Array(10).fill([200, '{"ok":true}']));
      expect(await refusal(await post("amount=5&items[0][quantity]=2&card[number]=1&card[exp_month]=dec"))).toEqual([422, "card.exp_month must be integer; items.0.price is required"]);
      expect(await refusal(await post("amount=5&card[exp_month]=3"))).toEqual([422, "card.number is required"]);
      // A body over the mock's 10 MiB (Prism's limit): the described envelope too (here RFC 9457's: no 413 is documented).
      expect(await refusal(await post(`amount=5&note=${"x".repeat(10 << 20)}`))).toEqual([413, "the request body is larger than the mock takes (10 MiB)"]);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description whose body is picked by a discriminator", { timeout: 60_000 }, () => {
  // Two alternatives that take the same values: JSON Schema's oneOf alone refuses every value (both
  // match), the discriminator's value picks one, as the toolkit's checks read it (Prism did not).
  const event = (name: string) => ({ allOf: [{ $ref: "#/components/schemas/Base" }], title: name });
  const events: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Events", version: "1.0.0" },
    paths: {
      "/events": {
        post: {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/Approved" }, { $ref: "#/components/schemas/Denied" }], discriminator: { propertyName: "type", mapping: { approved: "Approved", denied: "#/components/schemas/Denied" } } } } },
          },
          responses: { "200": { description: "taken", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } }, "422": { description: "refused" } },
        },
      },
    },
    components: {
      schemas: {
        Base: { type: "object", required: ["type", "id"], properties: { type: { type: "string" }, id: { type: "string" } } },
        Approved: event("Approved"),
        Denied: event("Denied"),
      },
    },
  };

  it("takes a body its discriminator picks a schema for, and refuses one that breaks that schema", async () => {
    expect(withoutBodySchemasPrismMisreads(events)!.paths!["/events"]!.post).toMatchObject({ requestBody: { content: { "application/json": {} } } });
    const mock = await mockOf("events", events);
    try {
      const post = (body: unknown) => fetch(`${mock.url}/events`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      for (const type of ["approved", "denied"]) {
        const answer = await post({ type, id: "e1" });
        expect([type, answer.status, await answer.text()]).toEqual([type, 200, '{"ok":true}']);
      }
      expect((await post({ type: "approved" })).status).toBe(422);
      expect((await post({ type: "other", id: "e1" })).status).toBe(422);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description documenting statuses fetch or HTTP single out", { timeout: 60_000 }, () => {
  const answers = (responses: JsonObject): JsonObject => ({ get: { responses } });
  const statuses: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Statuses", version: "1.0.0" },
    paths: {
      "/proxy-auth": answers({ "407": { description: "Proxy authentication required", content: { "application/json": { schema: { type: "object" }, example: { proxy: "auth" } } } } }),
      "/continue": answers({ "100": { description: "Continue" } }),
      "/switch": answers({ "101": { description: "Switching Protocols" } }),
      "/hints": answers({ "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } }, "103": { description: "Early hints" } }),
    },
  };

  it("answers a documented 407 (fetch makes one a network error); a 1xx, which is no answer in HTTP, is a 501 that says so", async () => {
    const mock = await mockOf("statuses", statuses);
    try {
      const proxyAuth = await fetch(`${mock.url}/proxy-auth`, { headers: { accept: "application/json" } }).catch((error: Error) => error);
      // fetch itself cannot read a 407: the raw answer, through Node's HTTP client.
      expect(proxyAuth).toBeInstanceOf(Error);
      expect(await rawGet(`${mock.url}/proxy-auth`, { accept: "application/json" })).toEqual({ status: 407, body: '{"proxy":"auth"}' });
      const informational = await fetch(`${mock.url}/continue`);
      expect([informational.status, ((await informational.json()) as { detail: string }).detail]).toEqual([501, "the mock cannot answer 100: an informational (1xx) status is not an answer in HTTP"]);
      // A 101 comes to Node's client as an answer of its own when no Upgrade was asked for.
      expect((await fetch(`${mock.url}/switch`)).status).toBe(501);
      const hints = await fetch(`${mock.url}/hints`, { headers: { prefer: "code=103" } });
      expect(hints.status).toBe(501);
      expect((await fetch(`${mock.url}/hints`)).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description with optional header parameters of array and object schemas", { timeout: 60_000 }, () => {
  const headers: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Headers", version: "1.0.0" },
    paths: {
      "/things": {
        get: {
          parameters: [
            { name: "X-Tags", in: "header", schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
            { name: "X-Filter", in: "header", schema: { $ref: "#/components/schemas/Filter" } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } } },
        },
      },
    },
    components: { schemas: { Filter: { type: "object", properties: { name: { type: "string" } } } } },
  };

  it("answers a request without them (one stopped Prism's whole process), checks them when sent", async () => {
    const mock = await mockOf("headers", headers);
    try {
      for (const sent of [{}, {}, { "x-tags": "a,b", "x-filter": "name,web" }] as Record<string, string>[]) {
        const answer = await fetch(`${mock.url}/things`, { headers: sent });
        expect([answer.status, await answer.text()]).toEqual([200, '{"ok":true}']);
      }
      expect(await refusal(await fetch(`${mock.url}/things`, { headers: { "x-tags": "a,c" } }))).toEqual([400, 'header parameter "X-Tags.1" must be equal to one of the allowed values: ["a","b"]']);
    } finally {
      await mock.close();
    }
  });
});

describe("the mock of a description with an error documented without a body, and a scheme it never defines", { timeout: 60_000 }, () => {
  const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" }, example: { ok: true } } } } };
  const locks: OpenApiDoc = {
    openapi: "3.1.0",
    info: { title: "Locks", version: "1.0.0" },
    paths: {
      "/locked": { get: { security: [{ key: [] }], responses: { ...ok, "401": { description: "Unauthorized" } } } },
      // `nowhere` is in no components.securitySchemes (the lint's error): nothing says what it asks for.
      "/unknown": { get: { security: [{ nowhere: [] }], responses: ok } },
    },
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } },
  };

  it("answers the documented 401 as documented, without a body; takes a request for a scheme it cannot know", async () => {
    const mock = await mockOf("locks", locks);
    try {
      const refused = await fetch(`${mock.url}/locked`);
      expect([refused.status, refused.headers.get("content-type"), await refused.text()]).toEqual([401, null, ""]);
      const opened = await fetch(`${mock.url}/locked`, { headers: { "x-key": "k" } });
      expect([opened.status, await opened.text()]).toEqual([200, '{"ok":true}']);
      const unknown = await fetch(`${mock.url}/unknown`);
      expect([unknown.status, await unknown.text()]).toEqual([200, '{"ok":true}']);
    } finally {
      await mock.close();
    }
  });
});

describe("the copy of a description Prism is given", () => {
  it("has no schema for multipart bodies and form bodies that nest objects, and every other body as it is", () => {
    const nested = withFormBody({ type: "object", properties: { card: { type: "object", properties: { number: { type: "string" } } } } });
    const flat = withFormBody({ type: "object", properties: { amount: { type: "integer" } } });
    const deep = withFormBody({ type: "object", properties: { tags: { type: "string" } } }, { tags: { style: "deepObject" } });
    const arrayOfObjects = withFormBody({ type: "object", properties: { items: { type: "array", items: { type: "object" } } } });
    const multipart = withMultipartBody({ type: "object", properties: { title: { type: "string" } } });
    const bodyOf = (doc: OpenApiDoc) => (doc.paths!["/token"]!.post as JsonObject).requestBody;
    for (const doc of [nested, deep, arrayOfObjects]) {
      expect(bodyOf(withoutBodySchemasPrismMisreads(doc)!)).toEqual({ required: true, content: { "application/x-www-form-urlencoded": {} } });
    }
    expect(bodyOf(withoutBodySchemasPrismMisreads(multipart)!)).toEqual({ required: true, content: { "multipart/form-data": {} } });
    expect(withoutBodySchemasPrismMisreads(flat)).toBeUndefined();
  });
});
