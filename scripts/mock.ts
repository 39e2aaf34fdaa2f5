// `npm run mock [-- <api>...]`: every API's mock (or those named; scripts/mock/start.ts: the truthful
// front, Prism behind it) on its port from redocly.yaml (scripts/apis.ts), overridden by <API>_MOCK_PORT (e.g. MESH_MOCK_PORT), with readable
// logs prefixed by the API's name: one line per request and the problems found. MOCK_LOG=raw prints
// Prism's own log instead. The environment is checked first, and a port in use is named with its
// variable. Once every mock listens, one "Ready" line lists them all. Ctrl-C stops them all; if one
// Prism stops on its own, the others are stopped too.
import { createServer, isIP } from "node:net";
import { APIS as ALL_APIS, readBundle } from "./apis.ts";
import { operationsOf, type OpenApiDoc } from "./contract/document.ts";
import { prismLogFormatter } from "./mock/prism-log.ts";
import { startMock, type RunningMock } from "./mock/start.ts";
import { isProgram } from "./project.ts";

const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const APIS = names.length ? ALL_APIS.filter((a) => names.includes(a.name)) : ALL_APIS;

const raw = process.env.MOCK_LOG === "raw";
const portVariable = (api: string) => `${api.toUpperCase().replace(/-/g, "_")}_MOCK_PORT`;

/** Every problem with the environment, each naming its variable. */
export function mockEnvironmentProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const host = env.HOST;
  if (host !== undefined && host !== "" && host !== "localhost" && isIP(host) === 0) problems.push(`HOST=${host}: not an IP address (or localhost)`);
  const seen = new Map<number, string>();
  for (const api of APIS) {
    const name = portVariable(api.name);
    const value = env[name];
    if (value === undefined || value === "") continue;
    if (!/^\d+$/.test(value) || Number(value) > 65535) {
      problems.push(`${name}=${value}: not a port number (0-65535)`);
      continue;
    }
    const port = Number(value);
    if (port !== 0 && seen.has(port)) problems.push(`${name}=${value}: the same port as ${seen.get(port)}`);
    seen.set(port, name);
  }
  return problems;
}

/** Undefined when host:port can be listened on; else what is wrong, naming the variable. */
function canListen(host: string, port: number, variable: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(listenProblem(error, host, port, variable)));
    server.listen(port, host, () => server.close(() => resolve(undefined)));
  });
}

function listenProblem(error: NodeJS.ErrnoException, host: string, port: number, variable: string): string {
  if (error.code === "EADDRINUSE") return `${variable}=${port}: port ${port} on ${host} is in use`;
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") return `HOST=${host}: not an address of this machine`;
  if (error.code === "EACCES") return `${variable}=${port}: not allowed to listen on port ${port}`;
  return `${variable}=${port}: ${error.message}`;
}

async function main(): Promise<void> {
  const unknown = names.filter((n) => !ALL_APIS.some((a) => a.name === n));
  if (unknown.length) {
    console.error(`mock: no API ${unknown.join(", ")} in redocly.yaml (APIs: ${ALL_APIS.map((a) => a.name).join(", ")})`);
    process.exit(2);
  }
  const problems = mockEnvironmentProblems(process.env);
  if (problems.length) {
    for (const p of problems) console.error(`mock: ${p}`);
    process.exit(2);
  }
  // A description of webhooks only (OpenAPI 3.1) has no paths to serve: said, and left out.
  const pathless = APIS.filter((api) => operationsOf(readBundle<OpenApiDoc>(api)).length === 0);
  for (const api of pathless) console.error(`mock: ${api.name} describes no paths (only webhooks, or nothing): nothing to mock`);
  if (pathless.length && names.length) process.exit(2);
  const mocked = APIS.filter((api) => !pathless.includes(api));
  const host = process.env.HOST || "127.0.0.1";
  // Every port is tried before any Prism starts: a port in use stops everything at once.
  const taken = (await Promise.all(mocked.map((api) => canListen(host, Number(process.env[portVariable(api.name)] || api.mockPort), portVariable(api.name))))).filter(Boolean);
  if (taken.length) {
    for (const p of taken) console.error(`mock: ${p}`);
    process.exit(2);
  }
  const running: RunningMock[] = [];
  const urls = new Map<string, string>();
  console.log(`mock: starting ${mocked.map((a) => a.name).join(", ")} (Prism takes a few seconds)...`);
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(running.map((m) => m.close()));
    process.exit(code);
  };
  // Not `once`: a second Ctrl-C (or tsx relaying the first) must not kill this process before Prism.
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));

  const started = await Promise.allSettled(
    mocked.map(async (api) => {
      const name = portVariable(api.name);
      const port = Number(process.env[name] || api.mockPort);
      const format = prismLogFormatter();
      const print = (line: string) => console.log(`[${api.name}] ${line}`);
      try {
        const mock = await startMock(api.name, {
          host,
          port,
          onPrismLine: (line) => {
            for (const out of raw ? [line] : format.push(line)) print(out);
          },
          onFrontLine: print,
        });
        running.push(mock);
        urls.set(api.name, mock.url);
        const operations = operationsOf(readBundle<OpenApiDoc>(api)).length;
        print(`${api.title}: listening on ${mock.url} (${operations} operations)`);
        void mock.exited.then(({ code, signal }) => {
          if (stopping) return;
          // Ctrl-C reaches the whole process group: Prism may see it before this process does.
          if (signal === "SIGINT") return void stop(0);
          console.error(`[${api.name}] Prism stopped (${signal ?? `exit code ${code}`}); stopping the other mocks`);
          void stop(1);
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code) throw new Error(listenProblem(error as NodeJS.ErrnoException, host, port, name));
        throw error;
      }
    }),
  );
  const failed = started.filter((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed.length) {
    for (const f of failed) console.error(`mock: ${(f.reason as Error).message}`);
    await stop(2);
    return;
  }
  console.log(`Ready: ${mocked.map((a) => `${a.name} ${urls.get(a.name)}`).join(", ")} (Ctrl-C stops)`);
}

if (isProgram(import.meta.url)) await main();
