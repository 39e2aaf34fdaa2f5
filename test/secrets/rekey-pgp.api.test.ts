// Rekeying with PGP keys and backup, through the generated client: each new share is encrypted to
// its key (order kept, a key may be given twice), the test decrypts them with the private keys and
// proves them by a second rekey; the backup holds the same messages by fingerprint until deleted.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  decryptShare,
  generatePgpKey,
  rekey,
  startSecrets,
  submitShares,
  type RunningTestSecrets,
  type TestPgpKey,
} from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
let alice: TestPgpKey;
let bob: TestPgpKey;
beforeAll(async () => {
  [alice, bob] = await Promise.all([generatePgpKey("Alice"), generatePgpKey("Bob")]);
});
beforeEach(async () => {
  secrets = await startSecrets();
});
afterEach(() => secrets.close());

type Complete = { nonce: string; keys: string[]; keys_base64: string[]; pgp_fingerprints: string[] | null; backup: boolean; verification_nonce?: string };

describe("a rekey with PGP keys and backup", () => {
  it("encrypts each new share to its key, keeps a backup, and the decrypted shares work", async () => {
    const order = [alice, bob, alice];
    const started = await secrets.client.POST("/sys/rekey/init", {
      body: { secret_shares: 3, secret_threshold: 2, pgp_keys: order.map((k) => k.publicKeyBase64), backup: true },
    });
    expect(started.response.status).toBe(200);
    expect(started.data).toMatchObject({ pgp_fingerprints: order.map((k) => k.fingerprint), backup: true });
    for (const fingerprint of started.data!.pgp_fingerprints!) expect(fingerprint).toMatch(/^[0-9a-f]{40}$/);

    const result = (await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(0, 3))) as Complete;
    expect(result).toMatchObject({ complete: true, pgp_fingerprints: order.map((k) => k.fingerprint), backup: true, verification_required: false });
    expect(result.keys).toHaveLength(3);
    // The keys are OpenPGP messages, not shares: decrypt them, from hex and from base64.
    const shares: string[] = [];
    for (const [i, key] of order.entries()) {
      const fromHex = await decryptShare(result.keys[i]!, key, "hex");
      const fromBase64 = await decryptShare(result.keys_base64[i]!, key, "base64");
      expect(fromHex).toBe(fromBase64);
      expect(fromHex).toMatch(/^[0-9a-f]{66}$/);
      shares.push(fromHex);
    }
    // Share 2 is for Bob only: Alice's key cannot open it.
    await expect(decryptShare(result.keys[1]!, alice, "hex")).rejects.toThrow();

    // The backup: the same messages by fingerprint, in key order, in the response envelope.
    const backup = await secrets.client.GET("/sys/rekey/backup");
    expect(backup.response.status).toBe(200);
    expect(backup.data).toMatchObject({ lease_id: "", renewable: false, lease_duration: 0, wrap_info: null, warnings: null, auth: null });
    expect(backup.data!.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(backup.data!.data).toEqual({
      nonce: started.data!.nonce,
      keys: { [alice.fingerprint]: [result.keys[0], result.keys[2]], [bob.fingerprint]: [result.keys[1]] },
      keys_base64: { [alice.fingerprint]: [result.keys_base64[0], result.keys_base64[2]], [bob.fingerprint]: [result.keys_base64[1]] },
    });

    // Prove the decrypted shares by a second rekey (Bob's and Alice's second share).
    const proof = await rekey(secrets.client, [shares[1]!, shares[2]!], { secret_shares: 2, secret_threshold: 2 });
    expect(proof.keys).toHaveLength(2);
    // That rekey had no backup: the old backup stays until it is deleted.
    expect((await secrets.client.GET("/sys/rekey/backup")).data!.data.nonce).toBe(started.data!.nonce);
    expect((await secrets.client.DELETE("/sys/rekey/backup")).response.status).toBe(204);
    expect((await secrets.client.GET("/sys/rekey/backup")).error).toEqual({ errors: ["no backed-up keys found"] });
  });

  it("without backup, keeps none", async () => {
    const started = await secrets.client.POST("/sys/rekey/init", {
      body: { secret_shares: 2, secret_threshold: 2, pgp_keys: [alice.publicKeyBase64, bob.publicKeyBase64] },
    });
    expect(started.data).toMatchObject({ backup: false, pgp_fingerprints: [alice.fingerprint, bob.fingerprint] });
    const result = (await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(1, 4))) as Complete;
    expect(result.backup).toBe(false);
    expect((await secrets.client.GET("/sys/rekey/backup")).response.status).toBe(400);
    const shares = [await decryptShare(result.keys[0]!, alice, "hex"), await decryptShare(result.keys[1]!, bob, "hex")];
    expect((await rekey(secrets.client, shares, { secret_shares: 3, secret_threshold: 2 })).keys).toHaveLength(3);
  });

  it("with verification: the holders decrypt their shares and verify them before the key rotates", async () => {
    const before = secrets.secrets.cluster.seal.get().rootKey;
    const started = await secrets.client.POST("/sys/rekey/init", {
      body: { secret_shares: 2, secret_threshold: 2, pgp_keys: [bob.publicKeyBase64, alice.publicKeyBase64], backup: true, require_verification: true },
    });
    const result = (await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(2, 5))) as Complete;
    expect(result.verification_nonce).toBeDefined();
    // The backup is written when the shares are made, before verification.
    expect((await secrets.client.GET("/sys/rekey/backup")).data!.data.keys).toEqual({ [bob.fingerprint]: [result.keys[0]], [alice.fingerprint]: [result.keys[1]] });
    const shares = [await decryptShare(result.keys_base64[0]!, bob, "base64"), await decryptShare(result.keys_base64[1]!, alice, "base64")];
    await secrets.client.POST("/sys/rekey/verify", { body: { key: shares[0]!, nonce: result.verification_nonce! } });
    expect(secrets.secrets.cluster.seal.get().rootKey).toBe(before);
    const done = await secrets.client.POST("/sys/rekey/verify", { body: { key: shares[1]!, nonce: result.verification_nonce! } });
    expect(done.data).toEqual({ nonce: result.verification_nonce, complete: true });
    expect(secrets.secrets.cluster.seal.get().rootKey).not.toBe(before);
    expect((await rekey(secrets.client, shares, { secret_shares: 1, secret_threshold: 1 })).keys).toHaveLength(1);
  });
});

