// Starts the reference server of every API and prints how to reach it. The environment is checked
// first (each problem names its variable: a port that is not a number, two services on one port, a
// port in use, a HOST that is not an address here, a bad CORS_ORIGINS); then every service binds;
// only when all of them listen are the addresses and dev credentials printed. A service that fails
// to start stops the others before anything is printed.
import type { Server } from "node:http";
import { parseCorsOrigins } from "./shared/cors.ts";
import { processLimits } from "./shared/bounds.ts";
import { environmentProblems, listenProblems } from "./shared/startup-checks.ts";
import type { RunningService } from "./shared/service-entry.ts";
import { meshEntry } from "./mesh/entry.ts";
import { orgPlatformEntry } from "./org-platform/entry.ts";
import { secretsEntry } from "./secrets/entry.ts";

const entries = [orgPlatformEntry, secretsEntry, meshEntry];

function closeAll(servers: Server[]): void {
  for (const server of servers) {
    server.close();
    server.closeAllConnections();
  }
}

async function main(): Promise<void> {
  const env = process.env;
  const fail = (problems: string[]) => {
    for (const p of problems) console.error(`could not start: ${p}`);
    process.exit(1);
  };
  const problems = environmentProblems(env);
  if (problems.length) return fail(problems);
  const host = env.HOST || "127.0.0.1";
  const busy = await listenProblems(host, env);
  if (busy.length) return fail(busy);

  const servers: Server[] = [];
  const started: RunningService[] = [];
  for (const entry of entries) {
    if (!entry.start) continue;
    try {
      const running = await entry.start(host, env);
      started.push(running);
      servers.push(...running.servers);
    } catch (error) {
      closeAll(servers);
      return fail([`${entry.name}: ${(error as Error).message}`]);
    }
  }
  const stop = () => {
    closeAll(servers);
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  for (const running of started) for (const line of running.summary) console.log(line);
  const cors = parseCorsOrigins(env.CORS_ORIGINS);
  console.log(cors ? `CORS: browsers may call from ${cors === "*" ? "any origin" : [...cors].join(", ")}` : "CORS off (set CORS_ORIGINS to let browser apps call)");
  const { limits } = processLimits();
  console.log(
    `Limits (docs/security.md): ${limits.maxConnections} connections (${limits.maxConnectionsPerAddress} per client address), ` +
      `${limits.maxBodyBytesInFlight} request-body bytes in flight, header block within ${limits.headersTimeoutMs / 1000} s and ${limits.maxHeaderBytes} bytes`,
  );
  console.log("Ready. Ctrl-C stops.");
}

main().catch((error: Error) => {
  console.error(`could not start: ${error.message}`);
  process.exit(1);
});
