// multipart/form-data bodies (RFC 7578) as the contract tools read and write them, whole and
// synchronously: the checks run on a body already received (recorded traffic, the proxy's and the
// mock front's buffered bodies), and the streaming parsers made for servers (busboy) answer through
// events and streams. A body is a sequence of parts between `--<boundary>` lines, each with its
// headers (a `Content-Disposition: form-data; name="..."`, and a Content-Type for a file or a JSON
// value), an empty line and its content, and ends with `--<boundary>--`.

import { bodyFields, isJsonMediaType, mediaTypeOf, typeNames, type JsonObject, type OpenApiDoc } from "./document.ts";

/** OpenAPI's multipart body: an object schema, each property a part (or repeated parts for an array). */
export const MULTIPART_MEDIA_TYPE = "multipart/form-data";

export interface MultipartPart {
  name: string;
  /** The part's file name, for a file. */
  filename?: string;
  /** The part's own Content-Type, when it has one. */
  contentType?: string;
  /** The part's content, as text. */
  value: string;
}

/** The boundary a Content-Type names (`boundary=...`, quoted or not), or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  return match?.[1] ?? match?.[2];
}

/**
 * The parts of a multipart body under its Content-Type's boundary, in order; or why it is not one:
 * no boundary, no part before the closing delimiter, a part without headers' end or without a name.
 * Lines end with CRLF, as RFC 2046 asks (the text before the first delimiter and after the last is
 * ignored, as it says).
 */
export function multipartParts(text: string, contentType: string | undefined): MultipartPart[] | { error: string } {
  const boundary = boundaryOf(contentType);
  if (!boundary) return { error: "body is multipart/form-data without a boundary in its Content-Type" };
  const delimiter = `--${boundary}`;
  const notMultipart = (why: string) => ({ error: `body is not multipart/form-data under the boundary ${JSON.stringify(boundary)}: ${why}` });
  let at = text.startsWith(delimiter) ? 0 : text.indexOf(`\r\n${delimiter}`) + 2;
  if (at < 2 && !text.startsWith(delimiter)) return notMultipart("no delimiter line");
  const parts: MultipartPart[] = [];
  for (;;) {
    at += delimiter.length;
    if (text.startsWith("--", at)) return parts;
    const lineEnd = text.indexOf("\r\n", at);
    // A delimiter line may carry spaces after the boundary (transport padding), nothing else.
    if (lineEnd < 0 || text.slice(at, lineEnd).trim() !== "") return notMultipart("a delimiter line does not end after the boundary");
    const next = text.indexOf(`\r\n${delimiter}`, lineEnd);
    if (next < 0) return notMultipart("no closing delimiter (--boundary--)");
    const part = partOf(text.slice(lineEnd + 2, next));
    if ("error" in part) return notMultipart(part.error);
    parts.push(part);
    at = next + 2;
  }
}

function partOf(text: string): MultipartPart | { error: string } {
  // A part with no header lines starts with its empty line.
  const headersEnd = text.startsWith("\r\n") ? 0 : text.indexOf("\r\n\r\n");
  if (headersEnd < 0) return { error: "a part's headers do not end with an empty line" };
  const headers = new Map<string, string>();
  for (const line of headersEnd === 0 ? [] : text.slice(0, headersEnd).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const value = text.slice(headersEnd === 0 ? 2 : headersEnd + 4);
  const disposition = headers.get("content-disposition") ?? "";
  if (!/^form-data\s*(;|$)/i.test(disposition)) return { error: "a part has no Content-Disposition: form-data" };
  const parameters = dispositionParameters(disposition);
  const name = parameters.get("name");
  if (name === undefined) return { error: "a part has no name" };
  const contentType = headers.get("content-type");
  const filename = parameters.get("filename");
  return { name, value, ...(filename !== undefined && { filename }), ...(contentType !== undefined && { contentType }) };
}

/** `name="..."; filename="..."` of a Content-Disposition, quoted strings unescaped, names lower-cased. */
function dispositionParameters(disposition: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const [, key, quoted, token] of disposition.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g)) {
    parameters.set(key!.toLowerCase(), quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : token!);
  }
  return parameters;
}

/**
 * A multipart body's parts as the object its schema describes (bodyFields: repeated parts of an
 * array's name are its items). A part is read by its Content-Type: JSON (`application/json`, and
 * OpenAPI's default for an object property) is parsed; a file, or another media type, is its text; a
 * plain value is read by its schema as a form field is (`coerce`).
 */
export function multipartFields(doc: OpenApiDoc, media: JsonObject, parts: MultipartPart[], coerce: (value: string, schema: JsonObject) => unknown): Record<string, unknown> {
  return bodyFields(doc, media, parts.map((part) => [part.name, part] as [string, MultipartPart]), (_name, part, schema) => [partValue(part, schema, coerce)]);
}

function partValue(part: MultipartPart, schema: JsonObject, coerce: (value: string, schema: JsonObject) => unknown): unknown {
  const mediaType = mediaTypeOf(part.contentType);
  if (isJsonMediaType(mediaType) || (mediaType === "" && part.filename === undefined && typeNames(schema).includes("object"))) {
    try {
      return JSON.parse(part.value) as unknown;
    } catch {
      // Not JSON: its text, which an object schema refuses.
      return part.value;
    }
  }
  if (part.filename !== undefined || (mediaType !== "" && mediaType !== "text/plain")) return part.value;
  return coerce(part.value, schema);
}

/** Quotes a value for a Content-Disposition parameter. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&").replace(/\r|\n/g, " ")}"`;

/**
 * A multipart body of an object: a part per property (an array's items as repeated parts of its
 * name), a string as it is, an object as JSON with its Content-Type, null as an empty part, other
 * values as their JSON text. The boundary is one the parts' text does not hold.
 */
export function multipartText(value: unknown, boundary: string): string {
  const fields = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  let text = "";
  for (const [name, field] of fields) {
    for (const item of Array.isArray(field) ? field : [field]) {
      if (item === undefined) continue;
      const json = typeof item === "object" && item !== null;
      // null as an empty part, which a field that takes null reads as null (as a form's empty field).
      const content = typeof item === "string" ? item : item === null ? "" : JSON.stringify(item);
      text += `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n${json ? "Content-Type: application/json\r\n" : ""}\r\n${content}\r\n`;
    }
  }
  return `${text}--${boundary}--\r\n`;
}
