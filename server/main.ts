// Starts the reference server of every API on its default address and prints how to reach it.
import type { Server } from "node:http";
import { meshEntry } from "./mesh/entry.ts";
import { orgPlatformEntry } from "./org-platform/entry.ts";
import { secretsEntry } from "./secrets/entry.ts";

const host = process.env.HOST || "127.0.0.1";
const entries = [orgPlatformEntry, secretsEntry, meshEntry];

async function main(): Promise<void> {
  const servers: Server[] = [];
  const stop = () => {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  for (const entry of entries) {
    if (!entry.start) continue;
    const running = await entry.start(host, process.env);
    servers.push(...running.servers);
    for (const line of running.summary) console.log(line);
  }
  console.log("Ready. Ctrl-C stops.");
}

main().catch((error: Error) => {
  console.error(`could not start: ${error.message}`);
  process.exit(1);
});
