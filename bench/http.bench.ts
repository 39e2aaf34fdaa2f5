// Hot operations of each API against four targets, one at a time on the same machine in one run:
// the reference server validated, the same unvalidated, plain Express 5 answering the same bytes
// (the ceiling of this stack), and Prism mocking the same operation.
import { startPrism } from "../test/helpers/prism.ts";
import { cannedAnswer, CONNECTIONS, int, load, pidWith, QUICK, ms, progress, report, SECONDS, startChild, table, verdict, type Child, type LoadResult } from "./lib.ts";
import type { Canned, ServeSpec } from "./serve.ts";
import { BIG_TEAM, ORG_TOKEN, ROLE_BODY, SECRETS_TOKEN } from "./worlds.ts";

export interface Operation {
  name: string;
  method: string;
  /** Under the API's base path. */
  path: string;
  body?: string;
  /** A body per request (numbered from 1), when the same body every time would not be the same work. */
  bodyAt?: (n: number) => string;
  headers: Record<string, string>;
  /** How Prism and plain Express are asked (Node's parser refuses the LIST method). */
  plainMethod?: string;
  plainPath?: string;
}

export interface Api {
  api: "mesh" | "org" | "secrets";
  prism: string;
  base: string;
  spec: Omit<ServeSpec, "validate">;
  operations: Operation[];
}

export const APIS: Api[] = [
  {
    api: "mesh",
    prism: "mesh",
    base: "/v1",
    spec: { api: "mesh" },
    operations: [
      { name: "mesh GET /v1/discovery-chain/web", method: "GET", path: "/discovery-chain/web", headers: {} },
      {
        name: "mesh PUT /v1/config",
        method: "PUT",
        path: "/config",
        body: JSON.stringify({ Kind: "service-defaults", Name: "bench-api", Protocol: "http" }),
        // Every write changes the entry: one that leaves it as it is changes nothing and is not applied.
        bodyAt: (n) => JSON.stringify({ Kind: "service-defaults", Name: "bench-api", Protocol: "http", Meta: { write: String(n) } }),
        headers: { "content-type": "application/json" },
      },
    ],
  },
  {
    api: "org",
    prism: "org-platform",
    base: "/api/v2",
    spec: { api: "org", size: 100 },
    operations: [
      {
        name: "org GET teams (page of 20 of 104)",
        method: "GET",
        path: "/organizations/acme/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20",
        headers: { authorization: `Bearer ${ORG_TOKEN}` },
      },
      {
        name: "org PATCH /teams/{id}",
        method: "PATCH",
        path: `/teams/${BIG_TEAM}`,
        body: JSON.stringify({ data: { type: "teams", attributes: { visibility: "organization" } } }),
        headers: { authorization: `Bearer ${ORG_TOKEN}`, "content-type": "application/vnd.api+json" },
      },
    ],
  },
  {
    api: "secrets",
    prism: "secrets",
    base: "/v1",
    spec: { api: "secrets", size: 100 },
    operations: [
      {
        name: "secrets LIST /v1/aws/roles (100)",
        method: "LIST",
        path: "/aws/roles",
        plainMethod: "GET",
        plainPath: "/aws/roles?list=true",
        headers: { "x-secrets-token": SECRETS_TOKEN },
      },
      {
        name: "secrets POST /v1/aws/roles/{name}",
        method: "POST",
        path: "/aws/roles/bench-hot",
        body: ROLE_BODY,
        headers: { "x-secrets-token": SECRETS_TOKEN, "content-type": "application/json" },
      },
    ],
  },
];

/** Rounds over the four targets (BENCH_ROUNDS; 1 in quick mode, 3 otherwise: a machine shared with other work moves one round of a target by up to a tenth). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const SPLIT = process.env.BENCH_SPLIT === "1";

export interface HttpRow {
  operation: string;
  validated: LoadResult;
  unvalidated: LoadResult;
  express: LoadResult;
  prism: LoadResult;
  /** Requests validated, responses not (BENCH_SPLIT=1). */
  requestsOnly?: LoadResult;
}

/** The answer of the validated server, to be served as it is by plain Express. */
async function cannedOf(port: number, api: Api, op: Operation): Promise<Canned> {
  const response = await fetch(`http://127.0.0.1:${port}${api.base}${op.path}`, { method: op.method, headers: op.headers, body: op.body });
  const plainPath = (op.plainPath ?? op.path).split("?")[0]!;
  return cannedAnswer(response, { name: op.name, method: op.plainMethod ?? op.method, path: api.base + plainPath, parse: op.body !== undefined });
}

