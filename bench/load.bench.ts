// `npm run bench -- load`: the three APIs of npm start under 100 connections each of mixed reads
// and writes (LOAD_SECONDS, 60; 5 with --quick), first alone, then with the attacks of issue 25
// running at the same time, each from its own address (127.0.0.2 to .5): 1,100 silent connections to each API,
// 20 slow 30 MiB bodies with a valid token, bodies announced with `Expect: 100-continue` and no
// token, request lines and header blocks over the limit. Printed: the legitimate clients' requests,
// errors and p50/p99, what the attackers got, and the process's peak and settled memory.
// The server runs with 4,096 descriptors (a budget of 3,584 connections, 896 per address), so that
// the legitimate 300 connections from one address fit and the silent ones pass their share.
import { connect, type Socket } from "node:net";
import autocannon from "autocannon";
import { int, mb, ms, portsOf, progress, QUICK, report, rssOf, startChild, table, verdict, type Child, type Ports } from "./lib.ts";
import { ORG_TOKEN, SECRETS_TOKEN } from "./worlds.ts";

const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? (QUICK ? 5 : 60));
/** One address per attack (any 127.x address reaches the loopback listener): each is its own client. */
const SILENT = "127.0.0.2";
const SLOW = "127.0.0.3";
const EXPECTING = "127.0.0.4";
const OVERSIZED = "127.0.0.5";
const TEAM = "team-Mx7kRb2tYq9hWn5C";

/** Mixed reads and writes on each API: every connection alternates a read and a write. */
function legitimate(ports: Ports): Array<{ api: string; run: () => ReturnType<typeof autocannon> }> {
  const common = { connections: 100, duration: LOAD_SECONDS };
  let meshWrite = 0;
  return [
    {
      api: "org platform (GET teams, PATCH team)",
      run: () =>
        autocannon({
          ...common,
          url: `http://127.0.0.1:${ports.org}`,
          headers: { authorization: `Bearer ${ORG_TOKEN}`, "content-type": "application/vnd.api+json" },
          requests: [
            { method: "GET", path: "/api/v2/organizations/acme/teams" },
            { method: "PATCH", path: `/api/v2/teams/${TEAM}`, body: JSON.stringify({ data: { type: "teams", attributes: { visibility: "organization" } } }) },
          ],
        }),
    },
    {
      api: "secrets (GET role, POST role)",
      run: () =>
        autocannon({
          ...common,
          url: `http://127.0.0.1:${ports.secrets}`,
          headers: { "x-secrets-token": SECRETS_TOKEN },
          requests: [
            { method: "GET", path: "/v1/aws/roles/load" },
            { method: "POST", path: "/v1/aws/roles/load", body: JSON.stringify({ credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }) },
          ],
        }),
    },
    {
      api: "mesh (GET chain, PUT entry)",
      run: () =>
        autocannon({
          ...common,
          url: `http://127.0.0.1:${ports.mesh}`,
          requests: [
            { method: "GET", path: "/v1/discovery-chain/load" },
            {
              method: "PUT",
              path: "/v1/config",
              setupRequest: (request) => ({ ...request, body: JSON.stringify({ Kind: "service-defaults", Name: "load", Protocol: "http", Meta: { write: String(++meshWrite) } }) }),
            },
          ],
        }),
    },
  ];
}

interface AttackTally {
  silentOpened: number;
  /** Silent connections refused at once (503: the address's share of connections is taken). */
  silent503: number;
  /** Silent connections dropped once their header block was late (408). */
  silent408: number;
  slowBodies: number;
  slow503: number;
  expectTries: number;
  expectInvited: number;
  oversized: number;
  oversized431: number;
}

/** The attacks, until `stop()`: each from 127.0.0.2, each reopening what the server closes. */
function attack(ports: Ports): { stop: () => Promise<void>; tally: AttackTally } {
  const tally: AttackTally = { silentOpened: 0, silent503: 0, silent408: 0, slowBodies: 0, slow503: 0, expectTries: 0, expectInvited: 0, oversized: 0, oversized431: 0 };
  let stopped = false;
  const sockets = new Set<Socket>();
  const open = (port: number, localAddress: string): Socket => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    socket.on("error", () => undefined);
    socket.resume(); // read what the server says, so that its close is seen
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    return socket;
  };
  const pause = (msValue: number) => new Promise((resolve) => setTimeout(resolve, msValue));
  const loops: Promise<void>[] = [];
  const all = [ports.org, ports.secrets, ports.mesh];

  // 1,100 silent connections to each API, reopened 100 ms after the server drops one.
  for (const port of all) {
    for (let i = 0; i < 1100; i++) {
      loops.push(
        (async () => {
          while (!stopped) {
            const socket = open(port, SILENT);
            tally.silentOpened++;
            let answer = "";
            socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
            await new Promise((resolve) => socket.once("close", resolve));
            if (answer.startsWith("HTTP/1.1 503")) tally.silent503++;
            if (answer.startsWith("HTTP/1.1 408")) tally.silent408++;
            await pause(100);
          }
        })(),
      );
    }
  }
  // 20 bodies of 30 MiB to the secrets API with the root token, 64 KiB every 50 ms (about 1.3 MB/s each).
  for (let i = 0; i < 20; i++) {
    loops.push(
      (async () => {
        while (!stopped) {
          const socket = open(ports.secrets, SLOW);
          let answer = "";
          socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
          // Blanks after `{`: within every shape limit, so only the byte budgets stop it.
          socket.write(`POST /v1/aws/roles/slow-${i} HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${SECRETS_TOKEN}\r\nContent-Length: ${30 * 1024 * 1024}\r\n\r\n{`);
          const chunk = Buffer.alloc(64 * 1024, " ");
          while (!stopped && !socket.destroyed && answer === "") {
            socket.write(chunk);
            await pause(50);
          }
          if (stopped) break;
          tally.slowBodies++;
          if (answer.startsWith("HTTP/1.1 503")) tally.slow503++;
          socket.destroy();
          await pause(100);
        }
      })(),
    );
  }
  // Bodies announced with Expect: 100-continue and no token (org platform, secrets).
  for (const [port, path] of [
    [ports.org, "/api/v2/organizations/acme/teams"],
    [ports.secrets, "/v1/aws/roles/expect"],
  ] as const) {
    loops.push(
      (async () => {
        while (!stopped) {
          const socket = open(port, EXPECTING);
          let answer = "";
          socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
          socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\nExpect: 100-continue\r\n\r\n`);
          await new Promise((resolve) => socket.once("close", resolve));
          if (stopped) break;
          tally.expectTries++;
          if (answer.includes("100 Continue")) tally.expectInvited++;
          await pause(20);
        }
      })(),
    );
  }
  // Request lines of 100 KB, one connection at a time to each API.
  for (const port of all) {
    loops.push(
      (async () => {
        while (!stopped) {
          const socket = open(port, OVERSIZED);
          let answer = "";
          socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
          socket.write(`GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
          await new Promise((resolve) => socket.once("close", resolve));
          if (stopped) break;
          tally.oversized++;
          if (answer.startsWith("HTTP/1.1 431")) tally.oversized431++;
          await pause(20);
        }
      })(),
    );
  }
  return {
    tally,
    stop: async () => {
      stopped = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
    },
  };
}

