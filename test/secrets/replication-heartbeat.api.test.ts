// Heartbeats between real clusters: with no writes, both sides still hear from each other every
// heartbeat interval (last_heartbeat moves on), and a peer that stops is shown disconnected.
import { afterEach, describe, expect, it } from "vitest";
import { HEARTBEAT_MS, inSync, primaryStatus, replicate, secondaryStatus, startCluster, waitFor } from "../helpers/replication.ts";
import type { RunningTestSecrets } from "../helpers/secrets.ts";

const running: RunningTestSecrets[] = [];
async function cluster() {
  const started = await startCluster();
  running.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

describe.each(["dr", "performance"] as const)("%s heartbeats", (mode) => {
  it("update last_heartbeat on both sides without any write", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, mode, "hb");
    await inSync(p, s, mode);
    const wal = (await primaryStatus(p.client, mode)).last_wal;
    const first = {
      primary: (await primaryStatus(p.client, mode)).secondaries[0]!.last_heartbeat,
      secondary: (await secondaryStatus(s.client, mode)).primaries[0]!.last_heartbeat!,
    };
    // Several heartbeat intervals later both have moved on, and nothing was written.
    const later = await waitFor(
      async () => ({ primary: await primaryStatus(p.client, mode), secondary: await secondaryStatus(s.client, mode) }),
      ({ primary, secondary }) =>
        Date.parse(primary.secondaries[0]!.last_heartbeat) >= Date.parse(first.primary) + 3 * HEARTBEAT_MS &&
        Date.parse(secondary.primaries[0]!.last_heartbeat!) >= Date.parse(first.secondary) + 3 * HEARTBEAT_MS,
    );
    expect(later.primary.secondaries[0]!.connection_status).toBe("connected");
    expect(later.secondary.primaries[0]!.connection_status).toBe("connected");
    expect(later.primary.last_wal).toBe(wal);
    expect(later.secondary.last_remote_wal).toBe(wal);
  });

  it("show a stopped secondary disconnected on its primary", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, mode, "leaving");
    await inSync(p, s, mode);
    const before = (await primaryStatus(p.client, mode)).secondaries[0]!;
    await s.close();
    const after = await waitFor(() => primaryStatus(p.client, mode), (st) => st.secondaries[0]!.connection_status === "disconnected");
    expect(after.known_secondaries).toEqual(["leaving"]);
    expect(after.secondaries[0]).toMatchObject({ node_id: "leaving", api_address: before.api_address, cluster_address: before.cluster_address });
  });

  it("show a stopped primary disconnected on its secondary, which keeps trying", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, mode, "staying");
    await inSync(p, s, mode);
    const { last_heartbeat } = (await secondaryStatus(s.client, mode)).primaries[0]!;
    await p.close();
    const after = await waitFor(() => secondaryStatus(s.client, mode), (st) => st.primaries[0]!.connection_status === "disconnected");
    expect(after.state).toBe("connecting");
    expect(Date.parse(after.primaries[0]!.last_heartbeat!)).toBeGreaterThanOrEqual(Date.parse(last_heartbeat!));
    expect(after.primary_cluster_addr).toBe(p.secrets.clusterUrl);
  });
});
