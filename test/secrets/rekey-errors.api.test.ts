// Every refusal of the rekey operations, through the generated client: 400 with the message in
// the error envelope, and nothing changed (except that failed reconstruction clears the progress,
// as the real system does); shares that fail to make up the current key are the real system's 500s.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generatePgpKey, startSecrets, submitShares, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
beforeEach(async () => {
  secrets = await startSecrets();
});
afterEach(() => secrets.close());

const status = async () => (await secrets.client.GET("/sys/rekey/init")).data!;

async function start(body: { secret_shares: number; secret_threshold: number; require_verification?: boolean } = { secret_shares: 3, secret_threshold: 2 }) {
  const { data } = await secrets.client.POST("/sys/rekey/init", { body });
  return data!.nonce;
}

/** Expects a 400 with exactly this message, and the status unchanged by the request. */
async function expectRefused(call: () => Promise<{ error?: unknown; response: Response }>, message: string | RegExp) {
  const before = await status();
  const { error, response } = await call();
  expect(response.status).toBe(400);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const errors = (error as { errors: string[] }).errors;
  expect(errors).toHaveLength(1);
  if (typeof message === "string") expect(errors[0]).toBe(message);
  else expect(errors[0]).toMatch(message);
  expect(await status()).toEqual(before);
}

describe("startRekey refusals", () => {
  it("an attempt already in progress", async () => {
    await start();
    await expectRefused(() => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 5, secret_threshold: 3 } }), "rekey already in progress");
  });

  it("a threshold above the shares", async () => {
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 2, secret_threshold: 3 } }),
      "provided threshold greater than the total shares",
    );
  });

  it("a threshold of 1 with several shares", async () => {
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 4, secret_threshold: 1 } }),
      "invalid rekey seal configuration: threshold must be greater than one for multiple shares",
    );
  });

  it("backup without PGP keys", async () => {
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2, backup: true } }),
      "cannot request a backup of the new keys without providing PGP keys for encryption",
    );
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2, backup: true, pgp_keys: [] } }),
      "cannot request a backup of the new keys without providing PGP keys for encryption",
    );
  });

  it("a number of PGP keys unlike secret_shares", async () => {
    const key = await generatePgpKey("Operator");
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2, pgp_keys: [key.publicKeyBase64, key.publicKeyBase64] } }),
      "incorrect number of PGP keys for rekey",
    );
  });

  it("an invalid PGP key: not base64, not a key, or a key that cannot encrypt", async () => {
    const good = (await generatePgpKey("Good")).publicKeyBase64;
    const body = (bad: string) => ({ secret_shares: 2, secret_threshold: 2, pgp_keys: [good, bad] });
    await expectRefused(() => secrets.client.POST("/sys/rekey/init", { body: body("this is not base64!") }), /^invalid rekey seal configuration: error decoding given PGP key: key 2 is not base64$/);
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: body(Buffer.from("definitely not a key").toString("base64")) }),
      /^invalid rekey seal configuration: error parsing given PGP key: /,
    );
    const { generateKey } = await import("openpgp");
    const signOnly = await generateKey({ type: "ecc", curve: "ed25519Legacy", userIDs: [{ name: "Signer" }], subkeys: [], format: "binary" });
    const { readPrivateKey } = await import("openpgp");
    const signOnlyPublic = (await readPrivateKey({ binaryKey: signOnly.privateKey })).toPublic().write();
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: body(Buffer.from(signOnlyPublic).toString("base64")) }),
      /^invalid rekey seal configuration: error parsing given PGP key: key [0-9a-f]{40} cannot encrypt: /,
    );
  });

  it("a body that does not follow the schema", async () => {
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: "3", secret_threshold: 2 } as never }),
      "secret_shares: must be integer",
    );
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 2, secret_threshold: 2, pgp_keys: [1] } as never }),
      "pgp_keys[0]: must be string",
    );
    // With a share count left out, the attempt's own checks read the members of their described
    // types only: PGP keys given as one string are not as many keys as it has letters.
    for (const pgp_keys of ["ab", ["a", 1]]) {
      const before = await status();
      const { error, response } = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 2, pgp_keys, backup: true } as never });
      expect(response.status).toBe(400);
      expect((error as { errors: string[] }).errors).toEqual([
        "cannot request a backup of the new keys without providing PGP keys for encryption",
        typeof pgp_keys === "string" ? "pgp_keys: must be array" : "pgp_keys[1]: must be string",
      ]);
      expect(await status()).toEqual(before);
    }
  });

  // Zero, missing and too many shares get the real system's words, in its order: the threshold
  // check of vault/rekey.go RekeyInit, then vault/seal.go SealConfig.Validate (which the real
  // system answers with 500; this server answers bad input with 400, the words are the same).
  it("zero, missing or too many shares", async () => {
    const refusal = (body: Record<string, unknown>, message: string) => expectRefused(() => secrets.client.POST("/sys/rekey/init", { body: body as never }), message);
    await refusal({ secret_shares: 0, secret_threshold: 1 }, "provided threshold greater than the total shares");
    await refusal({ secret_shares: 0, secret_threshold: 0 }, "invalid rekey seal configuration: shares must be at least one");
    await refusal({ secret_shares: 3, secret_threshold: 0 }, "invalid rekey seal configuration: threshold must be at least one");
    await refusal({ secret_shares: -1, secret_threshold: -2 }, "invalid rekey seal configuration: shares must be at least one");
    await refusal({ secret_shares: 256, secret_threshold: 2 }, "invalid rekey seal configuration: shares must be less than 256");
    await refusal({ secret_shares: 300, secret_threshold: 1 }, "invalid rekey seal configuration: threshold must be greater than one for multiple shares");
    await refusal({ secret_threshold: 2 }, "provided threshold greater than the total shares");
    await refusal({}, "invalid rekey seal configuration: shares must be at least one");
    // No body at all is not {}: http/sys_rekey.go refuses parseJSONRequest's io.EOF; `null` is {}.
    const send = (body?: string) => fetch(`${secrets.baseUrl}/sys/rekey/init`, { method: "POST", headers: { "X-Secrets-Token": "root-token-for-tests" }, body });
    const response = await send();
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: ["EOF"] });
    const nullBody = await send("null");
    expect(nullBody.status).toBe(400);
    expect(await nullBody.json()).toEqual({ errors: ["invalid rekey seal configuration: shares must be at least one"] });
  });
});

