// Requests generated from a description with fast-check: valid ones (every parameter and body
// drawn from its schema) and invalid ones (a valid request with one thing broken: wrong type,
// missing required, unknown field where forbidden, value outside an enum). The contract checker is
// the judge of both: callers keep a request only when the checker agrees (fc.pre).
import fc from "fast-check";
import { discriminatorMapping, type WireRequest } from "./checker.ts";
import { MULTIPART_MEDIA_TYPE, multipartText } from "./multipart.ts";
import {
  arrayDelimiter,
  deref,
  escapePointer,
  FORM_MEDIA_TYPE,
  formText,
  isJsonMediaType,
  isMarked,
  isObject,
  mediaTypeOf,
  pathStyleObjectSegment,
  pathStyleSegment,
  patternRegExp,
  pointer,
  type Json,
  type JsonObject,
  type OpenApiDoc,
  type Operation,
} from "./document.ts";

type Location = "path" | "query" | "header" | "cookie";

export interface GeneratedRequest {
  operation: Operation;
  /** Decoded values as their schemas describe them; serialized by toWire. */
  params: Record<Location, Record<string, unknown>>;
  body?: { mediaType: string; value: unknown };
  /** For an invalid request: what was broken, as a pointer into the request, and how. */
  mutation?: { pointer: string; description: string };
}

/** Where the value is headed decides which characters it may carry. */
type Channel = "json" | "path" | "query" | "header";

const MAX_DEPTH = 4;

/** An arbitrary of the values a schema accepts (best effort: callers confirm with the checker). */
export function schemaArbitrary(doc: OpenApiDoc, node: Json | undefined, channel: Channel = "json", depth = 0): fc.Arbitrary<unknown> {
  const schema = merged(doc, node);
  const examples = [...(Array.isArray(schema.examples) ? schema.examples : []), ...("example" in schema ? [schema.example!] : [])];
  return withExamples(generatedArbitrary(doc, schema, channel, depth), examples);
}

/**
 * Mixes a description's own examples in: they reach the server's deeper paths (a valid duration,
 * a policy that exists) far more often than random values that only follow the schema.
 */
export function withExamples<T>(arbitrary: fc.Arbitrary<T>, examples: unknown[]): fc.Arbitrary<T> {
  if (!examples.length) return arbitrary;
  return fc.oneof({ arbitrary, weight: 3 }, { arbitrary: fc.constantFrom(...(examples as T[])), weight: 1 });
}

function generatedArbitrary(doc: OpenApiDoc, schema: JsonObject, channel: Channel, depth: number): fc.Arbitrary<unknown> {
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...schema.enum);
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (alternatives?.length) {
    const { oneOf: _o, anyOf: _a, discriminator: _d, ...base } = schema;
    // Keywords next to the union apply to every alternative: generate from both together.
    const shared = ["type", "properties", "required", "additionalProperties"].some((k) => k in base);
    const combined = shared ? alternatives.map((alternative) => ({ allOf: [base, alternative] }) as Json) : alternatives;
    return unionArbitrary(doc, schema, combined, alternatives, channel, depth);
  }
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => typedArbitrary(doc, { ...schema, type }, type, channel, depth)));
  return typedArbitrary(doc, schema, types[0], channel, depth);
}

