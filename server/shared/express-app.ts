// The Express app every reference server starts from, and how it writes JSON: through Express's
// public API only (app settings, middleware, the app's own response prototype).
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type Response } from "express";
import { jsonText } from "./json-text.ts";
import { inSequence, type Stage } from "./stages.ts";

/** How a service writes its JSON answers. */
export interface JsonStyle {
  /** `application/json; charset=utf-8` as res.json writes it (true, the default), or exactly `application/json`. */
  jsonCharset?: boolean;
  /** A newline after each JSON text, as Go's json.Encoder writes one (the real secrets service). */
  jsonNewline?: boolean;
  /**
   * The indentation a request asks for, or undefined for none: an indented answer ends with a
   * newline, as json.MarshalIndent's text followed by "\n" (the real mesh service's `?pretty`).
   */
  indentFor?: (req: Request) => string | undefined;
}

/**
 * An Express app without X-Powered-By or ETag (none of the real services sends them; an ETag costs a
 * hash of every answer), whose res.json writes the service's JSON style (sendJsonText). The writer is set on the
 * app's own response prototype, `app.response` (Express's documented way to override its API for
 * one app: "Overriding the Express API"), not on each response: express-openapi-validator's
 * response check wraps whatever res.json the response has, so an answer is checked first, then
 * written.
 */
export function serviceApp(style: JsonStyle = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const jsonStyle = {
    jsonCharset: style.jsonCharset !== false,
    jsonNewline: style.jsonNewline === true,
    ...(style.indentFor ? { indentFor: style.indentFor } : {}),
  } satisfies JsonStyle;
  app.set(JSON_STYLE, jsonStyle);
  app.response.json = serviceJson;
  return app;
}

/** The app setting holding a serviceApp's JsonStyle. */
const JSON_STYLE = "service json style";

/**
 * The app answers every request with `stages`, in sequence, as one middleware, and gives their
 * errors to `onError`; a request no stage answers gets Express's own 404 (its final handler).
 * One layer rather than one per stage: Express's router does its bookkeeping for every layer a
 * request passes (profiled with bench/profile.ts).
 */
export function answerWith(app: Express, stages: readonly Stage[], onError: ErrorRequestHandler): void {
  app.use(inSequence(stages));
  // Four parameters: what makes Express call it with errors only.
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => onError(error, req, res, next));
}

/**
 * Writes a JSON text as the service writes its JSON: with its app's Content-Type (the one set on
 * the answer, else application/json, with `charset=utf-8` unless the service writes exactly
 * `application/json`) and its length, as it is: not through res.send, whose conditional-request
 * handling (a 304 to `If-None-Match: *`) and copies no real service has. A HEAD gets the headers alone.
 */
export function sendJsonText(res: Response, json: string): Response {
  const style = (res.app.get(JSON_STYLE) as JsonStyle | undefined) ?? {};
  const text = style.jsonNewline === true ? `${json}\n` : json;
  const type = res.getHeader("Content-Type");
  const mediaType = typeof type === "string" ? type : "application/json";
  res.setHeader("Content-Type", style.jsonCharset === false || /;\s*charset=/i.test(mediaType) ? mediaType : `${mediaType}; charset=utf-8`);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  return res.end(text);
}

/**
 * res.json's steps (the app's JSON settings), written the service's way (sendJsonText); the kept
 * texts of unchanging resources are written as they are (json-text.ts).
 */
function serviceJson(this: Response, body: unknown): Response {
  const app = this.app;
  const indent = (app.get(JSON_STYLE) as JsonStyle | undefined)?.indentFor?.(this.req);
  if (indent !== undefined) return sendJsonText(this, `${JSON.stringify(body, null, indent)}\n`);
  const spaces = app.get("json spaces") as string | number | undefined;
  const replacer = app.get("json replacer") as undefined;
  const text = spaces === undefined && replacer === undefined ? jsonText(body) : JSON.stringify(body, replacer, spaces);
  return sendJsonText(this, text ?? "");
}
