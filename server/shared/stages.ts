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
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    if (path === prefix || path.startsWith(`${prefix}/`)) return stage(req, res, next);
    next();
  };
}
