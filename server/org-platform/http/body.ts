// Reading a JSON:API request body, refusing before parsing: the media type first (415), then the size
// (413, answered from Content-Length alone when it is over the limit, without reading the body), then
// the nesting depth (a byte scan, no recursion), and only then JSON.parse. A client that goes away
// mid-body gets no answer and is not reported as a server error.
import type { NextFunction, Request, Response } from "express";
import { ApiError } from "../domain/errors.ts";

export const JSON_API = "application/vnd.api+json";
/** 1 MiB: far above any document these endpoints take. */
export const BODY_LIMIT = 1024 * 1024;
/** JSON:API documents here nest 6 deep (data.relationships.projects.data[].id); 32 leaves room. */
export const MAX_DEPTH = 32;

export function mediaType(header: string | undefined): string | undefined {
  return header?.split(";")[0]!.trim().toLowerCase() || undefined;
}

function declaresBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

export function payloadTooLarge(): ApiError {
  return new ApiError(413, [{ title: "payload too large", detail: `The request body is larger than ${BODY_LIMIT} bytes (1 MB).` }]);
}

/** The platform's own words for a request body that is not JSON:API. */
export function unsupportedMediaType(): ApiError {
  return new ApiError(415, [{ title: "invalid content type", detail: `content-type must be ${JSON_API}`, source: { header: "Content-Type" } }]);
}

/**
 * Tracks the nesting depth of a JSON text as its bytes arrive, without parsing it: strings are
 * skipped (escapes honoured). Bytes are enough: in UTF-8 no byte of a multi-byte character is ASCII.
 */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number) {}

  /** Scans more of the text; true as soon as the nesting has gone deeper than max. */
  exceeded(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) {
        if (++this.depth > this.max) return true;
      } else if (c === 0x7d || c === 0x5d) this.depth--;
    }
    return false;
  }
}

/** Whether a JSON text nests deeper than max. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return new DepthScanner(max).exceeded(Buffer.from(text, "utf8"));
}

/** Express middleware: sets req.body to the parsed document (undefined when there is no body). */
export function jsonApiBody(limit = BODY_LIMIT, maxDepth = MAX_DEPTH) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!declaresBody(req)) return next();
    // Refusals made without reading the body close the connection: its unread rest is not a request.
    const refuse = (error: ApiError) => {
      res.set("Connection", "close");
      next(error);
    };
    if (mediaType(req.headers["content-type"]) !== JSON_API) return refuse(unsupportedMediaType());
    const declared = req.headers["content-length"];
    if (declared !== undefined && !(Number(declared) <= limit)) return refuse(payloadTooLarge());

    const chunks: Buffer[] = [];
    const depth = new DepthScanner(maxDepth);
    let size = 0;
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      req.off("data", onData).off("end", onEnd).off("error", onError).off("aborted", onAborted);
      if (error) return next(error);
      const text = Buffer.concat(chunks, size).toString("utf8");
      try {
        req.body = JSON.parse(text);
      } catch {
        return next(new ApiError(422, [{ title: "invalid document", detail: "The request body is not valid JSON.", source: { pointer: "" } }]));
      }
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        res.set("Connection", "close");
        return finish(payloadTooLarge());
      }
      // Too deep: refused as soon as it is seen, the rest is not read.
      if (depth.exceeded(chunk)) {
        req.pause();
        res.set("Connection", "close");
        return finish(new ApiError(422, [{ title: "invalid document", detail: `The request body nests deeper than ${maxDepth} levels.`, source: { pointer: "" } }]));
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    // The client went away: there is no one to answer, and nothing went wrong here.
    const onAborted = () => {
      done = true;
      req.off("data", onData).off("end", onEnd);
    };
    const onError = onAborted;
    req.on("data", onData).on("end", onEnd).on("error", onError).on("aborted", onAborted);
    req.once("close", () => {
      if (!req.complete) onAborted();
    });
  };
}
