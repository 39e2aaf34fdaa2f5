// Starts Prism, the stateless mock, on every API's bundle (ports from scripts/apis.ts), with each
// log line prefixed by the API's name. Ctrl-C stops them all.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { APIS } from "./apis.ts";

const root = path.resolve(import.meta.dirname, "..");
const prism = path.join(root, "node_modules", ".bin", "prism");
const host = process.env.HOST || "127.0.0.1";
const children: ChildProcess[] = [];

for (const api of APIS) {
  const port = Number(process.env[`${api.name.toUpperCase().replace(/-/g, "_")}_MOCK_PORT`] ?? api.mockPort);
  const child = spawn(prism, ["mock", "--host", host, "--port", String(port), path.join(root, "generated", api.name, "openapi.json")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => console.log(`[${api.name}] ${line}`));
  }
  child.on("exit", (code) => {
    if (code) console.error(`[${api.name}] prism exited with ${code}`);
  });
  console.log(`[${api.name}] ${api.title}: Prism mock on http://${host}:${port}`);
}

const stop = () => {
  for (const child of children) child.kill("SIGTERM");
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
