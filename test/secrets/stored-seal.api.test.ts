// SECRETS_SEAL=stored: the seal stores the root key; operators hold recovery key shares, which
// authorize a rekey, always of shares 1, threshold 1, stored shares 1 (whatever is asked); the root
// key rotates and no shares are returned; PGP keys, backup and verification are refused.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generatePgpKey, startSecrets, submitShares, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
beforeEach(async () => {
  secrets = await startSecrets({ seal: "stored", shares: { secret_shares: 4, secret_threshold: 2 } });
});
afterEach(() => secrets.close());

const seal = () => secrets.secrets.cluster.seal.get();

describe("the stored-keys seal", () => {
  it("hands out recovery key shares at start, and no unseal key shares", () => {
    const { init } = secrets.secrets.cluster;
    expect(init.keys).toEqual([]);
    expect(init.recoveryKeys).toHaveLength(4);
    expect(seal()).toMatchObject({ type: "stored", shares: { secret_shares: 4, secret_threshold: 2 } });
  });

  it("rekeys with recovery shares: the root key rotates, no shares are returned, the recovery shares stay", async () => {
    const before = seal();
    const status = await secrets.client.GET("/sys/rekey/init");
    expect(status.data).toMatchObject({ started: false, required: 2 });
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1, stored_shares: 1 } });
    expect(started.data).toMatchObject({ started: true, t: 1, n: 1, required: 2 });
    const result = await submitShares(secrets.client, started.data!.nonce, [secrets.keys[3]!, secrets.keysBase64[0]!]);
    expect(result).toEqual({
      nonce: started.data!.nonce,
      complete: true,
      keys: [],
      keys_base64: [],
      pgp_fingerprints: null,
      backup: false,
      verification_required: false,
    });
    expect(seal().rootKey).not.toBe(before.rootKey);
    expect(seal().rootKeyTerm).toBe(before.rootKeyTerm + 1);
    expect(seal().operatorKey).toBe(before.operatorKey);

    // stored_shares may be left out; the same recovery shares authorize the next rekey.
    const again = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } });
    expect(await submitShares(secrets.client, again.data!.nonce, secrets.keys.slice(1, 3))).toMatchObject({ complete: true, keys: [] });
    expect(seal().rootKeyTerm).toBe(before.rootKeyTerm + 2);
  });

  it("refuses shares that are not the recovery key's, clearing the progress", async () => {
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } });
    const nonce = started.data!.nonce;
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    const wrong = Buffer.from(secrets.keys[1]!, "hex");
    wrong[3] = wrong[3]! ^ 0x40;
    // vault/rekey.go BarrierRekeyUpdate (useRecovery) and vault/seal_autoseal.go VerifyRecoveryKey: 400.
    const { error, response } = await secrets.client.POST("/sys/rekey/update", { body: { key: wrong.toString("hex"), nonce } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ errors: ["recovery key verification failed: recovery key does not match submitted values"] });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce, progress: 0 });
    // Recovery shares that cannot be combined fail before the comparison, as with the default seal: 500.
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    const combined = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!.slice(0, 64), nonce } });
    expect(combined.response.status).toBe(500);
    expect(combined.error).toEqual({ errors: ["failed to compute root key: all parts must be the same length"] });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce, progress: 0 });
  });

  // vault/rekey.go BarrierRekeyInit (`default:` branch, "stored keys supported, forcing rekey
  // shares/threshold to 1"): whatever shares, threshold and stored shares are asked, the attempt is
  // one share with threshold 1; the defaults of the usual clients (5 shares, threshold 3) start it.
  it("takes any shares, threshold and stored shares as 1", async () => {
    for (const body of [
      { secret_shares: 5, secret_threshold: 3 },
      { secret_shares: 1, secret_threshold: 1, stored_shares: 2 },
      { secret_shares: 1, secret_threshold: 1, stored_shares: 0 },
      { secret_shares: 300, secret_threshold: 2, stored_shares: -1 },
    ]) {
      const { data, response } = await secrets.client.POST("/sys/rekey/init", { body });
      expect(response.status).toBe(200);
      expect(data).toMatchObject({ started: true, t: 1, n: 1, progress: 0, required: 2 });
      expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ nonce: data!.nonce, t: 1, n: 1 });
      await secrets.client.DELETE("/sys/rekey/init");
    }
    const before = seal();
    const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 5, secret_threshold: 3 } });
    expect(await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(0, 2))).toMatchObject({ complete: true, keys: [] });
    expect(seal().rootKeyTerm).toBe(before.rootKeyTerm + 1);
    expect(seal().shares).toEqual(before.shares);
  });

  // The real system would take left-out shares as 0 and then as 1; the description requires them.
  it("still requires secret_shares and secret_threshold", async () => {
    const { error, response } = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 5 } as never });
    expect(response.status).toBe(400);
    expect(error).toEqual({ errors: ["'secret_threshold' must be specified in request body as JSON"] });
    expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false });
  });

  it("refuses PGP keys, backup and verification, after the checks of the numbers sent", async () => {
    const refused = async (body: Record<string, unknown>, message: string) => {
      const { error, response } = await secrets.client.POST("/sys/rekey/init", { body: body as never });
      expect(response.status).toBe(400);
      expect(error).toEqual({ errors: [message] });
      expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false });
    };
    await refused({ secret_shares: 2, secret_threshold: 3 }, "provided threshold greater than the total shares");
    const key = await generatePgpKey("Operator");
    await refused({ secret_shares: 5, secret_threshold: 3, pgp_keys: [key.publicKeyBase64] }, "incorrect number of PGP keys for rekey");
    await refused({ secret_shares: 1, secret_threshold: 1, pgp_keys: [key.publicKeyBase64] }, "PGP key encryption not supported when using stored keys");
    await refused(
      { secret_shares: 2, secret_threshold: 2, pgp_keys: [key.publicKeyBase64, key.publicKeyBase64], backup: true },
      "PGP key encryption not supported when using stored keys",
    );
    await refused(
      { secret_shares: 5, secret_threshold: 3, require_verification: true },
      "requiring verification not supported when rekeying the barrier key with recovery keys",
    );
  });
});
