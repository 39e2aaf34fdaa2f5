// The examples an OpenAPI bundle gives for an operation: parameter values, request bodies and
// responses, and the gaps where the docs, the code samples and the mock would have none.
// Pure: no I/O.
import { deref, isObject, operationsOf, type Json, type JsonObject, type OpenApiDoc, type Operation, type Parameter } from "../contract/document.ts";

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
  const schema = isObject(parameter.schema) ? deref<JsonObject>(doc, parameter.schema).value : {};
  if ("example" in schema) return { value: schema.example as Json };
  if (Array.isArray(schema.examples) && schema.examples.length) return { value: schema.examples[0] as Json };
  if ("const" in schema) return { value: schema.const as Json };
  if ("default" in schema) return { value: schema.default as Json };
  if (Array.isArray(schema.enum) && schema.enum.length) return { value: schema.enum[0] as Json };
  return undefined;
}

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
