// Code samples for every operation of a bundle, in curl and in TypeScript with the generated
// openapi-fetch client (imported from its package, @contract-first/<api>-client), built from the operation's examples. They go into the docs bundle as
// `x-codeSamples` (Redoc shows them next to the operation). Pure: no I/O.
import { FORM_MEDIA_TYPE, isJsonMediaType, mediaTypeOf, operationsOf, type Json, type OpenApiDoc, type Operation } from "../contract/document.ts";
import type { ApiInfo } from "../apis.ts";
import { packageName } from "../client-package-name.ts";
import { strictEncode } from "../contract/arbitrary.ts";
import { bodyText, credentialQuery, exampleRequest, wireParameters, type ExampleRequest } from "./requests.ts";

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The languages of the samples, as Redoc's `codeSamples.languages` option names them. */
export const SAMPLE_LANGUAGES = [
  { lang: "curl", label: "curl" },
  { lang: "TypeScript", label: "TypeScript" },
] as const;

/** The base URL the samples call: the reference server on this machine, or the description's first server. */
export function baseUrlOf(api: ApiInfo): string {
  const local = !api.serverUrl || /^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(api.serverUrl + "/");
  return local ? `http://127.0.0.1:${api.serverPort}${api.basePath}` : api.serverUrl;
}

/** The environment variable the samples read the token from: MESH_TOKEN, ORG_PLATFORM_TOKEN... */
export function tokenVariable(api: ApiInfo): string {
  return `${api.name.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_TOKEN`;
}

export interface OperationSamples {
  operationId?: string;
  /** JSON pointer of the operation in the document: what names it when it has no operationId. */
  pointer: string;
  /** "PUT /config (applyConfigEntry)" */
  label: string;
  curl: string;
  typescript: string;
}

/** The samples of every operation, in document order, with or without an operationId. */
export function codeSamples(doc: OpenApiDoc, api: ApiInfo, requestOf: (doc: OpenApiDoc, operation: Operation) => ExampleRequest = exampleRequest): OperationSamples[] {
  return operationsOf(doc).map((operation) => {
    const request = requestOf(doc, operation);
    return {
      ...(operation.operationId === undefined ? {} : { operationId: operation.operationId }),
      pointer: operation.pointer,
      label: operation.label,
      curl: curlSample(request, api),
      typescript: typescriptSample(request, api),
    };
  });
}

/**
 * A copy of the bundle whose operations carry `x-codeSamples` (curl, then TypeScript). Samples the
 * description already has are kept; ours only fill the languages it has none for.
 */
export function withCodeSamples(doc: OpenApiDoc, api: ApiInfo): OpenApiDoc {
  const copy = structuredClone(doc);
  const samples = new Map(codeSamples(copy, api).map((s) => [s.pointer, s]));
  for (const operation of operationsOf(copy)) {
    const ours = samples.get(operation.pointer);
    if (!ours) continue;
    const existing = (Array.isArray(operation.operation["x-codeSamples"]) ? operation.operation["x-codeSamples"] : []) as unknown as CodeSample[];
    const added: CodeSample[] = [
      { ...SAMPLE_LANGUAGES[0], source: ours.curl },
      { ...SAMPLE_LANGUAGES[1], source: ours.typescript },
    ].filter((s) => !existing.some((e) => e.label?.toLowerCase() === s.label.toLowerCase()));
    operation.operation["x-codeSamples"] = [...existing, ...added] as unknown as Json;
  }
  return copy;
}

