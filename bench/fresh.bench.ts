// `npm run bench -- fresh`: issue 23's targets, per API, against plain Express 5 answering the same
// bytes, in one run: hot reads (the same request again: served from the kept answer), fresh reads
// (a query parameter of their own on every request, so no kept answer serves them: the whole
// pipeline, validation included, every time) and writes that change state. Targets: fresh reads and
// writes >= 0.5x plain Express, hot reads >= 0.6x, p99 < 10 ms (start < 1 s: the startup section).
// With BENCH_BASE=<a checkout of the server before the pipeline, its node_modules installed> (e.g.
// `git worktree add ../base 2c9a176 && cd ../base && npm ci`), the same operations on that server
// too, in the same run: before/after, and whether any is slower than before by more than 10%.
import { cannedAnswer, CONNECTIONS, int, load, ms, progress, QUICK, report, SECONDS, startChild, table, verdict, type Child, type LoadResult } from "./lib.ts";
import type { Canned, ServeSpec } from "./serve.ts";
import { BIG_TEAM, ORG_TOKEN, ROLE_BODY, SECRETS_TOKEN } from "./worlds.ts";

interface Case {
  name: string;
  kind: "hot read" | "fresh read" | "write";
  method: string;
  /** Under the base path, without the fresh parameter. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  bodyAt?: (n: number) => string;
  /** How plain Express is asked (Node's parser refuses LIST). */
  plainMethod?: string;
}

interface Api {
  api: "org" | "secrets" | "mesh";
  base: string;
  spec: Omit<ServeSpec, "validate">;
  cases: Case[];
}

const orgHeaders = { authorization: `Bearer ${ORG_TOKEN}` };
const teams = "/organizations/acme/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20";
const secretsHeaders = { "x-secrets-token": SECRETS_TOKEN };

export const FRESH_APIS: Api[] = [
  {
    api: "org",
    base: "/api/v2",
    spec: { api: "org", size: 100 },
    cases: [
      { name: "org GET teams (page of 20 of 104)", kind: "hot read", method: "GET", path: teams, headers: orgHeaders },
      { name: "org GET teams, fresh", kind: "fresh read", method: "GET", path: teams, headers: orgHeaders },
      {
        name: "org PATCH /teams/{id}",
        kind: "write",
        method: "PATCH",
        path: `/teams/${BIG_TEAM}`,
        headers: { ...orgHeaders, "content-type": "application/vnd.api+json" },
        // Alternates, so that every write changes the team.
        bodyAt: (n) => JSON.stringify({ data: { type: "teams", attributes: { visibility: n % 2 === 0 ? "organization" : "secret" } } }),
      },
    ],
  },
  {
    api: "secrets",
    base: "/v1",
    spec: { api: "secrets", size: 100 },
    cases: [
      { name: "secrets LIST roles (100)", kind: "hot read", method: "LIST", plainMethod: "GET", path: "/aws/roles", headers: secretsHeaders },
      { name: "secrets GET role, fresh", kind: "fresh read", method: "GET", path: "/aws/roles/bench-7", headers: secretsHeaders },
      {
        name: "secrets POST /aws/roles/{name}",
        kind: "write",
        method: "POST",
        path: "/aws/roles/bench-hot",
        headers: { ...secretsHeaders, "content-type": "application/json" },
        body: ROLE_BODY,
      },
    ],
  },
  {
    api: "mesh",
    base: "/v1",
    spec: { api: "mesh" },
    cases: [
      { name: "mesh GET chain", kind: "hot read", method: "GET", path: "/discovery-chain/web", headers: {} },
      { name: "mesh GET chain, fresh", kind: "fresh read", method: "GET", path: "/discovery-chain/web", headers: {} },
      {
        name: "mesh PUT /config",
        kind: "write",
        method: "PUT",
        path: "/config",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ Kind: "service-defaults", Name: "bench-api", Protocol: "http" }),
        bodyAt: (n) => JSON.stringify({ Kind: "service-defaults", Name: "bench-api", Protocol: "http", Meta: { write: String(n) } }),
      },
    ],
  },
];

