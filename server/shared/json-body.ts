// Reading a JSON request body with its limits checked in the cheapest order: the declared
// Content-Length before a byte is read, then, as the bytes arrive, their count and the shape of the
// text (nesting depth, string length, members per object or array), refusing as soon as a limit is
// passed; JSON.parse builds the value only from a text within every limit. A service calls it only after it has checked the token, so an
// unauthenticated client never makes the server read or parse a body.
import type { IncomingMessage } from "node:http";
import { BODY_BUDGET_MESSAGE, bodyBudgetOf, continueBody } from "./bounds.ts";

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
  | { kind: "aborted" }
  /** The process's budget of body bytes in flight is full (server/shared/bounds.ts): 503 with Retry-After. */
  | { kind: "busy" };

export class JsonBodyError extends Error {
  constructor(readonly problem: JsonBodyProblem) {
    super(
      problem.kind === "too-large"
        ? `body of ${problem.bytes} bytes or more`
        : "message" in problem
          ? problem.message
          : problem.kind === "busy"
            ? BODY_BUDGET_MESSAGE
            : problem.kind,
    );
  }
}

/** The declared Content-Length when it is over the limit (then nothing should be read). */
export function declaredLengthOverLimit(req: IncomingMessage, maxBytes: number): number | undefined {
  const header = req.headers["content-length"];
  if (header === undefined) return undefined;
  const declared = Number(header);
  return Number.isFinite(declared) && declared > maxBytes ? declared : undefined;
}

/** Whether a request says it has a body: a Transfer-Encoding, or a Content-Length other than 0 (RFC 9112 6.3). */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * The body's text, read up to the limit. Resolves `undefined` for an empty body. Rejects with a
 * JsonBodyError (too-large as soon as the declared length or the bytes read pass the limit; busy as
 * soon as a chunk does not fit in the process's budget of body bytes in flight, or the budget took
 * this request's room for another address's). Sends `100 Continue` to a client waiting for it.
 */
export function readBodyText(req: IncomingMessage, maxBytes: number, scanner?: JsonShapeScanner): Promise<string | undefined> {
  const declared = declaredLengthOverLimit(req, maxBytes);
  if (declared !== undefined) return Promise.reject(new JsonBodyError({ kind: "too-large", bytes: declared }));
  // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 6.3): nothing
  // to wait for (waiting for its end costs a turn of the event loop and four listeners).
  if (req.readableEnded || !declaresBody(req)) return Promise.resolve(undefined);
  continueBody(req);
  const budget = bodyBudgetOf(req);
  const address = req.socket?.remoteAddress ?? "";
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
      budget.release(req);
    };
    const refuseBusy = () => {
      cleanup();
      req.pause();
      reject(new JsonBodyError({ kind: "busy" }));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        req.pause();
        reject(new JsonBodyError({ kind: "too-large", bytes: size }));
        return;
      }
      if (!budget.take(req, address, chunk.length, refuseBusy)) return refuseBusy();
      // Too complex: refused as soon as it shows, the rest is not read.
      const problem = scanner?.push(chunk);
      if (problem) {
        cleanup();
        req.pause();
        reject(new JsonBodyError({ kind: "too-complex", message: problem }));
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

/**
 * Checks the shape limits of a JSON text as its bytes arrive, without building anything: nesting
 * depth, string length, members per object or array. Bytes are enough: in UTF-8 no byte of a
 * multi-byte character is ASCII, so brackets, quotes and commas are always what they look like.
 */
export class JsonShapeScanner {
  /** One entry per open container. */
  readonly #open: Array<{ object: boolean; members: number; empty: boolean }> = [];
  #inString = false;
  #escaped = false;
  #stringLength = 0;

  constructor(private readonly limits: Omit<JsonLimits, "maxBytes">) {}

  /** Scans more of the text; the first problem found, or undefined. */
  push(bytes: Uint8Array): string | undefined {
    const { maxDepth, maxStringLength } = this.limits;
    const open = this.#open;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 0x5c /* \ */) this.#escaped = true;
        else if (c === 0x22 /* " */) {
          this.#inString = false;
          continue;
        }
        if (++this.#stringLength > maxStringLength) return `JSON string of more than ${maxStringLength} bytes`;
        continue;
      }
      if (c <= 0x20 || c === 0x3a /* : */) continue;
      const top = open[open.length - 1];
      if (c === 0x2c /* , */) {
        if (!top) continue;
        top.members++;
        const tooMany = this.#tooMany(top);
        if (tooMany) return tooMany;
        continue;
      }
      if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        open.pop();
        continue;
      }
      // Anything else starts a value (or a key): the first member of an empty container.
      if (top?.empty) {
        top.empty = false;
        top.members = 1;
        // Counted here too, not only at commas: a limit of none refuses the first member.
        const tooMany = this.#tooMany(top);
        if (tooMany) return tooMany;
      }
      if (c === 0x22) {
        this.#inString = true;
        this.#stringLength = 0;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (open.length >= maxDepth) return `JSON nested more than ${maxDepth} levels deep`;
        open.push({ object: c === 0x7b, members: 0, empty: true });
      }
    }
    return undefined;
  }

  /** The problem of a container with more members than its kind may have, or undefined. */
  #tooMany(container: { object: boolean; members: number }): string | undefined {
    const { maxObjectEntries, maxArrayElements } = this.limits;
    if (container.object) return container.members > maxObjectEntries ? `JSON object with more than ${maxObjectEntries} members` : undefined;
    return container.members > maxArrayElements ? `JSON array with more than ${maxArrayElements} elements` : undefined;
  }
}

/** Checks the shape limits on a whole JSON text; the first problem found, or undefined. */
export function shapeProblem(text: string, limits: Omit<JsonLimits, "maxBytes">): string | undefined {
  return new JsonShapeScanner(limits).push(Buffer.from(text, "utf8"));
}

/** Reads and parses a JSON body within the limits; `undefined` for an empty (or blank) body. */
export async function readJsonBody(req: IncomingMessage, limits: JsonLimits): Promise<unknown> {
  const text = await readBodyText(req, limits.maxBytes, new JsonShapeScanner(limits));
  if (text === undefined || text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new JsonBodyError({ kind: "syntax", message: (error as Error).message });
  }
}

/**
 * Calls `use` with the request's JSON body as readJsonBody reads it: at once (undefined) when the
 * request declares none, so that a read costs no turn of the event loop; else once it is read.
 */
export function withJsonBody<T>(req: IncomingMessage, limits: JsonLimits, use: (body: unknown) => T): T | Promise<T> {
  return declaresBody(req) ? readJsonBody(req, limits).then(use) : use(undefined);
}

/**
 * The members of a parsed body that is a JSON object; undefined for any other JSON value. For the
 * checks that run before the description's (a body not validated yet is only known to be JSON).
 */
export function objectMembers(body: unknown): Record<string, unknown> | undefined {
  return isJsonObject(body) ? body : undefined;
}

/** Whether a parsed JSON value is an object (not null, not a list). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
