// Replication state kept in the data directory: a performance primary and its secondary, both
// restarted on their data directories (same addresses), are the same primary and secondary again,
// the secondary reconnects with its credential, and writes made after the restart reach it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningTestSecrets } from "../helpers/secrets.ts";
import { inSync, primaryStatus, replicate, secondaryStatus, startCluster, waitFor } from "../helpers/replication.ts";

const running: RunningTestSecrets[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((cluster) => cluster.close()));
});

async function cluster(dataDir: string, port = 0, clusterPort?: number): Promise<RunningTestSecrets> {
  const started = await startCluster({ dataDir, ...(clusterPort ? { replication: { clusterPort } } : {}) }, port);
  running.push(started);
  return started;
}

const role = (name: string) => ({ params: { path: { name } }, body: { credential_type: "iam_user" as const, policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } });

describe("replication across restarts on data directories", () => {
  it("keeps the primary's secondaries and the secondary's link; streaming goes on after both restart", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "replication-restart-"));
    let primary = await cluster(path.join(base, "primary"));
    let secondary = await cluster(path.join(base, "secondary"));
    await replicate(primary, secondary, "performance", "east");
    await primary.client.POST("/aws/roles/{name}", role("before"));
    await inSync(primary, secondary, "performance");
    const clusterId = (await primaryStatus(primary.client, "performance")).cluster_id;
    const ports = [primary.secrets.port, primary.secrets.clusterPort, secondary.secrets.port, secondary.secrets.clusterPort] as const;

    await Promise.all(running.splice(0).map((c) => c.close()));
    // Lets the clients' connection pools see their connections closed before the same ports serve again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    primary = await cluster(path.join(base, "primary"), ports[0], ports[1]);
    secondary = await cluster(path.join(base, "secondary"), ports[2], ports[3]);

    const restarted = await primaryStatus(primary.client, "performance");
    expect(restarted).toMatchObject({ mode: "primary", cluster_id: clusterId, known_secondaries: ["east"] });
    expect(await secondaryStatus(secondary.client, "performance")).toMatchObject({ mode: "secondary", cluster_id: clusterId, secondary_id: "east" });
    expect((await secondary.client.GET("/aws/roles/{name}", { params: { path: { name: "before" } } })).response.status).toBe(200);

    await primary.client.POST("/aws/roles/{name}", role("after"));
    await waitFor(
      () => secondary.client.GET("/aws/roles/{name}", { params: { path: { name: "after" } } }),
      (answer) => answer.response.status === 200,
    );
    await inSync(primary, secondary, "performance");
    // A write after the restart is numbered after every write before it.
    expect((await primaryStatus(primary.client, "performance")).last_wal).toBeGreaterThan(restarted.last_wal);
  });
});
