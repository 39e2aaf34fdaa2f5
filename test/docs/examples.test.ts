// Every operation shows a request example (when it takes a body) and a response example per
// documented status with a body; required parameters have example values. One test per API, so
// each API's engineers can get theirs green on their own; a failure lists every gap.
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { exampleGaps, hiddenTags, mediaExamples, parameterExample, schemaSample } from "../../scripts/docs/examples.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

const format = (gaps: { operation: string; problem: string }[]) => gaps.map((g) => `${g.operation}: ${g.problem}`);

describe("example gaps", () => {
  const doc: OpenApiDoc = {
    openapi: "3.1.0",
    tags: [{ name: "things" }, { name: "changelog", "x-traitTag": true }],
    "x-tagGroups": [{ name: "Endpoints", tags: ["things"] }],
    paths: {
      "/things/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        put: {
          operationId: "putThing",
          tags: ["things"],
          parameters: [{ name: "mode", in: "query", required: true, schema: { $ref: "#/components/schemas/Mode" } }],
          requestBody: { content: { "application/json": { schema: {} }, "text/plain": { example: "x" } } },
          responses: {
            "200": { description: "ok", content: { "application/json": { examples: { a: { $ref: "#/components/examples/A" } } } } },
            "204": { description: "no body" },
            "400": { $ref: "#/components/responses/Bad" },
            "404": { description: "external only", content: { "text/plain": { examples: { far: { externalValue: "https://example.com/x" } } } } },
          },
        },
      },
    },
    components: {
      schemas: { Mode: { type: "string", enum: ["fast", "slow"] } },
      examples: { A: { value: { a: 1 } } },
      responses: { Bad: { description: "bad", content: { "text/plain": { schema: { type: "string" } } } } },
    },
  };

  it("names each missing example: parameters, request body media types, responses with a body", () => {
    expect(format(exampleGaps(doc))).toEqual([
      'PUT /things/{id} (putThing): path parameter "id" has no example (nor schema example, default or enum)',
      "PUT /things/{id} (putThing): request body application/json has no example",
      "PUT /things/{id} (putThing): response 400 text/plain has no example",
      "PUT /things/{id} (putThing): response 404 text/plain has no example",
    ]);
  });

  it("reads examples through $refs, and parameter values from the schema", () => {
    expect(mediaExamples(doc, { examples: { a: { $ref: "#/components/examples/A" } } })).toEqual([{ name: "a", value: { a: 1 } }]);
    expect(mediaExamples(doc, { example: false })).toEqual([{ value: false }]);
    const mode = { name: "mode", in: "query" as const, required: true, schema: { $ref: "#/components/schemas/Mode" }, pointer: "", raw: {} };
    expect(parameterExample(doc, mode)).toEqual({ value: "fast" });
  });

  it("makes a stand-in shaped by the schema where a description gives no example", () => {
    const none: OpenApiDoc = { paths: {}, components: { schemas: { Id: { type: "integer", minimum: 5 } } } };
    // The schema's own values first.
    expect(schemaSample(none, { type: "string", example: "e", default: "d" }, "x")).toBe("e");
    expect(schemaSample(none, { type: "string", default: "d", enum: ["a"] }, "x")).toBe("d");
    expect(schemaSample(none, { type: "string", enum: ["a", "b"] }, "x")).toBe("a");
    // Then a stand-in of its type that says what goes there.
    expect(schemaSample(none, { type: "string" }, "owner")).toBe("OWNER");
    expect(schemaSample(none, { type: "string" }, "repo-name")).toBe("REPO_NAME");
    expect(schemaSample(none, { type: "string", format: "date-time" }, "since")).toBe("2024-01-01T00:00:00Z");
    expect(schemaSample(none, { $ref: "#/components/schemas/Id" }, "id")).toBe(5);
    expect(schemaSample(none, { type: ["boolean", "null"] }, "draft")).toBe(true);
    expect(schemaSample(none, { type: "array", items: { type: "string" } }, "labels")).toEqual([]);
    expect(schemaSample(none, { type: "array", minItems: 1, items: { type: "string" } }, "labels")).toEqual(["LABELS"]);
    expect(schemaSample(none, { type: "object", required: ["title", "n"], properties: { title: { type: "string" }, n: { type: "integer" }, body: { type: "string" } } }, "body")).toEqual({ title: "TITLE", n: 1 });
    // Alternatives: a plain text one (unambiguous), else the first; and the members the first requires beside the properties.
    expect(schemaSample(none, { oneOf: [{ type: "integer" }, { type: "string" }] }, "workflow_id")).toBe("WORKFLOW_ID");
    expect(schemaSample(none, { anyOf: [{ type: "integer" }, { type: "boolean" }] }, "n")).toBe(1);
    expect(schemaSample(none, { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, oneOf: [{ required: ["b"] }, { required: ["a"] }] }, "x")).toEqual({ b: "B" });
    expect(schemaSample(none, { type: "object", oneOf: [{ properties: { ids: { type: "array", minItems: 1, items: { type: "integer" } } }, required: ["ids"] }, { required: ["digests"] }] }, "x")).toEqual({ ids: [1] });
    // A text the name does not fit (pattern, length): one the schema takes, the same each time.
    const digest = { type: "string", pattern: "^sha256:[a-f0-9]{64}$", minLength: 71 };
    const sample = schemaSample(none, digest, "subject_digest");
    expect(sample).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(schemaSample(none, digest, "subject_digest")).toBe(sample);
  });

  it("finds tags that x-tagGroups leaves out of the page", () => {
    expect(hiddenTags(doc)).toEqual(["changelog"]);
    expect(hiddenTags({ ...doc, "x-tagGroups": undefined })).toEqual([]);
  });
});

// This project's own descriptions give an example for everything; for a description added with
// add-api (written elsewhere: GitHub's has 4,324 gaps) the docs, samples and mock use stand-ins
// shaped by the schemas (schemaSample), and Redocly's lint judges its examples by its rules.
describe.each(APIS.filter((api) => api.hasReferenceServer).map((api) => [api.name]))("%s description's examples", (name) => {
  it("has every example the docs, code samples and mock need", () => {
    expect(format(exampleGaps(loadBundle(name) as OpenApiDoc))).toEqual([]);
  });
});

describe.each(APIS.map((api) => [api.name]))("%s description", (name) => {
  const doc = loadBundle(name) as OpenApiDoc;

  it("shows every tag on the docs page (none left out by x-tagGroups)", () => {
    expect(hiddenTags(doc)).toEqual([]);
  });
});
