// Reading a JSON:API request body, refusing before parsing: the media type first (415), then the size
// (413, answered from Content-Length alone when it is over the limit, without reading the body), then
// the nesting depth as the bytes arrive (the shared scanner of server/shared/json-body.ts: no
// recursion, the rest unread once too deep), and only then JSON.parse. A client that goes away
// mid-body gets no answer and is not reported as a server error.
import type { NextFunction, Request, Response } from "express";
import { declaresBody, JsonShapeScanner, readBodyText, shapeProblem, type JsonBodyError } from "../../shared/json-body.ts";
import type { BodyWriter } from "../../shared/handler-binding.ts";
import { ApiError } from "../domain/errors.ts";

export const JSON_API = "application/vnd.api+json";

/** A reply's document, written as JSON:API: the media type of every body the platform answers. */
export const writeJsonApi: BodyWriter = (res, body) => {
  // Set as it is (res.type looks the type up and parses it again): sendJsonText adds the charset.
  res.setHeader("Content-Type", JSON_API);
  res.json(body);
};
/** 1 MiB: far above any document these endpoints take. */
export const BODY_LIMIT = 1024 * 1024;
/** JSON:API documents here nest 6 deep (data.relationships.projects.data[].id); 32 leaves room. */
export const MAX_DEPTH = 32;

export function mediaType(header: string | undefined): string | undefined {
  return header?.split(";")[0]!.trim().toLowerCase() || undefined;
}

/** The process's budget of body bytes in flight is full (server/shared/bounds.ts): try again shortly. */
export function serviceBusy(detail: string): ApiError {
  return new ApiError(503, [{ title: "service unavailable", detail }]);
}

export function payloadTooLarge(): ApiError {
  return new ApiError(413, [{ title: "payload too large", detail: `The request body is larger than ${BODY_LIMIT} bytes (1 MB).` }]);
}

/** The platform's own words for a request body that is not JSON:API. */
/** The platform's own 415, word for word (no `source`): see docs/org-platform.md, where the sources are silent. */
export function unsupportedMediaType(): ApiError {
  return new ApiError(415, [{ title: "invalid content type", detail: `content-type must be ${JSON_API}` }]);
}

/** The shape limits of a JSON:API body: only the depth is tighter than the size allows. */
const shapeLimits = (limit: number, maxDepth: number) => ({ maxDepth, maxStringLength: limit, maxObjectEntries: limit, maxArrayElements: limit });

/** Whether a JSON text nests deeper than max. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return shapeProblem(text, shapeLimits(Number.MAX_SAFE_INTEGER, max)) !== undefined;
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

    readBodyText(req, limit, new JsonShapeScanner(shapeLimits(limit, maxDepth))).then(
      (text) => {
        try {
          req.body = JSON.parse(text ?? "");
        } catch {
          return next(new ApiError(422, [{ title: "invalid document", detail: "The request body is not valid JSON.", source: { pointer: "" } }]));
        }
        next();
      },
      (error: JsonBodyError) => {
        const { problem } = error;
        // The client went away: there is no one to answer, and nothing went wrong here.
        if (problem.kind === "aborted") return;
        // Refused before the whole body was read: its unread rest is not a request.
        res.set("Connection", "close");
        if (problem.kind === "too-large") return next(payloadTooLarge());
        if (problem.kind === "busy") return next(serviceBusy(error.message));
        next(new ApiError(422, [{ title: "invalid document", detail: `The request body nests deeper than ${maxDepth} levels.`, source: { pointer: "" } }]));
      },
    );
  };
}
