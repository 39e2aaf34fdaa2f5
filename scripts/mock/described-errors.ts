// The mock's error envelope for an API this toolkit has no profile for (any description added with
// `npm run add-api`): a refused request is answered with the error response the description
// documents for it (the operation's 400, 422, 4XX or default, 422 first for a well-formed body that
// breaks its schema; 404, 405, 401 found anywhere in the description), its media type and a body
// built from its schema with the message in the field meant for it (detail, message, error...), one
// item per problem in an `errors` list, and the operation's documentation link (its externalDocs,
// else the description's) in a field named as a link (`documentation_url`, as GitHub's errors
// carry). A body that breaks the schema gives way to the response's own example. With nothing
// documented, an RFC 9457 problem document. Pure: no I/O.
import { contractChecker, type Violation } from "../contract/checker.ts";
import { deref, isObject, operationsOf, type Json, type JsonObject, type OpenApiDoc, type Operation } from "../contract/document.ts";
import { describeViolation, PRISM_MAX_BODY, unmatchedPrefer, type MockAnswer, type MockProfile, type MockRefusal } from "./front.ts";

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 415: "Unsupported Media Type", 422: "Unprocessable Content" };
/** Where a message goes, most specific first. */
const MESSAGE_FIELDS = ["detail", "message", "error_description", "errorMessage", "error", "msg", "reason", "description", "title"];

/** What an error body says: each problem's message, the status, and where the operation is documented. */
export interface ErrorSaying {
  messages: string[];
  status: number;
  /** The operation's externalDocs URL, else the description's. */
  docsUrl?: string;
}

/** A property that holds a link (documentation_url, help_uri, href, moreInfoUrl). */
const LINK_NAME = /(^|[_-])(url|uri|href|link)$|[a-z](Url|Uri|Href|Link)$/i;
/** A list meant for the problems one by one (GitHub's and JSON:API's `errors`). */
const PROBLEM_LISTS = new Set(["errors"]);

/** A value of the schema saying `said`: its messages in the message field, its status in the status field. */
export function errorBody(doc: OpenApiDoc, schema: unknown, said: ErrorSaying, depth = 0): Json {
  const message = said.messages.join("; ");
  const s = deref<JsonObject>(doc, schema).value;
  if (!isObject(s) || depth > 8) return message;
  if ("const" in s) return s.const!;
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map((part) => errorBody(doc, part, said, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts[0]!;
  }
  for (const key of ["oneOf", "anyOf"] as const) if (Array.isArray(s[key]) && s[key].length) return errorBody(doc, s[key][0], said, depth + 1);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("object") || isObject(s.properties)) {
    const properties = isObject(s.properties) ? s.properties : {};
    const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
    const names = Object.keys(properties);
    const messageField = MESSAGE_FIELDS.find((f) => names.includes(f) && typeOf(doc, properties[f]) === "string");
    const out: JsonObject = {};
    for (const name of names) {
      const property = deref<JsonObject>(doc, properties[name]).value;
      const type = typeOf(doc, property);
      if (name === messageField) out[name] = message;
      else if (/^(status|code|status_?code)$/i.test(name) && ["integer", "number"].includes(type ?? "")) out[name] = said.status;
      else if (/^(status|code)$/i.test(name) && type === "string" && !Array.isArray(property.enum)) out[name] = String(said.status);
      else if (name === "title" && type === "string") out[name] = STATUS_TEXT[said.status] ?? `HTTP ${said.status}`;
      // One item per problem, whether or not the list is required: what a client of such an API reads.
      else if (PROBLEM_LISTS.has(name) && type === "array") out[name] = said.messages.map((m) => errorBody(doc, property.items ?? { type: "string" }, { ...said, messages: [m] }, depth + 1));
      else if (required.has(name) || "example" in property || Array.isArray(property.examples)) out[name] = sampleOf(doc, property, said, depth + 1, name);
    }
    return out;
  }
  if (types.includes("array")) return [errorBody(doc, s.items ?? { type: "string" }, said, depth + 1)];
  return sampleOf(doc, s, said, depth);
}

function typeOf(doc: OpenApiDoc, schema: unknown): string | undefined {
  const s = deref<JsonObject>(doc, schema).value;
  if (!isObject(s)) return undefined;
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== "null") : s.type;
  return typeof t === "string" ? t : isObject(s.properties) ? "object" : undefined;
}

function sampleOf(doc: OpenApiDoc, schema: JsonObject, said: ErrorSaying, depth: number, name = ""): Json {
  const link = schema.format === "uri" || schema.format === "uri-reference" || LINK_NAME.test(name);
  // The operation's own documentation link says more than an example of some other operation's.
  if (link && said.docsUrl && typeOf(doc, schema) === "string" && !Array.isArray(schema.enum)) return said.docsUrl;
  if ("example" in schema) return schema.example!;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0]!;
  if ("default" in schema) return schema.default!;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0]!;
  switch (typeOf(doc, schema)) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "object":
    case "array":
      return errorBody(doc, schema, said, depth);
    case "string":
      return link ? "about:blank" : said.messages.join("; ");
    default:
      return null;
  }
}

