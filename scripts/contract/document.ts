// Reading an OpenAPI 3.1 bundle: $refs inside the document, JSON pointers, and the list of
// operations with their parameters merged. Pure: no I/O. Shared by the diff, the traffic checker
// and the request generator.
import qs from "qs";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A bundle as these tools read it: anything beyond paths and components is optional. */
export interface OpenApiDoc {
  openapi?: string;
  info?: { version?: string; title?: string; [key: string]: unknown };
  paths?: Record<string, JsonObject>;
  components?: JsonObject;
  [key: string]: unknown;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointer(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Joins JSON-pointer tokens: pointer("/paths", "/config", "put") is "/paths/~1config/put". */
export function pointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((t) => "/" + escapePointer(String(t))).join("");
}

/** The value at a local reference ("#/components/schemas/X"); undefined if there is none. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  const tokens = ref.slice(1).split("/").slice(1).map(unescapePointer);
  let at: unknown = doc;
  for (const token of tokens) {
    if (Array.isArray(at)) at = at[Number(token)];
    else if (isObject(at)) at = at[token];
    else return undefined;
  }
  return at;
}

export interface Resolved<T> {
  value: T;
  /** The last $ref followed, if any: where the value is defined. */
  ref?: string;
}

/**
 * Follows $ref chains inside the bundle. A bundle only has local refs; an external or dangling one
 * is an error here because every tool would otherwise silently check nothing. OpenAPI 3.1 allows
 * siblings next to $ref (description, summary): they are kept over the target's.
 */
export function deref<T = JsonObject>(doc: unknown, node: unknown): Resolved<T> {
  let value = node;
  let ref: string | undefined;
  const seen = new Set<string>();
  while (isObject(value) && typeof value.$ref === "string") {
    const next = value.$ref;
    if (seen.has(next)) throw new Error(`circular $ref ${next}`);
    seen.add(next);
    const target = resolvePointer(doc, next);
    if (target === undefined) throw new Error(`cannot resolve $ref ${next}`);
    const { $ref: _, ...siblings } = value;
    value = Object.keys(siblings).length && isObject(target) ? { ...target, ...siblings } : target;
    ref = next;
  }
  return { value: value as T, ref };
}

/**
 * Whether a property's schema is marked `readOnly` or `writeOnly` true, beside a `$ref` or in its
 * target. A reference that does not resolve marks nothing (the check that reads it reports it).
 */
export function isMarked(doc: unknown, schema: Json, flag: "readOnly" | "writeOnly"): boolean {
  try {
    const { value } = deref<JsonObject>(doc, schema);
    return isObject(value) && value[flag] === true;
  } catch {
    return false;
  }
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  /** Its schema, or its `content`'s (OpenAPI: a parameter has one or the other); {} when it has neither. */
  schema: Json;
  /** Where the parameter is defined (after $refs). */
  pointer: string;
  /** Where its schema is (`<pointer>/schema`, or `<pointer>/content/<media type>/schema`); undefined when it has none. */
  schemaPointer?: string;
  /** The media type its value is written in, for a parameter described by `content` (`application/json`: JSON text). */
  mediaType?: string;
  raw: JsonObject;
}

export interface Operation {
  method: HttpMethod;
  template: string;
  operationId?: string;
  /** "PUT /config (applyConfigEntry)" */
  label: string;
  /** JSON pointer of the operation in the document. */
  pointer: string;
  operation: JsonObject;
  /**
   * Path-level and operation-level parameters; the operation's win (same name and location). Header
   * parameters named Accept, Content-Type or Authorization are not among them: OpenAPI says such a
   * definition is ignored (the media types and the security schemes say those).
   */
  parameters: Parameter[];
}

/** Headers a description may not define as parameters: OpenAPI ignores such definitions. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);

export function isIgnoredParameter(p: Pick<Parameter, "in" | "name">): boolean {
  return p.in === "header" && RESERVED_HEADERS.has(p.name.toLowerCase());
}

/**
 * A copy of the document without the parameters `drop` names (given each after its $ref), or
 * undefined when it drops none. Only the path items' and operations' parameter lists change.
 */
