// A secrets server whose cloud credentials engine talks to a simulated provider the test can look
// into, with an environment the test controls; every answer the clients get is recorded, so that
// tests can check that no secret ever leaves the server.
import { createSecretsClient } from "../../generated/secrets/client.ts";
import type { SecretsAppOptions } from "../../server/secrets/app.ts";
import { parseCloudWorld, DEFAULT_CLOUD_WORLD } from "../../server/secrets/engines/cloud-credentials/cloud-world.ts";
import { configureCloudCredentials, type CloudCredentialsEngine } from "../../server/secrets/engines/cloud-credentials/engine.ts";
import { SimulatedCloud } from "../../server/secrets/engines/cloud-credentials/simulation.ts";
import { ROOT_TOKEN, startSecrets, type RunningTestSecrets, type SecretsClient } from "./secrets.ts";

export const ROOT_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE";
export const ROOT_SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
export const STATIC_ROOT = { access_key: ROOT_ACCESS_KEY, secret_key: ROOT_SECRET_KEY };

export interface CloudTestOptions extends SecretsAppOptions {
  /** The simulated provider's account (merged over the default one). */
  cloud?: Record<string, unknown>;
  /** The environment the engine reads (empty by default: nothing leaks in from the machine). */
  env?: Record<string, string | undefined>;
  homeDir?: string;
  now?: () => number;
}

export interface CloudTestServer extends RunningTestSecrets {
  cloud: SimulatedCloud;
  engine: CloudCredentialsEngine;
  /** The environment the engine reads; tests may change it between requests. */
  env: Record<string, string | undefined>;
  /** Every answer body the clients received, in order. */
  bodies: string[];
  /** Starts afresh: no engine data in storage, a new simulated provider and environment, no recorded answers. */
  reset(options?: Pick<CloudTestOptions, "cloud" | "env">): void;
}

export async function startCloudSecrets(options: CloudTestOptions = {}): Promise<CloudTestServer> {
  const { cloud: world, env = {}, homeDir = "/nonexistent-home", now, ...appOptions } = options;
  const secrets = await startSecrets(appOptions);
  const bodies: string[] = [];
  const recording = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    bodies.push(await response.clone().text());
    return response;
  };
  const clientWithToken = (token: string | undefined): SecretsClient =>
    createSecretsClient({ baseUrl: secrets.baseUrl, headers: token === undefined ? {} : { "X-Secrets-Token": token }, fetch: recording });
  const server = { ...secrets, client: clientWithToken(ROOT_TOKEN), clientWithToken, bodies } as CloudTestServer;
  server.reset = (fresh = {}) => {
    const storage = secrets.secrets.cluster.storage;
    for (const key of storage.list("logical/")) storage.delete(key);
    server.cloud = new SimulatedCloud({ world: parseCloudWorld({ ...DEFAULT_CLOUD_WORLD, ...(fresh.cloud ?? world) }), ...(now ? { now } : {}) });
    server.env = { ...(fresh.env ?? env) };
    server.engine = configureCloudCredentials(secrets.secrets.cluster, { provider: server.cloud, env: server.env, homeDir, ...(now ? { now } : {}) });
    bodies.length = 0;
  };
  server.reset();
  return server;
}

/** Fails with the answer when a call was refused; gives its data otherwise. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || answer.response.status >= 300) {
    throw new Error(`refused with ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data as T;
}
