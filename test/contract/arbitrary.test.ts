// The schema-to-arbitrary converter: every value it draws is accepted by the schema (checked with
// Ajv), for each keyword it handles; every mutated request is refused by the contract checker.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { invalidRequestArbitrary, mutationsOf, schemaArbitrary, toWire, validRequestArbitrary, type GeneratedRequest } from "../../scripts/contract/arbitrary.ts";
import { contractChecker, discriminatorsAsConditionals, type ContractChecker, type WireRequest } from "../../scripts/contract/checker.ts";
import type { JsonObject, OpenApiDoc } from "../../scripts/contract/document.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { withFormBody, withMultipartBody } from "../fixtures/form-body.ts";
import { withObjectParameters } from "../fixtures/object-parameters.ts";
import { multipartParts } from "../../scripts/contract/multipart.ts";

const schemas: Record<string, JsonObject> = {
  Enum: { type: "string", enum: ["tcp", "http"] },
  Const: { const: "global" },
  Pattern: { type: "string", pattern: "^[A-Za-z0-9_-]{1,16}$" },
  Duration: { type: "string", pattern: "^[0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h)$" },
  Lengths: { type: "string", minLength: 3, maxLength: 5 },
  DateTime: { type: "string", format: "date-time" },
  Date: { type: "string", format: "date" },
  Uuid: { type: "string", format: "uuid" },
  Email: { type: "string", format: "email" },
  Uri: { type: "string", format: "uri" },
  Ipv4: { type: "string", format: "ipv4" },
  Integer: { type: "integer", minimum: -3, exclusiveMaximum: 10 },
  MultipleOf: { type: "integer", minimum: 0, maximum: 100, multipleOf: 5 },
  Number: { type: "number", minimum: 0, maximum: 100 },
  Nullable: { type: ["string", "null"], maxLength: 2 },
  Array: { type: "array", minItems: 1, maxItems: 3, uniqueItems: true, items: { type: "integer", minimum: 0, maximum: 5 } },
  Object: {
    type: "object",
    additionalProperties: false,
    required: ["Name"],
    properties: { Name: { type: "string" }, Weight: { $ref: "#/components/schemas/Number" }, Kind: { $ref: "#/components/schemas/Enum" } },
  },
  Map: { type: "object", additionalProperties: { $ref: "#/components/schemas/Object" } },
  Open: { type: "object", properties: { protocol: { $ref: "#/components/schemas/Enum" } }, additionalProperties: true },
  AllOf: { allOf: [{ $ref: "#/components/schemas/Object" }, { required: ["Weight"] }] },
  Cat: { type: "object", required: ["pet", "lives"], properties: { pet: { type: "string" }, lives: { type: "integer", minimum: 1, maximum: 9 } } },
  Dog: { type: "object", required: ["pet", "good"], properties: { pet: { type: "string" }, good: { type: "boolean" } } },
  // Alternatives that do not fix the discriminator themselves: the generator must set it.
  Discriminated: {
    oneOf: [{ $ref: "#/components/schemas/Cat" }, { $ref: "#/components/schemas/Dog" }],
    discriminator: { propertyName: "pet", mapping: { cat: "#/components/schemas/Cat", dog: "#/components/schemas/Dog" } },
  },
  AnyOf: { anyOf: [{ type: "integer" }, { type: "string", enum: ["auto"] }] },
  // Keywords next to the union apply to every alternative.
  UnionWithProperties: {
    type: "object",
    required: ["provider"],
    properties: { provider: { type: "string", enum: ["a", "b"] }, key: { type: "string" }, secret: { type: "string" }, public: { type: "string" } },
    dependentRequired: { public: ["secret"] },
    anyOf: [{ properties: { provider: { const: "a" } } }, { required: ["key"] }],
  },
  Tree: { type: "object", required: ["Name"], properties: { Name: { type: "string" }, Children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } } },
};
const doc: OpenApiDoc = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {}, components: { schemas } };

/** A description with `doc`'s components and one operation, GET `path` with these parameters, answering 200. */
function withGet(path: string, parameters: JsonObject[]): OpenApiDoc {
  return { ...doc, paths: { [path]: { get: { parameters, responses: { "200": { description: "ok" } } } } } };
}

