// Starts Prism on a bundle, on a free port of 127.0.0.1, for tests.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startPrism(api: string): Promise<{ baseUrl: string; close(): void }> {
  const port = await freePort();
  const child = spawn(
    path.join(root, "node_modules", ".bin", "prism"),
    ["mock", "--host", "127.0.0.1", "--port", String(port), path.join(root, "generated", api, "openapi.json")],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Prism is listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`Prism exited with ${code}:\n${output}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => child.kill("SIGTERM") };
}