function typedArbitrary(doc: OpenApiDoc, schema: JsonObject, type: string | undefined, channel: Channel, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return stringArbitrary(schema, channel);
    case "integer":
      return integerArbitrary(schema);
    case "number":
      return numberArbitrary(schema);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayArbitrary(doc, schema, channel, depth);
    case "object":
      return objectArbitrary(doc, schema, channel, depth);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** The schema after $refs with allOf parts merged, so that one object lists all its properties. */
function merged(doc: OpenApiDoc, node: Json | undefined): JsonObject {
  const { value } = deref<Json>(doc, node ?? {});
  const schema: JsonObject = isObject(value) ? value : {};
  if (!Array.isArray(schema.allOf)) return schema;
  const out: JsonObject = { ...schema };
  delete out.allOf;
  for (const part of schema.allOf.map((p) => merged(doc, p))) {
    for (const [k, v] of Object.entries(part)) {
      if (k === "properties" && isObject(v)) out.properties = { ...(isObject(out.properties) ? out.properties : {}), ...v };
      else if (k === "required" && Array.isArray(v)) out.required = [...new Set([...(Array.isArray(out.required) ? out.required : []), ...v])];
      else if (!(k in out)) out[k] = v;
    }
  }
  return out;
}

function typesOf(schema: JsonObject): string[] {
  if (Array.isArray(schema.type)) return schema.type.map(String);
  if (typeof schema.type === "string") return [schema.type];
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return ["object"];
  if (schema.items) return ["array"];
  return [];
}

/** One of the alternatives (as combined with the union's own keywords); `declared` as written, for the discriminator. */
function unionArbitrary(doc: OpenApiDoc, schema: JsonObject, alternatives: Json[], declared: Json[], channel: Channel, depth: number): fc.Arbitrary<unknown> {
  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
  const property = typeof discriminator?.propertyName === "string" ? discriminator.propertyName : undefined;
  const mapping = isObject(discriminator?.mapping) ? discriminator.mapping : {};
  return fc.oneof(
    ...alternatives.map((alternative, i) => {
      const arb = schemaArbitrary(doc, alternative, channel, depth);
      const written = declared[i];
      const ref = isObject(written) && typeof written.$ref === "string" ? written.$ref : undefined;
      if (!property || !ref) return arb;
      // The discriminator's value picks the alternative, so it must be the one that names this one.
      const value = Object.entries(mapping).find(([, r]) => r === ref || `#/components/schemas/${r}` === ref)?.[0] ?? ref.split("/").pop()!;
      return arb.map((v) => (isObject(v) ? { ...v, [property]: value } : v));
    }),
  );
}

/** Characters a header value may carry without being trimmed or refused by fetch. */
const HEADER_CHAR = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  "date-time": () => fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2999-12-31T23:59:59Z"), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () => fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2999-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  email: () => fc.emailAddress(),
  uuid: () => fc.uuid(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  byte: () => fc.base64String(),
};

function stringArbitrary(schema: JsonObject, channel: Channel): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : undefined;
  // Only the schema's own bounds filter: formats and patterns choose their lengths themselves.
  const lengthOk = (s: string) => [...s].length >= minLength && (maxLength === undefined || [...s].length <= maxLength);
  let arb: fc.Arbitrary<string>;
  if (typeof schema.format === "string" && FORMATS[schema.format]) {
    arb = FORMATS[schema.format]!().filter(lengthOk);
  } else if (typeof schema.pattern === "string") {
    arb = fc.stringMatching(patternRegExp(schema.pattern), maxLength === undefined ? {} : { maxLength }).filter(lengthOk);
  } else {
    // One code point per unit: JSON Schema lengths count code points.
    const unit = channel === "header" ? HEADER_CHAR : "grapheme-composite";
    arb = fc.string({ unit, minLength, maxLength: maxLength ?? minLength + 12 });
  }
  if (channel === "header") arb = arb.filter((s) => /^[!-~]*$/.test(s));
  // "." and ".." are path segments a URL parser removes, not values.
  if (channel === "path") arb = arb.filter((s) => s !== "." && s !== "..");
  return arb;
}

function bounds(schema: JsonObject): { min?: number; max?: number; minExcluded: boolean; maxExcluded: boolean } {
  const num = (v: Json | undefined) => (typeof v === "number" ? v : undefined);
  const exMin = num(schema.exclusiveMinimum);
  const exMax = num(schema.exclusiveMaximum);
  return {
    min: exMin ?? num(schema.minimum),
    max: exMax ?? num(schema.maximum),
    minExcluded: exMin !== undefined,
    maxExcluded: exMax !== undefined,
  };
}