const TARGET: Record<Case["kind"], number> = { "hot read": 0.6, "fresh read": 0.5, write: 0.5 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));

/** A path with a parameter no other request has: `fresh=<n>` (every service ignores a query parameter it does not take). */
const freshPath = (base: string, path: string) => (n: number) => `${base}${path}${path.includes("?") ? "&" : "?"}fresh=${n}`;

interface Row {
  case: Case;
  server: LoadResult;
  plain: LoadResult;
  /** Plain Express on the reference servers' own HTTP server (createAppServer), for comparison. */
  plainApp: LoadResult;
  before?: LoadResult;
}

/** What plain Express answers for an API: the bytes the server answers each of its cases with, once per method and path. */
export async function cannedFor(child: Child, api: Api): Promise<Canned[]> {
  const canned: Canned[] = [];
  for (const c of api.cases) if (!canned.some((k) => k.method === (c.plainMethod ?? c.method) && k.path === api.base + c.path.split("?")[0])) canned.push(await cannedOf(child, api, c));
  return canned;
}

async function cannedOf(child: Child, api: Api, c: Case): Promise<Canned> {
  const response = await fetch(`http://127.0.0.1:${child.port}${api.base}${c.path}`, { method: c.method, headers: c.headers, body: c.bodyAt ? c.bodyAt(0) : c.body });
  return cannedAnswer(response, { name: c.name, method: c.plainMethod ?? c.method, path: api.base + c.path.split("?")[0]!, parse: c.method !== "GET" && c.method !== "LIST" });
}

export async function freshSection(): Promise<Row[]> {
  const baseCheckout = process.env.BENCH_BASE;
  const only = process.env.BENCH_APIS?.split(",");
  // BENCH_CASES: a regular expression; only the cases whose names it finds are run (e.g. "PATCH").
  const casePattern = process.env.BENCH_CASES ? new RegExp(process.env.BENCH_CASES) : undefined;
  const rows: Row[] = [];
  for (const api of FRESH_APIS.filter((a) => !only || only.includes(a.api))) {
    progress(`fresh: starting ${api.api} (this server${baseCheckout ? ", the server before" : ""}, plain Express)`);
    const children: Child[] = [];
    try {
      const server = await startChild("bench/serve.ts", { ...api.spec, validate: true });
      children.push(server);
      const before = baseCheckout ? await startChild("bench/serve.ts", { ...api.spec, validate: true }, {}, undefined, [], [], baseCheckout) : undefined;
      if (before) children.push(before);
      const canned = await cannedFor(server, api);
      const plain = await startChild("bench/serve.ts", { api: "express", canned } satisfies ServeSpec);
      children.push(plain);
      const plainApp = await startChild("bench/serve.ts", { api: "express", canned, appServer: true } satisfies ServeSpec);
      children.push(plainApp);
      for (const c of api.cases.filter((k) => !casePattern || casePattern.test(k.name))) {
        const targets: [keyof Omit<Row, "case">, Child][] = [["server", server], ["plain", plain], ["plainApp", plainApp], ...(before ? [["before", before] as [keyof Omit<Row, "case">, Child]] : [])];
        const best: Partial<Record<keyof Omit<Row, "case">, LoadResult>> = {};
        for (let round = 1; round <= ROUNDS; round++) {
          for (const [target, child] of targets) {
            progress(`fresh: ${c.name} on ${target} (${SECONDS}s, ${CONNECTIONS} connections, round ${round} of ${ROUNDS})`);
            const isPlain = target === "plain" || target === "plainApp";
            const method = isPlain ? (c.plainMethod ?? c.method) : c.method;
            const url = `http://127.0.0.1:${child.port}${api.base}${c.path}${isPlain && c.plainMethod === "GET" && c.method === "LIST" ? "?list=true" : ""}`;
            const result = await load({
              url,
              method,
              headers: c.headers,
              body: c.body,
              bodyAt: c.bodyAt,
              pathAt: c.kind === "fresh read" ? freshPath(api.base, c.path) : undefined,
              cold: round > 1,
              pid: child.process.pid,
            });
            if (result.bad > 0) progress(`  ${target}: ${result.bad} answers were errors or not 2xx`);
            const previous = best[target];
            const cpu = min(result.cpuPerRequest, previous?.cpuPerRequest);
            if (!previous || result.rps > previous.rps) best[target] = { ...result, cpuPerRequest: cpu };
            else previous.cpuPerRequest = cpu;
          }
        }
        rows.push({ case: c, server: best.server!, plain: best.plain!, plainApp: best.plainApp!, before: best.before });
      }
    } finally {
      await Promise.all(children.map((c) => c.stop()));
    }
  }
  printFresh(rows, baseCheckout !== undefined);
  return rows;
}

