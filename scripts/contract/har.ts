// Traffic validation: HAR 1.2 entries checked against a bundle with the contract checker, and a
// fetch wrapper that records HAR entries (tests record real traffic with it).
import type { ValidateFunction } from "ajv";
import { schemaAjv } from "../../server/shared/json-schema.ts";
import { contractChecker, type CheckerOptions, type Violation, type WireRequest, type WireResponse } from "./checker.ts";
import { HTTP_METHODS, mediaTypeOf, type OpenApiDoc } from "./document.ts";
import { boundaryOf, MULTIPART_MEDIA_TYPE } from "./multipart.ts";

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: HarHeader[];
    queryString: HarHeader[];
    cookies: unknown[];
    headersSize: number;
    bodySize: number;
    /** HAR 1.2: `text` or `params` (a form's posted parameters), not both. */
    postData?: { mimeType: string; text?: string; params?: HarPostParam[] };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: HarHeader[];
    cookies: unknown[];
    content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
}

/** A posted parameter of a form body, as HAR 1.2 records it. */
export interface HarPostParam {
  name: string;
  value?: string;
  fileName?: string;
  contentType?: string;
}

export interface Har {
  log: { version: string; creator: { name: string; version: string }; entries: HarEntry[] };
}

/**
 * What a HAR file must hold for these tools to read it: HAR 1.2's fields that they read, as HAR 1.2
 * types them (the others, which recorders fill in their own ways, are not asked for).
 */
const READABLE_HAR = {
  type: "object",
  required: ["log"],
  properties: { log: { type: "object", required: ["entries"], properties: { entries: { type: "array", items: { $ref: "#/$defs/entry" } } } } },
  $defs: {
    pair: { type: "object", required: ["name", "value"], properties: { name: { type: "string" }, value: { type: "string" } } },
    entry: {
      type: "object",
      required: ["request"],
      properties: {
        request: {
          type: "object",
          required: ["method", "url"],
          properties: {
            method: { type: "string", minLength: 1 },
            url: { type: "string", format: "uri" },
            headers: { type: "array", items: { $ref: "#/$defs/pair" } },
            postData: {
              type: "object",
              properties: {
                mimeType: { type: "string" },
                text: { type: "string" },
                params: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" }, value: { type: "string" }, fileName: { type: "string" }, contentType: { type: "string" } } } },
              },
            },
          },
        },
        response: {
          type: "object",
          required: ["status"],
          properties: {
            status: { type: "integer" },
            headers: { type: "array", items: { $ref: "#/$defs/pair" } },
            content: { type: "object", properties: { mimeType: { type: "string" }, text: { type: "string" }, encoding: { type: "string" } } },
          },
        },
      },
    },
  },
};

let readableHar: ValidateFunction | undefined;

/** Why a parsed file is not a HAR file these tools can read (up to five reasons, each with its JSON pointer); empty when it is one. */
export function harProblems(value: unknown): string[] {
  if (!readableHar) {
    readableHar = schemaAjv({ allErrors: true, strict: false }, ["uri"]).compile(READABLE_HAR);
  }
  if (readableHar(value)) return [];
  return (readableHar.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`);
}

export interface HarViolation extends Violation {
  /** Index of the entry in log.entries. */
  entry: number;
  /** "PUT http://127.0.0.1:8500/v1/config -> 400" */
  exchange: string;
}

export interface HarReport {
  checked: number;
  /** Entries that are not the API's (outside the base path, or matching none of its paths). */
  skipped: number;
  /** Up to 10 of the skipped entries, "GET /v1/other": what was left out, to catch a wrong base path. */
  unmatched: string[];
  violations: HarViolation[];
}

/** The path part of a server URL, its variables as templates: "https://{host}/api/{v}/" -> "/api/{v}". */
export function serverPathOf(url: string): string {
  const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, "");
  return withoutOrigin.replace(/[?#].*$/, "").replace(/\/+$/, "");
}

/** A base path template as a regular expression matching it at the start of a path. */
function baseRegExp(base: string): RegExp {
  const source = base
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}(?=/|$)`);
}

