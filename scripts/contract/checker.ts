// Checks one HTTP exchange (request and response, as they went over the wire) against a bundle:
// the operation exists, parameters and body follow it, the status and content type are documented
// and the response body and headers follow their schemas. Pure apart from compiling validators.
// Used by traffic validation (HAR), the property-based test and the mock test.
import type { ErrorObject, ValidateFunction } from "ajv";
import { schemaAjv, type SchemaAjv } from "../../server/shared/json-schema.ts";
import { collapseAlternatives as collapseProblems } from "../../server/shared/collapse-alternatives.ts";
import {
  appendTo,
  arrayDelimiter,
  cookiesOf,
  pathStyleTexts,
  deref,
  escapePointer,
  FORM_MEDIA_TYPE,
  formFields,
  isJsonMediaType,
  isMarked,
  isObject,
  matchMediaType,
  mediaTypeOf,
  operationsOf,
  pointer,
  patternRegExp,
  securityAlternatives,
  withOpenApi31Schemas,
  type Json,
  type JsonObject,
  type OpenApiDoc,
  type Operation,
  type Parameter,
} from "./document.ts";
import { MULTIPART_MEDIA_TYPE, multipartFields, multipartParts } from "./multipart.ts";

export type ViolationKind =
  | "undocumented-operation"
  | "request-parameter"
  | "request-body"
  | "response-status"
  | "response-content-type"
  | "response-header"
  | "response-body";

export interface Violation {
  kind: ViolationKind;
  /** "PUT /config (applyConfigEntry)", or "PUT /nope" when no operation matched. */
  operation: string;
  operationId?: string;
  /** JSON pointer into the exchange: /request/query/index, /response/body/Chain/Nodes, ... */
  pointer: string;
  reason: string;
}

/** A request as sent: path below the API's base path, still percent-encoded. */
export interface WireRequest {
  method: string;
  path: string;
  /** Decoded name/value pairs, in order. */
  query: [string, string][];
  /** The query string as sent (without "?"), when known: reserved characters are checked in it. */
  rawQuery?: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Undefined or "" when there was none. */
  body?: string;
}

export interface WireResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** A body was sent but not kept (too long to check, or cut): its media type is checked, its value is not. */
  bodyNotKept?: boolean;
}

export interface MatchedOperation {
  operation: Operation;
  pathParams: Record<string, string>;
}

export interface ContractChecker {
  operations: Operation[];
  /** The operation a method and path (below the base path) call, as a server would route it. */
  match(method: string, path: string): MatchedOperation | undefined;
  checkRequest(matched: MatchedOperation, request: WireRequest): Violation[];
  checkResponse(operation: Operation, response: WireResponse): Violation[];
  /** Request and response; an unmatched request is one "undocumented-operation" violation. */
  checkExchange(request: WireRequest, response?: WireResponse): Violation[];
  /** A response whose body is already decoded (JSON value, or text). */
  checkResponseValue(operation: Operation, status: number, contentType: string, body: unknown): Violation[];
}

const BUNDLE_ID = "bundle";

export interface CheckerOptions {
  /**
   * OpenAPI lets a server ignore query parameters it does not document; the servers here refuse
   * them (a misspelt parameter is a client bug), so by default they are violations.
   */
  unknownQueryParameters?: "refuse" | "allow";
}

/** patternRegExp as Ajv takes a regular expression engine (its `code` names it in standalone code, which this does not make). */
const PATTERN_ENGINE = Object.assign((pattern: string, flags: string) => patternRegExp(pattern, flags), { code: "patternRegExp" });

