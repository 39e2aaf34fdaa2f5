// What every benchmark section shares: settings, child processes that serve a target, load with
// autocannon, memory of a child, and printing. Every server runs in its own process so that the
// load generator (this process) and the server do not share an event loop.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import autocannon from "autocannon";
import { build } from "esbuild";
import { serverBundle } from "../scripts/module-location.mjs";
import type { Canned } from "./serve.ts";

// autocannon refuses methods outside its list; the secrets API's clients send LIST.
const autocannonMethods = createRequire(import.meta.url)("autocannon/lib/httpMethods.js") as string[];
if (!autocannonMethods.includes("LIST")) autocannonMethods.push("LIST");

export const root = path.resolve(import.meta.dirname, "..");

const args = process.argv.slice(2);
/** --quick: short loads and the two smaller growth steps, for a run of about two minutes. */
export const QUICK = args.includes("--quick") || process.env.BENCH_QUICK === "1";
/** Seconds of load per measured target (BENCH_SECONDS; 1 in quick mode, 5 otherwise). */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 1 : 5));
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Sections named on the command line (none: all). */
export const SECTIONS = args.filter((a) => !a.startsWith("--"));
export const wanted = (section: string) => SECTIONS.length === 0 || SECTIONS.includes(section);

const started = Date.now();
/** A progress line on stderr, with the time since the start. */
export function progress(message: string): void {
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
}

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** A server in a child process (bench/serve.ts or another script): its port and its memory. */
export interface Child {
  process: ChildProcess;
  port: number;
  /** Everything the child printed on stdout so far. */
  output(): string;
  /** process.memoryUsage() of the child after a full garbage collection (gc: false skips it). */
  memory(gc?: boolean): Promise<Memory>;
  /** Sends a message and waits for the answer carrying the same `id`. */
  ask<T>(message: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

let nextId = 1;

/** The bundles made of the TypeScript scripts children run, by script (one build per run of the benchmarks). */
const bundles = new Map<string, Promise<string>>();

/**
 * A TypeScript script bundled by esbuild as `npm start` bundles the servers (scripts/start.mjs):
 * the benchmarks measure the code as it is served, not as a development loader (tsx) runs it.
 * (Measured on the mesh write: about 15% more server CPU a request through tsx.)
 */
export function bundled(script: string, checkout = root): Promise<string> {
  const key = path.join(checkout, script);
  let made = bundles.get(key);
  if (!made) {
    // Inside the checkout it comes from: it finds that checkout's generated/ files and node_modules.
    const outfile = path.join(checkout, ".build", "bench", `${path.basename(script, ".ts")}.bundle.mjs`);
    made = build(serverBundle(checkout, script, outfile)).then(() => outfile);
    bundles.set(key, made);
  }
  return made;
}

/**
 * Runs `script` (TypeScript, bundled; a .mjs as it is) with --expose-gc and an IPC channel;
 * resolves when it sends {ready: port}. `spec` reaches it as BENCH_SPEC (JSON).
 */
export async function startChild(
  script: string,
  spec: unknown,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 300_000,
  nodeArgs: string[] = [],
  /** A command node runs under (`prlimit --nofile=4096`): it must exec node, so that the child is node. */
  wrapper: string[] = [],
  /** Another checkout to take the script from (bench/fresh.bench.ts: the server before a change, side by side). */
  checkout = root,
): Promise<Child> {
  const file = script.endsWith(".ts") ? await bundled(script, checkout) : script;
  const [command, ...prefix] = [...wrapper, process.execPath];
  const child = spawn(command!, [...prefix, "--expose-gc", "--max-old-space-size=4096", ...nodeArgs, file], {
    cwd: root,
    env: { ...process.env, ...env, BENCH_SPEC: JSON.stringify(spec) },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString();
    if (process.env.BENCH_VERBOSE) process.stderr.write(c);
  });
  const waiting = new Map<number, (value: unknown) => void>();
  child.on("message", (message: { id?: number; ready?: number }) => {
    if (message.id !== undefined) waiting.get(message.id)?.(message);
  });
  const ask = <T>(message: Record<string, unknown>, ms = 600_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => reject(new Error(`${script}: no answer to ${JSON.stringify(message)} within ${ms} ms`)), ms);
      waiting.set(id, (value) => {
        clearTimeout(timer);
        waiting.delete(id);
        const answer = value as { error?: string };
        if (answer.error) reject(new Error(`${script}: ${answer.error}`));
        else resolve(value as T);
      });
      child.send({ ...message, id });
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${timeoutMs} ms:\n${err}`)), timeoutMs);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}:\n${err.slice(-4000)}`)));
    child.on("message", (message: { ready?: number }) => {
      if (message.ready === undefined) return;
      clearTimeout(timer);
      resolve({
        process: child,
        port: message.ready,
        output: () => out,
        memory: async (gc = true) => (await ask<{ memory: Memory }>({ memory: true, gc })).memory,
        ask,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGKILL");
          }),
      });
    });
  });
}

