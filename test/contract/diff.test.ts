// Breaking-change detection on small hand-made descriptions: one test per kind of change, in
// requests and in responses, through $refs; then the verdict and the report.
import { describe, expect, it } from "vitest";
import { bumpBetween, diffApi, diffDocuments, diffSecurityLists, formatApiDiff, formatMarkdown, nextVersion, verdict, type Change } from "../../scripts/contract/diff.ts";
import type { JsonObject, OpenApiDoc } from "../../scripts/contract/document.ts";

/** A one-operation API: PUT /items/{id} with a JSON body and a JSON 200 answer, schemas in components. */
function api(parts: { request?: JsonObject; response?: JsonObject; parameters?: JsonObject[]; responses?: JsonObject; version?: string; extraPaths?: JsonObject; body?: JsonObject | null } = {}): OpenApiDoc {
  const operation: JsonObject = {
    operationId: "putItem",
    parameters: parts.parameters ?? [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
    responses: parts.responses ?? {
      "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } },
      "400": { description: "bad", content: { "text/plain": { schema: { type: "string" } } } },
    },
  };
  if (parts.body !== null) {
    operation.requestBody = parts.body ?? { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } } };
  }
  return {
    openapi: "3.1.0",
    info: { title: "t", version: parts.version ?? "1.0.0" },
    paths: { "/items/{id}": { put: operation }, ...(parts.extraPaths ?? {}) },
    components: {
      schemas: {
        ItemInput: parts.request ?? {
          type: "object",
          additionalProperties: false,
          required: ["Name"],
          properties: { Name: { type: "string" }, Color: { type: "string", enum: ["red", "blue"] }, Size: { type: "integer", maximum: 10 } },
        },
        Item: parts.response ?? {
          type: "object",
          required: ["ID", "Name"],
          properties: { ID: { type: "string" }, Name: { type: "string" }, Color: { type: "string", enum: ["red", "blue"] }, Count: { type: "integer" } },
        },
      },
    },
  };
}

const input = (change: (schema: JsonObject) => void): JsonObject => {
  const schema = structuredClone(api().components!.schemas as JsonObject).ItemInput as JsonObject;
  change(schema);
  return schema;
};
const output = (change: (schema: JsonObject) => void): JsonObject => {
  const schema = structuredClone(api().components!.schemas as JsonObject).Item as JsonObject;
  change(schema);
  return schema;
};
const props = (schema: JsonObject) => schema.properties as Record<string, JsonObject>;
const responsesOf = (doc: OpenApiDoc) => structuredClone((doc.paths!["/items/{id}"]!.put as JsonObject).responses as JsonObject);

/** The changes of one kind, and nothing else. */
function only(changes: Change[], kind: Change["kind"]): Change {
  expect(changes.map((c) => c.kind)).toEqual([kind]);
  return changes[0]!;
}