export function contractChecker(description: OpenApiDoc, options: CheckerOptions = {}): ContractChecker {
  // An OpenAPI 3.0 description's schemas (nullable, boolean exclusive bounds) as 3.1 reads them.
  const doc = withOpenApi31Schemas(description);
  // A request and a response are checked against copies of the bundle in which OpenAPI's readOnly
  // (a request) or writeOnly (a response) properties are not required (the same when it has none).
  const bundle = discriminatorsAsConditionals(doc) as OpenApiDoc;
  const bundleIds = { request: BUNDLE_ID, response: BUNDLE_ID };
  const schemas: [string, OpenApiDoc][] = [[BUNDLE_ID, bundle]];
  for (const [direction, flag] of [["request", "readOnly"], ["response", "writeOnly"]] as const) {
    const copy = withoutRequired(bundle, flag);
    if (copy === bundle) continue;
    bundleIds[direction] = `${BUNDLE_ID}-${direction}`;
    schemas.push([bundleIds[direction], copy]);
  }
  /** Ajv with the bundles, finding every problem of a value or only its first (made on first use). */
  const validators = new Map<boolean, { ajv: SchemaAjv; compiled: Map<string, ValidateFunction> }>();
  const validatorsOf = (allErrors: boolean) => {
    let made = validators.get(allErrors);
    if (!made) {
      // Patterns read as ECMA-262 reads them, Annex B included (patternRegExp), not only with the u flag.
      const ajv = schemaAjv({ strict: false, allErrors, validateFormats: true, code: { regExp: PATTERN_ENGINE } });
      for (const [id, schema] of schemas) ajv.addSchema({ ...schema, $id: id });
      made = { ajv, compiled: new Map() };
      validators.set(allErrors, made);
    }
    return made;
  };
  /** The validator of the schema at a JSON pointer of the bundle, as a request's or a response's. */
  const validatorAt = (at: string, direction: "request" | "response", allErrors: boolean): ValidateFunction => {
    const id = `${bundleIds[direction]}#${at}`;
    const { ajv, compiled } = validatorsOf(allErrors);
    let validate = compiled.get(id);
    if (!validate) {
      validate = ajv.compile({ $ref: id });
      compiled.set(id, validate);
    }
    return validate;
  };

  const operations = operationsOf(doc);
  const routes = operations
    .map((operation) => ({ operation, ...templateRegExp(operation.template) }))
    // A concrete path wins over a templated one (OpenAPI), then the longest literal part.
    .sort((a, b) => a.params.length - b.params.length || b.literalLength - a.literalLength);

  function match(method: string, path: string): MatchedOperation | undefined {
    const m = method.toLowerCase();
    for (const route of routes) {
      if (route.operation.method !== m) continue;
      const found = route.regexp.exec(path);
      if (!found) continue;
      const pathParams: Record<string, string> = {};
      route.params.forEach((name, i) => (pathParams[name] = found[i + 1]!));
      return { operation: route.operation, pathParams };
    }
    return undefined;
  }

  function violation(operation: Operation, kind: ViolationKind, at: string, reason: string): Violation {
    return { kind, operation: operation.label, operationId: operation.operationId, pointer: at, reason };
  }

  function schemaViolations(operation: Operation, kind: ViolationKind, schemaAt: string, value: unknown, base: string): Violation[] {
    // Every problem of a value, unless it holds so many values that their problems would not fit in memory.
    const everyProblem = !holdsMoreValuesThan(value, MAX_VALUES_FOR_EVERY_PROBLEM);
    const validate = validatorAt(schemaAt, kind.startsWith("request") ? "request" : "response", everyProblem);
    try {
      if (validate(value)) return [];
    } catch (error) {
      // A value nested deeper than the call stack reaches (a recursive schema walked by ajv's
      // recursive validators): said of the value, not thrown (the mock's front answered it with a 500).
      if (!(error instanceof RangeError)) throw error;
      return [violation(operation, kind, base, `is nested too deeply to be checked (${error.message})`)];
    }
    const { listed, unlisted } = describeErrors(validate.errors ?? [], MAX_VIOLATIONS);
    const violations = listed.map(({ at, reason }) => violation(operation, kind, base + at, reason));
    if (unlisted > 0) violations.push(violation(operation, kind, base, `has ${unlisted} more problems, not listed (the first ${MAX_VIOLATIONS} are)`));
    if (!everyProblem) violations.push(violation(operation, kind, base, `holds more than ${MAX_VALUES_FOR_EVERY_PROBLEM} values: only its first problem is listed`));
    return violations;
  }

  /** A parameter's value against its schema; none to check against when it has none. */
  function parameterViolations(operation: Operation, p: Parameter, value: unknown, at: string): Violation[] {
    return p.schemaPointer === undefined ? [] : schemaViolations(operation, "request-parameter", p.schemaPointer, value, at);
  }

  function checkParameters(matched: MatchedOperation, request: WireRequest): Violation[] {
    const { operation, pathParams } = matched;
    const found: Violation[] = [];
    const queryValues = new Map<string, string[]>();
    for (const [name, value] of request.query) appendTo(queryValues, name, value);
    const rawValues = rawQueryValues(request.rawQuery);
    const documentedQuery = new Set<string>(queryKeysOf(doc, operation));
    const cookies = cookiesOf(request.headers.cookie);
    for (const p of operation.parameters) {
      const at = pointer("/request", p.in, p.name);
      let raw: string[] | undefined;
      if (p.in === "path") {
        const encoded = pathParams[p.name];
        const types = typesOf(deref<JsonObject>(doc, p.schema).value);
        const texts = encoded === undefined ? undefined : pathStyleTexts(p, encoded, types.has("array"), types.has("object") && !types.has("string"));
        if (texts && "error" in texts) {
          found.push(violation(operation, "request-parameter", at, texts.error));
          continue;
        }
        try {
          raw = texts?.map((t) => decodeURIComponent(t));
        } catch {
          found.push(violation(operation, "request-parameter", at, "is not valid percent-encoding"));
          continue;
        }
      } else if (p.in === "query" && p.raw.style === "deepObject") {
        // name[key]=value pairs make one object; each value is parsed by its property's schema.
        const members = [...queryValues].filter(([name]) => name.startsWith(`${p.name}[`) && name.endsWith("]"));
        members.forEach(([name]) => documentedQuery.add(name));
        if (!members.length) {
          if (p.required) found.push(violation(operation, "request-parameter", at, "required query parameter is missing"));
          continue;
        }
        const value = deepObject(doc, p, members);
        found.push(...parameterViolations(operation, p, value, at));
        continue;
      } else if (p.in === "query" && isExplodedFormObject(doc, p)) {
        // OpenAPI: an object in style form, exploded, is one field per property (color=red&size=2).
        const properties = deref<JsonObject>(doc, p.schema).value.properties as JsonObject;
        const members = [...queryValues].filter(([name]) => Object.hasOwn(properties, name));
        members.forEach(([name]) => documentedQuery.add(name));
        if (!members.length) {
          if (p.required) found.push(violation(operation, "request-parameter", at, "required query parameter is missing"));
          continue;
        }
        const value = Object.fromEntries(members.map(([name, values]) => [name, coerce(values[values.length - 1]!, typesOf(deref<JsonObject>(doc, properties[name]!).value))]));
        found.push(...parameterViolations(operation, p, value, at));
        continue;
      } else if (p.in === "query") {
        documentedQuery.add(p.name);
        raw = queryValues.get(p.name);
      } else if (p.in === "cookie") {
        // The first cookie of the name: a client may send one per path it was set for, the most specific first.
        const value = cookies.find(([name]) => name === p.name)?.[1];
        raw = value === undefined ? undefined : [decodedCookie(value)];
      } else {
        const value = request.headers[p.name.toLowerCase()];
        raw = value === undefined ? undefined : [value];
      }
      if (raw === undefined) {
        if (p.required) found.push(violation(operation, "request-parameter", at, `required ${p.in} parameter is missing`));
        continue;
      }
      if (p.in === "query") {
        const problem = queryValueProblem(p, raw, rawValues.get(p.name));
        if (problem) {
          found.push(violation(operation, "request-parameter", at, problem));
          continue;
        }
      }
      if (p.mediaType !== undefined && raw.length > 1) {
        found.push(violation(operation, "request-parameter", at, `given ${raw.length} times but is one ${p.mediaType} value`));
        continue;
      }
      const value = p.mediaType !== undefined ? decodedContent(p.mediaType, raw[0]!) : deserialize(doc, p, raw);
      if (value === TOO_MANY) {
        found.push(violation(operation, "request-parameter", at, `given ${raw.length} times but is not an array`));
        continue;
      }
      if (value === NOT_JSON) {
        found.push(violation(operation, "request-parameter", at, `is not valid JSON (its content is ${p.mediaType})`));
        continue;
      }
      found.push(...parameterViolations(operation, p, value, at));
    }
    for (const name of queryValues.keys()) {
      if (options.unknownQueryParameters !== "allow" && !documentedQuery.has(name)) {
        found.push(violation(operation, "request-parameter", pointer("/request/query", name), "is not a documented query parameter"));
      }
    }
    return found;
  }

  function checkRequestBody(operation: Operation, request: WireRequest): Violation[] {
    // An empty form (no field set, as a client sends an object with none) is a body: its Content-Type says so.
    const emptyForm = request.body === "" && mediaTypeOf(request.headers["content-type"]) === FORM_MEDIA_TYPE;
    const hasBody = (request.body !== undefined && request.body !== "") || emptyForm;
    if (operation.operation.requestBody === undefined) {
      return hasBody ? [violation(operation, "request-body", "/request/body", "the operation documents no request body")] : [];
    }
    const { value: requestBody, ref } = deref<JsonObject>(doc, operation.operation.requestBody);
    const bodyAt = ref ? ref.slice(1) : operation.pointer + "/requestBody";
    if (!hasBody) {
      return requestBody.required === true ? [violation(operation, "request-body", "/request/body", "request body is required")] : [];
    }
    const content = isObject(requestBody.content) ? requestBody.content : {};
    const actual = mediaTypeOf(request.headers["content-type"]);
    const key = actual ? matchMediaType(content, actual) : undefined;
    if (!key) {
      const reason = `content type ${actual || "(none)"} is not documented (documented: ${Object.keys(content).join(", ") || "none"})`;
      return [violation(operation, "request-body", "/request/headers/content-type", reason)];
    }
    const media = isObject(content[key]) ? content[key] : {};
    if (actual === FORM_MEDIA_TYPE) {
      const fields = formFields(doc, media, request.body!, fieldValue);
      if (media.schema === undefined) return [];
      return schemaViolations(operation, "request-body", pointer(bodyAt, "content", key, "schema"), fields, "/request/body");
    }
    if (actual === MULTIPART_MEDIA_TYPE) {
      const parts = multipartParts(request.body!, request.headers["content-type"]);
      if ("error" in parts) return [violation(operation, "request-body", "/request/body", parts.error)];
      if (media.schema === undefined) return [];
      const fields = multipartFields(doc, media, parts, fieldValue);
      return schemaViolations(operation, "request-body", pointer(bodyAt, "content", key, "schema"), fields, "/request/body");
    }
    const decoded = decodeBody(actual, request.body!);
    if ("error" in decoded) return [violation(operation, "request-body", "/request/body", decoded.error)];
    if (decoded.value === undefined || media.schema === undefined) return [];
    return schemaViolations(operation, "request-body", pointer(bodyAt, "content", key, "schema"), decoded.value, "/request/body");
  }

  /** The documented response of a status: exact, then 4XX-style ranges, then default. */
  function responseFor(operation: Operation, status: number): { response: JsonObject; at: string } | undefined {
    const responses = isObject(operation.operation.responses) ? operation.operation.responses : {};
    const key = [String(status), `${Math.floor(status / 100)}XX`, "default"].find((k) => responses[k] !== undefined);
    if (!key) return undefined;
    const { value, ref } = deref<JsonObject>(doc, responses[key]);
    return { response: value, at: ref ? ref.slice(1) : pointer(operation.pointer, "responses", key) };
  }

  function undocumentedStatus(operation: Operation, status: number): Violation {
    const documented = Object.keys(isObject(operation.operation.responses) ? operation.operation.responses : {});
    return violation(operation, "response-status", "/response/status", `status ${status} is not documented (documented: ${documented.join(", ")})`);
  }

  function checkBodyValue(operation: Operation, found: { response: JsonObject; at: string }, contentType: string, body: unknown): Violation[] {
    const content = isObject(found.response.content) ? found.response.content : {};
    const actual = mediaTypeOf(contentType);
    const key = actual ? matchMediaType(content, actual) : undefined;
    if (!key) {
      const reason = `content type ${actual || "(none)"} is not documented (documented: ${Object.keys(content).join(", ") || "no body"})`;
      return [violation(operation, "response-content-type", "/response/headers/content-type", reason)];
    }
    // A body that is not decoded (binary, forms) has no value to check its schema against.
    if (body === undefined || !isObject(content[key]) || content[key].schema === undefined) return [];
    return schemaViolations(operation, "response-body", pointer(found.at, "content", key, "schema"), body, "/response/body");
  }

  function checkResponse(operation: Operation, response: WireResponse): Violation[] {
    const found = responseFor(operation, response.status);
    if (!found) return [undocumentedStatus(operation, response.status)];
    const violations = checkResponseHeaders(operation, found, response.headers);
    const hasBody = response.bodyNotKept === true || (response.body !== undefined && response.body !== "");
    const content = isObject(found.response.content) ? found.response.content : {};
    if (!Object.keys(content).length) {
      if (hasBody) violations.push(violation(operation, "response-body", "/response/body", `status ${response.status} documents no body`));
      return violations;
    }
    const contentType = response.headers["content-type"] ?? "";
    if (!hasBody && !contentType) {
      violations.push(violation(operation, "response-body", "/response/body", `status ${response.status} documents a body and there is none`));
      return violations;
    }
    const decoded = response.bodyNotKept ? { value: undefined } : decodeBody(mediaTypeOf(contentType), response.body ?? "");
    if ("error" in decoded) {
      violations.push(violation(operation, "response-body", "/response/body", decoded.error));
      return violations;
    }
    violations.push(...checkBodyValue(operation, found, contentType, decoded.value));
    return violations;
  }

  function checkResponseHeaders(operation: Operation, found: { response: JsonObject; at: string }, headers: Record<string, string>): Violation[] {
    const violations: Violation[] = [];
    const documented = isObject(found.response.headers) ? found.response.headers : {};
    for (const [name, rawHeader] of Object.entries(documented)) {
      // OpenAPI: a Content-Type response header definition is ignored.
      if (name.toLowerCase() === "content-type") continue;
      const { value: header, ref } = deref<JsonObject>(doc, rawHeader);
      const at = pointer("/response/headers", name);
      const actual = headers[name.toLowerCase()];
      if (actual === undefined) {
        if (header.required === true) violations.push(violation(operation, "response-header", at, "required header is missing"));
        continue;
      }
      if (header.schema === undefined) continue;
      const headerAt = ref ? ref.slice(1) : pointer(found.at, "headers", name);
      const asParameter = { name, in: "header", required: false, schema: header.schema, pointer: headerAt, raw: header } as Parameter;
      violations.push(...schemaViolations(operation, "response-header", headerAt + "/schema", deserialize(doc, asParameter, [actual]), at));
    }
    return violations;
  }

  return {
    operations,
    match,
    checkRequest: (matched, request) => [...checkParameters(matched, request), ...checkRequestBody(matched.operation, request)],
    checkResponse,
    checkExchange(request, response) {
      const matched = match(request.method, request.path);
      if (!matched) {
        const label = `${request.method.toUpperCase()} ${request.path}`;
        return [{ kind: "undocumented-operation", operation: label, pointer: "/request", reason: `no operation is documented for ${label}` }];
      }
      const violations = [...checkParameters(matched, request), ...checkRequestBody(matched.operation, request)];
      if (response) violations.push(...checkResponse(matched.operation, response));
      return violations;
    },
    checkResponseValue(operation, status, contentType, body) {
      const found = responseFor(operation, status);
      return found ? checkBodyValue(operation, found, contentType, body) : [undocumentedStatus(operation, status)];
    },
  };
}

