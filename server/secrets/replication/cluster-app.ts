// The cluster-to-cluster endpoints, described in openapi/secrets/internal/openapi.yaml (a
// standalone, single-file description kept out of the public reference) and validated against it
// like the public API, requests and responses:
//
// - on the API listener, `POST /v1/sys/wrapping/unwrap`: a secondary unwraps its activation
//   credentials (unwrapStage, a step the secrets app runs before its own operations);
// - on the cluster listener (clusterApp), under /v1/replication/{mode}/: `connect` (handshake and
//   merkle sync), `wal` (WAL long-poll, which is also the heartbeat) and `probe`.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { express, validationProblems } from "../../shared/openapi.ts";
import { inSequence, type Stage } from "../../shared/stages.ts";
import { isSecretsError } from "../errors.ts";
import type { ReplicationMode } from "./domain/states.ts";
import { internalDescription, type Protocol } from "./internal-protocol.ts";
import type { ReplicationManager } from "./manager.ts";
import type { ClusterAnswer } from "./primary-role.ts";

/** The validator of one listener's internal operations, built when its first request comes (most servers never replicate). */
function validator(listener: "api" | "cluster"): RequestHandler {
  let validate: RequestHandler | undefined;
  return (req, res, next) => {
    validate ??= inSequence(
      OpenApiValidator.middleware({
        apiSpec: internalDescription(listener) as never,
        // Checked by the lint in CI, not at every start.
        validateApiSpec: false,
        validateRequests: { allErrors: true },
        validateResponses: { allErrors: false },
        validateSecurity: false,
        validateFormats: true,
      }) as Stage[],
    );
    return validate(req, res, next);
  };
}

function bearer(req: Request): string | undefined {
  const header = req.get("authorization") ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
}

function send(res: Response, answer: ClusterAnswer): void {
  if (answer.status === 499 || res.destroyed) return; // the peer left before the answer
  res.status(answer.status).json(answer.body);
}

function renderError(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) return;
  if (isSecretsError(error)) {
    res.status(error.status).json({ errors: [error.message] });
    return;
  }
  const { status = 500, message = "internal error" } = (error ?? {}) as { status?: number; message?: string };
  const problems = validationProblems(error, req.path);
  if (problems && (status === 400 || status === 415)) {
    res.status(400).json({ errors: problems.map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)) });
    return;
  }
  if (status >= 500) console.error(`secrets cluster endpoint: ${req.method} ${req.path}: ${message}`);
  res.status(status >= 400 && status < 600 ? status : 500).json({ errors: [status === 404 ? "not found" : message] });
}

/**
 * `POST` (or `PUT`) `<basePath>/sys/wrapping/unwrap` for the API listener, as a step the API runs
 * before its public operations: it answers that one path (matched as Express matches a route) and
 * lets every other request go on.
 */
export function unwrapStage(manager: ReplicationManager, basePath: string): Stage {
  const router = express.Router();
  const validate = validator("api");
  const unwrap = (req: Request, res: Response, next: NextFunction) => {
    try {
      // Checked against UnwrapRequest by the validator before this runs.
      const { token, mode }: Protocol["UnwrapRequest"] = req.body;
      const credentials = manager.unwrap(token, mode);
      res.json({ data: credentials });
    } catch (error) {
      next(error);
    }
  };
  // The only unauthenticated write (the wrapping token is in the body): a small body limit.
  const body = express.json({ type: () => true, limit: "64kb" });
  router.post(`${basePath}/sys/wrapping/unwrap`, body, validate, unwrap, renderError);
  const asPost = (req: Request, _res: Response, next: NextFunction) => {
    req.method = "POST";
    next();
  };
  router.put(`${basePath}/sys/wrapping/unwrap`, asPost, body, validate, unwrap, renderError);
  const path = new RegExp(`^${basePath}/sys/wrapping/unwrap/?$`, "i");
  return (req, res, next) => (path.test(req.path) ? router(req, res, next) : next());
}

/** The cluster listener's app. */
export function clusterApp(manager: ReplicationManager): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Refuse before parsing: connect and wal need a secondary's credential, and every request here
  // is a small JSON object (the answers carry the data, not the requests).
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!/^\/v1\/replication\/(dr|performance)\/(connect|wal)$/.test(req.path) || bearer(req)) return next();
    res.set("Connection", "close").status(403).json({ errors: ["unknown or revoked secondary credential"] });
  });
  app.use(express.json({ limit: "64kb" }));
  app.use(validator("cluster"));
  const primaryOf = (req: Request) => {
    const mode = req.params.mode as ReplicationMode;
    return manager.mode(mode).primary;
  };
  const notPrimary = (req: Request): ClusterAnswer => ({
    status: 410,
    body: { errors: [`this cluster is not a ${req.params.mode === "dr" ? "DR" : "performance"} primary`] },
  });

  app.post("/v1/replication/:mode/connect", (req, res) => {
    const primary = primaryOf(req);
    send(res, primary ? primary.connect(bearer(req), req.body) : notPrimary(req));
  });

  app.post("/v1/replication/:mode/wal", async (req, res, next) => {
    try {
      const primary = primaryOf(req);
      if (!primary) return send(res, notPrimary(req));
      const left = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) left.abort();
      });
      send(res, await primary.wal(bearer(req), req.body, left.signal));
    } catch (error) {
      next(error);
    }
  });

  app.post("/v1/replication/:mode/probe", (req, res) => {
    const primary = primaryOf(req);
    send(res, primary ? primary.probe(req.body) : { status: 200, body: { active: false } });
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ errors: ["not found"] });
  });
  app.use(renderError);
  return app;
}