describe("diffDocuments", () => {
  it("finds no change between equal documents", () => {
    expect(diffDocuments(api(), api())).toEqual([]);
  });

  it("removed operation: breaking; added operation: not", () => {
    const two = api({ extraPaths: { "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } } } });
    const removed = only(diffDocuments(two, api()), "operation-removed");
    expect(removed).toMatchObject({ breaking: true, operation: "GET /items (listItems)", pointer: "/paths/~1items/get" });
    expect(only(diffDocuments(api(), two), "operation-added").breaking).toBe(false);
  });

  it("renamed path parameter: the same operation, no change", () => {
    const renamed = api({ parameters: [{ name: "item_id", in: "path", required: true, schema: { type: "string" } }] });
    (renamed.paths as JsonObject)["/items/{item_id}"] = (renamed.paths as JsonObject)["/items/{id}"]!;
    delete (renamed.paths as JsonObject)["/items/{id}"];
    expect(diffDocuments(api(), renamed)).toEqual([]);
  });

  it("new required request parameter: breaking; new optional one: not", () => {
    const withParam = (required: boolean) =>
      api({ parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "dry", in: "query", required, schema: { type: "boolean" } }] });
    const added = only(diffDocuments(api(), withParam(true)), "parameter-added-required");
    expect(added).toMatchObject({ breaking: true, pointer: "/paths/~1items~1{id}/put/parameters/query:dry" });
    expect(only(diffDocuments(api(), withParam(false)), "parameter-added-optional").breaking).toBe(false);
  });

  it("a header parameter named Accept, Content-Type or Authorization: no change (OpenAPI ignores such a definition)", () => {
    const withHeaders = api({
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "string" } },
        { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
        { name: "accept", in: "header", required: true, schema: { type: "string", enum: ["text/csv"] } },
        { name: "Content-Type", in: "header", required: true, schema: { type: "string" } },
      ],
    });
    expect(diffDocuments(api(), withHeaders)).toEqual([]);
    expect(diffDocuments(withHeaders, api())).toEqual([]);
  });

  it("parameter became required: breaking; became optional: not", () => {
    const withParam = (required: boolean) =>
      api({ parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "X-Trace", in: "header", required, schema: { type: "string" } }] });
    expect(only(diffDocuments(withParam(false), withParam(true)), "parameter-became-required").breaking).toBe(true);
    expect(only(diffDocuments(withParam(true), withParam(false)), "parameter-became-optional").breaking).toBe(false);
  });

  it("removed request parameter: breaking (unknown query parameters are refused)", () => {
    const withParam = api({ parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "dry", in: "query", schema: { type: "boolean" } }] });
    expect(only(diffDocuments(withParam, api()), "parameter-removed").breaking).toBe(true);
  });

  it("narrowed parameter type: breaking, through the parameter's schema", () => {
    const typed = (type: string) => api({ parameters: [{ name: "id", in: "path", required: true, schema: { type } }] });
    const change = only(diffDocuments(typed("string"), typed("integer")), "request-type-changed");
    expect(change).toMatchObject({ breaking: true, message: "type string is now integer", pointer: "/paths/~1items~1{id}/put/parameters/path:id/schema" });
  });

  it("narrowed parameter type: breaking, through the schema of a parameter described by content too", () => {
    const typed = (type: string) =>
      api({ parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "filter", in: "query", content: { "application/json": { schema: { type } } } }] });
    const change = only(diffDocuments(typed("object"), typed("array")), "request-type-changed");
    expect(change).toMatchObject({ breaking: true, message: "type object is now array", pointer: "/paths/~1items~1{id}/put/parameters/query:filter/schema" });
  });

  it("request body added as required: breaking; body became required: breaking", () => {
    expect(only(diffDocuments(api({ body: null }), api()), "request-body-added").breaking).toBe(true);
    const optional = api({ body: { required: false, content: { "application/json": { schema: { $ref: "#/components/schemas/ItemInput" } } } } });
    expect(only(diffDocuments(optional, api()), "request-body-became-required").breaking).toBe(true);
    expect(only(diffDocuments(api(), optional), "request-body-became-optional").breaking).toBe(false);
  });

  it("a required readOnly field counts as required in responses only, a writeOnly one in requests only (OpenAPI)", () => {
    // A request field added required but readOnly: optional for a client, so not breaking.
    const readOnlyIn = input((s) => {
      props(s).Created = { type: "string", readOnly: true };
      (s.required as string[]).push("Created");
    });
    expect(only(diffDocuments(api(), api({ request: readOnlyIn })), "request-property-added-optional").breaking).toBe(false);
    // A response field that becomes writeOnly and stays required is no longer always sent: breaking.
    const writeOnlyOut = output((s) => (props(s).Name = { type: "string", writeOnly: true }));
    expect(only(diffDocuments(api(), api({ response: writeOnlyOut })), "response-property-became-optional").breaking).toBe(true);
  });

  it("new required request body field: breaking; new optional field: not", () => {
    const required = input((s) => {
      props(s).Owner = { type: "string" };
      (s.required as string[]).push("Owner");
    });
    const change = only(diffDocuments(api(), api({ request: required })), "request-property-added-required");
    expect(change).toMatchObject({
      breaking: true,
      pointer: "/paths/~1items~1{id}/put/requestBody/content/application~1json/schema/properties/Owner",
      definedIn: "#/components/schemas/ItemInput/properties/Owner",
    });
    const optional = input((s) => (props(s).Owner = { type: "string" }));
    expect(only(diffDocuments(api(), api({ request: optional })), "request-property-added-optional").breaking).toBe(false);
  });

  it("request field became required: breaking; became optional: not", () => {
    const colorRequired = input((s) => (s.required as string[]).push("Color"));
    expect(only(diffDocuments(api(), api({ request: colorRequired })), "request-property-became-required").breaking).toBe(true);
    expect(only(diffDocuments(api({ request: colorRequired }), api()), "request-property-became-optional").breaking).toBe(false);
  });

  it("removed request field: breaking when the schema now refuses it, not when it is still accepted", () => {
    const withoutSize = input((s) => delete props(s).Size);
    const refused = only(diffDocuments(api(), api({ request: withoutSize })), "request-property-removed");
    expect(refused).toMatchObject({ breaking: true, message: 'field "Size" was removed and is now refused' });
    const open = (s: JsonObject) => ({ ...s, additionalProperties: true });
    const accepted = only(diffDocuments(api({ request: open(input(() => {})) }), api({ request: open(withoutSize) })), "request-property-removed");
    expect(accepted.breaking).toBe(false);
  });

  it("request schema that starts refusing unknown fields: breaking", () => {
    const open = input((s) => delete s.additionalProperties);
    expect(only(diffDocuments(api({ request: open }), api()), "request-additional-properties-forbidden").breaking).toBe(true);
    expect(only(diffDocuments(api(), api({ request: open })), "request-additional-properties-allowed").breaking).toBe(false);
  });

  it("narrowed enum in a request: breaking; widened: not", () => {
    const red = input((s) => (props(s).Color!.enum = ["red"]));
    const change = only(diffDocuments(api(), api({ request: red })), "request-enum-narrowed");
    expect(change).toMatchObject({ breaking: true, message: 'enum value(s) "blue" removed' });
    expect(only(diffDocuments(api({ request: red }), api()), "request-enum-widened").breaking).toBe(false);
  });

  it("widened enum in a response: breaking; narrowed: not", () => {
    const green = output((s) => (props(s).Color!.enum = ["red", "blue", "green"]));
    const change = only(diffDocuments(api(), api({ response: green })), "response-enum-widened");
    expect(change).toMatchObject({
      breaking: true,
      message: 'enum value(s) "green" added',
      pointer: "/paths/~1items~1{id}/put/responses/200/content/application~1json/schema/properties/Color",
      definedIn: "#/components/schemas/Item/properties/Color",
    });
    expect(only(diffDocuments(api({ response: green }), api()), "response-enum-narrowed").breaking).toBe(false);
  });

  it("const counts as a one-value enum", () => {
    const constant = input((s) => (props(s).Color = { type: "string", const: "red" }));
    expect(only(diffDocuments(api(), api({ request: constant })), "request-enum-narrowed").message).toBe('enum value(s) "blue" removed');
  });

  it("removed response field: breaking; added: not; no longer always sent: breaking", () => {
    const withoutCount = output((s) => delete props(s).Count);
    expect(only(diffDocuments(api(), api({ response: withoutCount })), "response-property-removed").breaking).toBe(true);
    expect(only(diffDocuments(api({ response: withoutCount }), api()), "response-property-added").breaking).toBe(false);
    const nameOptional = output((s) => (s.required = ["ID"]));
    expect(only(diffDocuments(api(), api({ response: nameOptional })), "response-property-became-optional").breaking).toBe(true);
    expect(only(diffDocuments(api({ response: nameOptional }), api()), "response-property-became-required").breaking).toBe(false);
  });

  it("removed response status: breaking; added status: not", () => {
    const without400 = api({ responses: { "200": responsesOf(api())["200"]! } });
    const removed = only(diffDocuments(api(), without400), "response-status-removed");
    expect(removed).toMatchObject({ breaking: true, pointer: "/paths/~1items~1{id}/put/responses/400", message: "response status 400 was removed" });
    expect(only(diffDocuments(without400, api()), "response-status-added").breaking).toBe(false);
  });

  it("removed response media type: breaking; removed response header: breaking", () => {
    const responses = responsesOf(api());
    const jsonError = structuredClone(responses);
    jsonError["400"] = { description: "bad", content: { "application/json": { schema: { type: "object" } } } };
    const changes = diffDocuments(api(), api({ responses: jsonError }));
    expect(changes.map((c) => [c.kind, c.breaking])).toEqual([
      ["response-media-type-removed", true],
      ["response-media-type-added", false],
    ]);
    const withHeader = structuredClone(responses);
    (withHeader["200"] as JsonObject).headers = { "X-Index": { required: true, schema: { type: "integer" } } };
    expect(only(diffDocuments(api({ responses: withHeader }), api()), "response-header-removed").breaking).toBe(true);
    expect(only(diffDocuments(api(), api({ responses: withHeader })), "response-header-added").breaking).toBe(false);
  });

  it("type changes: a request may accept more, a response may send less", () => {
    const sizeNumber = input((s) => (props(s).Size = { type: "number", maximum: 10 }));
    expect(only(diffDocuments(api(), api({ request: sizeNumber })), "request-type-changed").breaking).toBe(false);
    expect(only(diffDocuments(api({ request: sizeNumber }), api()), "request-type-changed").breaking).toBe(true);
    const countNumber = output((s) => (props(s).Count = { type: "number" }));
    expect(only(diffDocuments(api(), api({ response: countNumber })), "response-type-changed").breaking).toBe(true);
    expect(only(diffDocuments(api({ response: countNumber }), api()), "response-type-changed").breaking).toBe(false);
    const nullable = output((s) => (props(s).Count = { type: ["integer", "null"] }));
    expect(only(diffDocuments(api(), api({ response: nullable })), "response-type-changed")).toMatchObject({ breaking: true, message: "type integer is now integer|null" });
  });

  it("constraints: tighter in a request and looser in a response are breaking", () => {
    const smaller = input((s) => (props(s).Size!.maximum = 5));
    expect(only(diffDocuments(api(), api({ request: smaller })), "request-constraint-tightened")).toMatchObject({ breaking: true, message: "maximum 10 is now 5" });
    expect(only(diffDocuments(api({ request: smaller }), api()), "request-constraint-relaxed").breaking).toBe(false);
    const bounded = output((s) => (props(s).Count = { type: "integer", maximum: 100 }));
    expect(only(diffDocuments(api({ response: bounded }), api()), "response-constraint-relaxed").breaking).toBe(true);
    const pattern = input((s) => (props(s).Name = { type: "string", pattern: "^[a-z]+$" }));
    expect(only(diffDocuments(api(), api({ request: pattern })), "request-constraint-tightened").message).toBe('pattern (none) is now "^[a-z]+$"');
  });

  it("union alternatives: removed in a request and added in a response are breaking", () => {
    const union = (refs: string[]): JsonObject => ({ oneOf: refs.map((r) => ({ $ref: `#/components/schemas/${r}` })) });
    const withShapes = (request: JsonObject, response: JsonObject) => {
      const doc = api({ request, response });
      Object.assign(doc.components!.schemas as JsonObject, {
        Circle: { type: "object", properties: { r: { type: "number" } } },
        Square: { type: "object", properties: { side: { type: "number" } } },
      });
      return doc;
    };
    const both = union(["Circle", "Square"]);
    const one = union(["Circle"]);
    expect(only(diffDocuments(withShapes(both, one), withShapes(one, one)), "request-variant-removed").breaking).toBe(true);
    expect(only(diffDocuments(withShapes(one, one), withShapes(one, both)), "response-variant-added").breaking).toBe(true);
    expect(only(diffDocuments(withShapes(one, both), withShapes(one, one)), "response-variant-removed").breaking).toBe(false);
    // A request schema that becomes a union still accepting the old values is not breaking.
    const circle = { $ref: "#/components/schemas/Circle" };
    expect(only(diffDocuments(withShapes(circle, one), withShapes(both, one)), "request-variant-added").breaking).toBe(false);
  });

  it("a list of types is a union: each type may be covered by another alternative", () => {
    const flag = (schema: JsonObject) => input((s) => (props(s).Flag = schema));
    const lenient: JsonObject = { anyOf: [{ $ref: "#/components/schemas/Lenient" }, { type: "null" }] };
    const withLenient = (request: JsonObject) => {
      const doc = api({ request });
      (doc.components!.schemas as JsonObject).Lenient = { anyOf: [{ type: "boolean" }, { type: "string", enum: ["true", "false"] }] };
      return doc;
    };
    const widened = diffDocuments(withLenient(flag({ type: ["boolean", "null"] })), withLenient(flag(lenient)));
    expect(widened.map((c) => [c.kind, c.breaking])).toEqual([["request-variant-added", false]]);
    // A type the union does not cover any more is still found.
    const narrowed = diffDocuments(withLenient(flag({ type: ["boolean", "integer", "null"] })), withLenient(flag(lenient)));
    expect(narrowed.filter((c) => c.breaking).map((c) => c.message)).toEqual(["type integer is now boolean"]);
    // In a response, a new type list must fit the old alternatives, each type in one of them.
    const answer = (schema: JsonObject) => output((s) => (props(s).Count = schema));
    const before = api({ response: answer({ anyOf: [{ type: "integer" }, { type: "null" }] }) });
    expect(diffDocuments(before, api({ response: answer({ type: ["integer", "null"] }) })).filter((c) => c.breaking)).toEqual([]);
    expect(diffDocuments(before, api({ response: answer({ type: ["integer", "string"] }) })).some((c) => c.breaking)).toBe(true);
  });

  it("follows $refs into shared schemas and stops on recursive ones", () => {
    const tree = (extra: JsonObject): OpenApiDoc => {
      const doc = api({ response: { $ref: "#/components/schemas/Node" } });
      (doc.components!.schemas as JsonObject).Node = {
        type: "object",
        properties: { Name: { type: "string" }, Children: { type: "array", items: { $ref: "#/components/schemas/Node" } }, ...extra },
      };
      return doc;
    };
    expect(diffDocuments(tree({}), tree({}))).toEqual([]);
    const change = only(diffDocuments(tree({ Depth: { type: "integer" } }), tree({})), "response-property-removed");
    expect(change).toMatchObject({ pointer: "/paths/~1items~1{id}/put/responses/200/content/application~1json/schema/properties/Depth", definedIn: "#/components/schemas/Node/properties/Depth" });
  });
});

