// A/B of two builds of the secrets server on the same machine in one run, alternating, for a change
// to the connection path (e.g. how LIST is accepted, server/secrets/http/list-method.ts). Each build
// is a bundle of bench/serve.ts: B is the working tree's, A the one named by BENCH_BASELINE (make it
// before the change: `npx tsx bench/list-ab.ts --bundle-only` and copy .build/bench/serve.bundle.mjs).
// Prints, per round and operation, requests/s and the server's CPU time a request, and the B/A ratio
// of the medians. Usage: BENCH_BASELINE=.build/bench/serve-before.bundle.mjs npx tsx bench/list-ab.ts [rounds]
// (the baseline must sit inside the tree, so that its imports find node_modules).
// --bare: the connection path alone instead (bench/list-bare.ts): a bare Node server plain, through
// acceptListMethod, and through BENCH_BASELINE_MODULE (an .mjs build of another list-method.ts).
import path from "node:path";
import { bundled, load, progress, startChild, table, type Child, type LoadResult } from "./lib.ts";
import { ROLE_BODY, SECRETS_TOKEN } from "./worlds.ts";

const args = process.argv.slice(2);
const spec = { api: "secrets", size: 100, validate: true };

if (args.includes("--bundle-only")) {
  console.log(await bundled("bench/serve.ts"));
  process.exit(0);
}

const bare = args.includes("--bare");
const baseline = process.env.BENCH_BASELINE;
const baselineModule = process.env.BENCH_BASELINE_MODULE;
if (!bare && !baseline) throw new Error("BENCH_BASELINE: the path of the bundle to compare with (see the head of this file)");
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 4);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);

let fresh = 0;
const operations = bare
  ? [
      { name: "bare GET", method: "GET", path: "/v1/aws/roles/bench-1" },
      { name: "bare POST (JSON body)", method: "POST", path: "/v1/aws/roles/bench-hot", bodyAt: () => ROLE_BODY },
      { name: "bare LIST", method: "LIST", path: "/v1/aws/roles" },
    ]
  : [
  { name: "secrets write POST /v1/aws/roles/{name}", method: "POST", path: "/v1/aws/roles/bench-hot", bodyAt: () => ROLE_BODY },
  { name: "secrets read GET /v1/aws/roles/bench-1 (never a repeat)", method: "GET", path: "/v1/aws/roles/bench-1", pathAt: (n: number) => `/v1/aws/roles/bench-1?n=${++fresh}-${n}` },
  { name: "secrets LIST /v1/aws/roles (100)", method: "LIST", path: "/v1/aws/roles" },
    ];

const targets: { name: string; child: Child }[] = bare
  ? [
      { name: "A (plain, no LIST)", child: await startChild("bench/list-bare.ts", { mode: "plain" }) },
      { name: "B (acceptListMethod)", child: await startChild("bench/list-bare.ts", { mode: "list" }) },
      ...(baselineModule ? [{ name: "C (BENCH_BASELINE_MODULE)", child: await startChild("bench/list-bare.ts", { mode: "module", module: path.resolve(baselineModule) }) }] : []),
    ]
  : [
      { name: "A (baseline)", child: await startChild(baseline!, spec) },
      { name: "B (working tree)", child: await startChild("bench/serve.ts", spec) },
    ];
const results = new Map<string, LoadResult[]>();
try {
  for (let round = 1; round <= rounds; round++) {
    // Alternate the order each round: neither build always runs first on a machine others share.
    const order = round % 2 ? targets : [...targets].reverse();
    for (const op of operations) {
      for (const { name, child } of order) {
        progress(`round ${round}: ${op.name} on ${name}`);
        const r = await load({
          url: `http://127.0.0.1:${child.port}${op.path}`,
          method: op.method,
          headers: { "x-secrets-token": SECRETS_TOKEN, ...(op.bodyAt ? { "content-type": "application/json" } : {}) },
          ...(op.bodyAt ? { bodyAt: op.bodyAt } : {}),
          ...("pathAt" in op ? { pathAt: op.pathAt } : {}),
          seconds,
          pid: child.process.pid,
        });
        // A bare plain server refuses LIST (Node's parser): that row measures the refusal.
        if (r.bad > 0 && !(bare && op.method === "LIST")) throw new Error(`${op.name} on ${name}: ${r.bad} requests failed`);
        const key = `${op.name}\t${name}`;
        results.set(key, [...(results.get(key) ?? []), r]);
      }
    }
  }
} finally {
  for (const { child } of targets) await child.stop();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows = operations.flatMap((op) => {
  const [a, ...others] = targets.map((t) => results.get(`${op.name}\t${t.name}`)!);
  const rpsA = median(a!.map((r) => r.rps));
  const cpuA = median(a!.map((r) => r.cpuPerRequest ?? 0));
  return others.map((b, i) => {
    const rpsB = median(b.map((r) => r.rps));
    const cpuB = median(b.map((r) => r.cpuPerRequest ?? 0));
    return [
      `${op.name}: ${targets[i + 1]!.name} vs ${targets[0]!.name}`,
      a!.map((r) => Math.round(r.rps)).join(" "),
      b.map((r) => Math.round(r.rps)).join(" "),
      (rpsB / rpsA).toFixed(3),
      `${cpuA.toFixed(1)} → ${cpuB.toFixed(1)}`,
      (cpuB / cpuA).toFixed(3),
    ];
  });
});
console.log(table(["operation", "A req/s by round", "other req/s by round", "req/s ratio (medians)", "server CPU µs/request (medians)", "CPU ratio"], rows));