export async function loadSection(): Promise<void> {
  progress("load: starting npm start (server/main.ts) with 4,096 descriptors");
  const child: Child = await startChild(
    "bench/serve-all.ts",
    {},
    { ORG_PLATFORM_PORT: "0", MESH_PORT: "0", SECRETS_PORT: "0", SECRETS_CLUSTER_PORT: "0", SECRETS_ROOT_TOKEN: SECRETS_TOKEN },
    300_000,
    [],
    ["prlimit", "--nofile=4096:4096"],
  );
  try {
    const ports = portsOf(child.output());
    const pid = child.process.pid!;
    const limits = /^Limits .*$/m.exec(child.output())?.[0] ?? "";
    // The things the reads read exist before the load starts.
    await fetch(`http://127.0.0.1:${ports.secrets}/v1/aws/roles/load`, { method: "POST", headers: { "x-secrets-token": SECRETS_TOKEN }, body: JSON.stringify({ credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] }) });
    await fetch(`http://127.0.0.1:${ports.mesh}/v1/config`, { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "load", Protocol: "http" }) });
    const start = (await child.memory()).rss;
    const rows: (string | number)[][] = [];
    let peak = 0;
    const run = async (label: string, attacks: boolean) => {
      progress(`load: 100 connections on each API for ${LOAD_SECONDS} s, ${label}`);
      peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 200);
      const attacker = attacks ? attack(ports) : undefined;
      if (attacker) await new Promise((resolve) => setTimeout(resolve, 2000)); // the attacks in place first
      const results = await Promise.all(legitimate(ports).map(async ({ api, run: go }) => ({ api, result: await go() })));
      const tally = attacker?.tally;
      await attacker?.stop();
      clearInterval(sampler);
      for (const { api, result } of results) {
        // autocannon counts a timeout among its errors too.
        const failed = result.errors + result.non2xx;
        rows.push([label, api, int(result.requests.total), int(failed), `${ms(result.latency.p50)} / ${ms(result.latency.p99)} / ${ms(result.latency.max)}`, verdict(failed === 0)]);
      }
      rows.push([label, "process", "", "", `peak RSS ${mb(peak)} MB`, ""]);
      if (tally) {
        progress(`load: attacks ${JSON.stringify(tally)}`);
        return { tally, peak };
      }
      return { peak };
    };
    const alone = await run("alone", false);
    const attacked = await run("under attack", true);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const settled = await child.memory();
    const t = attacked.tally!;
    report(
      `Load: 100 connections of mixed reads and writes on each API for ${LOAD_SECONDS} s, alone and under attack (npm start, 4,096 descriptors)`,
      limits,
      "",
      table(["phase", "legitimate clients", "requests", "errors", "p50 / p99 / max ms", "0 errors"], rows),
      "",
      `Attacks during the second phase, each from its own address: ${int(t.silentOpened)} silent connections opened (1,100 at a time to each API), ${int(t.silent503)} refused at once with 503 (the address's share taken), ${int(t.silent408)} dropped with 408 after the header timeout; ` +
        `${int(t.slowBodies)} slow 30 MiB bodies with a valid token answered, ${int(t.slow503)} of them with 503 for the body budget; ` +
        `${int(t.expectTries)} bodies announced with Expect: 100-continue and no token, ${int(t.expectInvited)} invited ${verdict(t.expectInvited === 0)}; ` +
        `${int(t.oversized)} request lines of 100 KB, ${int(t.oversized431)} answered 431 ${verdict(t.oversized431 === t.oversized)}.`,
      "",
      `Memory (RSS): ${mb(start)} MB at the start; peak ${mb(alone.peak ?? 0)} MB under load alone, ${mb(attacked.peak ?? 0)} MB under attack; ${mb(settled.rss)} MB 5 s after (after a gc).`,
    );
  } finally {
    await child.stop();
  }
}