/** A regexp for a path template, and its parameter names in order. */
function templateRegExp(template: string): { regexp: RegExp; params: string[]; literalLength: number } {
  const params: string[] = [];
  let literalLength = 0;
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (param) {
        params.push(param[1]!);
        return "([^/]+)";
      }
      literalLength += part.length;
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("");
  return { regexp: new RegExp(`^${source}/?$`), params, literalLength };
}

/** RFC 3986 reserved characters; a query value must percent-encode them unless allowReserved. */
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * OpenAPI rules on how a query value is written: empty only with allowEmptyValue, reserved
 * characters percent-encoded unless allowReserved (a comma may separate non-exploded array items).
 */
function queryValueProblem(p: Parameter, decoded: string[], raw: string[] | undefined): string | undefined {
  if (p.raw.allowEmptyValue !== true && decoded.some((v) => v === "")) return "empty value (allowEmptyValue is not set)";
  if (p.raw.allowReserved === true || !raw) return undefined;
  const separatedByComma = p.raw.explode === false;
  const written = separatedByComma ? raw.flatMap((v) => v.split(",")) : raw;
  const bad = written.find((v) => RESERVED.test(v));
  return bad === undefined ? undefined : `reserved character not percent-encoded in ${JSON.stringify(bad)} (allowReserved is not set)`;
}

