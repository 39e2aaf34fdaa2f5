// A service's request handling as one Express middleware: its steps run in order, each deciding to
// go on (next()), to answer, or to fail (next(error), a throw, or a rejected promise), exactly as
// Express middleware do. Why not one app.use per step: Express's router does its bookkeeping for
// every layer a request passes (path parsing, matching, parameter processing), which profiled at
// about a tenth of a millisecond per request over the seven or so steps of each service
// (bench/profile.ts). One layer pays it once.
import type { NextFunction, Request, RequestHandler, Response } from "express";

export type Stage = (req: Request, res: Response, next: (error?: unknown) => void) => unknown;

/** The stages as one middleware; after the last, the request goes on to Express's next layer. */
export function inSequence(stages: readonly Stage[]): RequestHandler {
  return function stagesInSequence(req: Request, res: Response, next: NextFunction): void {
    let at = 0;
    let passed = false;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const stage = stages[at++];
      if (!stage) {
        passed = true;
        return next();
      }
      try {
        const result = stage(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (thrown) {
        // Thrown by what ran after the last stage (a later layer, synchronously): its own to handle.
        if (passed) throw thrown;
        next(thrown);
      }
    };
    step();
  };
}

/**
 * A stage that runs only for paths under basePath (as app.use(basePath, stage) would, matched the
 * way Express matches it: case-insensitive, at a segment boundary); the stage sees the whole path.
 */
export function under(basePath: string, stage: Stage): Stage {
  const prefix = basePath.toLowerCase();
  return (req, res, next) => (isUnder(req, prefix) ? stage(req, res, next) : next());
}

/**
 * Whether the request's path is `prefix` (lower case) or below it. Read from the URL itself in the
 * common form (a path from `/`): each service asks it at every stage, and `req.path` with a
 * lower-cased copy of the whole path cost a few microseconds a request (bench/profile.ts). Any other
 * form of request target (absolute) is read through `req.path`, as Express reads it.
 */
function isUnder(req: Request, prefix: string): boolean {
  const url = req.url;
  const path = url.startsWith("/") ? url : req.path;
  if (path.length < prefix.length || path.slice(0, prefix.length).toLowerCase() !== prefix) return false;
  if (path.length === prefix.length) return true;
  // What ends a path segment in a request target: `/`, or the end of the path (`?` or `#`).
  const after = path.charCodeAt(prefix.length);
  return after === 0x2f || after === 0x3f || after === 0x23;
}