describe("schemaArbitrary", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...(discriminatorsAsConditionals(doc) as object), $id: "doc" });

  for (const name of Object.keys(schemas)) {
    it(`draws only values that ${name} accepts`, () => {
      const validate = ajv.compile({ $ref: `doc#/components/schemas/${name}` });
      fc.assert(
        fc.property(schemaArbitrary(doc, { $ref: `#/components/schemas/${name}` }), (value) => {
          expect(validate(value), JSON.stringify({ value, errors: validate.errors })).toBe(true);
        }),
        { numRuns: 100, seed: 42 },
      );
    });
  }

  it("leaves a readOnly property out of a request, required or not (OpenAPI: it is not sent), and draws a required writeOnly one", () => {
    const user = {
      type: "object",
      required: ["id", "name", "password"],
      properties: { id: { $ref: "#/components/schemas/Uuid", readOnly: true }, created: { type: "string", readOnly: true }, name: { type: "string" }, password: { type: "string", writeOnly: true } },
    };
    const values = fc.sample(schemaArbitrary(doc, user), { numRuns: 100, seed: 3 }) as Record<string, unknown>[];
    expect(values.filter((v) => "id" in v || "created" in v)).toEqual([]);
    expect(values.every((v) => typeof v.name === "string" && typeof v.password === "string")).toBe(true);
  });

  it("mixes in the schema's own examples", () => {
    const values = fc.sample(schemaArbitrary(doc, { type: "string", examples: ["15s"] }), { numRuns: 200, seed: 1 });
    expect(values).toContain("15s");
  });
});

describe("requests with an object query parameter in style form, exploded", () => {
  const api = withGet("/things", [{ name: "filter", in: "query", required: true, schema: { type: "object", required: ["kind"], properties: { kind: { $ref: "#/components/schemas/Enum" }, size: { type: "integer" } } } }]);
  const checker = contractChecker(api);

  it("send its properties as fields of the query, which the checker takes", () => {
    sentAndTaken(api, checker, { numRuns: 100, seed: 9 }, (wire) => {
      expect(wire.query.map(([name]) => name).filter((name) => name !== "kind" && name !== "size")).toEqual([]);
    });
  });
});

describe("requests with arrays in spaceDelimited and pipeDelimited style", () => {
  const api = withGet("/s", [
    { name: "s", in: "query", required: true, style: "spaceDelimited", explode: false, schema: { type: "array", minItems: 2, items: { type: "integer" } } },
    { name: "p", in: "query", required: true, style: "pipeDelimited", explode: false, schema: { type: "array", minItems: 2, items: { type: "integer" } } },
  ]);
  const checker = contractChecker(api);

  it("join the items with the style's delimiter, which the checker splits", () => {
    sentAndTaken(api, checker, { numRuns: 50, seed: 13 }, (wire) => {
      expect(wire.rawQuery).toMatch(/^s=-?\d+(%20-?\d+)+&p=-?\d+(\|-?\d+)+$/);
    });
  });
});