/** The undecoded values of each name in a raw query string. */
function rawQueryValues(rawQuery: string | undefined): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const pair of (rawQuery ?? "").split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    let name: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, " "));
    } catch {
      name = rawName;
    }
    appendTo(values, name, eq < 0 ? "" : pair.slice(eq + 1));
  }
  return values;
}

const TOO_MANY = Symbol("too many values");

/**
 * A parameter's wire value as the JSON value its schema describes (style form/simple, the
 * defaults): numbers and booleans are parsed when the schema allows them, repeated query
 * parameters make an array. A value that does not parse stays a string, so the schema refuses it.
 */
function deserialize(doc: OpenApiDoc, p: Parameter, raw: string[]): unknown {
  const schema = deref<JsonObject>(doc, p.schema).value;
  const types = typesOf(schema);
  if (types.has("array")) {
    const items = deref<JsonObject>(doc, schema.items ?? {}).value;
    const explode = p.raw.explode ?? p.in === "query";
    const values = explode ? raw : raw.flatMap((v) => v.split(arrayDelimiter(p)));
    return values.map((v) => coerce(v, typesOf(items)));
  }
  if (raw.length > 1) return TOO_MANY;
  if (types.has("object") && !types.has("string")) return objectOf(doc, schema, raw[0]!, p.in !== "query" && p.raw.explode === true);
  return coerce(raw[0]!, types);
}