export interface HarOptions extends CheckerOptions {
  /**
   * Given: every entry under this base path ("/v1", "/api/{version}"; "" for all) is the API's, and
   * one that matches none of its operations is a violation. Not given: an entry is the API's when its
   * whole path matches one of the description's server paths followed by one of its path templates
   * (or a path template alone: the mock serves them without a base path); the others are skipped.
   */
  basePath?: string;
}

/** Checks the API's entries of a HAR file against its description. */
export function validateHar(doc: OpenApiDoc, har: Har, options: HarOptions): HarReport {
  const checker = contractChecker(doc, options);
  const explicit = options.basePath === undefined ? undefined : options.basePath.replace(/\/+$/, "");
  const servers = Array.isArray(doc.servers) ? (doc.servers as { url?: unknown }[]) : [];
  const bases = [...new Set([...servers.map((s) => (typeof s.url === "string" ? serverPathOf(s.url) : "")), ""])]
    .sort((a, b) => b.length - a.length)
    .map((base) => ({ base, regexp: baseRegExp(base) }));
  const documentedPath = (path: string) => HTTP_METHODS.some((m) => checker.match(m, path));

  /** The base path the entry is under, or undefined when it is not the API's. */
  function baseOf(pathname: string): string | undefined {
    if (explicit !== undefined) return explicit === "" || baseRegExp(explicit).test(pathname) ? (baseRegExp(explicit).exec(pathname)?.[0] ?? "") : undefined;
    for (const { regexp } of bases) {
      const found = regexp.exec(pathname);
      if (found && documentedPath(pathname.slice(found[0].length) || "/")) return found[0];
    }
    return undefined;
  }

  const report: HarReport = { checked: 0, skipped: 0, unmatched: [], violations: [] };
  (har.log?.entries ?? []).forEach((entry, index) => {
    let pathname: string;
    try {
      pathname = new URL(entry.request.url).pathname;
    } catch {
      report.skipped++;
      return;
    }
    const base = baseOf(pathname);
    const exchange = base === undefined ? undefined : exchangeOf(entry, base);
    if (!exchange) {
      report.skipped++;
      const line = `${entry.request.method} ${pathname}`;
      if (report.unmatched.length < 10 && !report.unmatched.includes(line)) report.unmatched.push(line);
      return;
    }
    report.checked++;
    const label = `${entry.request.method} ${entry.request.url} -> ${entry.response?.status}`;
    for (const v of checker.checkExchange(exchange.request, exchange.response)) {
      report.violations.push({ ...v, entry: index, exchange: label });
    }
  });
  return report;
}

/** The wire request and response of an entry, or undefined when it is not under basePath. */
export function exchangeOf(entry: HarEntry, basePath: string): { request: WireRequest; response?: WireResponse } | undefined {
  const url = new URL(entry.request.url);
  const inside = basePath === "" || url.pathname === basePath || url.pathname.startsWith(basePath + "/");
  if (!inside) return undefined;
  const requestHeaders = headerMap(entry.request.headers);
  // Some recorders keep the request's media type only in postData.
  if (entry.request.postData?.mimeType && !requestHeaders["content-type"]) requestHeaders["content-type"] = entry.request.postData.mimeType;
  const request: WireRequest = {
    method: entry.request.method,
    path: url.pathname.slice(basePath.length) || "/",
    query: [...url.searchParams.entries()],
    rawQuery: url.search.slice(1),
    headers: requestHeaders,
    body: entry.request.postData ? bodyOf(entry.request.postData, requestHeaders) : undefined,
  };
  // Status 0: no answer was recorded (aborted request); only the request is checked.
  if (!entry.response || entry.response.status === 0) return { request };
  const content = entry.response.content ?? {};
  const responseHeaders = headerMap(entry.response.headers);
  if (content.mimeType && !responseHeaders["content-type"]) responseHeaders["content-type"] = content.mimeType;
  const body = content.text !== undefined && content.encoding === "base64" ? Buffer.from(content.text, "base64").toString("utf8") : content.text;
  // HAR 1.2 leaves `text` out when the body was not recorded (a browser's sanitized export, the
  // proxy's answers over 16 MiB): a body of `size` bytes was sent, whose value cannot be checked.
  if (body === undefined && typeof content.size === "number" && content.size > 0) {
    return { request, response: { status: entry.response.status, headers: responseHeaders, bodyNotKept: true } };
  }
  return { request, response: { status: entry.response.status, headers: responseHeaders, body } };
}

