// What the suites driving a real, unchanged Vault client library (node-vault, hvac) start before
// their first call, the same for both: the secrets server with the cloud credentials engine, its
// leases on a manual clock; a mesh holding a "web-reader" ACL policy for the discovery-token engine's
// roles to name; and the shim the client talks through (it renames the token header).
import { expect } from "vitest";
import { ManualClock } from "../../server/secrets/leases/clock.ts";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { startTokenHeaderShim, type RunningShim } from "../secrets/conformance/token-header-shim.ts";
import { startCloudSecrets, type CloudTestServer } from "./cloud-credentials.ts";
import { startMesh, type RunningMesh } from "./mesh.ts";

/** A policy and a role of the simulated provider's default account, for the suites' roles. */
export const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
export const DEPLOY = "arn:aws:iam::123456789012:role/deploy";

export interface RealClientRig {
  server: CloudTestServer;
  /** The mesh, its ACLs on with `managementToken`. */
  mesh: RunningMesh;
  /** Where the client is pointed: the server behind the token-header shim. */
  shim: RunningShim;
  /** The clock of the server's lease table, from now (whole seconds). */
  clock: ManualClock;
  close(): Promise<void>;
}

export async function startRealClientRig(managementToken: string): Promise<RealClientRig> {
  const server = await startCloudSecrets();
  const mesh = await startMesh({ managementToken });
  expect((await mesh.clientWithToken(managementToken).PUT("/acl/policy", { body: { Name: "web-reader", Rules: 'service "web" { policy = "read" }' } })).response.status).toBe(200);
  const shim = await startTokenHeaderShim(new URL(server.baseUrl));
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  leasesOf(server.secrets.cluster).useClock(clock);
  return {
    server,
    mesh,
    shim,
    clock,
    async close() {
      await shim.close();
      await server.close();
      await mesh.close();
    },
  };
}
