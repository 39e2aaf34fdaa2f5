// Rekeying through the generated client, with response validation on: full attempts with and
// without verification; the old shares stop working and the new ones work, proven by a second
// rekey; cancelling keeps the current shares; verification restart and failure.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rekey, REKEY_NOT_STARTED, startSecrets, submitShares, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
beforeEach(async () => {
  secrets = await startSecrets();
});
afterEach(() => secrets.close());

const rootKey = () => secrets.secrets.cluster.seal.get().rootKey;

describe("readRekeyStatus", () => {
  it("shows no attempt, with the threshold of the current shares", async () => {
    const { data, response } = await secrets.client.GET("/sys/rekey/init");
    expect(response.status).toBe(200);
    expect(data).toEqual(REKEY_NOT_STARTED);
  });
});

describe("a rekey without verification", () => {
  it("collects a threshold of current shares, returns new shares and rotates the root key", async () => {
    const before = rootKey();
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } });
    expect(started.response.status).toBe(200);
    const nonce = started.data!.nonce;
    expect(nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(started.data).toMatchObject({ started: true, t: 2, n: 3, progress: 0, required: 3, verification_required: false });

    // Shares may be hex or base64, in any order.
    const first = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[4]!, nonce } });
    expect(first.data).toMatchObject({ nonce, started: true, progress: 1, required: 3 });
    const second = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keysBase64[1]!, nonce } });
    expect(second.data).toMatchObject({ progress: 2 });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce, progress: 2 });

    const done = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[2]!, nonce } });
    expect(done.response.status).toBe(200);
    const result = done.data as Extract<typeof done.data, { complete: true }>;
    expect(result).toMatchObject({ nonce, complete: true, pgp_fingerprints: null, backup: false, verification_required: false });
    expect(result).not.toHaveProperty("verification_nonce");
    expect(result.keys).toHaveLength(3);
    expect(result.keys.map((hex) => Buffer.from(hex, "hex").toString("base64"))).toEqual(result.keys_base64);
    for (const key of result.keys) expect(key).toMatch(/^[0-9a-f]{66}$/);

    expect(rootKey()).not.toBe(before);
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false, required: 2 });

    // The old shares no longer make up the key; the new ones do.
    const retry = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 5, secret_threshold: 3 } });
    const retryNonce = retry.data!.nonce;
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce: retryNonce } });
    const refused = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce: retryNonce } });
    // vault/rekey.go BarrierRekeyUpdate: old shares make up a key that cannot decrypt the stored root key (500).
    expect(refused.response.status).toBe(500);
    expect(refused.error).toEqual({ errors: ["failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed"] });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce: retryNonce, started: true, progress: 0 });

    const again = await submitShares(secrets.client, retryNonce, [result.keys_base64[2]!, result.keys[0]!]);
    expect(again).toMatchObject({ complete: true });
    expect((again as { keys: string[] }).keys).toHaveLength(5);
  });

  it("accepts a single new share, which is the new root key itself", async () => {
    const result = await rekey(secrets.client, secrets.keys.slice(0, 3), { secret_shares: 1, secret_threshold: 1 });
    expect(result.keys).toHaveLength(1);
    expect(result.keys[0]).toHaveLength(64);
    expect(Buffer.from(result.keys[0]!, "hex").toString("base64")).toBe(rootKey());
    // A rekey with that one share works, and needs only one.
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ required: 1 });
    const next = await rekey(secrets.client, [result.keys[0]!], { secret_shares: 2, secret_threshold: 2 });
    expect(next.keys).toHaveLength(2);
  });

  it("cancels an attempt and keeps the current shares valid", async () => {
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce: started.data!.nonce } });
    const cancelled = await secrets.client.DELETE("/sys/rekey/init");
    expect(cancelled.response.status).toBe(204);
    expect(cancelled.data).toBeUndefined();
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false, nonce: "", progress: 0 });
    // The old nonce is gone; a new attempt gets a new one and the current shares still work.
    const stale = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce: started.data!.nonce } });
    expect(stale.error).toEqual({ errors: ["no barrier rekey in progress"] });
    const result = await rekey(secrets.client, secrets.keys.slice(2, 5), { secret_shares: 3, secret_threshold: 2 });
    expect(result.keys).toHaveLength(3);
    // Cancelling with nothing in progress succeeds too.
    expect((await secrets.client.DELETE("/sys/rekey/init")).response.status).toBe(204);
  });
});

