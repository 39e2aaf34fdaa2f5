// The request an operation's examples describe: path, required query and header parameters, the
// first request-body example, and the credentials the operation asks for; where the description
// gives no example, a stand-in shaped by the schema. The code samples print it; the mock test sends
// it. Pure: no I/O.
import { deref, FORM_MEDIA_TYPE, formText, isIgnoredParameter, isJsonMediaType, isObject, mediaTypeOf, type Json, type JsonObject, type OpenApiDoc, type Operation } from "../contract/document.ts";
import { toWire } from "../contract/arbitrary.ts";
import type { WireRequest } from "../contract/checker.ts";
import { mediaExamples, parameterExample, requestBodyOf, schemaSample } from "./examples.ts";

/** How an operation's credentials travel. */
export type Credential =
  | { kind: "apiKey"; in: "header" | "query" | "cookie"; name: string; scheme: string }
  | { kind: "bearer" | "basic"; scheme: string };

export interface ExampleRequest {
  operation: Operation;
  /** Values by parameter name: every path parameter, and the required query and header ones. */
  path: Record<string, Json>;
  query: Record<string, Json>;
  header: Record<string, Json>;
  body?: { mediaType: string; value: Json; exampleName?: string };
  /** The schemes of the first security requirement (empty when there is none). */
  credentials: Credential[];
  /** True when the operation may also be called without credentials (`{}` among its requirements). */
  credentialsOptional: boolean;
  /** Parameters (and a required body) the description gives no example for: a stand-in of their schema's shape is used (schemaSample). */
  missing: string[];
  /**
   * Required header parameters OpenAPI ignores (Accept, Content-Type, Authorization: the media types
   * and security schemes say those), which the generated types still require: the TypeScript sample
   * gives them, the curl one does not.
   */
  typedHeaders: Record<string, Json>;
}

/**
 * The request built from an operation's examples. Optional parameters are left out: a sample
 * should work as shown (an optional `index` would turn a read into a blocking query).
 */
export function exampleRequest(doc: OpenApiDoc, operation: Operation): ExampleRequest {
  const request: ExampleRequest = { operation, path: {}, query: {}, header: {}, credentials: [], credentialsOptional: false, missing: [], typedHeaders: {} };
  for (const raw of Array.isArray(operation.operation.parameters) ? operation.operation.parameters : []) {
    const parameter = deref<JsonObject>(doc, raw).value;
    if (parameter.required !== true || !isIgnoredParameter({ in: parameter.in as "header", name: String(parameter.name) })) continue;
    request.typedHeaders[String(parameter.name)] = parameter.example ?? schemaSample(doc, parameter.schema, String(parameter.name));
  }
  for (const parameter of operation.parameters) {
    if (parameter.in === "cookie" || !(parameter.required || parameter.in === "path")) continue;
    const example = parameterExample(doc, parameter);
    if (!example) request.missing.push(`${parameter.in} parameter "${parameter.name}"`);
    // Every parameter here is required (a path's always is): its stand-in is not empty.
    request[parameter.in][parameter.name] = example
      ? typedAsSchema(doc, parameter.schema, example.value)
      : nonEmpty(doc, parameter.schema, schemaSample(doc, parameter.schema, parameter.name));
  }
  const body = requestBodyOf(doc, operation);
  if (body && isObject(body.content)) {
    // Prefer a JSON media type: that is what the generated client sends.
    const mediaTypes = Object.keys(body.content);
    const mediaType = mediaTypes.find((m) => isJsonMediaType(mediaTypeOf(m))) ?? mediaTypes[0];
    const media = mediaType === undefined ? undefined : body.content[mediaType];
    const [example] = isObject(media) ? mediaExamples(doc, media) : [];
    if (mediaType !== undefined && example) request.body = { mediaType, value: example.value, exampleName: example.name };
    else if (body.required === true && mediaType !== undefined) {
      request.missing.push("request body");
      request.body = standInBody(doc, operation, mediaType);
    }
  }
  const requirements = (operation.operation.security ?? doc.security) as Json;
  if (Array.isArray(requirements)) {
    request.credentialsOptional = requirements.some((r) => isObject(r) && Object.keys(r).length === 0);
    const first = requirements.find((r) => isObject(r) && Object.keys(r).length > 0);
    const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
    for (const name of isObject(first) ? Object.keys(first) : []) {
      const scheme = schemes[name] === undefined ? undefined : deref<JsonObject>(doc, schemes[name]).value;
      if (!isObject(scheme)) continue;
      if (scheme.type === "apiKey") {
        request.credentials.push({ kind: "apiKey", in: scheme.in as "header" | "query" | "cookie", name: String(scheme.name), scheme: name });
      } else if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
        request.credentials.push({ kind: "basic", scheme: name });
      } else {
        // http bearer, oauth2 and openIdConnect all send "Authorization: Bearer <token>".
        request.credentials.push({ kind: "bearer", scheme: name });
      }
    }
  }
  return request;
}

