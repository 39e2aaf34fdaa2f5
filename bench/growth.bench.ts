// How cost grows with the data: each figure at 1x, 10x and 100x, so a reader sees whether it is
// constant, linear or worse. Every server runs in its own process; memory is measured there after
// a full garbage collection.
import { connect, type Socket } from "node:net";
import { int, mb, ms, progress, QUICK, report, sequentialLatency, startChild, table, type Child } from "./lib.ts";
import { BIG_TEAM, ORG_TOKEN, SECRETS_TOKEN } from "./worlds.ts";

const STEPS = (base: number) => (QUICK ? [base, base * 10] : [base, base * 10, base * 100]);

/**
 * Growth of one figure from the first step to the last, against what it should be: "constant"
 * (a per-request cost that must not depend on the data) or "linear" (work proportional to it).
 */
function growth(values: number[], sizes: number[], expected: "constant" | "linear" = "linear"): string {
  const first = values[0]!;
  const last = values[values.length - 1]!;
  const dataFactor = sizes[sizes.length - 1]! / sizes[0]!;
  const factor = first > 0 ? last / first : 0;
  // Loose bounds: single runs on a shared machine move by 2x easily.
  const shape = factor <= 3 ? "constant" : factor <= dataFactor * 1.5 ? "linear" : "**worse than linear**";
  const defect = (expected === "constant" && shape !== "constant") || shape.startsWith("**");
  return `x${factor.toFixed(1)} for x${dataFactor} data: ${shape}${defect ? ` (**should be ${expected}**)` : ""}`;
}

/**
 * A query parameter no request had before: the servers send a read's answer again, unchanged, until
 * a write (server/shared/answer-memo.ts); growth is about working answers out, so no read here is
 * answered from what was kept (the servers ignore query parameters they do not know).
 */
let freshReads = 0;
const fresh = () => `fresh=${++freshReads}`;

async function meshServices(): Promise<void> {
  const sizes = STEPS(100);
  const rows: (string | number)[][] = [];
  const compile: number[] = [];
  const memory: number[] = [];
  const read: number[] = [];
  const writes: number[] = [];
  for (const size of sizes) {
    progress(`growth: mesh with ${int(size)} services`);
    const started = Date.now();
    const child = await startChild("bench/serve.ts", { api: "mesh", size, validate: true });
    const loadMs = Date.now() - started;
    try {
      const before = await child.memory();
      const { ms: compileMs } = await child.ask<{ ms: number }>({ compileAll: true });
      const after = await child.memory();
      const base = `http://127.0.0.1:${child.port}/v1`;
      const latency = await sequentialLatency(300, () => fetch(`${base}/discovery-chain/svc-${Math.floor(Math.random() * size)}?${fresh()}`));
      // One write: the server checks that every chain reading the entry still compiles before it
      // stores it. The first write after a start compiles every chain once to learn which those
      // are: it is made first and not counted; then the median of 9 (one write is a few hundred µs
      // of work, so a single garbage collection of the large heap moves any one of them by ms).
      // Each write changes the entry (a write of the stored entry as it is changes nothing and is not applied).
      let writeNumber = 0;
      const putEntry = () =>
        fetch(`${base}/config`, { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "svc-1", Protocol: "http", Meta: { write: String(++writeNumber) } }) });
      await (await putEntry()).arrayBuffer();
      const write = await sequentialLatency(9, putEntry);
      if (write.status !== 200) throw new Error(`PUT /v1/config answered ${write.status}`);
      writes.push(write.p50);
      compile.push(compileMs);
      memory.push(after.heapUsed);
      read.push(latency.p50);
      rows.push([
        int(size),
        int(loadMs),
        `${ms(compileMs)} (${ms((compileMs * 1000) / size)} µs a chain)`,
        `${mb(before.rss)} / ${mb(before.heapUsed)}`,
        `${mb(after.rss)} / ${mb(after.heapUsed)}`,
        `${ms(latency.p50)} / ${ms(latency.p99)}`,
        ms(write.p50),
      ]);
    } finally {
      await child.stop();
    }
  }
  report(
    "Mesh: services (each with defaults and a resolver; a splitter on every other, a router on every third)",
    table(["services", "start (entries put in the store), ms", "compile every chain, ms", "RSS / heap MB loaded", "RSS / heap MB, chains cached", "GET chain p50 / p99 ms", "PUT one entry, ms (median of 9, after the first)"], rows),
    "",
    `compile of every chain: ${growth(compile, sizes)}; heap: ${growth(memory, sizes)}; chain read p50: ${growth(read, sizes, "constant")}; one write: ${growth(writes, sizes, "constant")}`,
    "(a write compiles the chains that read the changed entry; the first write after a start compiles every chain once to learn which, and is not counted: see docs/benchmarks.md)",
  );
}