export function withoutParameters(doc: OpenApiDoc, drop: (parameter: JsonObject) => boolean): OpenApiDoc | undefined {
  return withPathItems(doc, (item) => {
    let changed = false;
    const kept = (list: Json | undefined): Json | undefined => {
      if (!Array.isArray(list)) return list;
      const filtered = list.filter((raw) => !drop(deref<JsonObject>(doc, raw).value));
      changed ||= filtered.length !== list.length;
      return filtered;
    };
    const rewritten: JsonObject = { ...item };
    if (item.parameters !== undefined) rewritten.parameters = kept(item.parameters)!;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (isObject(operation) && operation.parameters !== undefined) rewritten[method] = { ...operation, parameters: kept(operation.parameters)! };
    }
    return changed ? rewritten : undefined;
  });
}

/**
 * A copy of the document whose path items (each after its $ref) are as `rewrite` gives them, or
 * undefined when it changes none (`rewrite` answers undefined for an item it leaves as it is).
 */
export function withPathItems(doc: OpenApiDoc, rewrite: (item: JsonObject) => JsonObject | undefined): OpenApiDoc | undefined {
  let changed = false;
  const paths: Record<string, JsonObject> = {};
  for (const [template, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = deref<JsonObject>(doc, rawItem).value;
    const rewritten = rewrite(item);
    changed ||= rewritten !== undefined;
    paths[template] = rewritten ?? item;
  }
  return changed ? { ...doc, paths } : undefined;
}

/**
 * A description's `pattern` as a regular expression: ECMA-262's with the u flag when it is valid so,
 * else without it (Annex B, as browsers read it: `{` that starts no quantifier is a brace,
 * `^(?:{[0-9a-f]{8}})$`), else one that takes anything (a pattern no engine reads constrains nothing).
 */
export function patternRegExp(pattern: string, flags = "u"): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch {
    try {
      return new RegExp(pattern, flags.replace("u", ""));
    } catch {
      return new RegExp("", flags);
    }
  }
}

/** The types a schema's `type` names: one, a list of them, or none. */
export function typeNames(schema: JsonObject): string[] {
  return Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === "string" ? [schema.type] : [];
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDoc): Operation[] {
  const operations: Operation[] = [];
  for (const [template, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = deref<JsonObject>(doc, rawItem).value;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const opPointer = pointer("/paths", template, method);
      const byKey = new Map<string, Parameter>();
      const add = (list: Json | undefined, base: string) => {
        if (!Array.isArray(list)) return;
        list.forEach((raw, i) => {
          const { value, ref } = deref<JsonObject>(doc, raw);
          const at = ref ? ref.slice(1) : pointer(base, "parameters", i);
          // A parameter described by `content` has one media type, whose schema its value follows.
          const mediaType = isObject(value.content) ? Object.keys(value.content)[0] : undefined;
          const media = mediaType !== undefined && isObject(value.content) && isObject(value.content[mediaType]) ? value.content[mediaType] : undefined;
          const schema = media ? media.schema : value.schema;
          const p: Parameter = {
            name: String(value.name),
            in: value.in as Parameter["in"],
            required: value.required === true,
            schema: (schema ?? {}) as Json,
            pointer: at,
            ...(schema === undefined ? {} : { schemaPointer: media ? pointer(at, "content", mediaType!, "schema") : pointer(at, "schema") }),
            ...(mediaType === undefined ? {} : { mediaType }),
            raw: value,
          };
          if (!isIgnoredParameter(p)) byKey.set(parameterKey(p), p);
        });
      };
      add(item.parameters, pointer("/paths", template));
      add(operation.parameters, opPointer);
      const operationId = typeof operation.operationId === "string" ? operation.operationId : undefined;
      operations.push({
        method,
        template,
        operationId,
        label: `${method.toUpperCase()} ${template}${operationId ? ` (${operationId})` : ""}`,
        pointer: opPointer,
        operation,
        parameters: [...byKey.values()],
      });
    }
  }
  return operations;
}

/**
 * What separates the items of an array parameter that is not exploded: a space (spaceDelimited),
 * a pipe (pipeDelimited), else a comma (form, simple).
 */
export function arrayDelimiter(p: Pick<Parameter, "raw">): string {
  return p.raw.style === "spaceDelimited" ? " " : p.raw.style === "pipeDelimited" ? "|" : ",";
}

