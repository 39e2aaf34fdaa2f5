// Handlers of the discovery-token engine's seven operations, at whatever mount the request reached.
import { envelope, leasedSecret, mountOf, NO_CONTENT, nothing, type SecretsContext, type SecretsHandlerTable } from "../../handlers/types.ts";
import { Refusal } from "../../errors.ts";
import { discoveryTokenEngine, NOT_CONFIGURED, TOKEN_SECRET, type DiscoveryTokenMount } from "./engine.ts";
import { roleView } from "./role-rules.ts";

/** The engine at the mount the request reached. */
function engine(context: SecretsContext): DiscoveryTokenMount {
  return discoveryTokenEngine(context.cluster).at(mountOf(context));
}

export const discoveryTokenHandlers = {
  configureDiscoveryTokenAccess: ({ body }, context) => {
    engine(context).configure(body);
    return NO_CONTENT;
  },

  // The address and scheme only; unconfigured is 400 with the engine's words (builtin/logical/consul/path_config.go, pathConfigAccessRead).
  readDiscoveryTokenAccess: (_input, context) => {
    const config = engine(context).config();
    if (!config) throw new Refusal(400, [NOT_CONFIGURED]);
    return { status: 200, body: envelope(context.cluster, { address: config.address, scheme: config.scheme }) };
  },

  writeDiscoveryTokenRole: ({ params, body }, context) => {
    engine(context).writeRole(params.name, body);
    return NO_CONTENT;
  },

  readDiscoveryTokenRole: ({ params }, context) => {
    const role = engine(context).readRole(params.name);
    if (!role) return nothing();
    return { status: 200, body: envelope(context.cluster, roleView(role)) };
  },

  listDiscoveryTokenRoles: (_input, context) => {
    const keys = engine(context).listRoles();
    if (keys.length === 0) return nothing();
    return { status: 200, body: envelope(context.cluster, { keys }) };
  },

  deleteDiscoveryTokenRole: ({ params }, context) => {
    engine(context).deleteRole(params.name);
    return NO_CONTENT;
  },

  generateDiscoveryToken: async ({ params }, context) => {
    const requester = context.cluster.auth.lookup(context.token)?.displayName ?? "token";
    return leasedSecret(context, TOKEN_SECRET, await engine(context).issue(params.name, requester));
  },
} satisfies Partial<SecretsHandlerTable>;
