// The environment checks of `npm start` (server/main.ts), before anything listens: each problem
// names its variable. Pure apart from listenProblems, which tries the ports.
import { createServer, isIP } from "node:net";
import { CorsConfigError, parseCorsOrigins } from "./cors.ts";
import { limitsFromEnv } from "./bounds.ts";

/** The listeners `npm start` opens: variable, default port. */
export function plannedPorts(env: NodeJS.ProcessEnv): { variable: string; value: string }[] {
  const value = (name: string, fallback: number) => (env[name] === undefined ? String(fallback) : env[name]!);
  const secrets = value("SECRETS_PORT", 8200);
  return [
    { variable: "ORG_PLATFORM_PORT", value: value("ORG_PLATFORM_PORT", 8080) },
    { variable: "SECRETS_PORT", value: secrets },
    {
      variable: env.SECRETS_CLUSTER_PORT === undefined || env.SECRETS_CLUSTER_PORT === "" ? "SECRETS_CLUSTER_PORT (default SECRETS_PORT + 1)" : "SECRETS_CLUSTER_PORT",
      // Unset: the API port + 1 (any free port when the API port is 0); not judged when the API port is bad.
      value: env.SECRETS_CLUSTER_PORT || (/^\d+$/.test(secrets) && Number(secrets) !== 0 && Number(secrets) <= 65535 ? String(Number(secrets) + 1) : "0"),
    },
    { variable: "MESH_PORT", value: value("MESH_PORT", 8500) },
  ];
}

/** What is wrong with the environment, without touching the network; each line names its variable. */
export function environmentProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const host = env.HOST;
  if (host !== undefined && host !== "" && host !== "localhost" && isIP(host) === 0) problems.push(`HOST=${host}: not an IP address (or localhost)`);
  try {
    parseCorsOrigins(env.CORS_ORIGINS);
  } catch (error) {
    if (!(error instanceof CorsConfigError)) throw error;
    problems.push(`${error.message}`);
  }
  problems.push(...limitsFromEnv(env).problems);
  const taken = new Map<number, string>();
  for (const { variable, value } of plannedPorts(env)) {
    if (!/^\d+$/.test(value) || Number(value) > 65535) {
      problems.push(`${variable.split(" ")[0]}=${value}: not a port number (0-65535)`);
      continue;
    }
    const port = Number(value);
    if (port === 0) continue;
    const other = taken.get(port);
    if (other) problems.push(`${variable}=${port}: the same port as ${other}`);
    else taken.set(port, variable);
  }
  return problems;
}

/** Tries every planned port on host: a port in use or a host that is not this machine's, named. */
export async function listenProblems(host: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const tries = plannedPorts(env)
    .filter(({ value }) => Number(value) !== 0)
    .map(
      ({ variable, value }) =>
        new Promise<string | undefined>((resolve) => {
          const server = createServer();
          server.once("error", (error: NodeJS.ErrnoException) => {
            if (error.code === "EADDRINUSE") resolve(`${variable}=${value}: port ${value} on ${host} is in use`);
            else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") resolve(`HOST=${host}: not an address of this machine`);
            else if (error.code === "EACCES") resolve(`${variable}=${value}: not allowed to listen on port ${value}`);
            else resolve(`${variable}=${value}: ${error.message}`);
          });
          server.listen(Number(value), host, () => server.close(() => resolve(undefined)));
        }),
    );
  return [...new Set((await Promise.all(tries)).filter((p): p is string => p !== undefined))];
}
