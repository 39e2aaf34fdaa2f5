// How server/main.ts starts a service: each API's entry.ts reads its settings from the
// environment, starts listening, and says what to print (addresses, dev credentials).
import type { Server } from "node:http";
import { createAppServer } from "./app-server.ts";
import { boundServer, processLimits, serverOptions, type ProcessLimits, type RawAnswerFormat } from "./bounds.ts";
import type { AddressInfo } from "node:net";
import type { Express } from "express";

export interface RunningService {
  servers: Server[];
  /** Lines printed at start: address first, then credentials and world. */
  summary: string[];
}

export interface ServiceEntry {
  name: string;
  /** Undefined when the API is not served yet. */
  start?: (host: string, env: NodeJS.ProcessEnv) => Promise<RunningService>;
}

/**
 * How long a keep-alive connection may sit idle before the server closes it: 5 minutes, as Vault's
 * listener (`IdleTimeout: 5 * time.Minute`; Consul's agent sets none, which Go leaves unlimited:
 * bounded here alike). Node's default is 5 s, shorter than the clients keep idle connections (Go's
 * transport 90 s): a client sending on a connection the server is closing that moment gets it
 * closed under its request (undici: "other side closed"), and a server whose event loop was held up
 * for 5 s closes connections with requests already waiting on them.
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 5 * 60_000;

/** Idle keep-alive connections kept as the services keep them (answers then say `Keep-Alive: timeout=300`). */
export function keepIdleConnections<T extends Server>(server: T): T {
  server.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
  return server;
}

/**
 * Starts `app` on an HTTP server held to the process's limits (server/shared/bounds.ts), which
 * answers what it refuses before a request reaches the app in the service's `format`.
 */
export function listen(app: Express, host: string, port: number, format: RawAnswerFormat, limits: ProcessLimits = processLimits()): Promise<Server> {
  const server = keepIdleConnections(createAppServer(app, serverOptions(limits)));
  boundServer(server, format, limits);
  return listenOn(server, host, port);
}

/** Resolves once the server listens; rejects with the listen error (port in use, bad host). */
export function listenOn(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