function integerArbitrary(schema: JsonObject): fc.Arbitrary<number> {
  const b = bounds(schema);
  let min = Math.max(b.min === undefined ? -(2 ** 31) : Math.ceil(b.min + (b.minExcluded && Number.isInteger(b.min) ? 1 : 0)), Number.MIN_SAFE_INTEGER);
  let max = Math.min(b.max === undefined ? 2 ** 31 - 1 : Math.floor(b.max - (b.maxExcluded && Number.isInteger(b.max) ? 1 : 0)), Number.MAX_SAFE_INTEGER);
  const step = typeof schema.multipleOf === "number" ? schema.multipleOf : 1;
  if (step !== 1) {
    min = Math.ceil(min / step);
    max = Math.floor(max / step);
    return fc.integer({ min, max }).map((k) => k * step);
  }
  return fc.integer({ min, max });
}

function numberArbitrary(schema: JsonObject): fc.Arbitrary<number> {
  if (typeof schema.multipleOf === "number") return integerArbitrary(schema);
  const b = bounds(schema);
  return fc.double({
    ...(b.min === undefined ? { min: -1e9 } : { min: b.min, minExcluded: b.minExcluded }),
    ...(b.max === undefined ? { max: 1e9 } : { max: b.max, maxExcluded: b.maxExcluded }),
    noNaN: true,
    noDefaultInfinity: true,
  });
}

function arrayArbitrary(doc: OpenApiDoc, schema: JsonObject, channel: Channel, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
  const deep = depth >= MAX_DEPTH;
  const maxLength = Math.min(typeof schema.maxItems === "number" ? schema.maxItems : Infinity, minLength + (deep ? 0 : 3));
  const items = schemaArbitrary(doc, schema.items, channel, depth + 1);
  if (schema.uniqueItems === true) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}

function objectArbitrary(doc: OpenApiDoc, schema: JsonObject, channel: Channel, depth: number): fc.Arbitrary<Record<string, unknown>> {
  // OpenAPI: a readOnly property is not sent in a request, and not required there.
  const properties = Object.fromEntries(Object.entries(isObject(schema.properties) ? schema.properties : {}).filter(([, property]) => !isMarked(doc, property, "readOnly")));
  const readOnly = (name: string) => isObject(schema.properties) && Object.hasOwn(schema.properties, name) && !Object.hasOwn(properties, name);
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String).filter((name) => !readOnly(name)) : []);
  const deep = depth >= MAX_DEPTH;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, propertySchema] of Object.entries(properties)) {
    // Deep down only what is required, so recursive schemas end.
    if (deep && !required.has(name)) continue;
    model[name] = schemaArbitrary(doc, propertySchema, channel, depth + 1);
  }
  for (const name of required) model[name] ??= fc.jsonValue({ maxDepth: 1 });
  // dependentRequired: a property whose companions were not drawn is left out.
  const dependencies = isObject(schema.dependentRequired) ? schema.dependentRequired : {};
  const record = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) }).map((value) => {
    for (const [name, companions] of Object.entries(dependencies)) {
      if (name in value && Array.isArray(companions) && companions.some((c) => !(String(c) in value))) delete value[name];
    }
    return value;
  });
  const extra = schema.additionalProperties;
  if (deep || extra === false || extra === undefined || schema.unevaluatedProperties === false) return record;
  const values = extra === true ? fc.jsonValue({ maxDepth: 1 }) : schemaArbitrary(doc, extra, channel, depth + 1);
  const keys = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !(k in properties));
  return fc.tuple(record, fc.dictionary(keys, values, { maxKeys: 3 })).map(([r, d]) => ({ ...d, ...r }));
}

// ---- requests ---------------------------------------------------------------------------------


/** The media type generated bodies use: the first JSON one, else a form, else a multipart body, else the first text one. */
function bodyMediaType(doc: OpenApiDoc, operation: Operation): { mediaType: string; schema: Json; required: boolean; examples: unknown[] } | undefined {
  if (operation.operation.requestBody === undefined) return undefined;
  const body = deref<JsonObject>(doc, operation.operation.requestBody).value;
  const content = isObject(body.content) ? body.content : {};
  const mediaType =
    Object.keys(content).find((t) => isJsonMediaType(t.toLowerCase())) ??
    Object.keys(content).find((t) => mediaTypeOf(t) === FORM_MEDIA_TYPE) ??
    Object.keys(content).find((t) => mediaTypeOf(t) === MULTIPART_MEDIA_TYPE) ??
    Object.keys(content).find((t) => t.startsWith("text/"));
  if (!mediaType) return undefined;
  const media = isObject(content[mediaType]) ? (content[mediaType] as JsonObject) : {};
  return { mediaType, schema: media.schema ?? {}, required: body.required === true, examples: examplesOf(doc, media) };
}

