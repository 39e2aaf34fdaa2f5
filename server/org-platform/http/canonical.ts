// One canonical form of the request path, settled before routing so that what is authorized and what
// the handlers act on are the same resource: repeated slashes collapse and a trailing slash is dropped
// (as the platform's router does); `.` and `..` segments, raw or percent-encoded, and undecodable
// percent-encoding name no resource (404). Path parameters are then decoded exactly once, by the router.
import type { NextFunction, Request, Response } from "express";
import { notFound } from "../domain/errors.ts";

/** A path that names nothing gets the same 404 as a resource the caller may not see. */
export const noSuchPath = notFound;

/** The canonical path, or undefined when the path names nothing. */
export function canonicalPath(path: string): string | undefined {
  const segments = path.split("/").filter((s) => s !== "");
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded === "." || decoded === "..") return undefined;
  }
  return "/" + segments.join("/");
}

export function canonicalRequestPath(req: Request, _res: Response, next: NextFunction): void {
  const at = req.url.indexOf("?");
  const path = at < 0 ? req.url : req.url.slice(0, at);
  const canonical = canonicalPath(path);
  if (canonical === undefined) return next(noSuchPath());
  if (canonical !== path) {
    // The validator matches operations on originalUrl: it sees the canonical path too.
    req.url = canonical + (at < 0 ? "" : req.url.slice(at));
    req.originalUrl = req.url;
  }
  next();
}
