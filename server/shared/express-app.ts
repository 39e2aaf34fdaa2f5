// The Express app every reference server starts from, how it answers, and how it sends JSON text.
import { createRequire } from "node:module";
import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type Response } from "express";
import { BoundedCache } from "./bounded-cache.ts";
import { inSequence, type Stage } from "./stages.ts";

/** The URL a request's query was parsed from, and what it was parsed to. */
const PARSED_QUERY = Symbol("parsed query");

type RequestWithQuery = Request & { [PARSED_QUERY]?: { url: string; value: unknown } };

/** Marks an app's request prototype whose req.query can be assigned (serviceApp's). */
const ASSIGNABLE_QUERY = Symbol("assignable query");

/** Whether req.query of this request can be assigned (its app is a serviceApp). */
export function queryAssignable(req: Request): boolean {
  return ((req.app as unknown as { request?: { [ASSIGNABLE_QUERY]?: boolean } } | undefined)?.request?.[ASSIGNABLE_QUERY]) === true;
}

/**
 * An Express app without X-Powered-By or ETag (none of the real services sends them; an ETag
 * costs a hash of every answer), whose requests parse their query string once.
 *
 * Express 5 works req.query out of the URL again on every read (its getter parses the query
 * string each time), and a request's handling reads it about a dozen times (the services' checks,
 * the validator, the handler). Here the first read of a request keeps what it parsed, with the URL
 * it parsed: a read after the URL changed (a service rewriting it to its canonical form) parses again.
 * It can also be assigned (Express 5's cannot): the value is kept as the query of the request's URL
 * (the request check, request-check.ts, coerces parameters into it without redefining req.query).
 */
export function serviceApp(options: { jsonCharset?: boolean; jsonNewline?: boolean } = {}): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // JSON answers as `application/json` exactly, where the real service writes that (hvac, like the
  // real secrets CLI, reads an error's messages only under exactly that type).
  if (options.jsonCharset === false) app.set(JSON_WITHOUT_CHARSET, true);
  // A newline after each JSON answer, as Go's json.Encoder writes one (the real secrets service).
  if (options.jsonNewline === true) app.set(JSON_NEWLINE, true);
  const parse = Object.getOwnPropertyDescriptor(express.request, "query")?.get;
  if (!parse) throw new Error("express.request has no query getter: the Express version is not the one this was written for");
  Object.defineProperty(app.request, "query", {
    configurable: true,
    enumerable: true,
    get(this: RequestWithQuery): unknown {
      const known = this[PARSED_QUERY];
      if (known !== undefined && known.url === this.url) return known.value;
      const value = parse.call(this);
      this[PARSED_QUERY] = { url: this.url, value };
      return value;
    },
    set(this: RequestWithQuery, value: unknown) {
      this[PARSED_QUERY] = { url: this.url, value };
    },
  });
  (app.request as { [ASSIGNABLE_QUERY]?: boolean })[ASSIGNABLE_QUERY] = true;
  return app;
}

/** A module as the Express the app runs loads it (one of its files or dependencies). */
const fromExpress = createRequire(createRequire(import.meta.url).resolve("express"));

type FinalHandler = (req: Request, res: Response, options: { env: string; onerror: (error: Error) => void }) => (error?: unknown) => void;
/** Express's own final handler, for a request no stage answered or an error the error handler passed on. */
const finalhandler = fromExpress("finalhandler") as FinalHandler;
/** Express's own charset setter (res.send's). */
const { setCharset } = fromExpress("./lib/utils.js") as { setCharset(type: string, charset: string): string };

/**
 * The app answers every request with `stages`, in sequence, and gives their errors to `onError`:
 * what `app.use(inSequence(stages)); app.use(onError)` does, without Express's router in between.
 * For two layers that every path matches, the router's work on each request (its layer walk,
 * path trimming, parameter bookkeeping, a final handler built for every request) measured about
 * 8 KB of garbage a request, a fifth of a write's. What the router sets that the services read is set here:
 * req.originalUrl, req.baseUrl, req.params; a request nothing answers, or an error `onError`
 * passes on, goes to Express's final handler, as it would through the router.
 */
export function answerWith(app: Express, stages: readonly Stage[], onError: ErrorRequestHandler): void {
  const run = inSequence(stages);
  const finalHandlerOf = (req: Request, res: Response): ((error?: unknown) => void) =>
    finalhandler(req, res, {
      env: app.get("env") as string,
      onerror: (error) => {
        if (app.get("env") !== "test") console.error(error.stack ?? String(error));
      },
    });
  (app as Express & { handle: (req: Request, res: Response, callback?: NextFunction) => void }).handle = function answer(req, res, callback) {
    const finish = (error?: unknown) => (callback ?? finalHandlerOf(req, res))(error);
    // As Express's app.handle does, then its router for a top-level app.
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    res.locals ??= Object.create(null);
    req.originalUrl ||= req.url;
    req.baseUrl ??= "";
    req.params = {};
    run(req, res, (error?: unknown) => {
      if (error === undefined || error === null) return finish();
      try {
        onError(error, req, res, finish);
      } catch (thrown) {
        finish(thrown);
      }
    });
  };
}

/** The app setting of serviceApp({ jsonCharset: false }). */
const JSON_WITHOUT_CHARSET = "json without charset";
/** The app setting of serviceApp({ jsonNewline: true }). */
const JSON_NEWLINE = "json newline";

/** The Content-Type res.send gives an answer whose Content-Type is set to the key, by key (a few per app). */
const sentTypes = new BoundedCache<string>(100, 1 << 16);

/**
 * What res.json(value) does once its text is made: res.json's steps (Content-Type application/json
 * when none), then res.send's for a string with no ETag function. The Content-Type res.send writes
 * (the set type with charset=utf-8, through two parses of the type on every answer) is worked out
 * once per type, by res.send's own code, and set as it is after that. An app with an ETag
 * function goes through res.send.
 */
export function sendJsonText(res: Response, json: string): Response {
  const text = res.app.get(JSON_NEWLINE) === true ? `${json}\n` : json;
  // setHeader, not res.set: Express's res.set adds the charset to a JSON type on its own.
  if (!res.get("Content-Type")) res.setHeader("Content-Type", "application/json");
  if (typeof res.app.get("etag fn") === "function") return res.send(text);
  const type = String(res.getHeader("Content-Type"));
  const sent = sentTypes.get(type);
  if (res.app.get(JSON_WITHOUT_CHARSET) === true) {
    res.setHeader("Content-Type", type);
  } else if (sent === undefined) {
    res.set("Content-Type", setCharset(type, "utf-8"));
    sentTypes.set(type, String(res.getHeader("Content-Type")));
  } else {
    res.setHeader("Content-Type", sent);
  }
  // As res.send: a long text goes as a Buffer; its length in bytes either way.
  const chunk = text.length < 1000 ? text : Buffer.from(text, "utf8");
  res.setHeader("Content-Length", String(typeof chunk === "string" ? Buffer.byteLength(chunk, "utf8") : chunk.length));
  if (res.req.fresh) res.status(304);
  if (res.statusCode === 204 || res.statusCode === 304 || res.statusCode === 205) return res.send(""); // res.send strips or empties these
  if (res.req.method === "HEAD") res.end();
  else if (typeof chunk === "string") res.end(chunk, "utf8");
  else res.end(chunk);
  return res;
}
