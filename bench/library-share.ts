// What the validator costs each case of the fresh bench (bench/fresh.bench.ts): the same server with
// express-openapi-validator's request and response checks (validated) and without them
// (unvalidated), and plain Express answering the same bytes, in alternating rounds; server CPU per
// request, the median of the rounds. The difference between the first two is the library's share,
// its plumbing and ajv together; the second against plain Express is what the service does besides.
//   npx tsx bench/library-share.ts ["<case name>"...]   (all cases when none is named)
//   BENCH_ROUNDS=n (default 3), BENCH_SECONDS=s (default 3)
import { FRESH_APIS } from "./fresh.bench.ts";
import { cannedAnswer, load, startChild, table, type Child } from "./lib.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const wanted = process.argv.slice(2);
const cases = FRESH_APIS.flatMap((api) => api.cases.map((c) => ({ api, c }))).filter(({ c }) => wanted.length === 0 || wanted.includes(c.name));
if (cases.length === 0) throw new Error(`no case named ${wanted.join(", ")} in bench/fresh.bench.ts`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rows: (string | number)[][] = [];
let fresh = 0;
for (const { api, c } of cases) {
  const targets: [string, Child][] = [];
  try {
    targets.push(["validated", await startChild("bench/serve.ts", { ...api.spec, validate: true })]);
    targets.push(["unvalidated", await startChild("bench/serve.ts", { ...api.spec, validate: false })]);
    const first = await fetch(`http://127.0.0.1:${targets[0]![1].port}${api.base}${c.path}`, { method: c.method, headers: c.headers, body: c.bodyAt ? c.bodyAt(0) : c.body });
    const canned = await cannedAnswer(first, { name: c.name, method: c.plainMethod ?? c.method, path: api.base + c.path.split("?")[0]!, parse: c.method !== "GET" && c.method !== "LIST" });
    targets.push(["plain", await startChild("bench/serve.ts", { api: "express", canned: [canned] } )]);
    const cpu = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, child] of targets) {
        const plain = name === "plain";
        const result = await load({
          url: `http://127.0.0.1:${child.port}${api.base}${c.path}${plain && c.plainMethod === "GET" && c.method === "LIST" ? "?list=true" : ""}`,
          method: plain ? (c.plainMethod ?? c.method) : c.method,
          headers: c.headers,
          body: c.body,
          bodyAt: c.bodyAt,
          pathAt: c.kind === "fresh read" ? (n: number) => `${api.base}${c.path}${c.path.includes("?") ? "&" : "?"}fresh=${++fresh}-${n}` : undefined,
          seconds: SECONDS,
          cold: round > 0,
          pid: child.process.pid,
        });
        if (result.bad > 0) throw new Error(`${c.name} on ${name}: ${result.bad} answers were errors or not 2xx`);
        cpu.set(name, [...(cpu.get(name) ?? []), result.cpuPerRequest!]);
      }
    }
    const [validated, unvalidated, plain] = ["validated", "unvalidated", "plain"].map((name) => median(cpu.get(name)!)) as [number, number, number];
    rows.push([c.name, c.kind, Math.round(validated), Math.round(unvalidated), Math.round(validated - unvalidated), `${Math.round((100 * (validated - unvalidated)) / validated)}%`, Math.round(plain), (plain / validated).toFixed(2), (plain / unvalidated).toFixed(2)]);
    console.log(`${c.name}: validated ${validated.toFixed(0)} µs, unvalidated ${unvalidated.toFixed(0)} µs, plain Express ${plain.toFixed(0)} µs`);
  } finally {
    await Promise.all(targets.map(([, child]) => child.stop()));
  }
}
console.log(`\nServer CPU per request, µs, median of ${ROUNDS} alternating rounds of ${SECONDS} s (16 connections)\n`);
console.log(table(["case", "kind", "validated", "unvalidated", "the validator", "its share", "plain Express", "ratio validated", "ratio unvalidated"], rows));