/** A raw HTTP/1.1 GET on its own connection; resolves with the time its whole answer arrived. */
function heldRequest(port: number, path: string): { sent: Promise<void>; answered: Promise<{ at: bigint; status: number }>; socket: Socket } {
  const socket = connect(port, "127.0.0.1");
  let received = Buffer.alloc(0);
  const sent = new Promise<void>((resolve) => socket.once("connect", () => socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\n\r\n`, () => resolve())));
  const answered = new Promise<{ at: bigint; status: number }>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf("\r\n\r\n");
      if (headEnd === -1) return;
      const head = received.subarray(0, headEnd).toString("latin1");
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length >= headEnd + 4 + length) {
        resolve({ at: process.hrtime.bigint(), status: Number(head.split(" ")[1]) });
        socket.destroy();
      }
    });
    socket.on("error", reject);
  });
  return { sent, answered, socket };
}

async function blockingQueries(): Promise<void> {
  const sizes = STEPS(100);
  const rows: (string | number)[][] = [];
  const perWatcher: number[] = [];
  const p99s: number[] = [];
  const child = await startChild("bench/serve.ts", { api: "mesh", validate: true });
  try {
    const base = `http://127.0.0.1:${child.port}/v1`;
    // A first write and read, so that the figures do not include building the validators.
    const warm = await fetch(`${base}/config`, { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: "http" }) });
    await warm.arrayBuffer();
    await (await fetch(`${base}/discovery-chain/web`)).arrayBuffer();
    for (const size of sizes) {
      progress(`growth: ${int(size)} blocking queries on the web chain`);
      const first = await fetch(`${base}/discovery-chain/web`);
      await first.arrayBuffer();
      const index = first.headers.get("x-mesh-index");
      const before = await child.memory();
      const held: ReturnType<typeof heldRequest>[] = [];
      for (let i = 0; i < size; i++) {
        held.push(heldRequest(child.port, `/v1/discovery-chain/web?index=${index}&wait=5m`));
        if (i % 500 === 499) await Promise.all(held.slice(-500).map((h) => h.sent));
      }
      await Promise.all(held.map((h) => h.sent));
      // Every query is waiting once the server holds one subscription per query.
      const deadline = Date.now() + 120_000;
      let waiting = 0;
      while ((waiting = (await child.ask<{ watchers: number }>({ watchers: true })).watchers) < size && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const during = await child.memory();
      const written = process.hrtime.bigint();
      const write = await fetch(`${base}/config`, { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: "http", Meta: { round: String(size) } }) });
      if (write.status !== 200) throw new Error(`write: ${write.status} ${await write.text()}`);
      await write.arrayBuffer();
      const writeMs = Number(process.hrtime.bigint() - written) / 1e6;
      const answers = await Promise.all(held.map((h) => h.answered));
      const latencies = answers.map((a) => Number(a.at - written) / 1e6).sort((a, b) => a - b);
      const bad = answers.filter((a) => a.status !== 200).length;
      const p99 = latencies[Math.min(size - 1, Math.floor(size * 0.99))]!;
      const per = (during.heapUsed - before.heapUsed) / size;
      perWatcher.push(per);
      p99s.push(p99);
      rows.push([
        int(size),
        int(waiting),
        ms(writeMs),
        `${mb(during.rss - before.rss)} / ${mb(during.heapUsed - before.heapUsed)}`,
        `${int(per / 1024)} KB`,
        `${ms(latencies[Math.floor(size / 2)]!)} / ${ms(p99)} / ${ms(latencies[size - 1]!)}`,
        bad,
      ]);
    }
  } finally {
    await child.stop();
  }
  report(
    "Mesh: blocking queries held open on GET /v1/discovery-chain/web, then one write to it",
    table(["queries", "held by the server", "the write answered, ms", "RSS / heap MB added", "heap per query", "write → answer p50 / p99 / last, ms", "answers not 200"], rows),
    "",
    `memory per query: ${growth(perWatcher, sizes, "constant")}; p99 write → answer: ${growth(p99s, sizes)} (answering N queries is N answers: linear is expected)`,
  );
}