describe("interoperability with standard tooling", () => {
  // GnuPG is installed by .ci/run (Debian package gnupg).
  it("a key made and held by GnuPG decrypts its share with `gpg --decrypt`", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "secrets-gpg-"));
    const gpg = (args: string[], input?: Buffer) =>
      execFileSync("gpg", ["--homedir", home, "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", "", ...args], { input });
    try {
      gpg(["--quick-gen-key", "Carol <carol@example.com>", "ed25519", "cert,sign", "never"]);
      const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(gpg(["--with-colons", "--list-keys"]).toString())![1]!;
      gpg(["--quick-add-key", fingerprint, "cv25519", "encr", "never"]);
      const publicKey = gpg(["--export", fingerprint]).toString("base64");

      const started = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1, pgp_keys: [publicKey] } });
      expect(started.data!.pgp_fingerprints).toEqual([fingerprint.toLowerCase()]);
      const result = (await submitShares(secrets.client, started.data!.nonce, secrets.keys.slice(0, 3))) as Complete;
      const share = gpg(["--decrypt"], Buffer.from(result.keys_base64[0]!, "base64")).toString();
      expect(share).toMatch(/^[0-9a-f]{64}$/);
      expect(Buffer.from(share, "hex").toString("base64")).toBe(secrets.secrets.cluster.seal.get().rootKey);
    } finally {
      spawnSync("gpgconf", ["--homedir", home, "--kill", "gpg-agent"]);
      rmSync(home, { recursive: true, force: true });
    }
  });
});
