// Handlers of the five push-MFA method operations (/identity/mfa/method/pushmfa), each in the
// namespace its request names (the X-Secrets-Namespace header; the root when absent).
import { envelope, NO_CONTENT, nothing, type SecretsHandlerTable } from "../handlers/types.ts";
import { listedView, methodView } from "./methods.ts";

export const NAMESPACE_HEADER = "X-Secrets-Namespace";

export const pushMfaHandlers = {
  createPushMfaMethod: ({ headers, body }, { cluster }) => {
    const id = cluster.mfa.create(cluster.mfa.namespace(headers["x-secrets-namespace"]), body);
    return { status: 200, body: envelope(cluster, { method_id: id }) };
  },

  updatePushMfaMethod: ({ headers, params, body }, { cluster }) => {
    cluster.mfa.update(cluster.mfa.namespace(headers["x-secrets-namespace"]), params.id, body);
    return NO_CONTENT;
  },

  readPushMfaMethod: ({ headers, params }, { cluster }) => {
    const method = cluster.mfa.read(cluster.mfa.namespace(headers["x-secrets-namespace"]), params.id);
    if (!method) return nothing();
    return { status: 200, body: envelope(cluster, methodView(method)) };
  },

  deletePushMfaMethod: ({ headers, params }, { cluster }) => {
    cluster.mfa.delete(cluster.mfa.namespace(headers["x-secrets-namespace"]), params.id);
    return NO_CONTENT;
  },

  // The real system lists with key_info (logical.ListResponseWithInfo): each method's settings. Its
  // secret_key is left out: only the read returns it (the seed's read shape), to whom may read.
  listPushMfaMethods: ({ headers }, { cluster }) => {
    const methods = cluster.mfa.list(cluster.mfa.namespace(headers["x-secrets-namespace"]));
    if (methods.length === 0) return nothing();
    const keys = methods.map((method) => method.id);
    const key_info = Object.fromEntries(methods.map((method) => [method.id, listedView(method)]));
    return { status: 200, body: envelope(cluster, { keys, key_info }) };
  },
} satisfies Partial<SecretsHandlerTable>;
