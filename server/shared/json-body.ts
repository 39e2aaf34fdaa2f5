// Reading a JSON request body with its limits checked in the cheapest order: the declared
// Content-Length before a byte is read, the bytes as they arrive, then the shape of the text
// (nesting depth, string length, members per object or array) in one linear scan before
// JSON.parse builds anything. A service calls it only after it has checked the token, so an
// unauthenticated client never makes the server read or parse a body.
import type { IncomingMessage } from "node:http";

export interface JsonLimits {
  /** Largest body in bytes. */
  maxBytes: number;
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Longest string (key or value), in bytes of JSON text between its quotes. */
  maxStringLength: number;
  /** Most members of one object. */
  maxObjectEntries: number;
  /** Most elements of one array. */
  maxArrayElements: number;
}

export type JsonBodyProblem =
  /** Declared or actual size over maxBytes: 413. */
  | { kind: "too-large"; bytes: number }
  /** Over one of the shape limits: 400. */
  | { kind: "too-complex"; message: string }
  /** Not JSON at all: 400. */
  | { kind: "syntax"; message: string }
  /** The client went away while sending. */
  | { kind: "aborted" };

export class JsonBodyError extends Error {
  constructor(readonly problem: JsonBodyProblem) {
    super(problem.kind === "too-large" ? `body of ${problem.bytes} bytes or more` : "message" in problem ? problem.message : problem.kind);
  }
}

/** The declared Content-Length when it is over the limit (then nothing should be read). */
export function declaredLengthOverLimit(req: IncomingMessage, maxBytes: number): number | undefined {
  const header = req.headers["content-length"];
  if (header === undefined) return undefined;
  const declared = Number(header);
  return Number.isFinite(declared) && declared > maxBytes ? declared : undefined;
}

/**
 * The body's text, read up to the limit. Resolves `undefined` for an empty body. Rejects with a
 * JsonBodyError (too-large as soon as the declared length or the bytes read pass the limit).
 */
export function readBodyText(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const declared = declaredLengthOverLimit(req, maxBytes);
  if (declared !== undefined) return Promise.reject(new JsonBodyError({ kind: "too-large", bytes: declared }));
  if (req.readableEnded) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        reject(new JsonBodyError({ kind: "too-large", bytes: size }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(size === 0 ? undefined : Buffer.concat(chunks, size).toString("utf8"));
    };
    const onError = () => {
      cleanup();
      reject(new JsonBodyError({ kind: "aborted" }));
    };
    const onAborted = onError;
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

/** Checks the shape limits on JSON text without building it; the first problem found, or undefined. */
export function shapeProblem(text: string, limits: JsonLimits): string | undefined {
  // One entry per open container: [is object, members seen, member open].
  const open: Array<{ object: boolean; members: number; empty: boolean }> = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      i = start;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      if (i - start > limits.maxStringLength) return `JSON string of more than ${limits.maxStringLength} bytes`;
      i++;
      const top = open[open.length - 1];
      if (top?.empty) {
        top.empty = false;
        top.members = 1;
      }
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const top = open[open.length - 1];
      if (top?.empty) {
        top.empty = false;
        top.members = 1;
      }
      if (open.length >= limits.maxDepth) return `JSON nested more than ${limits.maxDepth} levels deep`;
      open.push({ object: c === 0x7b, members: 0, empty: true });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
    } else if (c === 0x2c /* , */) {
      const top = open[open.length - 1];
      if (top) {
        top.members++;
        if (top.object && top.members > limits.maxObjectEntries) return `JSON object with more than ${limits.maxObjectEntries} members`;
        if (!top.object && top.members > limits.maxArrayElements) return `JSON array with more than ${limits.maxArrayElements} elements`;
      }
    } else if (c > 0x20) {
      // A number, true, false or null starts a member of an empty container.
      const top = open[open.length - 1];
      if (top?.empty && c !== 0x3a /* : */) {
        top.empty = false;
        top.members = 1;
      }
    }
    i++;
  }
  return undefined;
}

/** Reads and parses a JSON body within the limits; `undefined` for an empty (or blank) body. */
export async function readJsonBody(req: IncomingMessage, limits: JsonLimits): Promise<unknown> {
  const text = await readBodyText(req, limits.maxBytes);
  if (text === undefined || text.trim() === "") return undefined;
  const problem = shapeProblem(text, limits);
  if (problem) throw new JsonBodyError({ kind: "too-complex", message: problem });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new JsonBodyError({ kind: "syntax", message: (error as Error).message });
  }
}
