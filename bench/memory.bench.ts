// Issue 11: memory before, during and after a sustained write load and after a maximum-size body
// attack on `npm start` (all three APIs in one process), and the latency other clients see while
// one client sends maximum-size bodies.
import { request } from "node:http";
import autocannon from "autocannon";
import { int, load, mb, ms, portsOf, progress, report, rssOf, SECONDS, startChild, table, verdict, type Child, type LoadResult } from "./lib.ts";
import { BIG_TEAM, ORG_TOKEN, SECRETS_TOKEN } from "./worlds.ts";

/** A role write of about 20 KB (200 policy ARNs), so that anything kept per write shows. */
const BIG_ROLE = JSON.stringify({
  credential_type: "iam_user",
  policy_arns: Array.from({ length: 200 }, (_, i) => `arn:aws:iam::123456789012:policy/bench-policy-${String(i).padStart(4, "0")}-${"x".repeat(60)}`),
});

/**
 * Sends one POST of `size` bytes of `[` (JSON nested as deep as it goes) to the secrets API,
 * as fast as the connection takes it; resolves with the status and the time it took.
 */
function hugeBody(port: number, size: number, token: string | undefined): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/aws/roles/attack",
        headers: { "content-type": "application/json", "content-length": size, ...(token ? { "x-secrets-token": token } : {}) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
      },
    );
    req.on("error", () => resolve({ status: 0, ms: Date.now() - started }));
    const chunk = Buffer.alloc(1 << 20, "[");
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(chunk.length, size - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/**
 * The largest body the secrets API accepts with a valid token, found from Content-Length alone;
 * undefined when the server does not refuse a declared length before reading the body.
 */
async function acceptedBodyLimit(port: number): Promise<number | undefined> {
  // A declared length over the limit is refused at once; one under it makes the server wait.
  const refusedAtOnce = (length: number) =>
    new Promise<boolean>((resolve) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/v1/aws/roles/probe", headers: { "content-length": length, "x-secrets-token": SECRETS_TOKEN } }, (res) => {
        res.resume();
        resolve(res.statusCode === 413);
        req.destroy();
      });
      req.on("error", () => resolve(false));
      req.flushHeaders();
      setTimeout(() => {
        resolve(false);
        req.destroy();
      }, 300);
    });
  let low = 1024;
  let high = 256 * 1024 * 1024;
  if (!(await refusedAtOnce(high))) return undefined;
  while (high - low > 1024) {
    const mid = Math.floor((low + high) / 2);
    if (await refusedAtOnce(mid)) high = mid;
    else low = mid;
  }
  return low;
}