/** Resident set size of a process, from /proc (no cooperation of the process needed). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** CPU time (user + system) a process has used so far, ms; undefined when it is gone. */
export function cpuOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in ticks of 10 ms
  } catch {
    return undefined;
  }
}

/** The process whose command line holds all of `parts` (e.g. Prism on a port). */
export function pidWith(...parts: string[]): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (parts.every((p) => cmdline.includes(p))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A body for each request (numbered from 1 over the whole run), instead of the same body for all. */
  bodyAt?: (n: number) => string;
  /** A path (and query) for each request (numbered from 1 over the whole process: every round and target gets numbers of its own), instead of the URL's. */
  pathAt?: (n: number) => string;
  connections?: number;
  seconds?: number;
  /** No warm-up round. */
  cold?: boolean;
  /** The server's process: its CPU time per answered request is measured. */
  pid?: number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests answered with 2xx, and everything else (errors, timeouts, other statuses). */
  ok: number;
  bad: number;
  /** Server CPU time per request, µs (when the pid is known): steadier than requests/s on a busy machine. */
  cpuPerRequest?: number;
}

/** The requests made with `pathAt`, in this process: a path is never asked twice, whatever the round. */
let asked = 0;

export async function load(options: LoadOptions): Promise<LoadResult> {
  let sent = 0;
  const { bodyAt, pathAt } = options;
  const run = (seconds: number) =>
    autocannon({
      url: options.url,
      method: options.method ?? "GET",
      headers: options.headers,
      body: options.body,
      ...(bodyAt || pathAt
        ? {
            requests: [
              {
                setupRequest: (request) => ({
                  ...request,
                  ...(bodyAt ? { body: bodyAt(++sent) } : {}),
                  ...(pathAt ? { path: pathAt(++asked) } : {}),
                }),
              },
            ],
          }
        : {}),
      connections: options.connections ?? CONNECTIONS,
      duration: seconds,
    });
  if (!options.cold) await run(Math.max(1, Math.min(2, SECONDS / 2))); // warm-up: JIT and caches
  const cpuBefore = options.pid ? cpuOf(options.pid) : undefined;
  const r = await run(options.seconds ?? SECONDS);
  const cpuAfter = options.pid ? cpuOf(options.pid) : undefined;
  return {
    cpuPerRequest: cpuBefore !== undefined && cpuAfter !== undefined && r.requests.total > 0 ? ((cpuAfter - cpuBefore) * 1000) / r.requests.total : undefined,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    ok: r["2xx"],
    bad: r.non2xx + r.errors,
  };
}

export const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
export const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
export const int = (value: number) => Math.round(value).toLocaleString("en-US");

/** A Markdown table: printed as it is, so it can be pasted into docs/benchmarks.md. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const lines = [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

/** Prints a section title and its lines on stdout. */
export function report(title: string, ...lines: string[]): void {
  console.log(`\n### ${title}\n`);
  for (const line of lines) console.log(line);
}

/** Median of several timings of `fn` (ms). */
export async function timeMedian(rounds: number, fn: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Latency of `count` sequential requests (one connection): median and p99, ms. */
export async function sequentialLatency(count: number, request: () => Promise<Response>): Promise<{ p50: number; p99: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    const response = await request();
    await response.arrayBuffer();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    status = response.status;
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count / 2)]!, p99: times[Math.min(count - 1, Math.floor(count * 0.99))]!, status };
}

/** "ok" when a figure meets its target, "MISSED" otherwise. */
export const verdict = (met: boolean) => (met ? "ok" : "**MISSED**");

export interface Ports {
  org: number;
  secrets: number;
  mesh: number;
}

/** The three servers' ports, from what `npm start` printed. */
export function portsOf(output: string): Ports {
  const port = (pattern: RegExp) => Number(pattern.exec(output)?.[1]);
  return {
    org: port(/^org-platform.*http:\/\/127\.0\.0\.1:(\d+)/m),
    secrets: port(/^secrets.*http:\/\/127\.0\.0\.1:(\d+)/m),
    mesh: port(/^mesh.*http:\/\/127\.0\.0\.1:(\d+)/m),
  };
}

/**
 * Headers plain Express writes itself, from the body and the connection (Content-Type is set from
 * `contentType`). Keep-Alive is replayed: the secrets service says its own idle timeout there.
 */
const WRITTEN_BY_NODE = new Set(["connection", "content-length", "content-type", "date", "transfer-encoding"]);

/**
 * What plain Express answers in place of a reference server: the status, Content-Type, the other
 * headers the server set (an API's version and rate limit, a mesh index, Cache-Control) and the
 * body, byte for byte, so that both write the same bytes.
 */
export async function cannedAnswer(response: Response, where: { name: string; method: string; path: string; parse: boolean }): Promise<Canned> {
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status >= 300) throw new Error(`${where.name}: the reference server answered ${response.status} ${body.toString()}`);
  return {
    method: where.method,
    path: where.path,
    status: response.status,
    contentType: response.headers.get("content-type") ?? undefined,
    headers: [...response.headers].filter(([name]) => !WRITTEN_BY_NODE.has(name)),
    body: body.toString("base64"),
    parse: where.parse,
  };
}