/** The example values of a media type or parameter (`example`, and `examples` by name, after $refs). */
function examplesOf(doc: OpenApiDoc, holder: JsonObject): unknown[] {
  const values: unknown[] = "example" in holder ? [holder.example] : [];
  for (const example of Object.values(isObject(holder.examples) ? holder.examples : {})) {
    const { value } = deref<JsonObject>(doc, example);
    if (isObject(value) && "value" in value) values.push(value.value);
  }
  return values;
}

/** Valid requests for an operation: required parameters always, optional ones sometimes. */
export function validRequestArbitrary(doc: OpenApiDoc, operation: Operation): fc.Arbitrary<GeneratedRequest> {
  const byLocation = (location: Location) => {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const p of operation.parameters.filter((q) => q.in === location)) {
      // A cookie's value is sent percent-encoded: any header text will do.
      const arb = withExamples(schemaArbitrary(doc, p.schema, location === "cookie" ? "header" : location), examplesOf(doc, p.raw));
      // An empty query value is only allowed with allowEmptyValue; an empty path segment is no value.
      const mayBeEmpty = location === "header" || location === "cookie" || (location === "query" && p.raw.allowEmptyValue === true);
      model[p.name] = mayBeEmpty ? arb : arb.filter((v) => (Array.isArray(v) ? v.length > 0 : text(v) !== ""));
      if (p.required || location === "path") required.push(p.name);
    }
    return fc.record(model, { requiredKeys: required });
  };
  const media = bodyMediaType(doc, operation);
  const body = media
    ? withExamples(schemaArbitrary(doc, media.schema), media.examples).map((value) => ({ mediaType: media.mediaType, value: structuredClone(value) }))
    : fc.constant(undefined);
  return fc
    .record({
      path: byLocation("path"),
      query: byLocation("query"),
      header: byLocation("header"),
      cookie: byLocation("cookie"),
      body: media && !media.required ? fc.option(body, { nil: undefined }) : body,
    })
    .map(({ body: generatedBody, ...params }) => ({ operation, params, ...(generatedBody ? { body: generatedBody } : {}) }));
}

/** The mutation that adds a query parameter the description does not name. */
export const UNKNOWN_PARAMETER = "undocumented query parameter";

export interface Mutation {
  pointer: string;
  description: string;
  apply(request: GeneratedRequest): GeneratedRequest;
}

/**
 * Invalid requests: a valid one with one thing broken, chosen among those that apply to it and
 * that `keep` accepts. Undefined when no mutation can apply to this operation at all.
 */
export function invalidRequestArbitrary(
  doc: OpenApiDoc,
  operation: Operation,
  keep: (mutation: Mutation) => boolean = () => true,
): fc.Arbitrary<GeneratedRequest> | undefined {
  // A few samples tell whether any mutation can apply (filtering for one that never does would not end).
  const probes = fc.sample(validRequestArbitrary(doc, operation), { numRuns: 5, seed: 1 });
  if (!probes.some((probe) => mutationsOf(doc, probe).some(keep))) return undefined;
  return validRequestArbitrary(doc, operation)
    .map((request) => ({ request, mutations: mutationsOf(doc, request).filter(keep) }))
    .filter(({ mutations }) => mutations.length > 0)
    .chain(({ request, mutations }) =>
      fc.constantFrom(...mutations).map((m) => ({ ...m.apply(copyOf(request)), mutation: { pointer: m.pointer, description: m.description } })),
    );
}

/** A deep copy that mutations may change; the operation stays shared (it is compared by identity). */
function copyOf(request: GeneratedRequest): GeneratedRequest {
  const { operation, ...rest } = request;
  return { ...structuredClone(rest), operation };
}

