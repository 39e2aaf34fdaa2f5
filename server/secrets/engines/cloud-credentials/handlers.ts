// Handlers of the cloud credentials engine's thirteen operations, at whatever mount the request reached.
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

  // The real engine answers reads and writes of creds/<name> and sts/<name> with one handler
  // (builtin/logical/aws/path_user.go, pathUser: ReadOperation and UpdateOperation both call
  // pathCredsRead): the parameters come from the query or the body, and only the path counts.
  generateCloudCredentials: ({ params, query }, context) => issue(context, params.name, "creds", query),

  generateCloudCredentialsWithParameters: ({ params, body }, context) => issue(context, params.name, "creds", body),

  generateCloudStsCredentials: ({ params, body }, context) => issue(context, params.name, "sts", body),

  generateCloudStsCredentialsWithQuery: ({ params, query }, context) => issue(context, params.name, "sts", query),
} satisfies Partial<SecretsHandlerTable>;
