// Clusters that replicate: each a secrets server in-process on 127.0.0.1 (API and cluster
// listener on port 0) with short heartbeats, and the steps tests repeat (enable a primary, activate
// a secondary, make a DR operation token). Waiting is done by polling a condition with a generous
// deadline, never by sleeping a fixed time.
import { afterEach } from "vitest";
import type { components } from "../../generated/secrets/client.ts";
import type { SecretsAppOptions } from "../../server/secrets/app.ts";
import { decodeToken } from "../../server/secrets/replication/domain/otp.ts";
import { startSecrets, type RunningTestSecrets, type SecretsClient } from "./secrets.ts";

export type Mode = "dr" | "performance";
export type PrimaryStatus = components["schemas"]["ReplicationPrimaryStatus"];
export type SecondaryStatus = components["schemas"]["ReplicationSecondaryStatus"];
export type AnyStatus = PrimaryStatus | SecondaryStatus | components["schemas"]["ReplicationDisabledStatus"];

/** Heartbeat interval of test clusters (ms). */
export const HEARTBEAT_MS = 40;

export function startCluster(options: SecretsAppOptions = {}, port = 0): Promise<RunningTestSecrets> {
  return startSecrets({ ...options, replication: { heartbeatIntervalMs: HEARTBEAT_MS, ...options.replication } }, port);
}

/** Starts clusters for the tests of a file: each test's clusters are closed after it. */
export function clustersPerTest(): (options?: SecretsAppOptions) => Promise<RunningTestSecrets> {
  const running: RunningTestSecrets[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.close()));
  });
  return async (options = {}) => {
    const started = await startCluster(options);
    running.push(started);
    return started;
  };
}

/** A cloud credentials role: what the replication tests write and read to see data move. */
export const CLOUD_ROLE = { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] };
export const writeRole = (c: RunningTestSecrets, name: string) => c.client.POST("/aws/roles/{name}", { params: { path: { name } }, body: CLOUD_ROLE });
export const readRole = (c: RunningTestSecrets, name: string) => c.client.GET("/aws/roles/{name}", { params: { path: { name } } });

/** Polls `read` until `accept` holds (up to `timeoutMs`); returns the last value read. */
export async function waitFor<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function status(client: SecretsClient, mode: Mode): Promise<AnyStatus> {
  const { data, error } = mode === "dr" ? await client.GET("/sys/replication/dr/status") : await client.GET("/sys/replication/performance/status");
  if (error || !data) throw new Error(`status refused: ${JSON.stringify(error)}`);
  return data.data;
}

export const primaryStatus = async (client: SecretsClient, mode: Mode) => (await status(client, mode)) as PrimaryStatus;
export const secondaryStatus = async (client: SecretsClient, mode: Mode) => (await status(client, mode)) as SecondaryStatus;

/** POSTs to a /sys/replication/<mode>/<path> operation, checks the status, returns data and error. */
export async function post(client: SecretsClient, mode: Mode, path: string, body: Record<string, unknown> = {}) {
  const answer = await client.POST(`/sys/replication/${mode}/${path}` as never, { body } as never);
  return answer as { data?: unknown; error?: { errors: string[] }; response: Response };
}

/** Posts and expects 204 (throws with the errors otherwise). */
export async function ok(client: SecretsClient, mode: Mode, path: string, body: Record<string, unknown> = {}): Promise<void> {
  const answer = await post(client, mode, path, body);
  if (answer.response.status !== 204) throw new Error(`${mode}/${path}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
}

/** A wrapped activation token for `id`. */
export async function secondaryToken(primary: SecretsClient, mode: Mode, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await post(primary, mode, "primary/secondary-token", { id, ...extra });
  if (answer.response.status !== 200) throw new Error(`secondary-token: ${JSON.stringify(answer.error)}`);
  const data = answer.data as components["schemas"]["ReplicationSecondaryTokenResponse"];
  return data.wrap_info?.token ?? data.data!.token;
}

/** Enables `primary` (if needed) and makes `secondary` its secondary with id `id`. */
export async function replicate(primary: RunningTestSecrets, secondary: RunningTestSecrets, mode: Mode, id: string): Promise<void> {
  if ((await status(primary.client, mode)).mode !== "primary") await ok(primary.client, mode, "primary/enable");
  const token = await secondaryToken(primary.client, mode, id);
  await ok(secondary.client, mode, "secondary/enable", { token });
}

/** Waits until the secondary has applied every write of the primary and holds the same data. */
export async function inSync(primary: RunningTestSecrets, secondary: RunningTestSecrets, mode: Mode): Promise<void> {
  await waitFor(
    async () => [await primaryStatus(primary.client, mode), await secondaryStatus(secondary.client, mode)] as const,
    ([p, s]) => s.state === "stream-wals" && s.last_remote_wal === p.last_wal && s.merkle_root === p.merkle_root,
  );
}

/** Runs a DR operation token generation on a DR secondary with the given shares; the decoded token. */
export async function drOperationToken(secondary: SecretsClient, shares: string[]): Promise<string> {
  const started = await secondary.PUT("/sys/replication/dr/secondary/generate-operation-token/attempt", { body: {} });
  if (!started.data) throw new Error(`attempt refused: ${JSON.stringify(started.error)}`);
  const { nonce, otp } = started.data;
  let last: components["schemas"]["DrOperationTokenAttempt"] | undefined;
  for (const key of shares) {
    const answer = await secondary.PUT("/sys/replication/dr/secondary/generate-operation-token/update", { body: { key, nonce } });
    if (!answer.data) throw new Error(`update refused: ${JSON.stringify(answer.error)}`);
    last = answer.data;
    if (last.complete) break;
  }
  if (!last?.complete) throw new Error("generation did not complete");
  return decodeToken(last.encoded_token, otp);
}
