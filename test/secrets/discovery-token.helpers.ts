// Shared by the discovery-token engine's tests: a secrets server with the engine mounted, generated
// clients that record every answer's body, and a record of everything the process logs, so that a
// test can prove a secret never left the server.
import { expect, vi } from "vitest";
import { createSecretsClient } from "../../generated/secrets/client.ts";
import type { SecretsAppOptions } from "../../server/secrets/app.ts";
import type { Mount } from "../../server/secrets/sys/mounts.ts";
import { ROOT_TOKEN, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

/** The engine at its default mount and at a second one. */
export const DISCOVERY_MOUNTS: Mount[] = [
  { path: "consul", engine: "discovery-token" },
  { path: "team-a/consul", engine: "discovery-token" },
];

/** Records what console and the standard streams are given from now on (and still passes it on). */
export function recordOutput(): { logs: string[]; restore(): void } {
  const logs: string[] = [];
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logs.push(args.map(String).join(" "));
    }),
  );
  const writes = [process.stdout, process.stderr].map((stream) => {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    return () => (stream.write = original);
  });
  return {
    logs,
    restore: () => {
      for (const spy of spies) spy.mockRestore();
      for (const undo of writes) undo();
    },
  };
}

export interface DiscoverySecrets extends RunningTestSecrets {
  /** A generated client for a token (none when undefined) whose answers are recorded. */
  as(token: string | undefined, headers?: Record<string, string>): ReturnType<typeof createSecretsClient>;
  /** The root token's recorded client. */
  root: ReturnType<typeof createSecretsClient>;
  /** Every answer body received so far. */
  answers: string[];
}

export async function startDiscoverySecrets(options: SecretsAppOptions = {}): Promise<DiscoverySecrets> {
  const running = await startSecrets({ mounts: DISCOVERY_MOUNTS, ...options });
  const answers: string[] = [];
  const recordingFetch = async (input: Request) => {
    const response = await fetch(input);
    answers.push(await response.clone().text());
    return response;
  };
  const as = (token: string | undefined, headers: Record<string, string> = {}) =>
    createSecretsClient({
      baseUrl: running.baseUrl,
      headers: { ...(token === undefined ? {} : { "X-Secrets-Token": token }), ...headers },
      fetch: recordingFetch as typeof fetch,
    });
  return { ...running, as, root: as(ROOT_TOKEN), answers };
}

/** Lists `path` on a server where it holds nothing: a 404 without a message, as the real system answers. */
export async function expectEmptyList(secrets: DiscoverySecrets, path: "/consul/roles" | "/identity/mfa/method/pushmfa"): Promise<void> {
  const { response, error } = await secrets.root.GET(path, { params: { query: { list: "true" } } });
  expect(response.status).toBe(404);
  expect(error).toEqual({ errors: [] });
}
