// Mesh benchmarks, printed as figures and as ratios measured in one run (machines are shared
// and noisy, so only ratios are compared). Run: npm run bench
//  1. GET /v1/discovery-chain/{name}: reference server with validation, without, and Prism.
//  2. Compile time of every chain of a mesh of 1,000 services with routers, splitters, resolvers.
//  3. Start-up time of `npm start` until it prints "Ready.".
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import autocannon from "autocannon";
import { compileDiscoveryChain } from "../server/mesh/domain/compiler.ts";
import { validateEntry } from "../server/mesh/domain/config-entry.ts";
import type { ConfigEntry } from "../server/mesh/domain/entries.ts";
import { lookupOf, MemoryConfigEntryStore } from "../server/mesh/store/config-entry-store.ts";
import { startPrism } from "../test/helpers/prism.ts";

const root = path.resolve(import.meta.dirname, "..");
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 16;

function startServer(validate: boolean): Promise<{ baseUrl: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/serve-mesh.ts"], {
    cwd: root,
    env: { ...process.env, BENCH_VALIDATE: validate ? "1" : "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve) =>
    child.stdout!.on("data", (chunk: Buffer) => {
      const port = /PORT (\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, child });
    }),
  );
}

async function load(url: string): Promise<{ rps: number; p99: number; errors: number }> {
  await autocannon({ url, connections: CONNECTIONS, duration: 1 }); // warm-up
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function httpFigures(): Promise<void> {
  const validated = await startServer(true);
  const unvalidated = await startServer(false);
  const prism = await startPrism("mesh");
  try {
    // One target at a time, so they do not compete for the two cores.
    const figures = {
      validated: await load(`${validated.baseUrl}/discovery-chain/web`),
      unvalidated: await load(`${unvalidated.baseUrl}/discovery-chain/web`),
      prism: await load(`${prism.baseUrl}/discovery-chain/web`),
    };
    console.log(`\nGET /v1/discovery-chain/web, ${CONNECTIONS} connections, ${DURATION_S}s each`);
    console.table(
      Object.fromEntries(
        Object.entries(figures).map(([name, f]) => [name, { "requests/s": Math.round(f.rps), "p99 ms": f.p99, "errors+non-2xx": f.errors }]),
      ),
    );
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    console.log(`validated / unvalidated requests/s: ${ratio(figures.validated.rps, figures.unvalidated.rps)} (target >= 0.6)`);
    console.log(`validated / Prism requests/s:       ${ratio(figures.validated.rps, figures.prism.rps)} (target >= 3)`);
  } finally {
    validated.child.kill();
    unvalidated.child.kill();
    prism.close();
  }
}

/** 1,000 http services; every other one splits 90/10 over subsets, every third routes /api onward. */
function meshOf(size: number): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  const name = (i: number) => `svc-${i % size}`;
  for (let i = 0; i < size; i++) {
    entries.push({ Kind: "service-defaults", Name: name(i), Protocol: "http" });
    entries.push({
      Kind: "service-resolver",
      Name: name(i),
      ConnectTimeout: "3s",
      Subsets: { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } },
      Failover: { "*": { Datacenters: ["dc2", "dc3"] } },
    });
    if (i % 2 === 0) {
      entries.push({ Kind: "service-splitter", Name: name(i), Splits: [{ Weight: 90, ServiceSubset: "v1" }, { Weight: 10, ServiceSubset: "v2" }] });
    }
    if (i % 3 === 0) {
      entries.push({
        Kind: "service-router",
        Name: name(i),
        Routes: [
          { Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: name(i + 1) } },
          { Match: { HTTP: { Header: [{ Name: "x-version", Exact: "2" }] } }, Destination: { ServiceSubset: "v2" } },
        ],
      });
    }
  }
  return entries;
}

function compileFigures(): void {
  const size = 1000;
  const store = new MemoryConfigEntryStore(meshOf(size).map(validateEntry));
  const lookup = lookupOf((kind, ns, n) => store.get(kind, ns, n));
  const compileAll = () => {
    for (let i = 0; i < size; i++) {
      compileDiscoveryChain(lookup, { serviceName: `svc-${i}`, namespace: "default", datacenter: "dc1", trustDomain: "bench.mesh" });
    }
  };
  compileAll(); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const started = process.hrtime.bigint();
    compileAll();
    rounds.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  rounds.sort((a, b) => a - b);
  const median = rounds[2]!;
  console.log(`\nCompile every chain of a ${size}-service mesh (${store.all().length} entries): median ${median.toFixed(1)} ms of 5 rounds, ${((median * 1000) / size).toFixed(1)} µs per chain`);
}

async function startupFigure(): Promise<void> {
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: { ...process.env, MESH_PORT: "0", SECRETS_PORT: "0", ORG_PLATFORM_PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout!.on("data", (c: Buffer) => c.toString().includes("Ready.") && resolve()));
  console.log(`\nnpm start (server/main.ts) ready after ${Date.now() - started} ms`);
  child.kill("SIGINT");
}

await httpFigures();
compileFigures();
await startupFigure();