async function orgTeams(): Promise<void> {
  const sizes = STEPS(100);
  const rows: (string | number)[][] = [];
  const pages: number[] = [];
  for (const size of sizes) {
    progress(`growth: org with ${int(size)} teams, one of them with 1,000 members`);
    const child = await startChild("bench/serve.ts", { api: "org", size, members: 1000, validate: true });
    try {
      const base = `http://127.0.0.1:${child.port}/api/v2`;
      const headers = { authorization: `Bearer ${ORG_TOKEN}` };
      const get = (path: string) => () => fetch(`${base}${path}${path.includes("?") ? "&" : "?"}${fresh()}`, { headers });
      const lastPage = Math.ceil((size + 4) / 20);
      const firstPage = await sequentialLatency(200, get("/organizations/acme/teams?page%5Bsize%5D=20"));
      const last = await sequentialLatency(200, get(`/organizations/acme/teams?page%5Bnumber%5D=${lastPage}&page%5Bsize%5D=20`));
      const withUsers = await sequentialLatency(50, get("/organizations/acme/teams?page%5Bsize%5D=20&include=users"));
      const oneTeam = await sequentialLatency(50, get(`/teams/${BIG_TEAM}?include=users`));
      const memory = await child.memory();
      for (const l of [firstPage, last, withUsers, oneTeam]) if (l.status !== 200) throw new Error(`org answered ${l.status}`);
      pages.push(firstPage.p50);
      rows.push([
        int(size),
        `${ms(firstPage.p50)} / ${ms(firstPage.p99)}`,
        `${ms(last.p50)} / ${ms(last.p99)}`,
        `${ms(withUsers.p50)} / ${ms(withUsers.p99)}`,
        `${ms(oneTeam.p50)} / ${ms(oneTeam.p99)}`,
        `${mb(memory.rss)} / ${mb(memory.heapUsed)}`,
      ]);
    } finally {
      await child.stop();
    }
  }
  report(
    "Org platform: teams in one organization (p50 / p99 ms, one connection)",
    table(["teams", "list, first page of 20", "list, last page", "first page, include=users (a team of 1,000)", "GET the 1,000-member team, include=users", "RSS / heap MB"], rows),
    "",
    `list page p50: ${growth(pages, sizes, "constant")}`,
  );
}

async function secretsRoles(): Promise<void> {
  const sizes = STEPS(100);
  const rows: (string | number)[][] = [];
  const lists: number[] = [];
  for (const size of sizes) {
    progress(`growth: secrets with ${int(size)} roles`);
    const started = Date.now();
    const child = await startChild("bench/serve.ts", { api: "secrets", size, validate: true });
    const seedMs = Date.now() - started;
    try {
      const base = `http://127.0.0.1:${child.port}/v1`;
      const list = await sequentialLatency(size >= 10_000 ? 30 : 100, () => fetch(`${base}/aws/roles?${fresh()}`, { method: "LIST", headers: { "x-secrets-token": SECRETS_TOKEN } }));
      const read = await sequentialLatency(200, () => fetch(`${base}/aws/roles/bench-1?${fresh()}`, { headers: { "x-secrets-token": SECRETS_TOKEN } }));
      if (list.status !== 200 || read.status !== 200) throw new Error(`secrets answered ${list.status} ${read.status}`);
      const memory = await child.memory();
      lists.push(list.p50);
      rows.push([int(size), int(seedMs), `${ms(list.p50)} / ${ms(list.p99)}`, `${ms(read.p50)} / ${ms(read.p99)}`, `${mb(memory.rss)} / ${mb(memory.heapUsed)}`]);
    } finally {
      await child.stop();
    }
  }
  report(
    "Secrets: roles of the cloud credentials engine (p50 / p99 ms, one connection)",
    table(["roles", "start + write them all, ms", "LIST /v1/aws/roles", "GET one role", "RSS / heap MB"], rows),
    "",
    `LIST p50: ${growth(lists, sizes)} (a LIST answers every name: linear is expected)`,
  );
}

async function performanceCatchUp(): Promise<void> {
  const sizes = QUICK ? [300, 3000] : [1000, 10_000, 100_000];
  const rows: (string | number)[][] = [];
  const times: number[] = [];
  for (const writes of sizes) {
    progress(`growth: performance secondary catching up ${int(writes)} writes`);
    let child: Child | undefined;
    try {
      child = await startChild("bench/replication.ts", { writes });
      const result = await child.ask<{ writeMs: number; catchUpMs: number; before: { rss: number; heapUsed: number }; after: { rss: number; heapUsed: number }; primaryLog: number }>({ run: true }, 1_200_000);
      times.push(result.catchUpMs);
      rows.push([
        int(writes),
        int(result.writeMs),
        int(result.catchUpMs),
        `${mb(result.before.rss)} / ${mb(result.before.heapUsed)}`,
        `${mb(result.after.rss)} / ${mb(result.after.heapUsed)}`,
      ]);
    } catch (error) {
      rows.push([int(writes), "failed", (error as Error).message.split("\n")[0]!.slice(0, 200), "", ""]);
    } finally {
      await child?.stop();
    }
  }
  report(
    "Secrets: a performance secondary activated after N role writes on its primary (both clusters in one process)",
    table(["writes", "writing them, ms", "activation → in sync, ms", "RSS / heap MB before activation", "RSS / heap MB in sync"], rows),
    "",
    times.length === sizes.length ? `catch-up time: ${growth(times, sizes)}` : "",
  );
}

export async function growthSection(): Promise<void> {
  for (const part of [meshServices, blockingQueries, orgTeams, secretsRoles, performanceCatchUp]) {
    try {
      await part();
    } catch (error) {
      report(`${part.name}: failed`, (error as Error).stack?.split("\n").slice(0, 6).join("\n") ?? String(error));
    }
  }
}
