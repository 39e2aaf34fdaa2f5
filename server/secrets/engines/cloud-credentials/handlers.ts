// Handlers of the cloud credentials engine's eleven operations, at whatever mount the request reached.
import { envelope, leasedSecret, mountOf, NO_CONTENT, nothing, type SecretsContext, type SecretsHandlerTable } from "../../handlers/types.ts";
import { ACCESS_KEYS_SECRET, cloudCredentialsEngine, type CloudCredentialsMount, type CredentialsRequest } from "./engine.ts";

/** The engine at the mount the request reached. */
function engineAt(context: SecretsContext): CloudCredentialsMount {
  return cloudCredentialsEngine(context.cluster).at(mountOf(context));
}

/** New credentials of a role, with the lease the table registered for them. */
async function issue(context: SecretsContext, name: string, path: "creds" | "sts", request: CredentialsRequest) {
  const displayName = context.cluster.auth.lookup(context.token)?.displayName ?? "token";
  return leasedSecret(context, ACCESS_KEYS_SECRET, await engineAt(context).generate(name, path, request, displayName));
}

export const cloudCredentialsHandlers = {
  writeCloudCredentialsRootConfig: ({ body }, context) => {
    engineAt(context).writeRootConfig(body);
    return NO_CONTENT;
  },

  readCloudCredentialsRootConfig: (_input, context) => {
    const config = engineAt(context).readRootConfig();
    if (!config) return nothing();
    return { status: 200, body: envelope(context.cluster, config) };
  },

  rotateCloudCredentialsRoot: async (_input, context) => {
    const accessKey = await engineAt(context).rotateRoot();
    return { status: 200, body: envelope(context.cluster, { access_key: accessKey }) };
  },

  writeCloudCredentialsLeaseConfig: ({ body }, context) => {
    engineAt(context).writeLeaseConfig(body);
    return NO_CONTENT;
  },

  readCloudCredentialsLeaseConfig: (_input, context) => {
    const lease = engineAt(context).readLeaseConfig();
    if (!lease) return nothing();
    return { status: 200, body: envelope(context.cluster, lease) };
  },

  listCloudCredentialsRoles: (_input, context) => {
    const keys = engineAt(context).listRoles();
    if (keys.length === 0) return nothing();
    return { status: 200, body: envelope(context.cluster, { keys }) };
  },

  writeCloudCredentialsRole: ({ params, body }, context) => {
    const warnings = engineAt(context).writeRole(params.name, body);
    if (warnings.length === 0) return NO_CONTENT;
    return { status: 200, body: { ...envelope(context.cluster, null), warnings } };
  },

  readCloudCredentialsRole: ({ params }, context) => {
    const role = engineAt(context).readRole(params.name);
    if (!role) return nothing();
    return { status: 200, body: envelope(context.cluster, role) };
  },

  deleteCloudCredentialsRole: ({ params }, context) => {
    if (!engineAt(context).deleteRole(params.name)) return nothing();
    return NO_CONTENT;
  },

  generateCloudCredentials: ({ params, query }, context) => issue(context, params.name, "creds", query),

  generateCloudStsCredentials: ({ params, body }, context) => issue(context, params.name, "sts", body),
} satisfies Partial<SecretsHandlerTable>;
