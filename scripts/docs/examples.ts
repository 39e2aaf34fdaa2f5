// The examples an OpenAPI bundle gives for an operation: parameter values, request bodies and
// responses, and the gaps where the docs, the code samples and the mock would have none.
// Pure: no I/O.
import fc from "fast-check";
import { schemaArbitrary } from "../contract/arbitrary.ts";
import { deref, isObject, operationsOf, patternRegExp, type Json, type JsonObject, type OpenApiDoc, type Operation, type Parameter } from "../contract/document.ts";

export interface NamedExample {
  /** The key in `examples`; undefined for a lone `example`. */
  name?: string;
  value: Json;
}

/**
 * The examples of a media type object: every entry of `examples` (refs followed; entries with only
 * an `externalValue` are left out, nothing here can fetch them), else `example`.
 */
export function mediaExamples(doc: OpenApiDoc, media: JsonObject): NamedExample[] {
  if (isObject(media.examples)) {
    const named: NamedExample[] = [];
    for (const [name, raw] of Object.entries(media.examples)) {
      const example = deref<JsonObject>(doc, raw).value;
      if (isObject(example) && "value" in example) named.push({ name, value: example.value as Json });
    }
    if (named.length) return named;
  }
  return "example" in media ? [{ value: media.example as Json }] : [];
}

/**
 * A value for a parameter: its `example`, its first `examples` entry, else what its schema offers
 * (`example`, `examples`, `const`, `default`, the first `enum` value). Undefined when there is none.
 */
export function parameterExample(doc: OpenApiDoc, parameter: Parameter): { value: Json } | undefined {
  const raw = parameter.raw;
  if ("example" in raw) return { value: raw.example as Json };
  const [first] = isObject(raw.examples) ? mediaExamples(doc, { examples: raw.examples }) : [];
  if (first) return { value: first.value };
  return schemaOwnValue(isObject(parameter.schema) ? deref<JsonObject>(doc, parameter.schema).value : {});
}

/** A value a schema gives itself: its example, const, default or first enum value. */
function schemaOwnValue(schema: JsonObject): { value: Json } | undefined {
  if ("example" in schema) return { value: schema.example as Json };
  if (Array.isArray(schema.examples) && schema.examples.length) return { value: schema.examples[0] as Json };
  if ("const" in schema) return { value: schema.const as Json };
  if ("default" in schema) return { value: schema.default as Json };
  if (Array.isArray(schema.enum) && schema.enum.length) return { value: schema.enum[0] as Json };
  return undefined;
}

/**
 * A value shaped by a schema, for a request the description gives no example for (a description
 * written elsewhere often has none): the schema's own example, const, default or first enum value
 * where it has one; otherwise a stand-in of its type that says what goes there: the name in capitals
 * for text (`OWNER`, as GitHub's own docs write it), a date or URL for those formats, the minimum (or
 * 1) for a number, true, the required members of an object, one item of an array that needs one.
 * A text whose pattern or length the name does not fit is one the schema takes (fast-check, seeded).
 * Of alternatives, a plain text one (unambiguous), else the first.
 */
