// CORS for the reference servers, so that a browser app can move from the mock (which allows any
// origin) to a reference server. Off unless CORS_ORIGINS names the origins that may call:
// `CORS_ORIGINS=http://localhost:3000,https://app.example.com`, or `*` for any origin. For an
// allowed origin every answer carries Access-Control-Allow-Origin (and exposes the response
// headers, such as X-Mesh-Index), and a preflight (OPTIONS with Access-Control-Request-Method) is
// answered 204 here, before authentication, with the methods (LIST included) and the headers the
// browser asked for. Requests from other origins are served as without CORS: the browser refuses
// to hand the answer to the page. No credentials mode: the APIs take tokens in headers, not cookies.
import type { NextFunction, Request, Response } from "express";

export const CORS_METHODS = ["GET", "HEAD", "PUT", "POST", "PATCH", "DELETE", "LIST", "OPTIONS"];
/** How long a browser may cache a preflight answer (seconds). */
export const CORS_MAX_AGE = 600;

export type CorsOrigins = "*" | ReadonlySet<string>;

export class CorsConfigError extends Error {}

/**
 * Reads CORS_ORIGINS: unset or empty is off (undefined), `*` any origin, else a comma list of
 * origins (scheme://host[:port], no path). Throws CorsConfigError naming the variable.
 */
export function parseCorsOrigins(value: string | undefined, variable = "CORS_ORIGINS"): CorsOrigins | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (value.trim() === "*") return "*";
  const origins = new Set<string>();
  for (const item of value.split(",").map((s) => s.trim()).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new CorsConfigError(`${variable}: "${item}" is not an origin (scheme://host[:port])`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || (url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || item.replace(/\/$/, "") !== url.origin) {
      throw new CorsConfigError(`${variable}: "${item}" is not an origin (scheme://host[:port], without a path)`);
    }
    origins.add(url.origin);
  }
  return origins;
}

/** The middleware for a set of allowed origins; a no-op when `origins` is undefined. */
export function cors(origins: CorsOrigins | undefined) {
  return function corsMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!origins) return next();
    const origin = req.get("origin");
    if (!origin || (origins !== "*" && !origins.has(origin))) return next();
    res.vary("Origin");
    res.set("Access-Control-Allow-Origin", origins === "*" ? "*" : origin);
    const requestedMethod = req.get("access-control-request-method");
    if (req.method === "OPTIONS" && requestedMethod) {
      res.set("Access-Control-Allow-Methods", CORS_METHODS.join(", "));
      const requestedHeaders = req.get("access-control-request-headers");
      if (requestedHeaders) {
        res.vary("Access-Control-Request-Headers");
        res.set("Access-Control-Allow-Headers", requestedHeaders);
      }
      res.set("Access-Control-Max-Age", String(CORS_MAX_AGE));
      res.status(204).end();
      return;
    }
    res.set("Access-Control-Expose-Headers", "*");
    next();
  };
}

/** The middleware as CORS_ORIGINS configures it (checked at start by server/main.ts). */
export function corsFromEnv(env: NodeJS.ProcessEnv = process.env) {
  return cors(parseCorsOrigins(env.CORS_ORIGINS));
}
