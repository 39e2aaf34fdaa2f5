// How server/main.ts starts a service: each API's entry.ts reads its settings from the
// environment, starts listening, and says what to print (addresses, dev credentials).
import type { Server } from "node:http";
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

export function listen(app: Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    // Express 5 calls this back with the listen error (port in use, bad host) instead of emitting it.
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