const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

function printFresh(rows: Row[], withBefore: boolean): void {
  const cell = (r: LoadResult) => `${int(r.rps)} (p99 ${ms(r.p99)})${r.bad > 0 ? ` ${r.bad} bad` : ""}`;
  report(
    `Hot reads, fresh reads and writes: requests/s (p99 ms), ${CONNECTIONS} connections, ${SECONDS}s each, best of ${ROUNDS} interleaved rounds, validated servers`,
    table(
      ["operation", "kind", "this server", ...(withBefore ? ["before (BENCH_BASE)"] : []), "plain Express", "ratio to Express (target)", "p99 < 10 ms", ...(withBefore ? ["after / before (>= 0.9)"] : [])],
      rows.map((r) => {
        const ratio = r.server.rps / r.plain.rps;
        const target = TARGET[r.case.kind];
        const cells = [r.case.name, r.case.kind, cell(r.server), ...(withBefore ? [r.before ? cell(r.before) : "?"] : []), cell(r.plain), `${ratio.toFixed(2)} (>= ${target}) ${verdict(ratio >= target)}`, `${ms(r.server.p99)} ${verdict(r.server.p99 < 10)}`];
        if (withBefore) {
          const change = r.before ? r.server.rps / r.before.rps : 0;
          cells.push(r.before ? `${change.toFixed(2)} ${verdict(change >= 0.9)}` : "?");
        }
        return cells;
      }),
    ),
    "",
    "Server CPU time per request, µs (lowest of the rounds), and the ratios it implies (requests per CPU second over the other's): steadier than requests/s when other processes share the cores.",
    "Plain Express is served as its users write it (app.listen); the reference servers are served by createAppServer (server/shared/app-server.ts), whose requests are born with the app's prototypes. The last columns serve plain Express that way too: what the same server construction does for it, for comparison.",
    "",
    table(
      ["operation", "this server", ...(withBefore ? ["before"] : []), "plain Express", "ratio to Express (target)", ...(withBefore ? ["after / before (>= 0.9)"] : []), "plain Express on createAppServer", "ratio to it"],
      rows.map((r) => {
        const ratio = cpuRatio(r.server, r.plain);
        const toAppServer = cpuRatio(r.server, r.plainApp);
        const cells = [r.case.name, cpu(r.server), ...(withBefore ? [r.before ? cpu(r.before) : "?"] : []), cpu(r.plain), ratio === undefined ? "?" : `${ratio.toFixed(2)} (>= ${TARGET[r.case.kind]}) ${verdict(ratio >= TARGET[r.case.kind])}`];
        if (withBefore) {
          const change = r.before ? cpuRatio(r.server, r.before) : undefined;
          cells.push(change === undefined ? "?" : `${change.toFixed(2)} ${verdict(change >= 0.9)}`);
        }
        cells.push(cpu(r.plainApp), toAppServer === undefined ? "?" : toAppServer.toFixed(2));
        return cells;
      }),
    ),
  );
}

const cpu = (r: LoadResult) => (r.cpuPerRequest === undefined ? "?" : int(r.cpuPerRequest));
/** How many requests `a` answers per CPU second over `b`'s. */
const cpuRatio = (a: LoadResult, b: LoadResult) => (a.cpuPerRequest && b.cpuPerRequest ? b.cpuPerRequest / a.cpuPerRequest : undefined);