describe("requests with a form body", () => {
  const api = withFormBody(
    {
      type: "object",
      required: ["grant"],
      properties: {
        grant: { $ref: "#/components/schemas/Enum" },
        ttl: { type: "integer", minimum: 1 },
        scope: { type: "array", items: { $ref: "#/components/schemas/Pattern" } },
        // Nested: sent and read in bracketed fields (card[Name]=..., items[0][Name]=...).
        card: { $ref: "#/components/schemas/Object" },
        items: { type: "array", maxItems: 3, items: { $ref: "#/components/schemas/Object" } },
      },
    },
    undefined,
    doc,
  );
  const checker = contractChecker(api);

  it("are sent as forms the checker reads and takes", () => {
    sentAndTaken(api, checker, { numRuns: 100, seed: 5 }, (wire) => {
      expect(wire.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      expect(new URLSearchParams(wire.body).get("grant")).toMatch(/^(tcp|http)$/);
    });
  });
});

/**
 * Generated valid requests of the checker's (one) operation: each, sent as `toWire` writes it (with
 * `headers`), is as `sent` says, and the checker takes it.
 */
function sentAndTaken(api: OpenApiDoc, checker: ContractChecker, runs: { numRuns: number; seed: number }, sent: (wire: WireRequest, request: GeneratedRequest) => void, headers: Record<string, string> = {}): void {
  fc.assert(
    fc.property(validRequestArbitrary(api, checker.operations[0]!), (request) => {
      const wire = toWire(request, headers);
      sent(wire, request);
      expect(checker.checkRequest(checker.match(wire.method, wire.path)!, wire)).toEqual([]);
    }),
    runs,
  );
}

/**
 * The property every kind of generated request keeps: valid ones, sent as `toWire` writes them (and
 * as `sent` says of them), pass the checker; broken ones do not.
 */
function itRoundTrips(what: string, api: OpenApiDoc, seed: number, sent: (wire: WireRequest, request: GeneratedRequest) => void, headers: Record<string, string> = {}): void {
  const checker = contractChecker(api);
  const operation = checker.operations[0]!;
  it(`are sent ${what}, and the checker takes them`, () => {
    sentAndTaken(api, checker, { numRuns: 100, seed }, sent, headers);
  });
  it("are refused by the checker when the generator breaks them", () => {
    fc.assert(
      fc.property(invalidRequestArbitrary(api, operation)!, (request) => {
        const wire = toWire(request, headers);
        expect(checker.checkRequest(checker.match(wire.method, wire.path)!, wire)).not.toEqual([]);
      }),
      { numRuns: 100, seed: seed + 1 },
    );
  });
}

describe("requests with parameters described by content", () => {
  const api = withGet("/search", [
    { name: "filter", in: "query", required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Object" } } } },
    { name: "X-Context", in: "header", content: { "application/json": { schema: { $ref: "#/components/schemas/Array" } } } },
  ]);
  itRoundTrips("with each value as JSON text", api, 13, (wire, request) => {
    expect(JSON.parse(new URLSearchParams(wire.rawQuery).get("filter")!)).toEqual(request.params.query.filter);
  });
});

describe("requests with path parameters in style label and matrix", () => {
  const array = { type: "array", minItems: 1, maxItems: 3, items: { $ref: "#/components/schemas/Integer" } };
  const api = withGet("/styled/{a}/{b}/{c}/{d}", [
    { name: "a", in: "path", required: true, style: "label", schema: { $ref: "#/components/schemas/Pattern" } },
    { name: "b", in: "path", required: true, style: "label", explode: true, schema: array },
    { name: "c", in: "path", required: true, style: "matrix", schema: { $ref: "#/components/schemas/Integer" } },
    { name: "d", in: "path", required: true, style: "matrix", explode: true, schema: array },
  ]);
  itRoundTrips("with each value after its style's prefix", api, 15, (wire) => expect(wire.path).toMatch(/^\/styled\/\.[^/]+\/(\.-?\d+)+\/;c=-?\d+\/(;d=-?\d+)+$/));
});

describe("requests with object parameters written as one text", () => {
  // Names and values without commas: the style has no way to write a comma inside one.
  const color = { type: "object", additionalProperties: false, required: ["Name"], properties: { Name: { $ref: "#/components/schemas/Pattern" }, Weight: { $ref: "#/components/schemas/Integer" } } };
  const api = withObjectParameters(color, doc);
  itRoundTrips("with names and values in turn, or name=value pairs when exploded", api, 17, (wire, request) => {
    const name = (request.params.path.path as { Name: string }).Name;
    expect(decodeURIComponent(wire.path)).toContain(`/colors/Name,${name}`);
  });
});

describe("requests with object path parameters in style label and matrix", () => {
  // Names and values without commas, dots or semicolons: the styles have no way to write one inside.
  const color = { type: "object", additionalProperties: false, required: ["Name", "Weight"], properties: { Name: { $ref: "#/components/schemas/Pattern" }, Weight: { $ref: "#/components/schemas/Integer" } } };
  const parameter = (name: string, style: string, explode: boolean) => ({ name, in: "path", required: true, style, explode, schema: color });
  const api = withGet("/objects/{a}/{b}/{c}/{d}", [parameter("a", "label", false), parameter("b", "label", true), parameter("c", "matrix", false), parameter("d", "matrix", true)]);
  // OpenAPI's style examples: .R,100,G,200 / .R=100.G=200 / ;color=R,100,G,200 / ;R=100;G=200.
  itRoundTrips("as OpenAPI's style examples write them", api, 19, (wire) =>
    expect(wire.path).toMatch(/^\/objects\/\.Name,[^/]+,Weight,-?\d+\/\.Name=[^/]+\.Weight=-?\d+\/;c=Name,[^/]+,Weight,-?\d+\/;Name=[^/]+;Weight=-?\d+$/),
  );
});

describe("requests with cookie parameters", () => {
  const api = withGet("/me", [
    { name: "session", in: "cookie", required: true, schema: { $ref: "#/components/schemas/Lengths" } },
    { name: "theme", in: "cookie", schema: { $ref: "#/components/schemas/Enum" } },
    { name: "visits", in: "cookie", schema: { $ref: "#/components/schemas/Integer" } },
  ]);
  itRoundTrips("in the Cookie header, percent-encoded, after a cookie given", api, 11, (wire) => expect(wire.headers.cookie).toMatch(/^login=abc; session=[^;\s]{3,}/), { cookie: "login=abc" });
});

describe("requests with a multipart body", () => {
  const api = withMultipartBody(
    {
      type: "object",
      required: ["kind", "file"],
      properties: {
        kind: { $ref: "#/components/schemas/Enum" },
        count: { $ref: "#/components/schemas/Integer" },
        note: { $ref: "#/components/schemas/Nullable" },
        ids: { $ref: "#/components/schemas/Array" },
        meta: { $ref: "#/components/schemas/Object" },
        file: { type: "string", format: "binary" },
      },
    },
    undefined,
    doc,
  );
  itRoundTrips("as multipart bodies, under a boundary of their Content-Type", api, 8, (wire) => {
    expect(wire.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=conformance-part-*$/);
    const parts = multipartParts(wire.body!, wire.headers["content-type"]);
    expect(Array.isArray(parts) && parts.find((p) => p.name === "kind")?.value).toMatch(/^(tcp|http)$/);
  });
});

describe("requests for an operation", () => {
  const api: OpenApiDoc = {
    ...doc,
    paths: {
      "/things/{kind}": {
        put: {
          operationId: "putThing",
          parameters: [
            { name: "kind", in: "path", required: true, schema: { $ref: "#/components/schemas/Enum" } },
            { name: "cas", in: "query", required: true, schema: { type: "integer", minimum: 0 } },
            { name: "name", in: "query", schema: { $ref: "#/components/schemas/Pattern" } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Object" } } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
  };
  const checker = contractChecker(api);
  const operation = checker.operations[0]!;
  const problemsOf = (request: ReturnType<typeof toWire>) => checker.checkRequest(checker.match(request.method, request.path)!, request);

  it("valid requests pass the checker", () => {
    fc.assert(
      fc.property(validRequestArbitrary(api, operation), (request) => {
        expect(problemsOf(toWire(request))).toEqual([]);
      }),
      { numRuns: 100, seed: 7 },
    );
  });

  it("offers each kind of breakage the description allows", () => {
    const [request] = fc.sample(validRequestArbitrary(api, operation), { numRuns: 1, seed: 3 });
    const descriptions = new Set(mutationsOf(api, { ...request!, body: { mediaType: "application/json", value: { Name: "n", Weight: 1, Kind: "tcp" } } }).map((m) => m.description));
    expect([...descriptions].sort()).toEqual(
      [
        "empty value",
        "required body missing",
        "required field missing",
        "required parameter missing",
        "undocumented field where none is allowed",
        "undocumented query parameter",
        "value not matching the pattern",
        "value outside the enum",
        "wrong type",
        "wrong type (integer)",
        "wrong type (string)",
      ].sort(),
    );
  });

  it("every mutated request is refused by the checker, at the pointer the mutation names", () => {
    fc.assert(
      fc.property(invalidRequestArbitrary(api, operation)!, (request) => {
        const problems = problemsOf(toWire(request));
        expect(problems.length, JSON.stringify(request.mutation)).toBeGreaterThan(0);
        const pointer = request.mutation!.pointer;
        expect(problems.some((p) => p.pointer === pointer || p.pointer.startsWith(pointer + "/") || pointer.startsWith(p.pointer))).toBe(true);
      }),
      { numRuns: 200, seed: 11 },
    );
  });

  it("for the mesh description, the generated valid requests are accepted by the checker", () => {
    const mesh = loadBundle("mesh") as OpenApiDoc;
    const meshChecker = contractChecker(mesh);
    for (const op of meshChecker.operations) {
      const samples = fc.sample(validRequestArbitrary(mesh, op), { numRuns: 30, seed: 5 });
      const refused = samples.map((r) => toWire(r)).filter((w) => meshChecker.checkRequest(meshChecker.match(w.method, w.path)!, w).length);
      expect(refused, op.label).toEqual([]);
    }
  });
});
