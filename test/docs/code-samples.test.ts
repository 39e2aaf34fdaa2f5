// Code samples: derived from the examples, shown for every operation, and the TypeScript ones
// compile against the generated clients.
import { beforeAll, describe, expect, it } from "vitest";
import { APIS, type ApiInfo } from "../../scripts/apis.ts";
import { operationsOf, type OpenApiDoc, type Operation } from "../../scripts/contract/document.ts";
import { codeSamples, curlSample, literal, shellQuote, typescriptSample, withCodeSamples } from "../../scripts/docs/code-samples.ts";
import { exampleRequest, standInBody, wireParameters, type ExampleRequest } from "../../scripts/docs/requests.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { contractChecker } from "../../scripts/contract/checker.ts";
import { bodyTheSchemaTakes } from "../helpers/contract.ts";
import { typecheck, type VirtualSource } from "./typecheck.ts";

const mesh = APIS.find((a) => a.name === "mesh")!;
const api: ApiInfo = { ...mesh, name: "demo", clientFactory: "createDemoClient", serverPort: 9000, basePath: "/api" };

/** A small description exercising what the samples have to handle. */
const demo: OpenApiDoc = {
  openapi: "3.1.0",
  security: [{ token: [] }],
  paths: {
    "/orgs/{org}/teams": {
      parameters: [{ $ref: "#/components/parameters/Org" }],
      get: {
        operationId: "listTeams",
        parameters: [
          { name: "page[size]", in: "query", required: true, schema: { type: "integer", default: 20 } },
          { name: "q", in: "query", schema: { type: "string" }, example: "not sent: optional" },
          { name: "X-Request", in: "header", required: true, schema: { type: "string", enum: ["true"] } },
        ],
        responses: { "200": { description: "ok" } },
      },
      post: {
        operationId: "createTeam",
        security: [{}, { bearer: [] }],
        requestBody: {
          content: {
            "application/vnd.api+json": {
              examples: { first: { $ref: "#/components/examples/Team" }, second: { value: { data: { name: "b" } } } },
            },
          },
        },
        responses: { "201": { description: "created" } },
      },
    },
    "/things/{id}": {
      delete: { operationId: "deleteThing", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: {} },
    },
    "/tokens": {
      post: {
        operationId: "createToken",
        security: [{ both: [] }],
        parameters: [
          { name: "scope", in: "query", required: true, schema: { type: "array", items: { type: "string", default: "read" } } },
          // An integer's example written as text: the sample passes the number the types take.
          { name: "ttl", in: "query", required: true, schema: { type: "integer" }, example: "60" },
        ],
        requestBody: { required: true, content: { "application/x-www-form-urlencoded": { example: { client_id: "c1", client_secret: "s e" } } } },
        responses: { "200": { description: "ok" } },
      },
    },
    "/tags/{ids}": {
      get: { parameters: [{ name: "ids", in: "path", required: true, schema: { type: "array", items: { type: "integer", minimum: 7 } } }], responses: { "200": { description: "ok" } } },
    },
    "/colors/{label}/{matrix}": {
      get: {
        operationId: "styledColors",
        parameters: [
          { name: "label", in: "path", required: true, style: "label", schema: { type: "array", items: { type: "string" } }, example: ["blue", "black"] },
          { name: "matrix", in: "path", required: true, style: "matrix", explode: true, schema: { type: "array", items: { type: "string" } }, example: ["blue", "black"] },
          { name: "color", in: "query", required: true, explode: false, schema: { type: "array", items: { type: "string" } }, example: ["red", "green"] },
          { name: "point", in: "query", required: true, schema: { type: "object" }, example: { x: 1, y: 2 } },
          { name: "X-Ids", in: "header", required: true, schema: { type: "array", items: { type: "integer" } }, example: [1, 2] },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
  components: {
    parameters: { Org: { name: "org", in: "path", required: true, schema: { type: "string" }, example: "acme & co" } },
    examples: { Team: { value: { data: { name: "it's a team" } } } },
    securitySchemes: { token: { type: "apiKey", in: "header", name: "X-Demo-Token" }, bearer: { type: "http", scheme: "bearer" }, both: { type: "http", scheme: "basic" } },
  },
};

function request(operationId: string) {
  const operation = operationsOf(demo).find((o) => o.operationId === operationId)!;
  return exampleRequest(demo, operation);
}

describe("code samples from examples", () => {
  it("fill a path parameter without an example: a list of one item, not an empty segment", () => {
    const tags = exampleRequest(demo, operationsOf(demo).find((o) => o.template === "/tags/{ids}")!);
    expect(curlSample(tags, api).split(" \\\n")[0]).toBe("curl 'http://127.0.0.1:9000/api/tags/7'");
  });

  it("write each parameter in its style, as OpenAPI's style examples do", () => {
    // label `.blue,black`, matrix exploded `;matrix=blue;matrix=black`, form not exploded
    // `color=red,green`, an exploded form object `x=1&y=2`, a header's array `1,2`.
    expect(curlSample(request("styledColors"), api)).toBe(
      [
        "curl 'http://127.0.0.1:9000/api/colors/.blue,black/;matrix=blue;matrix=black?color=red,green&x=1&y=2' \\",
        '  -H "X-Demo-Token: $DEMO_TOKEN" \\',
        "  -H 'X-Ids: 1,2'",
      ].join("\n"),
    );
  });

  it("put path parameters (encoded) and required query and header parameters, not optional ones", () => {
    const listTeams = request("listTeams");
    expect(listTeams).toMatchObject({ path: { org: "acme & co" }, query: { "page[size]": 20 }, header: { "X-Request": "true" }, missing: [] });
    expect(curlSample(listTeams, api)).toBe(
      [
        "curl 'http://127.0.0.1:9000/api/orgs/acme%20%26%20co/teams?page%5Bsize%5D=20' \\",
        '  -H "X-Demo-Token: $DEMO_TOKEN" \\',
        "  -H 'X-Request: true'",
      ].join("\n"),
    );
    expect(typescriptSample(listTeams, api)).toBe(
      [
        'import { createDemoClient } from "@contract-first/demo-client";',
        "",
        'const client = createDemoClient({ headers: { "X-Demo-Token": process.env.DEMO_TOKEN } });',
        'const { data, error } = await client.GET("/orgs/{org}/teams", {',
        "  params: {",
        '    path: { org: "acme & co" },',
        '    query: { "page[size]": 20 },',
        '    header: { "X-Request": "true" },',
        "  },",
        "});",
        "console.log(error ?? data);",
        "",
      ].join("\n"),
    );
  });

  it("send the first body example with its media type, and the operation's own security", () => {
    const createTeam = request("createTeam");
    expect(createTeam.body).toEqual({ mediaType: "application/vnd.api+json", value: { data: { name: "it's a team" } }, exampleName: "first" });
    expect(createTeam).toMatchObject({ credentials: [{ kind: "bearer" }], credentialsOptional: true });
    expect(curlSample(createTeam, api)).toBe(
      [
        "curl -X POST 'http://127.0.0.1:9000/api/orgs/acme%20%26%20co/teams' \\",
        '  -H "Authorization: Bearer $DEMO_TOKEN" \\',
        "  -H 'Content-Type: application/vnd.api+json' \\",
        `  --data '{"data":{"name":"it'\\''s a team"}}'`,
      ].join("\n"),
    );
    const ts = typescriptSample(createTeam, api);
    expect(ts).toContain('const client = createDemoClient({ headers: { Authorization: `Bearer ${process.env.DEMO_TOKEN}` } });');
    expect(ts).toContain('  body: { data: { name: "it\'s a team" } },\n  headers: { "Content-Type": "application/vnd.api+json" },\n');
  });

  it("write a form body as a form, give a required list parameter one item, and a number written as text as the number", () => {
    const createToken = request("createToken");
    expect(curlSample(createToken, api)).toBe(
      [
        "curl -X POST 'http://127.0.0.1:9000/api/tokens?scope=read&ttl=60' \\",
        '  -u "$DEMO_TOKEN" \\',
        "  -H 'Content-Type: application/x-www-form-urlencoded' \\",
        "  --data 'client_id=c1&client_secret=s+e'",
      ].join("\n"),
    );
    expect(typescriptSample(createToken, api)).toContain('params: { query: { scope: ["read"], ttl: 60 } }');
    expect(typescriptSample(createToken, api)).toContain("bodySerializer: (body) => new URLSearchParams(Object.entries(body ?? {}).map(([k, v]) => [k, String(v)])).toString()");
  });

  it("report the parameters the description gives no value for, and show a stand-in shaped by the schema", () => {
    const deleteThing = request("deleteThing");
    expect(deleteThing.missing).toEqual(['path parameter "id"']);
    expect(curlSample(deleteThing, api)).toMatch(/^curl -X DELETE 'http:\/\/127\.0\.0\.1:\d+\/api\/things\/ID'/);
    expect(typescriptSample(deleteThing, api)).toContain('params: { path: { id: "ID" } }');
  });

  it("quote for the shell and print literals compactly", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(literal({ a: [1, 2], "b-c": null, d: {} })).toBe('{ a: [1, 2], "b-c": null, d: {} }');
    expect(literal({ long: "x".repeat(70) })).toBe(`{\n  long: "${"x".repeat(70)}",\n}`);
    expect(literal({ long: "x".repeat(70) }, 0, JSON.stringify)).toBe(`{\n  "long": "${"x".repeat(70)}"\n}`);
  });

  it("are added to a copy of the bundle, keeping samples the description has", () => {
    const own = structuredClone(demo);
    (own.paths!["/things/{id}"]!.delete as Record<string, unknown>)["x-codeSamples"] = [{ lang: "Shell", label: "curl", source: "curl ..." }];
    const docs = withCodeSamples(own, api);
    const labels = operationsOf(docs).map((o) => [o.operationId, (o.operation["x-codeSamples"] as { label: string }[]).map((s) => s.label)]);
    expect(labels).toEqual([
      ["listTeams", ["curl", "TypeScript"]],
      ["createTeam", ["curl", "TypeScript"]],
      ["deleteThing", ["curl", "TypeScript"]],
      ["createToken", ["curl", "TypeScript"]],
      // No operationId: samples all the same.
      [undefined, ["curl", "TypeScript"]],
      ["styledColors", ["curl", "TypeScript"]],
    ]);
    expect(operationsOf(docs).find((o) => o.operationId === "deleteThing")!.operation["x-codeSamples"]).toContainEqual({ lang: "Shell", label: "curl", source: "curl ..." });
    expect(operationsOf(own).some((o) => o.operationId === "listTeams" && "x-codeSamples" in o.operation)).toBe(false);
  });
});

describe("TypeScript samples of every API", () => {
  // This project's own samples as the docs show them. A description added with add-api may hold
  // examples its own types refuse (GitHub's: a text/plain body written as an object, members its
  // schemas do not have); its samples are compiled with each body a stand-in shaped by the schema,
  // which checks what the generator writes, while the examples themselves are its lint's to judge.
  const samples = APIS.map((api) => {
    const doc = loadBundle(api.name) as OpenApiDoc;
    // Operations of an added API whose schemas refuse every body or the examples given (their samples cannot compile), by pointer.
    const refused = new Set<string>();
    return { api, refused, samples: codeSamples(doc, api, api.hasReferenceServer ? exampleRequest : withBodyTheSchemaTakes(refused)) };
  });
  // Named by place, not operationId: an operation need not have one.
  const fileName = (apiName: string, index: number) => `docs-sample.${apiName}.${index}.ts`;
  // A sample that must not compile: proves the check sees type errors in samples at all.
  const broken: VirtualSource = {
    name: "docs-sample.broken.ts",
    text: 'import { createMeshClient } from "./generated/mesh/client.ts";\nawait createMeshClient().GET("/discovery-chain/{service_name}", { params: { path: { service: "web" } } });\n',
  };
  let diagnostics: Map<string, string[]>;

  // Half a minute, and more for many samples (GitHub's 1,223 against its 6 MB of types).
  beforeAll(() => {
    const sources = samples.flatMap(({ api, samples }) => samples.map((s, i) => ({ name: fileName(api.name, i), text: s.typescript })));
    diagnostics = typecheck([...sources, broken]);
  }, 30_000 + 100 * samples.reduce((sum, s) => sum + s.samples.length, 0));

  it("the check catches a sample that does not compile", () => {
    expect(diagnostics.get(broken.name)!.join("\n")).toMatch(/service/);
  });

  describe.each(samples.map((s) => [s.api.name, s] as const))("%s", (_name, { api, samples, refused }) => {
    it("every operation has a curl and a TypeScript sample in the docs bundle", () => {
      const docs = withCodeSamples(loadBundle(api.name) as OpenApiDoc, api);
      const missing = operationsOf(docs)
        .filter((o) => {
          const labels = ((o.operation["x-codeSamples"] ?? []) as { label: string }[]).map((s) => s.label);
          return !(labels.includes("curl") && labels.includes("TypeScript"));
        })
        .map((o) => o.label);
      expect(missing).toEqual([]);
      expect(samples.length).toBe(operationsOf(docs).length);
    });

    it("every TypeScript sample compiles against the generated client (but one of values its own schemas refuse)", () => {
      const errors = samples.flatMap((s, i) => (refused.has(s.pointer) ? [] : diagnostics.get(fileName(api.name, i))!.map((d) => `${s.label}: ${d}`)));
      expect(errors).toEqual([]);
    });
  });
});

/**
 * An operation's example request with its body, if any, one its schema takes (a stand-in shaped by
 * the schema, else one conformance generates: bodyTheSchemaTakes), whatever its examples. The
 * pointer of an operation goes into `refused` when its schema takes no body, or its schemas refuse
 * the parameter examples it gives (an integer's example written as text): a sample of them is the
 * description's lint's to judge.
 */
function withBodyTheSchemaTakes(refused: Set<string>): (doc: OpenApiDoc, operation: Operation) => ExampleRequest {
  const checkers = new Map<OpenApiDoc, ReturnType<typeof contractChecker>>();
  return (doc, operation) => {
    const request = exampleRequest(doc, operation);
    if (!checkers.has(doc)) checkers.set(doc, contractChecker(doc, { unknownQueryParameters: "allow" }));
    const checker = checkers.get(doc)!;
    const { wire } = wireParameters(request);
    const matched = checker.match(operation.method, wire.path);
    if (!matched || checker.checkRequest(matched, wire).some((v) => v.kind === "request-parameter")) refused.add(operation.pointer);
    if (!request.body) return request;
    const standIn = standInBody(doc, operation, request.body.mediaType);
    const taken = bodyTheSchemaTakes(doc, checker, operation, [standIn]);
    if (!taken) refused.add(operation.pointer);
    request.body = taken ?? standIn;
    return request;
  };
}
