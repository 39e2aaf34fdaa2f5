// Handlers of the discovery-token engine's six operations, at whatever mount the request reached.
import type { Response } from "express";
import { requestContext } from "../../http/request-context.ts";
import type { SecretsCluster } from "../../cluster.ts";
import { envelope, noContent, nothing, type Handler } from "../../handlers/types.ts";
import type { AccessInput } from "./access.ts";
import { leasesOf } from "../../leases/index.ts";
import { DiscoveryTokenEngine, TOKEN_SECRET } from "./engine.ts";
import { roleView, type RoleInput } from "./role-rules.ts";

type DiscoveryTokenOperation =
  | "configureDiscoveryTokenAccess"
  | "writeDiscoveryTokenRole"
  | "readDiscoveryTokenRole"
  | "listDiscoveryTokenRoles"
  | "deleteDiscoveryTokenRole"
  | "generateDiscoveryToken";


function engine(cluster: SecretsCluster, res: Response): DiscoveryTokenEngine {
  return new DiscoveryTokenEngine(cluster.storage, requestContext(res).operation.mount!);
}

export const discoveryTokenHandlers = {
  configureDiscoveryTokenAccess: async (cluster, req, res) => {
    await engine(cluster, res).configure(req.body as AccessInput);
    noContent(res);
  },

  writeDiscoveryTokenRole: (cluster, req, res) => {
    engine(cluster, res).writeRole(String(req.params.name), req.body as RoleInput);
    noContent(res);
  },

  readDiscoveryTokenRole: (cluster, req, res) => {
    const role = engine(cluster, res).readRole(String(req.params.name));
    if (!role) return nothing(res);
    res.json(envelope(cluster, roleView(role)));
  },

  listDiscoveryTokenRoles: (cluster, _req, res) => {
    const keys = engine(cluster, res).listRoles();
    if (keys.length === 0) return nothing(res);
    res.json(envelope(cluster, { keys }));
  },

  deleteDiscoveryTokenRole: (cluster, req, res) => {
    engine(cluster, res).deleteRole(String(req.params.name));
    noContent(res);
  },

  generateDiscoveryToken: async (cluster, req, res) => {
    const requester = cluster.auth.lookup(requestContext(res).token)?.displayName ?? "token";
    const mount = requestContext(res).operation.mount!;
    const issued = await engine(cluster, res).issue(String(req.params.name), requester);
    const { path, ...lease } = issued.lease;
    const registered = await leasesOf(cluster).register({ path, mount, secretType: TOKEN_SECRET, ...lease });
    res.json({
      ...envelope(cluster, issued.data),
      lease_id: registered.lease_id,
      lease_duration: registered.lease_duration,
      renewable: registered.renewable,
      warnings: registered.warnings.length > 0 ? registered.warnings : null,
    });
  },
} satisfies Record<DiscoveryTokenOperation, Handler>;
