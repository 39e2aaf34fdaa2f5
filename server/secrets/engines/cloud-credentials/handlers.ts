// Handlers of the cloud credentials engine's eleven operations, at whatever mount the request reached.
import type { Request, Response } from "express";
import type { operations } from "../../../../generated/secrets/schema.ts";
import { requestContext } from "../../http/request-context.ts";
import type { SecretsCluster } from "../../cluster.ts";
import { envelope, noContent, nothing, type Handler, type RequestBody } from "../../handlers/types.ts";
import { ACCESS_KEYS_SECRET, cloudCredentialsEngine, type CredentialsRequest, type RootConfigWrite } from "./engine.ts";
import type { RoleWrite } from "./roles.ts";
import { leasesOf } from "../../leases/index.ts";

type CloudCredentialsOperation =
  | "writeCloudCredentialsRootConfig"
  | "readCloudCredentialsRootConfig"
  | "rotateCloudCredentialsRoot"
  | "writeCloudCredentialsLeaseConfig"
  | "readCloudCredentialsLeaseConfig"
  | "listCloudCredentialsRoles"
  | "writeCloudCredentialsRole"
  | "readCloudCredentialsRole"
  | "deleteCloudCredentialsRole"
  | "generateCloudCredentials"
  | "generateCloudStsCredentials";

type Body<O extends CloudCredentialsOperation> = RequestBody<O>;


function mountOf(res: Response): string {
  return requestContext(res).operation.mount!;
}

async function issue(cluster: SecretsCluster, req: Request, res: Response, path: "creds" | "sts", request: CredentialsRequest): Promise<void> {
  const displayName = cluster.auth.lookup(requestContext(res).token)?.displayName ?? "token";
  const mount = mountOf(res);
  const issued = await cloudCredentialsEngine(cluster).generate(mount, String(req.params.name), path, request, displayName);
  const { path: leasePath, ...lease } = issued.lease;
  const registered = await leasesOf(cluster).register({ path: leasePath, mount, secretType: ACCESS_KEYS_SECRET, ...lease });
  res.json({
    ...envelope(cluster, issued.data),
    lease_id: registered.lease_id,
    renewable: registered.renewable,
    lease_duration: registered.lease_duration,
    warnings: registered.warnings.length > 0 ? registered.warnings : null,
  });
}

export const cloudCredentialsHandlers = {
  writeCloudCredentialsRootConfig: (cluster, req, res) => {
    cloudCredentialsEngine(cluster).writeRootConfig(mountOf(res), req.body as Body<"writeCloudCredentialsRootConfig"> as RootConfigWrite);
    noContent(res);
  },

  readCloudCredentialsRootConfig: (cluster, _req, res) => {
    const config = cloudCredentialsEngine(cluster).readRootConfig(mountOf(res));
    if (!config) return nothing(res);
    res.json(envelope(cluster, config));
  },

  rotateCloudCredentialsRoot: async (cluster, _req, res) => {
    const accessKey = await cloudCredentialsEngine(cluster).rotateRoot(mountOf(res));
    res.json(envelope(cluster, { access_key: accessKey }));
  },

  writeCloudCredentialsLeaseConfig: (cluster, req, res) => {
    cloudCredentialsEngine(cluster).writeLeaseConfig(mountOf(res), req.body as Body<"writeCloudCredentialsLeaseConfig">);
    noContent(res);
  },

  readCloudCredentialsLeaseConfig: (cluster, _req, res) => {
    const lease = cloudCredentialsEngine(cluster).readLeaseConfig(mountOf(res));
    if (!lease) return nothing(res);
    res.json(envelope(cluster, lease));
  },

  listCloudCredentialsRoles: (cluster, _req, res) => {
    const keys = cloudCredentialsEngine(cluster).listRoles(mountOf(res));
    if (keys.length === 0) return nothing(res);
    res.json(envelope(cluster, { keys }));
  },

  writeCloudCredentialsRole: (cluster, req, res) => {
    const warnings = cloudCredentialsEngine(cluster).writeRole(mountOf(res), String(req.params.name), req.body as Body<"writeCloudCredentialsRole"> as RoleWrite);
    if (warnings.length === 0) return noContent(res);
    res.json({ ...envelope(cluster, null), warnings });
  },

  readCloudCredentialsRole: (cluster, req, res) => {
    const role = cloudCredentialsEngine(cluster).readRole(mountOf(res), String(req.params.name));
    if (!role) return nothing(res);
    res.json(envelope(cluster, role));
  },

  deleteCloudCredentialsRole: (cluster, req, res) => {
    if (!cloudCredentialsEngine(cluster).deleteRole(mountOf(res), String(req.params.name))) return nothing(res);
    noContent(res);
  },

  generateCloudCredentials: (cluster, req, res) => {
    const query = req.query as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === "string" ? value : Array.isArray(value) && typeof value[0] === "string" ? value[0] : undefined);
    const request: CredentialsRequest = {};
    for (const key of ["role_arn", "role_session_name", "ttl"] as const) {
      const value = text(query[key]);
      if (value !== undefined) request[key] = value;
    }
    return issue(cluster, req, res, "creds", request);
  },

  generateCloudStsCredentials: (cluster, req, res) =>
    issue(cluster, req, res, "sts", (req.body ?? {}) as Body<"generateCloudStsCredentials"> as CredentialsRequest),
} satisfies Record<CloudCredentialsOperation, Handler>;