describe("verdict and report", () => {
  const before = api();
  const after = api({ response: output((s) => delete props(s).Count) });

  it("fails on a breaking change with the same info.version, passes with a major bump", () => {
    expect(verdict(before, after, diffDocuments(before, after))).toEqual({
      versionBefore: "1.0.0",
      versionAfter: "1.0.0",
      breaking: 1,
      required: "major",
      made: "none",
      fails: true,
      reason: "info.version is still 1.0.0",
    });
    const bumped = { ...after, info: { title: "t", version: "2.0.0" } };
    expect(verdict(before, bumped, diffDocuments(before, bumped))).toMatchObject({ required: "major", made: "major", fails: false });
    const harmless = api({ response: output((s) => (props(s).Extra = { type: "string" })) });
    expect(verdict(before, harmless, diffDocuments(before, harmless))).toMatchObject({ required: "minor", made: "none", fails: false });
  });

  // The versioning policy of oasdiff (checker/versioning_policy.go and its tests): a breaking change
  // requires a major version increase; below 1.0.0 the minor number plays the major's role.
  it("a breaking change needs a major bump: a minor or patch bump, or a lower version, does not carry it", () => {
    const at = (version: string) => ({ ...after, info: { title: "t", version } });
    const judge = (from: string, to: string) => {
      const b = { ...before, info: { title: "t", version: from } };
      return verdict(b, at(to), diffDocuments(b, at(to)));
    };
    expect(judge("1.0.0", "1.1.0")).toMatchObject({ made: "minor", fails: true, reason: "info.version 1.0.0 -> 1.1.0 is a minor bump; a breaking change needs a new major version (2.0.0)" });
    expect(judge("1.0.0", "1.0.1")).toMatchObject({ made: "patch", fails: true });
    expect(judge("v1.0.0", "v1.1.0")).toMatchObject({ fails: true });
    expect(judge("1.0.0", "1.1.0-rc.1")).toMatchObject({ fails: true });
    expect(judge("2.0.0", "1.0.0")).toMatchObject({ made: "decreased", fails: true, reason: "info.version went down (2.0.0 -> 1.0.0)" });
    expect(judge("1.9.3", "2.0.0")).toMatchObject({ fails: false });
    expect(judge("1.0.0", "2.0.0+build.5")).toMatchObject({ fails: false });
    expect(judge("0.1.0", "0.2.0")).toMatchObject({ fails: false });
    expect(judge("0.1.0", "0.1.1")).toMatchObject({ fails: true, reason: "info.version 0.1.0 -> 0.1.1 is a patch bump; a breaking change needs a new minor version below 1.0.0 (0.2.0)" });
    // oasdiff stays silent on versions that are not semver; a gate cannot pass what it cannot judge.
    expect(judge("2026-01-01", "2026-06-01")).toMatchObject({ made: "not semver", fails: true });
    expect(judge("v1", "v2")).toMatchObject({ fails: true });
  });

  it("says which bump a change needs: major, minor, patch (text only) or none", () => {
    expect(verdict(before, before, [])).toMatchObject({ required: "none", fails: false });
    const reworded = { ...before, info: { title: "t", version: "1.0.0", description: "now described" } };
    expect(verdict(before, reworded, diffDocuments(before, reworded))).toMatchObject({ required: "patch", made: "none", fails: false });
    expect(formatApiDiff(diffApi("mesh", before, reworded))).toEqual(["mesh 1.0.0: no interface changes (text only)"]);
    expect(bumpBetween("1.4.2", "1.5.0")).toBe("minor");
    expect(bumpBetween("1.4.2", "1.4.2")).toBe("none");
    expect(nextVersion("1.4.2", "major")).toBe("2.0.0");
    expect(nextVersion("0.4.2", "major")).toBe("0.5.0");
    expect(nextVersion("1.4.2", "minor")).toBe("1.5.0");
    expect(nextVersion("v1.4.2", "patch")).toBe("v1.4.3");
    expect(nextVersion("v1", "patch")).toBeUndefined();
  });

  it("an API absent at the baseline is new, with nothing to compare", () => {
    const result = diffApi("mesh", undefined, after);
    expect(result).toMatchObject({ isNew: true, changes: [], verdict: { fails: false } });
    expect(formatApiDiff(result)).toEqual(["mesh: new (1.0.0), nothing to compare with"]);
  });

  it("prints breaking changes first, with the pointer, and says why it fails", () => {
    const grown = api({ response: output((s) => {
      delete props(s).Count;
      props(s).Extra = { type: "string" };
    }) });
    const lines = formatApiDiff(diffApi("mesh", before, grown));
    expect(lines[0]).toBe("mesh 1.0.0: 1 breaking, 1 other");
    expect(lines[1]).toMatch(/^ {2}BREAKING response-property-removed {2}PUT \/items\/\{id\} \(putItem\): field "Count" was removed$/);
    expect(lines[2]).toContain("at /paths/~1items~1{id}/put/responses/200/content/application~1json/schema/properties/Count (defined in #/components/schemas/Item/properties/Count)");
    expect(lines[3]).toMatch(/^ {2}ok {7}response-property-added/);
    expect(lines.at(-2)).toBe("  version: needs a major version bump (breaking changes), at least 2.0.0; info.version is still 1.0.0");
    expect(lines.at(-1)).toBe("  FAIL: 1 breaking change(s) and info.version is still 1.0.0: bump the major version or change the description");
  });

  it("renders a Markdown report for a pull request: the verdict per API, then each change", () => {
    const grown = api({ response: output((s) => {
      delete props(s).Count;
      props(s).Extra = { type: "string" };
    }) });
    const markdown = formatMarkdown([diffApi("mesh", before, grown), diffApi("secrets", before, before)], "0123456789ab");
    expect(markdown.split("\n")).toEqual([
      "## Breaking-change check against `0123456789ab`",
      "",
      "**Fails**: mesh (1 breaking change without a major version bump).",
      "",
      "| API | version | breaking | other | needs | verdict |",
      "|---|---|---|---|---|---|",
      "| mesh | 1.0.0 | 1 | 1 | major (≥ 2.0.0) | ❌ fails |",
      "| secrets | 1.0.0 | 0 | 0 | no bump | ✅ passes |",
      "",
      "### mesh",
      "",
      "needs a major version bump (breaking changes), at least 2.0.0; info.version is still 1.0.0. **Fails.**",
      "",
      "| | change | operation | what | where |",
      "|---|---|---|---|---|",
      '| **breaking** | `response-property-removed` | PUT /items/{id} (putItem) | field "Count" was removed | `/paths/~1items~1{id}/put/responses/200/content/application~1json/schema/properties/Count` (defined in `#/components/schemas/Item/properties/Count`) |',
      '| ok | `response-property-added` | PUT /items/{id} (putItem) | new field "Extra" | `/paths/~1items~1{id}/put/responses/200/content/application~1json/schema/properties/Extra` (defined in `#/components/schemas/Item/properties/Extra`) |',
      "",
    ]);
    // Each reason once: no line repeats "info.version is still".
    expect(markdown.match(/info\.version is still/g)).toHaveLength(1);
    const minor = formatMarkdown([diffApi("mesh", before, { ...grown, info: { ...grown.info, version: "1.1.0" } })]);
    expect(minor.match(/is a minor bump/g)).toHaveLength(1);
  });
});

