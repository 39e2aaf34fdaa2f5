// Starts Prism, the stateless mock, on every API's bundle (ports from scripts/apis.ts, overridden
// by <API>_MOCK_PORT, e.g. MESH_MOCK_PORT), with readable logs prefixed by the API's name: one line
// per request and the problems Prism found. MOCK_LOG=raw prints Prism's own log instead.
// Ctrl-C stops them all; if one Prism stops on its own, the others are stopped too.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { APIS } from "./apis.ts";
import { prismLogFormatter } from "./mock/prism-log.ts";

const root = path.resolve(import.meta.dirname, "..");
const prism = path.join(root, "node_modules", ".bin", "prism");
const host = process.env.HOST || "127.0.0.1";
const raw = process.env.MOCK_LOG === "raw";
const children: ChildProcess[] = [];
let stopping = false;

function stop(code: number) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exitCode = code;
}

for (const api of APIS) {
  const port = Number(process.env[`${api.name.toUpperCase().replace(/-/g, "_")}_MOCK_PORT`] ?? api.mockPort);
  // --errors stays off: an invalid request gets the operation's documented 400/422 example, as a
  // client developer expects, and the problems are logged.
  const child = spawn(prism, ["mock", "--host", host, "--port", String(port), path.join(root, "generated", api.name, "openapi.json")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const format = prismLogFormatter();
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => {
      for (const out of raw ? [line] : format.push(line)) console.log(`[${api.name}] ${out}`);
    });
  }
  child.on("exit", (code, signal) => {
    if (stopping) return;
    // Ctrl-C reaches the whole process group: Prism may see it before this process does.
    if (signal === "SIGINT") return stop(0);
    console.error(`[${api.name}] Prism stopped (${signal ?? `exit code ${code}`}); stopping the other mocks`);
    stop(1);
  });
  console.log(`[${api.name}] ${api.title}: Prism mock starting on http://${host}:${port}`);
}

// Not `once`: a second Ctrl-C (or tsx relaying the first) must not kill this process before Prism.
process.on("SIGINT", () => stop(0));
process.on("SIGTERM", () => stop(0));