/**
 * A parameter's example as its schema types it: a number or boolean written as text (`"23456"` for an
 * integer) is that number, as the parameter's text on the wire is read, and as the generated types
 * (and so the TypeScript sample) take it.
 */
function typedAsSchema(doc: OpenApiDoc, schema: Json, value: Json): Json {
  if (typeof value !== "string") return value;
  const type = deref<JsonObject>(doc, schema).value.type;
  if ((type === "integer" || type === "number") && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** A required parameter's stand-in that says something: an empty list or object would be no value (an empty path segment, no query field). */
function nonEmpty(doc: OpenApiDoc, schema: Json, value: Json): Json {
  const s = deref<JsonObject>(doc, schema).value;
  if (Array.isArray(value) && value.length === 0) return [schemaSample(doc, s.items, "item")];
  if (isObject(value) && Object.keys(value).length === 0 && isObject(s.properties)) {
    const [name, property] = Object.entries(s.properties)[0] ?? [];
    if (name !== undefined) return { [name]: schemaSample(doc, property, name) };
  }
  return value;
}

/** A body of one of the operation's media types shaped by its schema (schemaSample), where no example is given or usable. */
export function standInBody(doc: OpenApiDoc, operation: Operation, mediaType: string): { mediaType: string; value: Json } {
  const content = requestBodyOf(doc, operation)?.content;
  const media = isObject(content) ? content[mediaType] : undefined;
  return { mediaType, value: schemaSample(doc, isObject(media) ? media.schema : undefined, "body") };
}

/**
 * The request's path, query and header parameters as they go on the wire, each written in its
 * style (simple, label or matrix paths; form, deepObject or delimited queries; a header's array or
 * object as simple), as conformance sends them (toWire; `wire` is its request, for the checks);
 * `extraQuery`: pairs after them (an API key). The body is not written: see bodyText.
 */
export function wireParameters(request: ExampleRequest, extraQuery: [string, string][] = []): { path: string; query: string; headers: Record<string, string>; wire: WireRequest } {
  const wire = toWire({ operation: request.operation, params: { path: request.path, query: request.query, header: request.header, cookie: {} } }, {}, extraQuery);
  const headers: Record<string, string> = {};
  // As the description names them (toWire lower-cases).
  for (const name of Object.keys(request.header)) {
    const value = wire.headers[name.toLowerCase()];
    if (value !== undefined) headers[name] = value;
  }
  return { path: wire.path, query: wire.rawQuery ? `?${wire.rawQuery}` : "", headers, wire };
}

/** The body as it goes on the wire. */
export function bodyText(body: { mediaType: string; value: Json }): string {
  // A form's fields as a form writes them (name=value&...), as conformance sends them.
  if (mediaTypeOf(body.mediaType) === FORM_MEDIA_TYPE && isObject(body.value)) return formText(body.value);
  return isJsonMediaType(mediaTypeOf(body.mediaType)) || typeof body.value !== "string" ? JSON.stringify(body.value) : body.value;
}

/** The headers that carry a token, for a given token value (for basic: "user:password"); a cookie's too. */
export function credentialHeaders(credentials: Credential[], token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const credential of credentials) {
    if (credential.kind === "apiKey" && credential.in === "header") headers[credential.name] = token;
    else if (credential.kind === "apiKey" && credential.in === "cookie") cookies.push(`${credential.name}=${encodeURIComponent(token)}`);
    else if (credential.kind === "bearer") headers.Authorization = `Bearer ${token}`;
    else if (credential.kind === "basic") headers.Authorization = `Basic ${Buffer.from(token).toString("base64")}`;
  }
  if (cookies.length) headers.Cookie = cookies.join("; ");
  return headers;
}

/** The query pairs that carry a token (API keys sent in the query). */
export function credentialQuery(credentials: Credential[], token: string): [string, string][] {
  return credentials.flatMap((credential) => (credential.kind === "apiKey" && credential.in === "query" ? [[credential.name, token] as [string, string]] : []));
}