describe("submitRekeyShare refusals", () => {
  it("no attempt in progress", async () => {
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce: "nope" } }), "no barrier rekey in progress");
  });

  it("a wrong nonce, naming the right one as the real system does", async () => {
    const nonce = await start();
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce: "00000000-0000-0000-0000-000000000000" } }),
      `incorrect nonce supplied; nonce for this rekey operation is "${nonce}"`,
    );
    // No nonce at all is an empty one (http/sys_rekey_test.go TestSysRekey_ReInitUpdate: 400).
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]! } }), `incorrect nonce supplied; nonce for this rekey operation is "${nonce}"`);
  });

  it("a share given twice, also once as hex and once as base64", async () => {
    const nonce = await start();
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    // vault/rekey.go BarrierRekeyUpdate says "generation operation" here.
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } }), "given key has already been provided during this generation operation");
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keysBase64[0]!, nonce } }),
      "given key has already been provided during this generation operation",
    );
  });

  it("a share that is neither hex nor base64", async () => {
    const nonce = await start();
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: "zz-not-a-key-zz", nonce } }), "'key' must be a valid hex or base64 string");
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: "", nonce } }), "'key' must be specified in request body as JSON");
  });

  // vault/rekey.go BarrierRekeyUpdate: the barrier's key length bounds (16, 32 + 1 byte of share
  // overhead), checked before the attempt; hex outside them is read as base64 (http/sys_rekey.go).
  it("a share too short or too long, with or without an attempt", async () => {
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: "ab".repeat(10), nonce: "x" } }), "key is shorter than minimum 16 bytes");
    const nonce = await start();
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: "ab".repeat(10), nonce } }), "key is shorter than minimum 16 bytes");
    await expectRefused(() => secrets.client.POST("/sys/rekey/update", { body: { key: "ab".repeat(40), nonce } }), "key is longer than maximum 33 bytes");
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: Buffer.alloc(34, 7).toString("base64"), nonce } }),
      "key is longer than maximum 33 bytes",
    );
  });

  // vault/rekey.go BarrierRekeyUpdate with the default seal: shares that shamir.Combine refuses are
  // 500 "failed to compute root key: <why>" (its words, in its order: lengths, then x coordinates);
  // shares that combine into another key fail to decrypt the stored keys, 500 "failed to read root
  // key: invalid key: ..." (vault/seal.go readStoredKeys). Either way the progress is cleared.
  /** Expects a 500 with exactly this message, and the attempt kept with its progress cleared. */
  async function expectFailed(call: () => Promise<{ error?: unknown; response: Response }>, message: string, nonce: string) {
    const { error, response } = await call();
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(error).toEqual({ errors: [message] });
    expect(await status()).toMatchObject({ nonce, started: true, progress: 0 });
  }
  const decryptFailed = "failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed";

  it("a share within the bounds but not one share long: taken, then the shares cannot be combined (500)", async () => {
    const nonce = await start();
    const { data } = await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!.slice(0, 64), nonce } });
    expect(data).toMatchObject({ progress: 1 });
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce } });
    await expectFailed(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[2]!, nonce } }),
      "failed to compute root key: all parts must be the same length",
      nonce,
    );
  });

  it("shares that do not reconstruct the key: 500, progress cleared, attempt and nonce kept", async () => {
    const nonce = await start();
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce } });
    const forged = Buffer.from(secrets.keys[2]!, "hex");
    forged[0] = forged[0]! ^ 0xff;
    await expectFailed(() => secrets.client.POST("/sys/rekey/update", { body: { key: forged.toString("hex"), nonce } }), decryptFailed, nonce);
    // The attempt goes on with the right shares.
    expect(await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3))).toMatchObject({ complete: true });
  });

  it("shares of the same wrong length combine into a key that is not an AES key: 500 from setting it up", async () => {
    const nonce = await start();
    // 20-byte shares (x coordinate last) make a 19-byte key.
    const short = (share: string) => share.slice(0, 38) + share.slice(-2);
    for (const share of secrets.keys.slice(0, 2)) await secrets.client.POST("/sys/rekey/update", { body: { key: short(share), nonce } });
    await expectFailed(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: short(secrets.keys[2]!), nonce } }),
      "failed to setup unseal key: crypto/aes: invalid key size 19",
      nonce,
    );
    // 25-byte shares make a 24-byte key: an AES key, but not the one that decrypts the stored keys.
    const aes192 = (share: string) => share.slice(0, 48) + share.slice(-2);
    for (const share of secrets.keys.slice(0, 2)) await secrets.client.POST("/sys/rekey/update", { body: { key: aes192(share), nonce } });
    await expectFailed(() => secrets.client.POST("/sys/rekey/update", { body: { key: aes192(secrets.keys[2]!), nonce } }), decryptFailed, nonce);
  });

  it("shares that cannot be combined at all (the same x coordinate twice): 500, progress cleared", async () => {
    const nonce = await start();
    const twin = Buffer.from(secrets.keys[0]!, "hex");
    twin[5] = twin[5]! ^ 0x01;
    await secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce } });
    await secrets.client.POST("/sys/rekey/update", { body: { key: twin.toString("hex"), nonce } });
    await expectFailed(() => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[1]!, nonce } }), "failed to compute root key: duplicate part detected", nonce);
  });

  it("update while verification is pending", async () => {
    const nonce = await start({ secret_shares: 2, secret_threshold: 2, require_verification: true });
    const result = await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3));
    const verificationNonce = (result as { verification_nonce: string }).verification_nonce;
    await expectRefused(
      () => secrets.client.POST("/sys/rekey/update", { body: { key: secrets.keys[3]!, nonce } }),
      `rekey operation already finished; verification must be performed; nonce for the verification operation is "${verificationNonce}"`,
    );
  });
});