export function schemaSample(doc: OpenApiDoc, schema: unknown, name: string, depth = 0): Json {
  const s = deref<JsonObject>(doc, schema ?? {}).value;
  if (!isObject(s) || depth > 8) return null;
  const own = schemaOwnValue(s);
  if (own) return own.value;
  const types = (Array.isArray(s.type) ? s.type : [s.type]).filter((t) => t !== "null");
  const type = types[0] ?? (isObject(s.properties) ? "object" : undefined);
  const alternatives = [s.oneOf, s.anyOf].find((list): list is Json[] => Array.isArray(list) && list.length > 0);
  // Alternatives of a schema with no type of its own: a plain text one if there is one (its stand-in,
  // a name in capitals, is of no other alternative's type: `1` is an integer and a text), else the first.
  if (alternatives && type === undefined) {
    const plainText = alternatives.find((a) => {
      const alternative = deref<JsonObject>(doc, a).value;
      return isObject(alternative) && alternative.type === "string" && alternative.pattern === undefined && alternative.enum === undefined && alternative.format === undefined;
    });
    return schemaSample(doc, plainText ?? alternatives[0], name, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part) => schemaSample(doc, part, name, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : (parts[0] ?? null);
  }
  switch (type) {
    case "object": {
      // With the members the first alternative has or requires (`oneOf: [{required: [a]}, {required: [b]}]`).
      const first = alternatives ? deref<JsonObject>(doc, alternatives[0]).value : {};
      const properties = { ...(isObject(first) && isObject(first.properties) ? first.properties : {}), ...(isObject(s.properties) ? s.properties : {}) };
      const required = [...(Array.isArray(s.required) ? s.required : []), ...(isObject(first) && Array.isArray(first.required) ? first.required : [])].map(String);
      return Object.fromEntries([...new Set(required)].filter((member) => member in properties).map((member) => [member, schemaSample(doc, properties[member], member, depth + 1)]));
    }
    case "array":
      return typeof s.minItems === "number" && s.minItems > 0 ? [schemaSample(doc, s.items, name, depth + 1)] : [];
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : 1;
    case "boolean":
      return true;
    case "string": {
      const named = FORMAT_SAMPLES[String(s.format)] ?? (name.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase() || "VALUE");
      // A text the name cannot stand for (a pattern, a length): one the schema takes, the same every time.
      return fitsString(s, named) ? named : (fc.sample(schemaArbitrary(doc, s, "path"), { numRuns: 1, seed: 1 })[0] as Json);
    }
    default:
      return null;
  }
}

/** Whether a string schema's length bounds and pattern take a text (an unreadable pattern takes anything). */
function fitsString(schema: JsonObject, text: string): boolean {
  const length = [...text].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
  if (typeof schema.pattern !== "string") return true;
  return patternRegExp(schema.pattern).test(text);
}

const FORMAT_SAMPLES: Record<string, string> = {
  date: "2024-01-01",
  "date-time": "2024-01-01T00:00:00Z",
  uri: "https://example.com",
  url: "https://example.com",
  email: "someone@example.com",
  uuid: "00000000-0000-4000-8000-000000000000",
};

/** The request body object of an operation, refs followed; undefined when it takes none. */
export function requestBodyOf(doc: OpenApiDoc, operation: Operation): JsonObject | undefined {
  const body = operation.operation.requestBody;
  return body === undefined ? undefined : deref<JsonObject>(doc, body).value;
}

export interface DocumentedResponse {
  /** "200", "404", "default", "4XX". */
  status: string;
  description?: string;
  /** Media type -> media type object; empty when the response has no body. */
  content: Record<string, JsonObject>;
}

/** The documented responses of an operation, in document order, refs followed. */
export function responsesOf(doc: OpenApiDoc, operation: Operation): DocumentedResponse[] {
  const responses = isObject(operation.operation.responses) ? operation.operation.responses : {};
  return Object.entries(responses).map(([status, raw]) => {
    const response = deref<JsonObject>(doc, raw).value;
    const content: Record<string, JsonObject> = {};
    if (isObject(response.content)) {
      for (const [mediaType, media] of Object.entries(response.content)) content[mediaType] = isObject(media) ? media : {};
    }
    return { status, description: typeof response.description === "string" ? response.description : undefined, content };
  });
}

/** One place where the description gives no example, worded for the engineer who fixes it. */
export interface ExampleGap {
  operation: string;
  problem: string;
}

/**
 * What the reader of the docs and a client developer would miss: every required parameter needs
 * an example value (the code samples and the mock call use it), every request body media type an
 * example, and every documented response with a body an example per media type.
 */
export function exampleGaps(doc: OpenApiDoc): ExampleGap[] {
  const gaps: ExampleGap[] = [];
  for (const operation of operationsOf(doc)) {
    const gap = (problem: string) => gaps.push({ operation: operation.label, problem });
    for (const parameter of operation.parameters) {
      if ((parameter.required || parameter.in === "path") && !parameterExample(doc, parameter)) {
        gap(`${parameter.in} parameter "${parameter.name}" has no example (nor schema example, default or enum)`);
      }
    }
    const body = requestBodyOf(doc, operation);
    if (body) {
      const content = isObject(body.content) ? body.content : {};
      if (!Object.keys(content).length) gap("request body has no content");
      for (const [mediaType, media] of Object.entries(content)) {
        if (!isObject(media) || !mediaExamples(doc, media).length) gap(`request body ${mediaType} has no example`);
      }
    }
    for (const response of responsesOf(doc, operation)) {
      for (const [mediaType, media] of Object.entries(response.content)) {
        if (!mediaExamples(doc, media).length) gap(`response ${response.status} ${mediaType} has no example`);
      }
    }
  }
  return gaps;
}

/**
 * Tags that Redoc would not show: with `x-tagGroups`, a tag that is in no group is left out of the
 * page (with its operations, or the text of a trait tag such as a changelog).
 */
export function hiddenTags(doc: OpenApiDoc): string[] {
  const groups = doc["x-tagGroups"];
  if (!Array.isArray(groups)) return [];
  const grouped = new Set(groups.flatMap((g) => (isObject(g) && Array.isArray(g.tags) ? g.tags.map(String) : [])));
  const used = new Set<string>();
  for (const tag of Array.isArray(doc.tags) ? doc.tags : []) if (isObject(tag) && typeof tag.name === "string") used.add(tag.name);
  for (const operation of operationsOf(doc)) {
    for (const tag of Array.isArray(operation.operation.tags) ? operation.operation.tags : []) used.add(String(tag));
  }
  return [...used].filter((tag) => !grouped.has(tag));
}