/**
 * A path parameter's value as its style writes it in the segment (still percent-encoded), as the
 * texts of its value: `simple` (the default) the segment itself; `label` after a `.` (an exploded
 * array's items each after one: `.3.4.5`); `matrix` after `;<name>=` (an exploded array's items each
 * after one: `;id=3;id=4`). A non-exploded array is one text, its items comma-separated. An object
 * exploded in style label or matrix (`.R=100.G=200`, `;R=100;G=200`) is one text of its pairs as
 * style simple writes them (`R=100,G=200`). Or why the segment is not written in that style.
 */
export function pathStyleTexts(p: Pick<Parameter, "name" | "raw">, segment: string, isArray: boolean, isObject = false): string[] | { error: string } {
  const style = p.raw.style ?? "simple";
  const exploded = p.raw.explode === true && isArray;
  const explodedObject = p.raw.explode === true && isObject && !isArray;
  if (style === "label") {
    if (!segment.startsWith(".")) return { error: "is not written in style label (a value after a '.')" };
    if (explodedObject) return [segment.slice(1).split(".").join(",")];
    return exploded ? segment.slice(1).split(".") : [segment.slice(1)];
  }
  if (style === "matrix") {
    if (explodedObject) {
      if (!segment.startsWith(";")) return { error: "is not written in style matrix (;<name>=<value>...)" };
      return [segment.slice(1).split(";").join(",")];
    }
    const prefix = `;${encodeURIComponent(p.name)}=`;
    if (!segment.startsWith(prefix)) return { error: `is not written in style matrix (${prefix}<value>)` };
    return exploded ? segment.slice(1).split(";").map((pair) => pair.slice(prefix.length - 1)) : [segment.slice(prefix.length)];
  }
  return [segment];
}

/** A path parameter's value written in its style (pathStyleTexts read the other way), from the texts of its items (already encoded). */
export function pathStyleSegment(p: Pick<Parameter, "name" | "raw">, texts: string[], isArray: boolean): string {
  const style = p.raw.style ?? "simple";
  const exploded = p.raw.explode === true && isArray;
  if (style === "label") return `.${texts.join(exploded ? "." : ",")}`;
  if (style === "matrix") {
    const prefix = `;${encodeURIComponent(p.name)}=`;
    return exploded ? texts.map((t) => `${prefix}${t}`).join("") : `${prefix}${texts.join(",")}`;
  }
  return texts.join(",");
}

/**
 * An object path parameter written in its style, from its [name, value] pairs (already encoded), as
 * OpenAPI's style examples write one: `R,100,G,200`, `.R,100,G,200`, `;color=R,100,G,200`; exploded
 * `R=100,G=200`, `.R=100.G=200`, `;R=100;G=200`.
 */
export function pathStyleObjectSegment(p: Pick<Parameter, "name" | "raw">, pairs: [string, string][]): string {
  const style = p.raw.style ?? "simple";
  const explode = p.raw.explode === true;
  const written = pairs.map(([name, value]) => (explode ? `${name}=${value}` : `${name},${value}`));
  if (style === "label") return `.${written.join(explode ? "." : ",")}`;
  if (style === "matrix") return explode ? written.map((w) => `;${w}`).join("") : `;${encodeURIComponent(p.name)}=${written.join(",")}`;
  return written.join(",");
}

/**
 * An operation's security alternatives (its own requirements, else the document's), each as the
 * schemes it names, after `$ref`s: undefined for a name `components.securitySchemes` lacks. An empty
 * list: the operation asks for no credentials.
 */
export function securityAlternatives(doc: OpenApiDoc, operation: Operation): (JsonObject | undefined)[][] {
  const requirements = operation.operation.security ?? (doc as { security?: Json }).security;
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  return (Array.isArray(requirements) ? requirements : []).map((requirement) =>
    (isObject(requirement) ? Object.keys(requirement) : []).map((name) => (Object.hasOwn(schemes, name) ? deref<JsonObject>(doc, schemes[name]!).value : undefined)),
  );
}

/** Header names are case-insensitive; other parameter names are not. */
export function parameterKey(p: { in: string; name: string }): string {
  return `${p.in}:${p.in === "header" ? p.name.toLowerCase() : p.name}`;
}

/**
 * Adds a value to the list of its key, in place: a copy per value (`[...list, value]`) made a body or
 * query of one name repeated quadratic (40,000 form fields took 11 s to check).
 */