/** A value of another JSON type than the schema allows, or undefined when every type is allowed. */
function wrongTypeValue(schema: JsonObject): { value: unknown; type: string } | undefined {
  const allowed = new Set(typesOf(schema));
  if (!allowed.size) return undefined;
  const candidates: [string, unknown][] = [
    ["string", "not-of-this-type"],
    ["integer", 42],
    ["boolean", true],
    ["object", {}],
    ["array", []],
    ["null", null],
  ];
  const found = candidates.find(([type]) => !allowed.has(type) && !(type === "integer" && allowed.has("number")));
  return found ? { value: found[1], type: found[0] } : undefined;
}

/** Every way to break this request that a server must refuse. */
export function mutationsOf(doc: OpenApiDoc, request: GeneratedRequest): Mutation[] {
  const mutations: Mutation[] = [];
  for (const p of request.operation.parameters) {
    const location = p.in as Location;
    const at = pointer("/request", location, p.name);
    const schema = merged(doc, p.schema);
    const set = (value: unknown, description: string) =>
      mutations.push({ pointer: at, description, apply: (r) => ((r.params[location][p.name] = value), r) });
    if (p.required && location !== "path") {
      mutations.push({ pointer: at, description: "required parameter missing", apply: (r) => (delete r.params[location][p.name], r) });
    }
    const types = typesOf(schema);
    // Object parameters (deepObject) are several wire parameters: only leaving them out applies.
    if (types.includes("object")) continue;
    // On the wire every parameter is text: only a non-string schema has a "wrong type".
    if (types.length && !types.includes("string") && !types.includes("array")) set("not-a-" + types.join("-or-"), "wrong type");
    if (Array.isArray(schema.enum) || "const" in schema) set("NOT-IN-ENUM", "value outside the enum");
    if (typeof schema.pattern === "string") {
      // A value the pattern refuses that is still one path segment (a pattern that only refuses `/`
      // cannot be broken in a path: such a value names another path).
      const pattern = patternRegExp(schema.pattern);
      const breaking = (location === "header" ? ["~~~"] : ["~ \u0000 ~", "~~~"]).find((v) => !pattern.test(v));
      if (breaking !== undefined) set(breaking, "value not matching the pattern");
    }
    if (location === "query" && p.raw.allowEmptyValue !== true) set("", "empty value");
  }
  mutations.push({
    pointer: "/request/query/unknownParameter",
    description: UNKNOWN_PARAMETER,
    apply: (r) => ((r.params.query.unknownParameter = "1"), r),
  });

  const media = bodyMediaType(doc, request.operation);
  if (media) {
    if (media.required) mutations.push({ pointer: "/request/body", description: "required body missing", apply: (r) => (delete r.body, r) });
    const body = request.body?.value;
    if (request.body && isJsonMediaType(media.mediaType.toLowerCase())) {
      bodyMutations(doc, media.schema, body, [], mutations, 0);
    }
  }
  return mutations;
}

/** Mutations inside a JSON body, walking the value alongside its schema. */
function bodyMutations(doc: OpenApiDoc, node: Json | undefined, value: unknown, path: string[], out: Mutation[], depth: number) {
  if (depth > MAX_DEPTH) return;
  const schema = chosenAlternative(doc, merged(doc, node), value);
  if (!schema) return;
  const at = "/request/body" + path.map((t) => "/" + escapePointer(t)).join("");
  const replaceWith = (replacement: unknown, description: string) =>
    out.push({ pointer: at, description, apply: (r) => setIn(r, path, replacement) });

  const wrong = wrongTypeValue(schema);
  if (wrong) replaceWith(wrong.value, `wrong type (${wrong.type})`);
  if (Array.isArray(schema.enum) || "const" in schema) replaceWith("NOT-IN-ENUM", "value outside the enum");

  if (isObject(value) && !Array.isArray(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
    for (const name of required.filter((n) => n in value)) {
      out.push({ pointer: `${at}/${escapePointer(name)}`, description: "required field missing", apply: (r) => deleteIn(r, [...path, name]) });
    }
    if (schema.additionalProperties === false || schema.unevaluatedProperties === false) {
      out.push({ pointer: `${at}/UnknownField`, description: "undocumented field where none is allowed", apply: (r) => setIn(r, [...path, "UnknownField"], "x") });
    }
    for (const [name, child] of Object.entries(value)) {
      const childSchema = properties[name] ?? (isObject(schema.additionalProperties) ? schema.additionalProperties : undefined);
      if (childSchema !== undefined) bodyMutations(doc, childSchema, child, [...path, name], out, depth + 1);
    }
  } else if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => bodyMutations(doc, schema.items, item, [...path, String(i)], out, depth + 1));
  }
}