describe("verification refusals", () => {
  it("no attempt: read, submit and restart", async () => {
    await expectRefused(() => secrets.client.GET("/sys/rekey/verify"), "no rekey configuration found");
    await expectRefused(() => secrets.client.POST("/sys/rekey/verify", { body: { key: secrets.keys[0]!, nonce: "x" } }), "no rekey in progress");
    await expectRefused(() => secrets.client.DELETE("/sys/rekey/verify"), "no rekey configuration found");
  });

  it("an attempt that does not wait for verification", async () => {
    const nonce = await start();
    await expectRefused(() => secrets.client.POST("/sys/rekey/verify", { body: { key: secrets.keys[0]!, nonce } }), "no rekey verification in progress");
  });

  // vault/rekey.go RekeyVerifyRestart sets a new verification nonce on any attempt, and
  // http/sys_rekey.go answers the verification status: a restart with nothing to verify succeeds.
  it("a verification restart before there is anything to verify: 200, not started, a nonce kept until the new shares exist", async () => {
    const nonce = await start({ secret_shares: 2, secret_threshold: 2, require_verification: true });
    const { data, response } = await secrets.client.DELETE("/sys/rekey/verify");
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ started: false, t: 2, n: 2, progress: 0, nonce: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(data!.nonce).not.toBe(nonce);
    expect(await status()).toMatchObject({ nonce, started: true, verification_nonce: data!.nonce });
    expect((await secrets.client.GET("/sys/rekey/verify")).data).toMatchObject({ started: false, nonce: data!.nonce });
    // The new shares get their own verification nonce.
    const result = (await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3))) as { verification_nonce: string };
    expect(result.verification_nonce).not.toBe(data!.nonce);
    expect((await secrets.client.GET("/sys/rekey/verify")).data).toMatchObject({ started: true, nonce: result.verification_nonce });
  });

  it("a wrong verification nonce, a new share given twice, a share of the wrong length", async () => {
    const nonce = await start({ secret_shares: 3, secret_threshold: 2, require_verification: true });
    const result = (await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3))) as { keys: string[]; verification_nonce: string };
    const verify = (key: string, n = result.verification_nonce) => () => secrets.client.POST("/sys/rekey/verify", { body: { key, nonce: n } });
    await expectRefused(verify(result.keys[0]!, nonce), `incorrect nonce supplied; nonce for this verify operation is "${result.verification_nonce}"`);
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[0]!, nonce: result.verification_nonce } });
    await expectRefused(verify(result.keys[0]!), "given key has already been provided during this verify operation");
    await expectRefused(verify("cd".repeat(8)), "key is shorter than minimum 16 bytes");
    await expectRefused(verify("%%%"), "'key' must be a valid hex or base64 string");
  });
  // vault/rekey.go RekeyVerify: new shares that shamir.Combine refuses are 500 "failed to compute
  // key for verification: <why>"; the progress is cleared and the verification gets a new nonce, as
  // for new shares that make up another key (400).
  it("new shares that cannot be combined: 500, progress cleared, a new verification nonce", async () => {
    const nonce = await start({ secret_shares: 3, secret_threshold: 2, require_verification: true });
    const result = (await submitShares(secrets.client, nonce, secrets.keys.slice(0, 3))) as { keys: string[]; verification_nonce: string };
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[0]!.slice(0, 64), nonce: result.verification_nonce } });
    const { error, response } = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[1]!, nonce: result.verification_nonce } });
    expect(response.status).toBe(500);
    expect(error).toEqual({ errors: ["failed to compute key for verification: all parts must be the same length"] });
    const after = (await secrets.client.GET("/sys/rekey/verify")).data!;
    expect(after).toMatchObject({ started: true, progress: 0 });
    expect(after.nonce).not.toBe(result.verification_nonce);
    // The new shares still complete the verification under the new nonce.
    await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[0]!, nonce: after.nonce } });
    const done = await secrets.client.POST("/sys/rekey/verify", { body: { key: result.keys[2]!, nonce: after.nonce } });
    expect(done.data).toEqual({ nonce: after.nonce, complete: true });
  });
});

describe("backup refusals", () => {
  it("no backup stored", async () => {
    await expectRefused(() => secrets.client.GET("/sys/rekey/backup"), "no backed-up keys found");
    expect((await secrets.client.DELETE("/sys/rekey/backup")).response.status).toBe(204);
  });
});