export function appendTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

/** The name and value pairs of a Cookie header (RFC 6265: `name=value; name2=value2`), in order. */
export function cookiesOf(header: string | undefined): [string, string][] {
  return (header ?? "").split(";").flatMap((pair) => {
    const eq = pair.indexOf("=");
    return eq < 0 ? [] : [[pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()] as [string, string]];
  });
}

/** Media types are compared without parameters and case. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** OpenAPI's form body: an object schema, each property a field (Encoding Object: style form). */
export const FORM_MEDIA_TYPE = "application/x-www-form-urlencoded";

/**
 * A form body's fields as the object its schema describes (bodyFields): with `explode: false` in its
 * encoding, an array is the comma-separated parts of one field. A form whose field names hold
 * brackets (`card[number]=4242&items[0][price]=p1`: style deepObject, as Stripe-like APIs nest their
 * forms) is read as the nested objects and arrays they name (nestedFormFields).
 */
export function formFields(doc: OpenApiDoc, media: JsonObject, text: string, coerce: (value: string, schema: JsonObject) => unknown): Record<string, unknown> {
  const given: [string, string][] = [...new URLSearchParams(text)];
  if (given.some(([name]) => name.includes("["))) return nestedFormFields(doc, media, text, coerce);
  const encoding = isObject(media.encoding) ? media.encoding : {};
  const split = (name: string, value: string) => (isObject(encoding[name]) && encoding[name].explode === false ? value.split(",") : [value]);
  return bodyFields(doc, media, given, (name, value, schema, inArray) => (inArray ? split(name, value) : [value]).map((v) => coerce(v, schema)));
}

/**
 * A form with bracketed field names as the value they build (qs, the parser Express and Rails-style
 * servers read such forms with: `a[b]` a member, `a[0]` or `a[]` an item; repeated names an array),
 * each text read by the schema at its place (through `anyOf`/`oneOf`/`allOf` alternatives: the
 * types of them all). Bounded: 20 levels, indices up to 1,000 (a larger one is a member named by it).
 */
function nestedFormFields(doc: OpenApiDoc, media: JsonObject, text: string, coerce: (value: string, schema: JsonObject) => unknown): Record<string, unknown> {
  const parsed = qs.parse(text, { depth: 20, arrayLimit: 1000, parameterLimit: Infinity, plainObjects: true });
  return readByShape(doc, parsed, media.schema ?? {}, coerce) as Record<string, unknown>;
}

function readByShape(doc: OpenApiDoc, value: unknown, node: Json, coerce: (value: string, schema: JsonObject) => unknown): unknown {
  const schema = deref<JsonObject>(doc, node).value;
  const alternatives = [schema, ...(["anyOf", "oneOf", "allOf"] as const).flatMap((k) => (Array.isArray(schema[k]) ? schema[k].map((s) => deref<JsonObject>(doc, s).value) : []))];
  const types = new Set(alternatives.flatMap(typeNames));
  const items = alternatives.find((a) => a.items !== undefined)?.items ?? {};
  if (typeof value === "string") {
    // One field where an array is asked: its one item.
    if (types.has("array") && !types.has("string")) return [readByShape(doc, value, items, coerce)];
    return coerce(value, types.size > 0 ? { type: [...types] } : schema);
  }
  if (Array.isArray(value)) return value.map((item) => readByShape(doc, item, items, coerce));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const property =
      alternatives.map((a) => (isObject(a.properties) && Object.hasOwn(a.properties, key) ? a.properties[key] : undefined)).find((p) => p !== undefined) ??
      alternatives.map((a) => (isObject(a.additionalProperties) ? a.additionalProperties : undefined)).find((p) => p !== undefined) ??
      {};
    out[key] = readByShape(doc, member, property, coerce);
  }
  return out;
}

/**
 * The fields of a form or multipart body as the object its schema describes: a field whose schema is
 * an array takes every value of its name; another one its value, or its values when given more than
 * once (which its schema refuses). `read` turns one given value into what the field's (or, in an
 * array, the item's) schema reads it as, one or more values.
 */
