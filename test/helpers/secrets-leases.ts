// What the lease tests check the same way at the current paths and at the older ones
// (/sys/leases/revoke-prefix and /sys/revoke-prefix route to the same handlers).
import { expect } from "vitest";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { ok, type CloudTestServer } from "./cloud-credentials.ts";

type PrefixPaths =
  | { prefix: "/sys/leases/revoke-prefix/{prefix}"; force: "/sys/leases/revoke-force/{prefix}" }
  | { prefix: "/sys/revoke-prefix/{prefix}"; force: "/sys/revoke-force/{prefix}" };

/**
 * With the engine's root credentials made wrong, revoking the prefix aws/ stops at the engine's
 * refusal (400), keeping the lease `kept`; revoke-force then forgets it.
 */
export async function expectRefusedThenForced(server: CloudTestServer, paths: PrefixPaths, kept: string): Promise<void> {
  const leases = leasesOf(server.secrets.cluster);
  ok(await server.client.POST("/aws/config/root", { body: { access_key: "AKIAWRONGWRONGWRONG0", secret_key: "wrong" } }));
  const refused = await server.client.PUT(paths.prefix, { params: { path: { prefix: "aws/" } } });
  expect(refused.response.status).toBe(400);
  expect(refused.error!.errors[0]).toMatch(/^failed to revoke entry: /);
  expect(leases.list()).toEqual([kept]);
  expect((await server.client.PUT(paths.force, { params: { path: { prefix: "aws/" } } })).response.status).toBe(204);
  expect(leases.list()).toEqual([]);
}
