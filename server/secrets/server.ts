// Starts a secrets server: a cluster's app on an HTTP server that accepts the LIST method.
// Several can run in one process (each on its own port; port 0 picks a free one).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAppServer } from "../shared/app-server.ts";
import { createSecretsApp, SECRETS_BASE_PATH, type SecretsApp, type SecretsAppOptions } from "./app.ts";
import { acceptListMethod } from "./http/list-method.ts";
import { clusterApp } from "./replication/cluster-app.ts";
import { leasesOf } from "./leases/index.ts";
import { keepIdleConnections } from "../shared/service-entry.ts";
import { boundServer, processLimits, serverOptions, type ProcessLimits } from "../shared/bounds.ts";
import { SECRETS_RAW_ANSWERS } from "./errors.ts";

export interface RunningSecrets extends SecretsApp {
  server: Server;
  /** The cluster listener: replication traffic from other clusters (openapi/secrets/internal/). */
  clusterServer: Server;
  /** Where other clusters reach it, e.g. http://127.0.0.1:8201 */
  clusterUrl: string;
  clusterPort: number;
  /** Base URL of the API, e.g. http://127.0.0.1:8200/v1 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startSecretsServer(options: SecretsAppOptions = {}, host = "127.0.0.1", port = 0, limits: ProcessLimits = processLimits()): Promise<RunningSecrets> {
  const secrets = await createSecretsApp(options);
  const server = keepIdleConnections(createAppServer(secrets.app, serverOptions(limits)));
  // Held to the process's limits; then every connection (as the bounds see it too) reads through the LIST rewriter.
  boundServer(server, SECRETS_RAW_ANSWERS, limits);
  acceptListMethod(server);
  await listen(server, host, port);
  const actual = (server.address() as AddressInfo).port;
  // The cluster listener, as the real system's cluster port: the API port + 1 unless configured.
  const replication = secrets.cluster.replication;
  const clusterServer = keepIdleConnections(createAppServer(clusterApp(replication), serverOptions(limits)));
  // Its app reads bodies with express.json: Node answers `100 Continue` there as it does by default.
  boundServer(clusterServer, SECRETS_RAW_ANSWERS, limits, { continueOnRead: false });
  try {
    await listen(clusterServer, host, replication.options.clusterPort ?? (port === 0 ? 0 : actual + 1));
  } catch (error) {
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  const clusterPort = (clusterServer.address() as AddressInfo).port;
  const origin = (p: number) => `http://${host.includes(":") ? `[${host}]` : host}:${p}`;
  replication.listening({ apiAddress: origin(actual), clusterAddress: origin(clusterPort) });
  // The lease table: leases already in storage get their expiry timers.
  const leases = leasesOf(secrets.cluster);
  const closeServer = (s: Server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return {
    ...secrets,
    server,
    port: actual,
    url: `${origin(actual)}${SECRETS_BASE_PATH}`,
    clusterServer,
    clusterPort,
    clusterUrl: origin(clusterPort),
    close: async () => {
      leases.stop();
      await replication.stop();
      await Promise.all([closeServer(server), closeServer(clusterServer)]);
      secrets.cluster.close();
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
