// Handlers of the five push-MFA method operations (/identity/mfa/method/pushmfa).
import type { Request, Response } from "express";
import type { SecretsCluster } from "../cluster.ts";
import { envelope, noContent, type Handler } from "../handlers/types.ts";
import { answerRefusal } from "../refusal.ts";
import { methodView, type PushMfaInput } from "./push-mfa.ts";

type PushMfaOperation = "createPushMfaMethod" | "updatePushMfaMethod" | "readPushMfaMethod" | "deletePushMfaMethod" | "listPushMfaMethods";

export const NAMESPACE_HEADER = "X-Secrets-Namespace";

/** Runs an operation in the request's namespace; refusals become the error envelope. */
function inNamespace(work: (cluster: SecretsCluster, namespace: string, req: Request, res: Response) => void): Handler {
  return (cluster, req, res) => {
    try {
      work(cluster, cluster.mfa.namespace(req.get(NAMESPACE_HEADER)), req, res);
    } catch (error) {
      answerRefusal(res, error);
    }
  };
}

/** The real system's answer for nothing there: 404 with an empty error list. */
function nothing(res: Response): void {
  res.status(404).json({ errors: [] });
}

export const pushMfaHandlers = {
  createPushMfaMethod: inNamespace((cluster, namespace, req, res) => {
    const id = cluster.mfa.create(namespace, req.body as PushMfaInput);
    res.json(envelope(cluster, { method_id: id }));
  }),

  updatePushMfaMethod: inNamespace((cluster, namespace, req, res) => {
    cluster.mfa.update(namespace, String(req.params.id), req.body as PushMfaInput);
    noContent(res);
  }),

  readPushMfaMethod: inNamespace((cluster, namespace, req, res) => {
    const method = cluster.mfa.read(namespace, String(req.params.id));
    if (!method) return nothing(res);
    res.json(envelope(cluster, methodView(method)));
  }),

  deletePushMfaMethod: inNamespace((cluster, namespace, req, res) => {
    cluster.mfa.delete(namespace, String(req.params.id));
    noContent(res);
  }),

  listPushMfaMethods: inNamespace((cluster, namespace, _req, res) => {
    const keys = cluster.mfa.list(namespace);
    if (keys.length === 0) return nothing(res);
    res.json(envelope(cluster, { keys }));
  }),
} satisfies Record<PushMfaOperation, Handler>;