/** Single-quotes a string for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlSample(request: ExampleRequest, api: ApiInfo): string {
  const method = request.operation.method.toUpperCase();
  const token = "$" + tokenVariable(api);
  const lines: string[] = [];
  const wire = wireParameters(request, credentialQuery(request.credentials, token));
  let url = shellQuote(baseUrlOf(api) + wire.path + wire.query);
  // A token in the query goes in double quotes so that the shell expands it.
  if (url.includes(strictEncode(token))) url = `"${url.slice(1, -1).replace(strictEncode(token), token)}"`;
  lines.push(method === "GET" ? `curl ${url}` : `curl -X ${method} ${url}`);
  for (const credential of request.credentials) {
    if (credential.kind === "apiKey" && credential.in === "header") lines.push(`-H "${credential.name}: ${token}"`);
    else if (credential.kind === "apiKey" && credential.in === "cookie") lines.push(`--cookie "${credential.name}=${token}"`);
    else if (credential.kind === "bearer") lines.push(`-H "Authorization: Bearer ${token}"`);
    else if (credential.kind === "basic") lines.push(`-u "${token}"`);
  }
  for (const [name, value] of Object.entries(wire.headers)) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (request.body) {
    lines.push(`-H ${shellQuote(`Content-Type: ${request.body.mediaType}`)}`);
    const mediaType = mediaTypeOf(request.body.mediaType);
    const json = isJsonMediaType(mediaType) || (typeof request.body.value !== "string" && mediaType !== FORM_MEDIA_TYPE);
    const compact = bodyText(request.body);
    const text = json && compact.length > 72 ? literal(request.body.value, 1, JSON.stringify) : compact;
    lines.push(`--data ${shellQuote(text)}`);
  }
  return lines.join(" \\\n  ");
}

export function typescriptSample(request: ExampleRequest, api: ApiInfo): string {
  const method = request.operation.method.toUpperCase();
  const token = `process.env.${tokenVariable(api)}`;
  // By header name, the first scheme's: schemes required together may use one header (bearer and basic: Authorization), and a request has it once.
  const byName = new Map<string, [string, string]>();
  const add = (name: string, value: string) => byName.has(name.toLowerCase()) || byName.set(name.toLowerCase(), [name, value]);
  for (const credential of request.credentials) {
    if (credential.kind === "apiKey" && credential.in === "header") add(credential.name, token);
    else if (credential.kind === "bearer") add("Authorization", `\`Bearer \${${token}}\``);
    else if (credential.kind === "basic") add("Authorization", `\`Basic \${btoa(${token} ?? "")}\``);
  }
  const clientHeaders = [...byName.values()];
  const headers = `headers: { ${clientHeaders.map(([k, v]) => `${propertyKey(k)}: ${v}`).join(", ")} }`;
  const factoryCall = `${api.clientFactory}(${clientHeaders.length ? `{ ${headers} }` : ""})`;
  const client = `const client = ${factoryCall};`.length <= 100 ? factoryCall : `${api.clientFactory}({\n  ${headers},\n})`;

  const params: Record<string, Json> = {};
  const header = { ...request.typedHeaders, ...request.header };
  for (const [where, values] of [["path", request.path], ["query", request.query], ["header", header]] as const) if (Object.keys(values).length) params[where] = values;
  const init: string[] = [];
  if (Object.keys(params).length) init.push(`params: ${literal(params, 1)}`);
  if (request.body) {
    const mediaType = mediaTypeOf(request.body.mediaType);
    init.push(`body: ${literal(request.body.value, 1)}`);
    if (mediaType !== "application/json") {
      // openapi-fetch sends application/json unless told otherwise; a non-JSON body goes as it is.
      init.push(`headers: { "Content-Type": ${JSON.stringify(request.body.mediaType)} }`);
      // A form's fields written as a form (flat ones: a nested field needs the API's own way, such as qs).
      if (mediaType === FORM_MEDIA_TYPE && typeof request.body.value === "object") init.push("bodySerializer: (body) => new URLSearchParams(Object.entries(body ?? {}).map(([k, v]) => [k, String(v)])).toString()");
      else if (!isJsonMediaType(mediaType)) init.push("bodySerializer: (body) => String(body)");
    }
  }
  const path = JSON.stringify(request.operation.template);
  const call = init.length ? `client.${method}(${path}, {\n${init.map((line) => `  ${line},`).join("\n")}\n})` : `client.${method}(${path})`;
  return [
    // The installable client package (packages/<api>-client, docs/generated-clients.md).
    `import { ${api.clientFactory} } from "${packageName(api)}";`,
    "",
    `const client = ${client};`,
    `const { data, error } = await ${call};`,
    "console.log(error ?? data);",
    "",
  ].join("\n");
}

/**
 * A JSON value as a TypeScript literal (identifier keys unquoted), or as JSON with `key` set to
 * JSON.stringify; short arrays and objects stay on one line.
 */
export function literal(value: Json, depth = 0, key: (name: string) => string = propertyKey): string {
  const indent = "  ".repeat(depth);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const entries = Array.isArray(value)
    ? value.map((item) => literal(item, depth + 1, key))
    : Object.entries(value).map(([name, item]) => `${key(name)}: ${literal(item, depth + 1, key)}`);
  if (!entries.length) return Array.isArray(value) ? "[]" : "{}";
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{ ", " }"];
  const inline = open + entries.join(", ") + close;
  if (inline.length <= 72 - indent.length && !inline.includes("\n")) return inline;
  const comma = key === propertyKey ? "," : "";
  const last = entries.length - 1;
  return `${open.trim()}\n${entries.map((e, i) => `${indent}  ${e}${i < last ? "," : comma}`).join("\n")}\n${indent}${close.trim()}`;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}
