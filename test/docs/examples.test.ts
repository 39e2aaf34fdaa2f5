// Every operation shows a request example (when it takes a body) and a response example per
// documented status with a body; required parameters have example values. One test per API, so
// each API's engineers can get theirs green on their own; a failure lists every gap.
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { exampleGaps, hiddenTags, mediaExamples, parameterExample } from "../../scripts/docs/examples.ts";
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

  it("finds tags that x-tagGroups leaves out of the page", () => {
    expect(hiddenTags(doc)).toEqual(["changelog"]);
    expect(hiddenTags({ ...doc, "x-tagGroups": undefined })).toEqual([]);
  });
});

describe.each(APIS.map((api) => [api.name]))("%s description", (name) => {
  const doc = loadBundle(name) as OpenApiDoc;

  it("has every example the docs, code samples and mock need", () => {
    expect(format(exampleGaps(doc))).toEqual([]);
  });

  it("shows every tag on the docs page (none left out by x-tagGroups)", () => {
    expect(hiddenTags(doc)).toEqual([]);
  });
});