// Security changes are reported and classified as oasdiff classifies them (checker/rules.go: every
// security rule is INFO, none breaking), with its ids and wording, so a reviewer sees them.
describe("security requirements and schemes", () => {
  const petstore: JsonObject = {
    petstore_auth: { type: "oauth2", flows: { implicit: { authorizationUrl: "http://example.org/api/oauth/dialog", scopes: { "write:pets": "modify", "read:pets": "read" } } } },
    api_key: { type: "apiKey", name: "X-Key", in: "header" },
  };
  const secured = (parts: { global?: JsonObject[]; operation?: JsonObject[]; schemes?: JsonObject }): OpenApiDoc => {
    const doc = api();
    if (parts.global) doc.security = parts.global;
    if (parts.operation) (doc.paths!["/items/{id}"]!.put as JsonObject).security = parts.operation;
    doc.components!.securitySchemes = parts.schemes ?? petstore;
    return doc;
  };
  const both = { petstore_auth: ["write:pets", "read:pets"] };

  it("an operation's security requirement added or removed: reported, not breaking", () => {
    const added = only(diffDocuments(secured({}), secured({ operation: [both] })), "api-security-added");
    expect(added).toEqual({
      kind: "api-security-added",
      breaking: false,
      operation: "PUT /items/{id} (putItem)",
      pointer: "/paths/~1items~1{id}/put/security",
      message: "the endpoint scheme security petstore_auth: [read:pets, write:pets] was added to the API",
    });
    expect(only(diffDocuments(secured({ operation: [both] }), secured({})), "api-security-removed").message).toBe(
      "the endpoint scheme security petstore_auth: [read:pets, write:pets] was removed from the API",
    );
  });

  it("an operation's scope added or removed", () => {
    const read = { petstore_auth: ["read:pets"] };
    expect(only(diffDocuments(secured({ operation: [read] }), secured({ operation: [both] })), "api-security-scope-added").message).toBe(
      "the security scope write:pets was added to the endpoint's security scheme petstore_auth",
    );
    expect(only(diffDocuments(secured({ operation: [both] }), secured({ operation: [read] })), "api-security-scope-removed").breaking).toBe(false);
  });

  it("the document's security: alternatives and scopes added or removed", () => {
    const global = only(diffDocuments(secured({}), secured({ global: [both] })), "api-global-security-added");
    expect(global).toMatchObject({ breaking: false, operation: "(all operations)", pointer: "/security", message: "the security scheme petstore_auth: [read:pets, write:pets] was added to the API" });
    expect(only(diffDocuments(secured({ global: [both] }), secured({})), "api-global-security-removed").breaking).toBe(false);
    expect(only(diffDocuments(secured({ global: [both] }), secured({ global: [{ petstore_auth: ["write:pets"] }] })), "api-global-security-scope-removed").message).toBe(
      "the security scope read:pets was removed from the global security scheme petstore_auth",
    );
    expect(only(diffDocuments(secured({ global: [{ petstore_auth: ["read:pets"] }] }), secured({ global: [both] })), "api-global-security-scope-added").breaking).toBe(false);
    // Anonymous access as an alternative ({}) is an alternative like any other at the document level.
    expect(only(diffDocuments(secured({ global: [both] }), secured({ global: [both, {}] })), "api-global-security-added").message).toBe("the security scheme {} was added to the API");
    // An operation's {} is left out, as oasdiff leaves it out.
    expect(diffDocuments(secured({ operation: [both] }), secured({ operation: [both, {}] }))).toEqual([]);
  });

  it("alternatives are matched as wholes: the same list in another order is no change; AND-ed schemes are one alternative", () => {
    const apiKey = { api_key: [] };
    expect(diffDocuments(secured({ global: [apiKey, both] }), secured({ global: [both, apiKey] }))).toEqual([]);
    const anded = { ...both, ...apiKey };
    const changes = diffDocuments(secured({ global: [both] }), secured({ global: [anded] }));
    expect(changes.map((c) => [c.kind, c.message])).toEqual([
      ["api-global-security-added", "the security scheme api_key AND petstore_auth: [read:pets, write:pets] was added to the API"],
      ["api-global-security-removed", "the security scheme petstore_auth: [read:pets, write:pets] was removed from the API"],
    ]);
    // The same scheme twice (read OR write): once the identical ones cancel out, a single leftover on
    // each side is a scope change; two leftovers are ambiguous, so they are removed and added.
    expect(diffSecurityLists([{ p: ["read"] }, { p: ["write"] }], [{ p: ["read"] }, { p: ["admin"] }])).toEqual({
      removed: [],
      added: [],
      scopes: [{ scheme: "p", added: ["admin"], removed: ["write"] }],
    });
    expect(diffSecurityLists([{ p: ["a"] }, { p: ["b"] }], [{ p: ["c"] }, { p: ["d"] }])).toEqual({
      removed: [{ p: ["a"] }, { p: ["b"] }],
      added: [{ p: ["c"] }, { p: ["d"] }],
      scopes: [],
    });
    // Compared with itself, such a list shows no phantom scope change (oasdiff issue #1041).
    expect(diffSecurityLists([{ p: ["read"] }, { p: ["write"] }], [{ p: ["write"] }, { p: ["read"] }])).toEqual({ removed: [], added: [], scopes: [] });
  });

  it("security schemes: added, removed, type changed, OAuth scopes added or removed", () => {
    const { api_key: _, ...onlyOauth } = petstore;
    expect(only(diffDocuments(secured({ schemes: onlyOauth }), secured({})), "api-security-component-added")).toMatchObject({
      breaking: false,
      pointer: "/components/securitySchemes/api_key",
      message: "the component security scheme api_key was added",
    });
    expect(only(diffDocuments(secured({}), secured({ schemes: onlyOauth })), "api-security-component-removed").breaking).toBe(false);
    const bearer = { ...petstore, api_key: { type: "http", scheme: "bearer" } };
    expect(only(diffDocuments(secured({}), secured({ schemes: bearer })), "api-security-component-type-changed").message).toBe(
      "the component security scheme api_key type changed from apiKey to http",
    );
    const fewer = structuredClone(petstore);
    delete (((fewer.petstore_auth as JsonObject).flows as JsonObject).implicit as JsonObject & { scopes: JsonObject }).scopes["read:pets"];
    expect(only(diffDocuments(secured({}), secured({ schemes: fewer })), "api-security-component-oauth-scope-removed").message).toBe(
      "the component security scheme petstore_auth oauth scope read:pets was removed",
    );
    expect(only(diffDocuments(secured({ schemes: fewer }), secured({})), "api-security-component-oauth-scope-added").breaking).toBe(false);
  });

  it("security changes alone need a minor version bump, and never fail the check", () => {
    const b = secured({});
    const a = secured({ global: [both] });
    expect(verdict(b, a, diffDocuments(b, a))).toMatchObject({ breaking: 0, required: "minor", fails: false });
  });
});
