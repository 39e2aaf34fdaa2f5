// Starts a secrets reference server (one cluster) in-process on 127.0.0.1:0 and gives generated
// clients for it, with the root token or another one.
import { connect } from "node:net";
import * as openpgp from "openpgp";
import { createSecretsClient, type components } from "../../generated/secrets/client.ts";
import type { SecretsAppOptions } from "../../server/secrets/app.ts";
import { startSecretsServer, type RunningSecrets } from "../../server/secrets/server.ts";

export const ROOT_TOKEN = "root-token-for-tests";

export type SecretsClient = ReturnType<typeof createSecretsClient>;
export type RekeyStatus = components["schemas"]["RekeyStatus"];
export type RekeyResult = components["schemas"]["RekeyUpdateResult"];

/** GET sys/rekey/init before any attempt, on a cluster of the default seal (5 shares, threshold 3). */
export const REKEY_NOT_STARTED = {
  started: false,
  t: 0,
  n: 0,
  progress: 0,
  required: 3,
  pgp_fingerprints: null,
  backup: false,
  nonce: "",
  verification_required: false,
} as const;

export interface RunningTestSecrets {
  secrets: RunningSecrets;
  baseUrl: string;
  /** A client with the root token. */
  client: SecretsClient;
  /** A client that sends this token in X-Secrets-Token (none when undefined). */
  clientWithToken(token: string | undefined): SecretsClient;
  /** The unseal (or recovery) key shares made at start, hex. */
  keys: string[];
  /** The same, base64. */
  keysBase64: string[];
  close(): Promise<void>;
}

export async function startSecrets(options: SecretsAppOptions = {}, port = 0): Promise<RunningTestSecrets> {
  const secrets = await startSecretsServer({ rootToken: ROOT_TOKEN, ...options }, "127.0.0.1", port);
  const baseUrl = secrets.url;
  const clientWithToken = (token: string | undefined) =>
    createSecretsClient({ baseUrl, headers: token === undefined ? {} : { "X-Secrets-Token": token } });
  const { keys, recoveryKeys } = secrets.cluster.init;
  const shares = keys.length > 0 ? keys : recoveryKeys;
  return {
    secrets,
    baseUrl,
    client: clientWithToken(ROOT_TOKEN),
    clientWithToken,
    keys: shares.map((key) => Buffer.from(key).toString("hex")),
    keysBase64: shares.map((key) => Buffer.from(key).toString("base64")),
    close: () => secrets.close(),
  };
}

/** Gives shares to the rekey attempt one by one; returns the last answer. */
export async function submitShares(client: SecretsClient, nonce: string, shares: string[]): Promise<RekeyStatus | RekeyResult> {
  let last: RekeyStatus | RekeyResult | undefined;
  for (const key of shares) {
    const { data, error } = await client.POST("/sys/rekey/update", { body: { key, nonce } });
    if (error) throw new Error(`update refused: ${JSON.stringify(error)}`);
    last = data;
  }
  return last!;
}

/** Runs a whole rekey with the given current shares; returns the completion answer. */
export async function rekey(client: SecretsClient, current: string[], body: { secret_shares: number; secret_threshold: number }): Promise<RekeyResult> {
  const started = await client.POST("/sys/rekey/init", { body });
  if (started.error) throw new Error(`init refused: ${JSON.stringify(started.error)}`);
  const result = await submitShares(client, started.data!.nonce, current);
  if (!("complete" in result)) throw new Error("rekey did not complete");
  return result;
}

export interface TestPgpKey {
  /** Base64 of the binary public key, as pgp_keys wants it. */
  publicKeyBase64: string;
  fingerprint: string;
  privateKey: openpgp.PrivateKey;
}

export async function generatePgpKey(name: string): Promise<TestPgpKey> {
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: "ecc",
    curve: "curve25519Legacy",
    userIDs: [{ name, email: `${name.toLowerCase().replace(/\W+/g, ".")}@example.com` }],
    format: "object",
  });
  return { publicKeyBase64: Buffer.from(publicKey.write()).toString("base64"), fingerprint: publicKey.getFingerprint(), privateKey };
}

/** Decrypts a share encrypted to a test key (given as hex or base64 of the binary message): the hex share. */
export async function decryptShare(encrypted: string, key: TestPgpKey, encoding: "hex" | "base64"): Promise<string> {
  const message = await openpgp.readMessage({ binaryMessage: new Uint8Array(Buffer.from(encrypted, encoding)) });
  const { data } = await openpgp.decrypt({ message, decryptionKeys: key.privateKey, format: "binary" });
  return new TextDecoder().decode(data as Uint8Array);
}

/** Sends raw bytes (in parts, a moment apart) on a new connection; resolves with everything received. */
export function rawExchange(port: number, parts: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    void (async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, 15));
      }
      socket.end();
    })();
  });
}

/** Splits a raw HTTP/1.1 answer stream into answers (status and parsed JSON body, if any). */
export function parseRawResponses(stream: string): { status: number; headers: Record<string, string>; body: unknown }[] {
  const responses: { status: number; headers: Record<string, string>; body: unknown }[] = [];
  let rest = stream;
  while (rest.length > 0) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd === -1) break;
    const [statusLine, ...headerLines] = rest.slice(0, headEnd).split("\r\n");
    const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
    const length = Number(headers["content-length"] ?? 0);
    const body = rest.slice(headEnd + 4, headEnd + 4 + length);
    responses.push({ status: Number(statusLine!.split(" ")[1]), headers, body: body ? JSON.parse(body) : undefined });
    rest = rest.slice(headEnd + 4 + length);
  }
  return responses;
}