/**
 * An object parameter written as one text (OpenAPI's style form not exploded, and style simple):
 * `R,100,G,200` (name, value, name, value), or exploded in style simple `R=100,G=200`; each value
 * read by its property's schema. The text itself when it holds no such pairs (its schema then says
 * it is no object).
 */
function objectOf(doc: OpenApiDoc, schema: JsonObject, text: string, namesAndValues: boolean): unknown {
  const parts = text.split(",");
  const pairs: [string, string][] = namesAndValues
    ? parts.map((part) => [part.slice(0, Math.max(0, part.indexOf("="))), part.slice(part.indexOf("=") + 1)])
    : parts.length % 2 === 0
      ? parts.flatMap((part, i) => (i % 2 === 0 ? [[part, parts[i + 1]!] as [string, string]] : []))
      : [];
  if (pairs.length === 0 || pairs.some(([name]) => name === "")) return text;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const others = isObject(schema.additionalProperties) ? schema.additionalProperties : {};
  return Object.fromEntries(pairs.map(([name, value]) => [name, coerce(value, typesOf(deref<JsonObject>(doc, Object.hasOwn(properties, name) ? properties[name]! : others).value))]));
}

/** Said of a parameter whose JSON content is not JSON. */
const NOT_JSON = Symbol("not JSON");