/**
 * For a union, the alternative the value was generated from: by discriminator, else by const
 * properties. Undefined when it cannot be told (no mutation is attempted inside then).
 */
function chosenAlternative(doc: OpenApiDoc, schema: JsonObject, value: unknown): JsonObject | undefined {
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!alternatives) return schema;
  if (!isObject(value)) return undefined;
  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined;
  if (typeof discriminator?.propertyName === "string" && typeof value[discriminator.propertyName] === "string") {
    const pairs = discriminatorMapping(alternatives, discriminator);
    const ref = pairs?.find(([name]) => name === value[discriminator.propertyName as string])?.[1];
    if (ref) return merged(doc, { $ref: ref });
  }
  const candidates = alternatives.map((a) => merged(doc, a)).filter((alternative) => {
    const properties = isObject(alternative.properties) ? alternative.properties : {};
    return Object.entries(properties).every(([name, p]) => {
      const s = merged(doc, p);
      return !("const" in s) || JSON.stringify(s.const) === JSON.stringify(value[name]);
    });
  });
  return candidates.length === 1 ? candidates[0] : undefined;
}

function setIn(request: GeneratedRequest, path: string[], replacement: unknown): GeneratedRequest {
  if (!request.body) return request;
  if (!path.length) {
    request.body.value = replacement;
    return request;
  }
  let at = request.body.value as Record<string, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path[path.length - 1]!] = replacement;
  return request;
}

function deleteIn(request: GeneratedRequest, path: string[]): GeneratedRequest {
  let at = request.body!.value as Record<string, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  delete at[path[path.length - 1]!];
  return request;
}

