// A primary and a performance secondary in one process (as the replication tests run them):
// on {run}, writes N roles on the primary, activates the secondary and times the catch-up.
// BENCH_SPEC: {"writes": N}
import { primaryStatus, replicate, secondaryStatus, startCluster, waitFor } from "../test/helpers/replication.ts";
import { ROOT_TOKEN } from "../test/helpers/secrets.ts";
import { ROLE_BODY } from "./worlds.ts";

const { writes } = JSON.parse(process.env.BENCH_SPEC ?? "{}") as { writes: number };
// BENCH_HEARTBEAT_MS: the clusters' heartbeat (the tests' 40 ms by default); peer requests time out
// after max(2 s, two heartbeats), which is what a big bootstrap runs into.
const heartbeat = process.env.BENCH_HEARTBEAT_MS ? { replication: { heartbeatIntervalMs: Number(process.env.BENCH_HEARTBEAT_MS) } } : {};
const primary = await startCluster(heartbeat);
const secondary = await startCluster(heartbeat);

const memory = () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
};

async function run() {
  const started = Date.now();
  await fetch(`${primary.baseUrl}/sys/replication/performance/primary/enable`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "{}" });
  const write = async (i: number) => {
    const r = await fetch(`${primary.baseUrl}/aws/roles/bench-${i}`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: ROLE_BODY });
    if (r.status !== 204) throw new Error(`role bench-${i}: ${r.status} ${await r.text()}`);
  };
  for (let i = 0; i < writes; i += 64) await Promise.all(Array.from({ length: Math.min(64, writes - i) }, (_, k) => write(i + k)));
  const writeMs = Date.now() - started;
  const before = memory();
  const activated = Date.now();
  await replicate(primary, secondary, "performance", "bench-secondary");
  // In sync: the secondary streams, has applied the primary's last write and holds the same tree.
  await waitFor(
    async () => [await primaryStatus(primary.client, "performance"), await secondaryStatus(secondary.client, "performance")] as const,
    ([p, s]) => s.state === "stream-wals" && s.last_remote_wal === p.last_wal && s.merkle_root === p.merkle_root,
    600_000,
  );
  const catchUpMs = Date.now() - activated;
  return { writeMs, catchUpMs, before, after: memory() };
}

process.on("message", async (message: { id: number; run?: boolean }) => {
  try {
    process.send!({ id: message.id, ...(await run()) });
  } catch (error) {
    process.send!({ id: message.id, error: (error as Error).stack });
  }
});
process.send!({ ready: 0 });