export function bodyFields<Given>(
  doc: OpenApiDoc,
  media: JsonObject,
  given: [string, Given][],
  read: (name: string, value: Given, schema: JsonObject, inArray: boolean) => unknown[],
): Record<string, unknown> {
  const values = new Map<string, Given[]>();
  for (const [name, value] of given) appendTo(values, name, value);
  const schema = deref<JsonObject>(doc, media.schema ?? {}).value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const others = isObject(schema.additionalProperties) ? schema.additionalProperties : {};
  const fields: Record<string, unknown> = {};
  for (const [name, all] of values) {
    const field = deref<JsonObject>(doc, Object.hasOwn(properties, name) ? properties[name]! : others).value;
    if (typeNames(field).includes("array")) {
      const items = deref<JsonObject>(doc, field.items ?? {}).value;
      fields[name] = all.flatMap((v) => read(name, v, items, true));
    } else {
      const readValues = all.flatMap((v) => read(name, v, field, false));
      fields[name] = readValues.length === 1 ? readValues[0] : readValues;
    }
  }
  return fields;
}

/**
 * A form body of an object: arrays as repeated fields, other values as their text; a value that
 * holds objects in bracketed fields (`card[number]=4242`, `items[0][price]=p1`), as formFields reads them.
 */
export function formText(value: unknown): string {
  const fields = Object.entries(isObject(value) ? value : {});
  const holdsObject = (field: unknown) => (Array.isArray(field) ? field.some(holdsObject) : typeof field === "object" && field !== null);
  if (fields.some(([, field]) => holdsObject(field))) return qs.stringify(value, { arrayFormat: "indices" });
  const form = new URLSearchParams();
  for (const [name, field] of fields) {
    for (const item of Array.isArray(field) ? field : [field]) {
      if (item !== undefined) form.append(name, typeof item === "string" ? item : JSON.stringify(item));
    }
  }
  return form.toString();
}

/** application/json and every +json type carry JSON. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || /^[a-z]+\/[^;]+\+json$/.test(mediaType);
}

/**
 * The documented media type that covers an actual one: exact, then "type/*", then "*\/*".
 * Returns the key as written in the description.
 */
export function matchMediaType(content: JsonObject, actual: string): string | undefined {
  const keys = Object.keys(content);
  const [type] = actual.split("/");
  return (
    keys.find((k) => mediaTypeOf(k) === actual) ??
    keys.find((k) => mediaTypeOf(k) === `${type}/*`) ??
    keys.find((k) => mediaTypeOf(k) === "*/*")
  );
}

/** Members of a schema that hold values, not schemas: left as they are. */
const VALUE_KEYWORDS = new Set(["example", "examples", "default", "enum", "const"]);
/** Members that map names to schemas: every member is a schema, whatever its name. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "schemas"]);

/**
 * A document's schemas with OpenAPI 3.0's keywords as OpenAPI 3.1 (JSON Schema 2020-12) says them,
 * for the tools that check and generate values: `nullable: true` becomes a "null" type (and a null
 * in the enum; beside no `type`, an `anyOf` with null), a boolean `exclusiveMinimum` or
 * `exclusiveMaximum` the bound itself. A 3.1 description that kept them (a common leftover of an
 * upgrade) is read the same way: in 3.1 they mean nothing else, and ajv refuses them as they are
 * (`"nullable" cannot be used without "type"`, a boolean where a number belongs).
 */
export function withOpenApi31Schemas(doc: OpenApiDoc): OpenApiDoc {
  if (upgraded.has(doc)) return doc;
  const upgrade = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(upgrade);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (VALUE_KEYWORDS.has(key)) out[key] = value;
      else if (SCHEMA_MAPS.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, upgrade(schema)]));
      else out[key] = upgrade(value);
    }
    for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (typeof out[flag] !== "boolean") continue;
      if (out[flag] === true && typeof out[bound] === "number") {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
    if (out.nullable !== true) return out;
    delete out.nullable;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (typeof out.type === "string") return { ...out, type: [out.type, "null"] };
    if (out.type === undefined) return { anyOf: [out, { type: "null" }] };
    return out;
  };
  const result = upgrade(doc as JsonObject) as OpenApiDoc;
  upgraded.add(result);
  return result;
}

/** The documents withOpenApi31Schemas made (given one again, it answers it as it is). */
const upgraded = new WeakSet<OpenApiDoc>();