// ---- wire -------------------------------------------------------------------------------------

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Percent-encodes everything but RFC 3986 unreserved characters (encodeURIComponent leaves !'()*). */
export function strictEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** The request as it goes over the wire (path below the base path, percent-encoded). */
export function toWire(request: GeneratedRequest, extraHeaders: Record<string, string> = {}, extraQuery: [string, string][] = []): WireRequest {
  const { operation, params, body } = request;
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params.path[name];
    const p = operation.parameters.find((q) => q.in === "path" && q.name === name);
    // Written in its style (simple, label or matrix): an array's items one by one, an object's pairs.
    if (!p) return strictEncode(text(value));
    if (isObject(value)) return pathStyleObjectSegment(p, objectText(value).map(([k, v]) => [strictEncode(k), strictEncode(v)]));
    return pathStyleSegment(p, (Array.isArray(value) ? value : [value]).map((v) => strictEncode(text(v))), Array.isArray(value));
  });
  // Serialized as each parameter's style says: form (exploded arrays repeat the name, exploded
  // objects are a field per property, others are comma-separated) or deepObject (name[key]=value).
  const query: [string, string][] = [];
  const raw: string[] = [];
  for (const [name, value] of Object.entries(params.query)) {
    if (value === undefined) continue;
    const p = operation.parameters.find((q) => q.in === "query" && q.name === name);
    const style = p?.raw.style ?? "form";
    const explode = p?.raw.explode ?? style === "form";
    if (p?.mediaType !== undefined) {
      // Described by `content`: one value, written in its media type.
      const written = contentText(p.mediaType, value);
      query.push([name, written]);
      raw.push(`${strictEncode(name)}=${strictEncode(written)}`);
    } else if (style === "deepObject" && isObject(value)) {
      for (const [key, v] of Object.entries(value)) {
        if (v === undefined) continue;
        query.push([`${name}[${key}]`, text(v)]);
        raw.push(`${strictEncode(`${name}[${key}]`)}=${strictEncode(text(v))}`);
      }
    } else if (style === "form" && explode && isObject(value)) {
      // An exploded form object: one field per property (color=red&size=2).
      for (const [key, v] of Object.entries(value)) {
        if (v === undefined) continue;
        query.push([key, text(v)]);
        raw.push(`${strictEncode(key)}=${strictEncode(text(v))}`);
      }
    } else if (style === "form" && !explode && isObject(value)) {
      // A form object not exploded: names and values in turn, comma-separated (R,100,G,200).
      const written = objectText(value);
      query.push([name, written.map(([k, v]) => `${k},${v}`).join(",")]);
      raw.push(`${strictEncode(name)}=${written.map(([k, v]) => `${strictEncode(k)},${strictEncode(v)}`).join(",")}`);
    } else if (Array.isArray(value) && !explode) {
      const delimiter = p ? arrayDelimiter(p) : ",";
      query.push([name, value.map(text).join(delimiter)]);
      // The delimiter as OpenAPI's style examples write it: a comma or a pipe as it is, a space %20.
      raw.push(`${strictEncode(name)}=${value.map((v) => strictEncode(text(v))).join(delimiter === " " ? "%20" : delimiter)}`);
    } else {
      for (const v of Array.isArray(value) ? value : [value]) {
        query.push([name, text(v)]);
        raw.push(`${strictEncode(name)}=${strictEncode(text(v))}`);
      }
    }
  }
  for (const [name, value] of extraQuery) {
    query.push([name, value]);
    raw.push(`${strictEncode(name)}=${strictEncode(value)}`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(params.header)) {
    if (value === undefined) continue;
    const p = operation.parameters.find((q) => q.in === "header" && q.name === name);
    headers[name.toLowerCase()] =
      p?.mediaType !== undefined ? contentText(p.mediaType, value)
      : Array.isArray(value) ? value.map(text).join(",")
      : isObject(value) ? simpleObjectText(value, p?.raw.explode === true)
      : text(value);
  }
  // Cookie parameters after any cookie given (credentials), each value percent-encoded, an array's items joined by commas.
  const cookies = Object.entries(params.cookie ?? {}).flatMap(([name, value]) =>
    value === undefined ? [] : [`${name}=${(Array.isArray(value) ? value : [value]).map((v) => encodeURIComponent(text(v))).join(",")}`],
  );
  if (cookies.length) headers.cookie = [headers.cookie, ...cookies].filter(Boolean).join("; ");
  const rawQuery = raw.join("&");
  const wire: WireRequest = { method: operation.method.toUpperCase(), path, query, rawQuery, headers };
  if (body) {
    const mediaType = mediaTypeOf(body.mediaType);
    headers["content-type"] = body.mediaType;
    if (isJsonMediaType(mediaType)) wire.body = JSON.stringify(body.value);
    else if (mediaType === FORM_MEDIA_TYPE) wire.body = formText(body.value);
    else if (mediaType === MULTIPART_MEDIA_TYPE) {
      // A boundary none of the values holds.
      let boundary = "conformance-part";
      while (JSON.stringify(body.value ?? null).includes(boundary)) boundary += "-";
      headers["content-type"] = `${body.mediaType}; boundary=${boundary}`;
      wire.body = multipartText(body.value, boundary);
    } else wire.body = text(body.value);
  }
  return wire;
}

/** An object's members as name and value texts, the undefined ones left out. */
function objectText(value: Record<string, unknown>): [string, string][] {
  return Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, text(v)] as [string, string]]));
}

/** An object in style simple (a header's): `R,100,G,200`, or exploded `R=100,G=200`. */
function simpleObjectText(value: Record<string, unknown>, exploded: boolean): string {
  return objectText(value)
    .map(([k, v]) => `${k}${exploded ? "=" : ","}${v}`)
    .join(",");
}

/** A value written in a parameter's `content` media type: JSON text for JSON, else its text. */
function contentText(mediaType: string, value: unknown): string {
  return isJsonMediaType(mediaTypeOf(mediaType)) ? JSON.stringify(value) : text(value);
}

/** The URL of a wire request below a base URL (which holds the base path). */
export function urlOf(baseUrl: string, wire: WireRequest): string {
  const search = wire.rawQuery ?? new URLSearchParams(wire.query).toString();
  return `${baseUrl.replace(/\/+$/, "")}${wire.path}${search ? `?${search}` : ""}`;
}