export async function httpSection(): Promise<HttpRow[]> {
  const rows: HttpRow[] = [];
  // BENCH_APIS=mesh,org: only those (for profiling work; the full run measures all three).
  const only = process.env.BENCH_APIS?.split(",");
  for (const api of APIS.filter((a) => !only || only.includes(a.api))) {
    progress(`http: starting ${api.api} targets (validated, unvalidated, plain Express, Prism)`);
    const children: Child[] = [];
    let prism: Awaited<ReturnType<typeof startPrism>> | undefined;
    try {
      const validated = await startChild("bench/serve.ts", { ...api.spec, validate: true });
      children.push(validated);
      const unvalidated = await startChild("bench/serve.ts", { ...api.spec, validate: false });
      children.push(unvalidated);
      // BENCH_SPLIT=1: also requests validated but not responses, to split the validator's cost.
      const requestsOnly = SPLIT ? await startChild("bench/serve.ts", { ...api.spec, validate: true, validateResponses: false }) : undefined;
      if (requestsOnly) children.push(requestsOnly);
      const canned: Canned[] = [];
      for (const op of api.operations) canned.push(await cannedOf(validated.port, api, op));
      const plain = await startChild("bench/serve.ts", { api: "express", canned } satisfies ServeSpec);
      children.push(plain);
      prism = await startPrism(api.prism);
      for (const op of api.operations) {
        const ref = (child: Child) => `http://127.0.0.1:${child.port}${api.base}${op.path}`;
        const plainUrl = (base: string) => `${base}${op.plainPath ?? op.path}`;
        const prismPid = pidWith("--port", new URL(prism.baseUrl).port);
        const targets: [Exclude<keyof HttpRow, "operation">, string, string, number | undefined][] = [
          ["validated", ref(validated), op.method, validated.process.pid],
          ["unvalidated", ref(unvalidated), op.method, unvalidated.process.pid],
          ["express", plainUrl(`http://127.0.0.1:${plain.port}${api.base}`), op.plainMethod ?? op.method, plain.process.pid],
          ["prism", plainUrl(prism.baseUrl), op.plainMethod ?? op.method, prismPid],
        ];
        if (requestsOnly) targets.splice(1, 0, ["requestsOnly", ref(requestsOnly), op.method, requestsOnly.process.pid]);
        // Rounds interleave the targets, and the best round of each counts: other processes on a
        // shared machine only ever slow a target down.
        const best: Partial<Record<string, LoadResult>> = {};
        for (let round = 1; round <= ROUNDS; round++) {
          for (const [target, url, method, pid] of targets) {
            progress(`http: ${op.name} on ${target} (${SECONDS}s, ${CONNECTIONS} connections, round ${round} of ${ROUNDS})`);
            const result = await load({ url, method, headers: op.headers, body: op.body, bodyAt: op.bodyAt, cold: round > 1, pid });
            if (result.bad > 0) progress(`  ${target}: ${result.bad} answers were errors or not 2xx`);
            const previous = best[target];
            if (!previous || result.rps > previous.rps) best[target] = { ...result, cpuPerRequest: min(result.cpuPerRequest, previous?.cpuPerRequest) };
            else previous.cpuPerRequest = min(result.cpuPerRequest, previous.cpuPerRequest);
          }
        }
        rows.push({ operation: op.name, validated: best.validated!, unvalidated: best.unvalidated!, express: best.express!, prism: best.prism!, requestsOnly: best.requestsOnly });
      }
    } finally {
      prism?.close();
      await Promise.all(children.map((c) => c.stop()));
    }
  }
  printHttp(rows);
  return rows;
}

const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

function printHttp(rows: HttpRow[]): void {
  const cell = (r: LoadResult) => `${int(r.rps)} (p99 ${ms(r.p99)})${r.bad > 0 ? ` ${r.bad} bad` : ""}`;
  const cpu = (r: LoadResult) => (r.cpuPerRequest === undefined ? "?" : int(r.cpuPerRequest));
  const cpuRatio = (a: LoadResult, b: LoadResult) => (a.cpuPerRequest && b.cpuPerRequest ? (b.cpuPerRequest / a.cpuPerRequest).toFixed(2) : "?");
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  report(
    `Hot operations: requests/s (p99 ms), ${CONNECTIONS} connections, ${SECONDS}s each, best of ${ROUNDS} interleaved rounds`,
    table(
      ["operation", "validated", "unvalidated", "plain Express", "Prism"],
      rows.map((r) => [r.operation, cell(r.validated), cell(r.unvalidated), cell(r.express), cell(r.prism)]),
    ),
    "",
    table(
      ["operation", "validated / unvalidated (≥ 0.85)", "validated / Express (≥ 0.6)", "validated / Prism (≥ 5)", "validated p99 (< 10 ms)"],
      rows.map((r) => {
        const a = ratio(r.validated.rps, r.unvalidated.rps);
        const b = ratio(r.validated.rps, r.express.rps);
        const c = ratio(r.validated.rps, r.prism.rps);
        return [
          r.operation,
          `${a.toFixed(2)} ${verdict(a >= 0.85)}`,
          `${b.toFixed(2)} ${verdict(b >= 0.6)}`,
          `${c.toFixed(1)} ${verdict(c >= 5)}`,
          `${ms(r.validated.p99)} ${verdict(r.validated.p99 < 10)}`,
        ];
      }),
    ),
    "",
    "Server CPU time per request, µs (lowest of the rounds), and the ratios it implies (how many requests the validated server answers per CPU second, over the other's): steadier than requests/s when other processes share the cores.",
    "",
    table(
      ["operation", "validated", "unvalidated", "plain Express", "Prism", "validated / unvalidated", "validated / Express", "validated / Prism"],
      rows.map((r) => [r.operation, cpu(r.validated), cpu(r.unvalidated), cpu(r.express), cpu(r.prism), cpuRatio(r.validated, r.unvalidated), cpuRatio(r.validated, r.express), cpuRatio(r.validated, r.prism)]),
    ),
  );
  if (rows.some((r) => r.requestsOnly)) {
    report(
      "The validator's cost split (server CPU µs per request): request validation, then response validation",
      table(
        ["operation", "unvalidated", "requests validated", "requests and responses validated", "request stage", "response stage"],
        rows.map((r) => {
          const [u, q, v] = [r.unvalidated.cpuPerRequest ?? 0, r.requestsOnly?.cpuPerRequest ?? 0, r.validated.cpuPerRequest ?? 0];
          return [r.operation, int(u), int(q), int(v), int(q - u), int(v - q)];
        }),
      ),
    );
  }
}
