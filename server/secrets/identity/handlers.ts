// Handlers of the five push-MFA method operations (/identity/mfa/method/pushmfa).
import type { Request, Response } from "express";
import type { SecretsCluster } from "../cluster.ts";
import { envelope, noContent, nothing, type Handler } from "../handlers/types.ts";
import { methodView, type PushMfaInput } from "./push-mfa.ts";

type PushMfaOperation = "createPushMfaMethod" | "updatePushMfaMethod" | "readPushMfaMethod" | "deletePushMfaMethod" | "listPushMfaMethods";

export const NAMESPACE_HEADER = "X-Secrets-Namespace";

/** Runs an operation in the request's namespace. */
function inNamespace(work: (cluster: SecretsCluster, namespace: string, req: Request, res: Response) => void): Handler {
  return (cluster, req, res) => work(cluster, cluster.mfa.namespace(req.get(NAMESPACE_HEADER)), req, res);
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