/** The value of a parameter described by `content`: JSON parsed for a JSON media type, else its text. */
function decodedContent(mediaType: string, text: string): unknown {
  if (!isJsonMediaType(mediaTypeOf(mediaType))) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** A cookie's value percent-decoded, as servers read cookies; as it is when it is not valid percent-encoding. */
function decodedCookie(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The object a deepObject parameter's name[key]=value pairs stand for. */
function deepObject(doc: OpenApiDoc, p: Parameter, members: [string, string[]][]): Record<string, unknown> {
  const schema = deref<JsonObject>(doc, p.schema).value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const value: Record<string, unknown> = {};
  for (const [name, values] of members) {
    const key = name.slice(p.name.length + 1, -1);
    const propertySchema = deref<JsonObject>(doc, properties[key] ?? {}).value;
    value[key] = coerce(values[values.length - 1]!, typesOf(propertySchema));
  }
  return value;
}

/**
 * The query parameters that carry the operation's API keys: its security schemes (its own
 * requirements, else the document's) of type apiKey in the query. They are no parameters.
 */
function queryKeysOf(doc: OpenApiDoc, operation: Operation): string[] {
  return securityAlternatives(doc, operation)
    .flat()
    .flatMap((scheme) => (scheme?.type === "apiKey" && scheme.in === "query" && typeof scheme.name === "string" ? [scheme.name] : []));
}

/**
 * A query parameter whose schema is an object with properties, in style form (a query's default),
 * exploded (form's default): its properties are the query's fields.
 */
function isExplodedFormObject(doc: OpenApiDoc, p: Parameter): boolean {
  // A parameter described by `content` is one value in its media type, whatever its schema.
  if (p.in !== "query" || p.mediaType !== undefined || (p.raw.style ?? "form") !== "form" || p.raw.explode === false) return false;
  const schema = deref<JsonObject>(doc, p.schema).value;
  return isObject(schema.properties) && (schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object")));
}

function typesOf(schema: JsonObject): Set<string> {
  const type = schema.type;
  if (Array.isArray(type)) return new Set(type.map(String));
  if (typeof type === "string") return new Set([type]);
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((v) => (Number.isInteger(v) ? "integer" : typeof v)));
  return new Set();
}

/** A form field's or part's text as its schema reads it: a number, a boolean, null or the text. */
function fieldValue(value: string, schema: JsonObject): unknown {
  return coerce(value, typesOf(schema));
}

function coerce(value: string, types: Set<string>): unknown {
  if ((types.has("integer") || types.has("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (types.has("boolean") && (value === "true" || value === "false")) return value === "true";
  if (types.has("null") && value === "") return null;
  return value;
}

function decodeBody(mediaType: string, text: string): { value: unknown } | { error: string } {
  if (isJsonMediaType(mediaType)) {
    try {
      return { value: JSON.parse(text) };
    } catch (error) {
      return { error: `body is not valid JSON: ${(error as Error).message}` };
    }
  }
  if (mediaType.startsWith("text/")) return { value: text };
  // Other media types (binary; multipart and form responses) are not decoded: their schema is not checked.
  return { value: undefined };
}

/**
 * The most violations one value is said to have. Ajv finds one per wrong value: a 10 MiB array of
 * wrong items had 5 million, which the mock's front answered in 169 MB after 45 s and 2.9 GB.
 */
export const MAX_VIOLATIONS = 100;

/**
 * Past this many JSON values (a 10 MiB array holds 5 million), a value is checked to its first
 * problem only: finding every one cost Ajv 1.4 GB for such a body.
 */
export const MAX_VALUES_FOR_EVERY_PROBLEM = 100_000;

/** Whether a value holds more than `limit` JSON values (itself, its members and items, all the way down); walks at most that many. */
export function holdsMoreValuesThan(value: unknown, limit: number): boolean {
  const pending: unknown[] = [value];
  let count = 1;
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null) continue;
    const members = Array.isArray(next) ? next : Object.values(next);
    count += members.length;
    if (count > limit) return true;
    for (const member of members) pending.push(member);
  }
  return count > limit;
}

/** Ajv's errors as pointers and reasons (the first `limit`); a missing or extra property is named in the pointer. */
function describeErrors(errors: ErrorObject[], limit: number): { listed: { at: string; reason: string }[]; unlisted: number } {
  const all = collapseAlternatives(errors).filter((e) => e.keyword !== "if");
  const listed = all.slice(0, limit).map((e) => {
    const params = e.params as Record<string, unknown>;
    if (e.keyword === "required") return { at: `${e.instancePath}/${escapePointer(String(params.missingProperty))}`, reason: "is required" };
    if (e.keyword === "additionalProperties" || e.keyword === "unevaluatedProperties") {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      return { at: `${e.instancePath}/${escapePointer(name)}`, reason: "is not allowed (not a documented property)" };
    }
    if (e.keyword === "enum") return { at: e.instancePath, reason: `${e.message}: ${JSON.stringify(params.allowedValues)}` };
    if (e.keyword === "const") return { at: e.instancePath, reason: `must be ${JSON.stringify(params.allowedValue)}` };
    return { at: e.instancePath, reason: e.message ?? e.keyword };
  });
  return { listed, unlisted: all.length - listed.length };
}

/** Ajv's errors with a union's failure said by the alternatives of the value's own type (server/shared/collapse-alternatives.ts). */
export function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  return collapseProblems(errors, {
    // A oneOf that more than one alternative matched names them itself.
    isUnion: (e) => (e.keyword === "anyOf" || e.keyword === "oneOf") && (e.params as { passingSchemas?: unknown }).passingSchemas == null,
    inside: (e, union) => e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`),
    isTypeMismatchOf: (e, union) => e.keyword === "type" && e.instancePath === union.instancePath,
    typesAskedBy: (e) => String((e.params as { type?: unknown }).type ?? "").split(",").filter(Boolean),
    asTypes: (union, types, message) => ({ ...union, keyword: "type", params: { type: types.join(",") }, message }),
  });
}

/**
 * The document with every `required` list of an object schema left without its properties marked
 * `flag` (beside a `$ref` or in its target): OpenAPI's "a readOnly property that is required is
 * required in a response only" (and a writeOnly one in a request only). The document itself when
 * no list changes.
 */
function withoutRequired(doc: OpenApiDoc, flag: "readOnly" | "writeOnly"): OpenApiDoc {
  let changed = false;
  const rewrite = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = rewrite(v);
    const properties = node.properties;
    if (Array.isArray(node.required) && isObject(properties)) {
      const required = node.required.filter((name) => !(typeof name === "string" && Object.hasOwn(properties, name) && isMarked(doc, properties[name]!, flag)));
      if (required.length !== node.required.length) {
        changed = true;
        out.required = required;
      }
    }
    return out;
  };
  const rewritten = rewrite(doc as JsonObject);
  return changed ? (rewritten as OpenApiDoc) : doc;
}

/**
 * A copy of the bundle where each oneOf/anyOf with a discriminator becomes if/then on the
 * discriminator's value, as OpenAPI means it: the value picks the schema. Errors then name the
 * wrong field of the chosen schema instead of every alternative's.
 */
export function discriminatorsAsConditionals(doc: OpenApiDoc): unknown {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = rewrite(v);
    const discriminator = node.discriminator;
    const keyword = Array.isArray(node.oneOf) ? "oneOf" : Array.isArray(node.anyOf) ? "anyOf" : undefined;
    if (!keyword || !isObject(discriminator) || typeof discriminator.propertyName !== "string") return out;
    const mapping = discriminatorMapping(node[keyword] as Json[], discriminator);
    if (!mapping) return out;
    const property = discriminator.propertyName;
    delete out[keyword];
    let chain: Record<string, unknown> = {
      required: [property],
      properties: { [property]: { enum: mapping.map(([value]) => value) } },
    };
    for (const [value, ref] of [...mapping].reverse()) {
      chain = { if: { required: [property], properties: { [property]: { const: value } } }, then: { $ref: ref }, else: chain };
    }
    return { ...out, allOf: [...((out.allOf as unknown[]) ?? []), chain] };
  };
  return rewrite(doc);
}

/** [value, $ref] pairs: the explicit mapping, then each $ref alternative by its component name. */
export function discriminatorMapping(alternatives: Json[], discriminator: JsonObject): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  const explicit = isObject(discriminator.mapping) ? discriminator.mapping : {};
  // A mapping value is a reference or a bare schema name.
  for (const [value, ref] of Object.entries(explicit)) pairs.push([value, String(ref).includes("/") ? String(ref) : `#/components/schemas/${ref}`]);
  for (const alternative of alternatives) {
    if (!isObject(alternative) || typeof alternative.$ref !== "string") return undefined;
    const ref = alternative.$ref;
    if (!pairs.some(([, r]) => r === ref)) pairs.push([ref.split("/").pop()!, ref]);
  }
  return pairs;
}