export async function memorySection(): Promise<void> {
  progress("memory: starting npm start (server/main.ts, all three APIs)");
  const child: Child = await startChild("bench/serve-all.ts", {}, {
    ORG_PLATFORM_PORT: "0",
    MESH_PORT: "0",
    SECRETS_PORT: "0",
    SECRETS_CLUSTER_PORT: "0",
    SECRETS_ROOT_TOKEN: SECRETS_TOKEN,
  });
  try {
    const ports = portsOf(child.output());
    const pid = child.process.pid!;
    const memoryRows: (string | number)[][] = [];
    const note = async (moment: string) => {
      const raw = rssOf(pid);
      const after = await child.memory();
      memoryRows.push([moment, mb(raw), mb(after.rss), mb(after.heapUsed), mb(after.external + after.arrayBuffers)]);
      return after.rss;
    };
    const mesh = `http://127.0.0.1:${ports.mesh}/v1`;
    const org = `http://127.0.0.1:${ports.org}/api/v2`;
    const secrets = `http://127.0.0.1:${ports.secrets}/v1`;
    // Warm every path once so that the start figure is the server ready for traffic.
    await load({ url: `${mesh}/discovery-chain/web`, seconds: 1, cold: true, connections: 2 });
    const start = await note("start (after 1 s of reads)");

    // Sustained writes on the three APIs at once; RSS sampled every 200 ms.
    const seconds = Math.max(5, SECONDS * 2);
    progress(`memory: sustained writes on the three APIs for ${seconds}s`);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 200);
    let meshWrites = 0;
    const writes = await Promise.all([
      autocannon({ url: `${secrets}/aws/roles/bench-big`, method: "POST", headers: { "x-secrets-token": SECRETS_TOKEN }, body: BIG_ROLE, connections: 6, duration: seconds }),
      // Each mesh write changes the entry (a write that leaves it as it is changes nothing and is not applied).
      autocannon({ url: `${mesh}/config`, method: "PUT", requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ Kind: "service-defaults", Name: "bench-api", Protocol: "http", Meta: { write: String(++meshWrites) } }) }) }], connections: 5, duration: seconds }),
      autocannon({
        url: `${org}/teams/team-Mx7kRb2tYq9hWn5C`,
        method: "PATCH",
        headers: { authorization: `Bearer ${ORG_TOKEN}`, "content-type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "teams", attributes: { visibility: "organization" } } }),
        connections: 5,
        duration: seconds,
      }),
    ]);
    clearInterval(sampler);
    memoryRows.push([`peak during the writes (${int(writes.reduce((s, w) => s + w.requests.total, 0))} writes, ${int(writes.reduce((s, w) => s + w.non2xx + w.errors, 0))} not 2xx)`, mb(peak), "", "", ""]);
    await new Promise((r) => setTimeout(r, 2000));
    const afterWrites = await note("2 s after the writes");

    // The stall: others' reads while one client sends maximum-size bodies.
    const found = await acceptedBodyLimit(ports.secrets);
    // Without an early refusal, the real system's default limit (max_request_size, 32 MiB).
    const limit = found ?? 32 * 1024 * 1024;
    progress(
      found === undefined
        ? "memory: the secrets API does not refuse a declared Content-Length before reading: sending 32 MiB bodies"
        : `memory: the secrets API refuses declared bodies over ${int(found)} bytes at once: sending bodies of that size`,
    );
    const others = (): Promise<LoadResult>[] => [
      load({ url: `${mesh}/discovery-chain/web`, connections: 4, cold: true, seconds: Math.max(3, SECONDS) }),
      load({ url: `${org}/organizations/acme/teams`, headers: { authorization: `Bearer ${ORG_TOKEN}` }, connections: 4, cold: true, seconds: Math.max(3, SECONDS) }),
    ];
    const stallRows: (string | number)[][] = [];
    const measure = async (label: string, attack?: { size: number; token?: string }) => {
      progress(`memory: other clients' latency, ${label}`);
      let stop = false;
      const attacks: { status: number; ms: number }[] = [];
      let peakDuring = 0;
      const sampler = setInterval(() => (peakDuring = Math.max(peakDuring, rssOf(pid))), 100);
      const attacker = (async () => {
        while (attack && !stop) attacks.push(await hugeBody(ports.secrets, attack.size, attack.token));
      })();
      const [meshReads, orgReads] = await Promise.all(others());
      stop = true;
      await attacker;
      clearInterval(sampler);
      // 0: the server closed the connection before answering (it refuses without reading the body).
      const statuses = [...new Set(attacks.map((a) => (a.status === 0 ? "closed" : String(a.status))))].join(", ");
      const worst = Math.max(meshReads!.p99, orgReads!.p99);
      stallRows.push([
        label,
        attack ? `${attacks.length} × ${mb(attack.size)} MB → ${statuses || "none"} (${ms(attacks.reduce((s, a) => s + a.ms, 0) / Math.max(1, attacks.length))} ms each)` : "",
        `${ms(meshReads!.p50)} / ${ms(meshReads!.p99)} / ${ms(meshReads!.max)}`,
        `${ms(orgReads!.p50)} / ${ms(orgReads!.p99)} / ${ms(orgReads!.max)}`,
        mb(peakDuring),
        attack ? verdict(worst < 100) : "",
      ]);
    };
    await measure("no attack");
    await measure("one client, no token, maximum-size body of '['", { size: limit });
    await measure("one client with a token, maximum-size body of '['", { size: limit, token: SECRETS_TOKEN });
    await new Promise((r) => setTimeout(r, 2000));
    const afterAttack = await note("2 s after the attacks");

    report(
      "Memory of npm start (all three APIs in one process), MB",
      table(["moment", "RSS", "RSS after a gc", "heap used", "external + buffers"], memoryRows),
      "",
      `after the writes: ${((100 * afterWrites) / start - 100).toFixed(0)}% from the start; after the attacks: ${((100 * afterAttack) / start - 100).toFixed(0)}% (target: within 20%) ${verdict(afterAttack <= start * 1.2 && afterWrites <= start * 1.2)}`,
    );
    report(
      `Other clients while one client sends maximum-size bodies to the secrets API (4 connections each, p50 / p99 / max ms; target p99 < 100 ms)`,
      table(["while", "attack", "mesh GET chain", "org GET teams", "peak RSS MB", "p99 < 100 ms"], stallRows),
    );
  } finally {
    await child.stop();
  }
}
