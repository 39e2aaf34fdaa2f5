// Handlers of the cloud credentials engine's eleven operations, at whatever mount the request reached.
import { envelope, mountOf, NO_CONTENT, nothing, type SecretsContext, type SecretsHandlerTable } from "../../handlers/types.ts";
import { leasesOf } from "../../leases/index.ts";
import { ACCESS_KEYS_SECRET, cloudCredentialsEngine, type CredentialsRequest } from "./engine.ts";

/** New credentials of a role, with the lease the table registered for them. */
async function issue(context: SecretsContext, name: string, path: "creds" | "sts", request: CredentialsRequest) {
  const { cluster } = context;
  const displayName = cluster.auth.lookup(context.token)?.displayName ?? "token";
  const mount = mountOf(context);
  const issued = await cloudCredentialsEngine(cluster).generate(mount, name, path, request, displayName);
  const { path: leasePath, ...lease } = issued.lease;
  const registered = await leasesOf(cluster).register({ path: leasePath, mount, secretType: ACCESS_KEYS_SECRET, ...lease });
  return {
    status: 200 as const,
    body: {
      ...envelope(cluster, issued.data),
      lease_id: registered.lease_id,
      renewable: registered.renewable,
      lease_duration: registered.lease_duration,
      warnings: registered.warnings.length > 0 ? registered.warnings : null,
    },
  };
}

export const cloudCredentialsHandlers = {
  writeCloudCredentialsRootConfig: ({ body }, context) => {
    cloudCredentialsEngine(context.cluster).writeRootConfig(mountOf(context), body);
    return NO_CONTENT;
  },

  readCloudCredentialsRootConfig: (_input, context) => {
    const config = cloudCredentialsEngine(context.cluster).readRootConfig(mountOf(context));
    if (!config) return nothing();
    return { status: 200, body: envelope(context.cluster, config) };
  },

  rotateCloudCredentialsRoot: async (_input, context) => {
    const accessKey = await cloudCredentialsEngine(context.cluster).rotateRoot(mountOf(context));
    return { status: 200, body: envelope(context.cluster, { access_key: accessKey }) };
  },

  writeCloudCredentialsLeaseConfig: ({ body }, context) => {
    cloudCredentialsEngine(context.cluster).writeLeaseConfig(mountOf(context), body);
    return NO_CONTENT;
  },

  readCloudCredentialsLeaseConfig: (_input, context) => {
    const lease = cloudCredentialsEngine(context.cluster).readLeaseConfig(mountOf(context));
    if (!lease) return nothing();
    return { status: 200, body: envelope(context.cluster, lease) };
  },

  listCloudCredentialsRoles: (_input, context) => {
    const keys = cloudCredentialsEngine(context.cluster).listRoles(mountOf(context));
    if (keys.length === 0) return nothing();
    return { status: 200, body: envelope(context.cluster, { keys }) };
  },

  writeCloudCredentialsRole: ({ params, body }, context) => {
    const warnings = cloudCredentialsEngine(context.cluster).writeRole(mountOf(context), params.name, body);
    if (warnings.length === 0) return NO_CONTENT;
    return { status: 200, body: { ...envelope(context.cluster, null), warnings } };
  },

  readCloudCredentialsRole: ({ params }, context) => {
    const role = cloudCredentialsEngine(context.cluster).readRole(mountOf(context), params.name);
    if (!role) return nothing();
    return { status: 200, body: envelope(context.cluster, role) };
  },

  deleteCloudCredentialsRole: ({ params }, context) => {
    if (!cloudCredentialsEngine(context.cluster).deleteRole(mountOf(context), params.name)) return nothing();
    return NO_CONTENT;
  },

  generateCloudCredentials: ({ params, query }, context) => issue(context, params.name, "creds", query),

  generateCloudStsCredentials: ({ params, body }, context) => issue(context, params.name, "sts", body),
} satisfies Partial<SecretsHandlerTable>;