describe("a rekey with verification", () => {
  async function untilVerification() {
    const started = await secrets.client.POST("/sys/rekey/init", {
      body: { secret_shares: 4, secret_threshold: 3, require_verification: true },
    });
    expect(started.data).toMatchObject({ verification_required: true });
    const nonce = started.data!.nonce;
    const result = await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3));
    return { nonce, result: result as Extract<typeof result, { complete: true }> };
  }

  it("returns the new shares without rotating, then rotates once a threshold of them is verified", async () => {
    const before = rootKey();
    const { nonce, result } = await untilVerification();
    expect(result).toMatchObject({ nonce, complete: true, verification_required: true });
    expect(result.keys).toHaveLength(4);
    const verificationNonce = result.verification_nonce!;
    expect(verificationNonce).toMatch(/^[0-9a-f-]{36}$/);
    expect(verificationNonce).not.toBe(nonce);
    expect(rootKey()).toBe(before);

    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({
      nonce,
      started: true,
      progress: 0,
      verification_required: true,
      verification_nonce: verificationNonce,
    });
    expect((await secrets.client.GET("/sys/rekey/verify")).data).toEqual({ nonce: verificationNonce, started: true, t: 3, n: 4, progress: 0 });

    const one = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[3]!, nonce: verificationNonce } });
    expect(one.data).toEqual({ nonce: verificationNonce, started: true, t: 3, n: 4, progress: 1 });
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys_base64[0]!, nonce: verificationNonce } });
    const done = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[1]!, nonce: verificationNonce } });
    expect(done.response.status).toBe(200);
    expect(done.data).toEqual({ nonce: verificationNonce, complete: true });

    expect(rootKey()).not.toBe(before);
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false, required: 3 });
    expect((await secrets.client.GET("/sys/rekey/verify")).error).toEqual({ errors: ["no rekey configuration found"] });
    // The new shares work, the old ones do not.
    const proof = await rekey(secrets.client, [result.keys[2]!, result.keys[0]!, result.keys[3]!], { secret_shares: 2, secret_threshold: 2 });
    expect(proof.keys).toHaveLength(2);
  });

  it("shows verification as not started while the current shares are still being collected", async () => {
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 2, secret_threshold: 2, require_verification: true } });
    expect((await secrets.client.GET("/sys/rekey/verify")).data).toEqual({ nonce: "", started: false, t: 2, n: 2, progress: 0 });
    expect(started.data).not.toHaveProperty("verification_nonce");
  });

  it("restarts the verification with a new nonce, keeping the attempt", async () => {
    const { nonce, result } = await untilVerification();
    const first = result.verification_nonce!;
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[0]!, nonce: first } });
    const restarted = await secrets.client.DELETE("/sys/rekey/verify");
    expect(restarted.response.status).toBe(200);
    const second = restarted.data!.nonce;
    expect(second).not.toBe(first);
    expect(restarted.data).toEqual({ nonce: second, started: true, t: 3, n: 4, progress: 0 });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce, verification_nonce: second });

    const stale = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[1]!, nonce: first } });
    expect(stale.error).toEqual({ errors: [`incorrect nonce supplied; nonce for this verify operation is "${second}"`] });
    for (const key of result.keys.slice(0, 2)) await secrets.client.POST("/sys/rekey/verify", { body: { key, nonce: second } });
    const done = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[2]!, nonce: second } });
    expect(done.data).toEqual({ nonce: second, complete: true });
  });

  it("refuses wrong new shares: progress cleared, new nonce, the attempt still waiting", async () => {
    const before = rootKey();
    const { result } = await untilVerification();
    const first = result.verification_nonce!;
    // Two new shares and one of the current ones (right length, wrong key). Share x coordinates are
    // random (a share's last byte): the current share is one whose x neither new share has, or the
    // combination would fail as duplicate parts instead (about one run in a hundred).
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[0]!, nonce: first } });
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[1]!, nonce: first } });
    const xOf = (hex: string) => hex.slice(-2);
    const current = secrets.keys.find((key) => xOf(key) !== xOf(result.keys[0]!) && xOf(key) !== xOf(result.keys[1]!))!;
    const failed = await secrets.client.POST("/sys/rekey/verify", { body: { key: current, nonce: first } });
    expect(failed.response.status).toBe(400);
    expect(failed.error).toEqual({ errors: ["rekey verification failed; incorrect key shares supplied"] });
    const status = (await secrets.client.GET("/sys/rekey/verify")).data!;
    expect(status).toMatchObject({ started: true, progress: 0 });
    expect(status.nonce).not.toBe(first);
    expect(rootKey()).toBe(before);
    // The right shares with the new nonce still complete it.
    for (const key of result.keys.slice(1, 3)) await secrets.client.POST("/sys/rekey/verify", { body: { key, nonce: status.nonce } });
    const done = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[3]!, nonce: status.nonce } });
    expect(done.data).toEqual({ nonce: status.nonce, complete: true });
    expect(rootKey()).not.toBe(before);
  });

  it("cancelling during verification keeps the current shares and drops the new ones", async () => {
    const before = rootKey();
    const { result } = await untilVerification();
    expect((await secrets.client.DELETE("/sys/rekey/init")).response.status).toBe(204);
    expect(rootKey()).toBe(before);
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 2, secret_threshold: 2 } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: result.keys[0]!, nonce: started.data!.nonce } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: result.keys[1]!, nonce: started.data!.nonce } });
    const refused = await secrets.client.POST("/sys/rekey/update", { body: { key: result.keys[2]!, nonce: started.data!.nonce } });
    expect(refused.response.status).toBe(500);
    expect(refused.error?.errors[0]).toMatch(/^failed to read root key: invalid key: /);
    const proof = await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(2, 5));
    expect(proof).toMatchObject({ complete: true });
  });
});

describe("concurrency", () => {
  it("serializes simultaneous updates: exactly one completes the attempt", async () => {
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } });
    const nonce = started.data!.nonce;
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce } });
    const answers = await Promise.all(
      [secrets.keys[2]!, secrets.keys[3]!, secrets.keys[4]!].map((key) => secrets.client.POST("/sys/rekey/update", { body: { key, nonce } })),
    );
    expect(answers.filter((a) => a.data && "complete" in a.data)).toHaveLength(1);
    expect(answers.filter((a) => a.error).map((a) => a.error!.errors[0])).toEqual(["no barrier rekey in progress", "no barrier rekey in progress"]);
  });
});