/**
 * The body an entry recorded: its text or, where a recorder kept a form's posted parameters instead
 * (HAR 1.2 gives one or the other), the text they stand for: `name=value&...`, or the parts of a
 * multipart body under its Content-Type's boundary (one is named in the headers when the recorded
 * type names none: the recorder kept no body text to take it from).
 */
function bodyOf(postData: NonNullable<HarEntry["request"]["postData"]>, headers: Record<string, string>): string | undefined {
  if (postData.text !== undefined || !postData.params) return postData.text;
  const type = headers["content-type"] ?? postData.mimeType;
  if (mediaTypeOf(type) !== MULTIPART_MEDIA_TYPE) return new URLSearchParams(postData.params.map((p) => [p.name, p.value ?? ""])).toString();
  let boundary = boundaryOf(type);
  if (!boundary) {
    boundary = "har-params";
    headers["content-type"] = `${type}; boundary=${boundary}`;
  }
  const parts = postData.params.map((p) => {
    const file = p.fileName === undefined ? "" : `; filename="${p.fileName}"`;
    const partType = p.contentType ? `Content-Type: ${p.contentType}\r\n` : "";
    return `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n${partType}\r\n${p.value ?? ""}\r\n`;
  });
  return `${parts.join("")}--${boundary}--\r\n`;
}

function headerMap(headers: HarHeader[] | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const { name, value } of headers ?? []) {
    const key = name.toLowerCase();
    // HTTP/2 pseudo-headers (":authority") are not headers of the message.
    if (key.startsWith(":")) continue;
    map[key] = key in map ? `${map[key]}, ${value}` : value;
  }
  return map;
}

/** One line per violation: where in the HAR, the operation, the pointer and the reason. */
export function formatHarViolation(v: HarViolation): string {
  return `entry ${v.entry} (${v.exchange}): ${v.operationId ?? v.operation} ${v.pointer}: ${v.reason} [${v.kind}]`;
}

/**
 * A fetch that records every exchange as a HAR entry. Give it to a generated client
 * (createMeshClient({ baseUrl, fetch: recorder.fetch })) and read recorder.har() afterwards.
 */
export function harRecorder(inner: typeof fetch = fetch) {
  const entries: HarEntry[] = [];
  const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const requestText = request.body ? await request.clone().text() : undefined;
    const started = new Date();
    const response = await inner(request);
    const responseText = await response.clone().text();
    const requestHeaders = [...request.headers].map(([name, value]) => ({ name, value }));
    const url = new URL(request.url);
    entries.push({
      startedDateTime: started.toISOString(),
      time: Date.now() - started.getTime(),
      request: {
        method: request.method,
        url: request.url,
        httpVersion: "HTTP/1.1",
        headers: requestHeaders,
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        cookies: [],
        headersSize: -1,
        bodySize: requestText === undefined ? 0 : Buffer.byteLength(requestText),
        ...(requestText === undefined ? {} : { postData: { mimeType: request.headers.get("content-type") ?? "", text: requestText } }),
      },
      response: {
        status: response.status,
        statusText: response.statusText,
        httpVersion: "HTTP/1.1",
        headers: [...response.headers].map(([name, value]) => ({ name, value })),
        cookies: [],
        content: { size: Buffer.byteLength(responseText), mimeType: response.headers.get("content-type") ?? "", text: responseText },
        redirectURL: response.headers.get("location") ?? "",
        headersSize: -1,
        bodySize: Buffer.byteLength(responseText),
      },
      cache: {},
      timings: { send: 0, wait: Date.now() - started.getTime(), receive: 0 },
    });
    return response;
  };
  return {
    fetch: recordingFetch,
    har: (): Har => ({ log: { version: "1.2", creator: { name: "contract-first-api-toolkit", version: "1" }, entries: structuredClone(entries) } }),
  };
}