/** Where an operation is documented: its externalDocs URL, else the description's. */
function docsUrlOf(doc: OpenApiDoc, operation: Operation | undefined): string | undefined {
  for (const holder of [operation?.operation, doc as JsonObject]) {
    const docs = isObject(holder?.externalDocs) ? holder.externalDocs : undefined;
    if (typeof docs?.url === "string") return docs.url;
  }
  return undefined;
}

/** The response an operation documents for a status: exactly, then its class (4XX), then default. */
function documentedResponse(doc: OpenApiDoc, operation: Operation | undefined, statuses: number[]): { status: number; response: JsonObject } | undefined {
  const candidates = operation ? [operation] : operationsOf(doc);
  for (const status of statuses) {
    for (const op of candidates) {
      const responses = isObject(op.operation.responses) ? op.operation.responses : {};
      for (const key of [String(status), `${String(status)[0]}XX`, ...(operation ? ["default"] : [])]) {
        if (key in responses) return { status, response: deref<JsonObject>(doc, responses[key]).value };
      }
    }
  }
  return undefined;
}

export function problemDocument(status: number, detail: string): MockAnswer {
  return { status, contentType: "application/problem+json", body: JSON.stringify({ type: "about:blank", title: STATUS_TEXT[status] ?? `HTTP ${status}`, status, detail }) };
}

/** The answer for a refusal, in the envelope the description documents. */
export function describedErrorAnswer(doc: OpenApiDoc, operation: Operation | undefined, statuses: number[], messages: string[], checker = contractChecker(doc)): MockAnswer {
  const found = documentedResponse(doc, operation, statuses);
  const content = found && isObject(found.response.content) ? found.response.content : undefined;
  const mediaType = content ? Object.keys(content)[0] : undefined;
  // Documented without a body (`401: {description: Unauthorized}`): the status alone, as documented.
  if (found && !mediaType) return { status: found.status, contentType: undefined, body: "" };
  if (!found || !content || !mediaType) return problemDocument(found?.status ?? statuses[0]!, messages.join("; "));
  const media = isObject(content[mediaType]) ? (content[mediaType] as JsonObject) : {};
  const json = /json/i.test(mediaType);
  let body: Json = errorBody(doc, media.schema ?? { type: "string" }, { messages, status: found.status, docsUrl: docsUrlOf(doc, operation) });
  // A body that breaks its own schema (a pattern, a format) gives way to the response's example.
  if (operation && json) {
    const problems = checker.checkResponseValue(operation, found.status, mediaType, body);
    const examples = isObject(media.examples) ? Object.values(media.examples).map((e) => deref<JsonObject>(doc, e).value.value) : [];
    const example = "example" in media ? media.example : examples.find((e) => e !== undefined);
    if (problems.length && example !== undefined) body = example as Json;
  }
  const text = json ? JSON.stringify(body) : typeof body === "string" ? body : JSON.stringify(body);
  return { status: found.status, contentType: mediaType, body: text };
}

/** A violation by a body that was read (not missing, not malformed): of its values. */
function breaksBodySchema(v: Violation): boolean {
  return v.kind === "request-body" && v.pointer.startsWith("/request/body") && !/^(request body is required|body is not |the operation documents no request body)/.test(v.reason);
}

/** A mock profile for any description: its documented errors, lenient where OpenAPI lets a server be. */
export function describedErrorsProfile(doc: OpenApiDoc): MockProfile {
  const checker = contractChecker(doc);
  return {
    // OpenAPI lets a server ignore query parameters it does not describe; most do.
    refusesUnknownQuery: false,
    bodyIsAlwaysJson: false,
    putIsPost: false,
    // As much as Prism takes (uploads): it refuses more, in its own words.
    maxBody: PRISM_MAX_BODY,
    render(r: MockRefusal): MockAnswer {
      if (r.kind === "not-found" || r.kind === "not-a-list") return describedErrorAnswer(doc, undefined, [404], [`no operation at ${r.path}`]);
      if (r.kind === "unmatched-prefer") return describedErrorAnswer(doc, undefined, [r.status], [unmatchedPrefer(r.prefer)]);
      if (r.kind === "method-not-allowed") return describedErrorAnswer(doc, undefined, [405], [`${r.method} is not allowed on ${r.path}`]);
      if (r.kind === "unauthenticated") return describedErrorAnswer(doc, undefined, [401, 403], ["credentials are required"]);
      if (r.kind === "too-large") return describedErrorAnswer(doc, undefined, [413], ["the request body is larger than the mock takes (10 MiB)"]);
      // A well-formed body that breaks its schema is the content the server cannot process (422, RFC
      // 9110) where the operation documents it: as GitHub answers. Anything else is a bad request (400).
      const statuses = r.violations.every(breaksBodySchema) ? [422, 400] : [400, 422];
      return describedErrorAnswer(doc, r.operation, statuses, r.violations.map(describeViolation), checker);
    },
  };
}
