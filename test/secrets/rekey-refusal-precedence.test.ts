// Which refusal the rekey gives first, and with which words, as the real service does it
// (vault/rekey.go BarrierRekeyInit/BarrierRekeyUpdate/RekeyVerify): the share's length bounds come
// before anything about the attempt; a wrong nonce before a repeated share; the parameters of a new
// attempt in the real order, with a seal that stores its keys refusing PGP keys and verification;
// and a refused share leaves the attempt as it was.
import { describe, expect, it } from "vitest";
import { rekeyConfig as config } from "../helpers/rekey.ts";
import { generatePgpKey } from "../helpers/secrets.ts";
import { checkRekeyRequest, checkShareBounds, transition, type RekeyContext } from "../../server/secrets/rekey/rekey.ts";
import { createSeal, type SealState } from "../../server/secrets/sys/seal.ts";
import { KEY_LENGTH } from "../../server/secrets/sys/shamir.ts";

let counter = 0;
const nextKey = () => new Uint8Array(KEY_LENGTH).fill(++counter % 250);

async function setup(type: "shamir" | "stored" = "shamir", threshold = 2) {
  const { state, operatorShares } = await createSeal(type, { secret_shares: 3, secret_threshold: threshold }, nextKey);
  let nonce = 0;
  const context = (seal: SealState = state): RekeyContext => ({
    seal,
    newNonce: () => `nonce-${++nonce}`,
    newKey: nextKey,
    now: () => "2026-01-01T00:00:00.000Z",
  });
  return { shares: operatorShares, context };
}


describe("a share's length is checked first (16 to 33 bytes)", () => {
  it("refuses shorter and longer shares with the real messages, and takes the bounds themselves", () => {
    expect(() => checkShareBounds(new Uint8Array(15))).toThrow("key is shorter than minimum 16 bytes");
    expect(() => checkShareBounds(new Uint8Array(0))).toThrow("key is shorter than minimum 16 bytes");
    expect(() => checkShareBounds(new Uint8Array(34))).toThrow("key is longer than maximum 33 bytes");
    expect(() => checkShareBounds(new Uint8Array(16))).not.toThrow();
    expect(() => checkShareBounds(new Uint8Array(33))).not.toThrow();
    expect(() => checkShareBounds(new Uint8Array(20))).not.toThrow();
  });
});

describe("submitting current shares", () => {
  it("a wrong nonce is refused with the attempt's nonce, before the share is looked at", async () => {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    const before = structuredClone(one.attempt);
    // The same share again, under a wrong nonce: the nonce is what is wrong.
    await expect(transition(one.attempt, { type: "submitShare", nonce: "other", share: shares[0]! }, context())).rejects.toThrow(
      `incorrect nonce supplied; nonce for this rekey operation is "${attempt!.nonce}"`,
    );
    expect(one.attempt).toEqual(before);
  });

  it("a share given twice is refused with the real words ('generation operation'), changing nothing", async () => {
    const { context, shares } = await setup("shamir", 3);
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    const two = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    await expect(transition(two.attempt, { type: "submitShare", nonce: attempt!.nonce, share: Uint8Array.from(shares[0]!) }, context())).rejects.toThrow(
      "given key has already been provided during this generation operation",
    );
    expect(two.attempt!.progress).toHaveLength(2);
  });

  it("shares of different lengths are different shares (no comparison error), and the threshold then fails to combine them", async () => {
    const { context } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: new Uint8Array(17).fill(1) }, context());
    const two = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: new Uint8Array(33).fill(1) }, context());
    // vault/rekey.go BarrierRekeyUpdate: shamir.Combine's refusal is a 500.
    expect(two.refusal).toEqual({ status: 500, message: "failed to compute root key: all parts must be the same length" });
    expect(two.attempt).toMatchObject({ nonce: attempt!.nonce, progress: [] });
    expect(two.effect).toBeUndefined();
  });

  it("with a seal that stores its keys, the rotation hands out no shares", async () => {
    const { context, shares } = await setup("stored", 2);
    const { attempt } = await transition(undefined, { type: "start", config: config({ secret_shares: 1, secret_threshold: 1 }) }, context());
    let state = attempt;
    state = (await transition(state, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context())).attempt;
    const done = await transition(state, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    expect(done.refusal).toBeUndefined();
    expect(done.effect).toMatchObject({ kind: "newShares", install: true, shares: [] });
  });
});

// vault/rekey.go BarrierRekeyUpdate: how a key made up of current shares that is not the current
// one is refused, by seal. Each clears the progress and keeps the attempt.
describe("a reconstructed key that is not the current one", () => {
  async function atThreshold(type: "shamir" | "stored", first: Uint8Array, second: Uint8Array) {
    const { context } = await setup(type, 2);
    const { attempt } = await transition(undefined, { type: "start", config: config(type === "stored" ? { secret_shares: 1, secret_threshold: 1 } : {}) }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: first }, context());
    const two = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: second }, context());
    expect(two.attempt).toMatchObject({ nonce: attempt!.nonce, progress: [] });
    expect(two.effect).toBeUndefined();
    return two.refusal;
  }
  /** Two shares of `length` bytes (x coordinates 1 and 2) of a key of length - 1 bytes. */
  const pair = (length: number): [Uint8Array, Uint8Array] => {
    const a = new Uint8Array(length).fill(7);
    const b = new Uint8Array(length).fill(9);
    a[length - 1] = 1;
    b[length - 1] = 2;
    return [a, b];
  };

  it("a seal that stores its keys compares it with the recovery key: 400", async () => {
    expect(await atThreshold("stored", ...pair(33))).toEqual({ status: 400, message: "recovery key verification failed: recovery key does not match submitted values" });
    // Whatever its length: no key is set up from it.
    expect(await atThreshold("stored", ...pair(20))).toEqual({ status: 400, message: "recovery key verification failed: recovery key does not match submitted values" });
  });

  it("the default seal sets it up as an AES key and decrypts the stored root key with it: 500", async () => {
    const decrypt = "failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed";
    for (const keyLength of [16, 24, 32]) expect(await atThreshold("shamir", ...pair(keyLength + 1))).toEqual({ status: 500, message: decrypt });
    for (const keyLength of [15, 17, 23, 25, 31]) {
      expect(await atThreshold("shamir", ...pair(keyLength + 1))).toEqual({ status: 500, message: `failed to setup unseal key: crypto/aes: invalid key size ${keyLength}` });
    }
  });

  it("shares that cannot be combined are refused before, with either seal: 500", async () => {
    const [a, b] = pair(33);
    expect(await atThreshold("stored", a, b.slice(1))).toEqual({ status: 500, message: "failed to compute root key: all parts must be the same length" });
    const twin = Uint8Array.from(a);
    twin[0] = 0;
    expect(await atThreshold("shamir", a, twin)).toEqual({ status: 500, message: "failed to compute root key: duplicate part detected" });
  });
});

describe("submitting verification shares", () => {
  async function verifying() {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config({ verificationRequired: true }) }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    const handed = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    const newShares = handed.effect?.kind === "newShares" ? handed.effect.shares : [];
    return { context, attempt: handed.attempt!, newShares };
  }

  it("a wrong nonce is refused with the verification's nonce, changing nothing", async () => {
    const { context, attempt, newShares } = await verifying();
    const nonce = attempt.verification!.nonce;
    await expect(transition(attempt, { type: "submitVerificationShare", nonce: attempt.nonce, share: newShares[0]! }, context())).rejects.toThrow(
      `incorrect nonce supplied; nonce for this verify operation is "${nonce}"`,
    );
    expect(attempt.verification!.progress).toEqual([]);
  });

  it("a new share given twice is refused ('verify operation')", async () => {
    const { context, attempt, newShares } = await verifying();
    const nonce = attempt.verification!.nonce;
    const one = await transition(attempt, { type: "submitVerificationShare", nonce, share: newShares[0]! }, context());
    await expect(transition(one.attempt, { type: "submitVerificationShare", nonce, share: Uint8Array.from(newShares[0]!) }, context())).rejects.toThrow(
      "given key has already been provided during this verify operation",
    );
    expect(one.attempt!.verification!.progress).toHaveLength(1);
  });
});

describe("new shares that cannot be combined", () => {
  // vault/rekey.go RekeyVerify: 500 with shamir.Combine's words; its deferred reset clears the
  // progress and gives the verification a new nonce, as for new shares of another key.
  it("are a 500 that clears the progress and rotates the verification nonce", async () => {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config({ verificationRequired: true }) }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    const handed = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    const newShares = handed.effect?.kind === "newShares" ? handed.effect.shares : [];
    const verification = handed.attempt!.verification!;
    const first = await transition(handed.attempt, { type: "submitVerificationShare", nonce: verification.nonce, share: newShares[0]! }, context());
    const failed = await transition(first.attempt, { type: "submitVerificationShare", nonce: verification.nonce, share: newShares[1]!.slice(1) }, context());
    expect(failed.refusal).toEqual({ status: 500, message: "failed to compute key for verification: all parts must be the same length" });
    expect(failed.effect).toBeUndefined();
    expect(failed.attempt!.verification).toMatchObject({ key: verification.key, progress: [] });
    expect(failed.attempt!.verification!.nonce).not.toBe(verification.nonce);
    expect(failed.attempt!.nonce).toBe(attempt!.nonce);
  });
});

describe("the parameters of a new attempt, in the real order", () => {
  it("require_verification and backup are read as given; left out, they are off", async () => {
    expect(await checkRekeyRequest({ secret_shares: 3, secret_threshold: 2, require_verification: true }, "shamir")).toMatchObject({ verificationRequired: true, backup: false });
    expect(await checkRekeyRequest({ secret_shares: 3, secret_threshold: 2 }, "shamir")).toMatchObject({ verificationRequired: false, backup: false, pgpKeys: [] });
  });

  it("a backup needs PGP keys, and PGP keys alone ask for no backup", async () => {
    const key = await generatePgpKey("Backup Operator");
    const withBackup = await checkRekeyRequest({ secret_shares: 1, secret_threshold: 1, pgp_keys: [key.publicKeyBase64], backup: true }, "shamir");
    expect(withBackup).toMatchObject({ backup: true, pgpKeys: [expect.anything()] });
    const withoutBackup = await checkRekeyRequest({ secret_shares: 1, secret_threshold: 1, pgp_keys: [key.publicKeyBase64] }, "shamir");
    expect(withoutBackup).toMatchObject({ backup: false, pgpKeys: [expect.anything()] });
  });

  // vault/rekey.go BarrierRekeyInit, its `default:` branch (a seal that stores its keys): shares,
  // threshold and stored shares are set to 1 whatever was asked ("forcing rekey shares/threshold to
  // 1"), then PGP keys, a backup and verification are refused, in that order. Only the checks before
  // it (http/sys_rekey.go: backup without keys, the number of keys; vault/rekey.go RekeyInit: the
  // threshold above the shares) see the numbers as sent.
  it("with a seal that stores its keys: any shares taken as one, then no PGP keys, then no verification", async () => {
    const key = await generatePgpKey("Stored Operator");
    const stored = (request: Parameters<typeof checkRekeyRequest>[0]) => checkRekeyRequest(request, "stored");
    const one = { secret_shares: 1, secret_threshold: 1, verificationRequired: false, backup: false, pgpKeys: [] };
    expect(await stored({ secret_shares: 5, secret_threshold: 3 })).toEqual(one);
    expect(await stored({ secret_shares: 2, secret_threshold: 1 })).toEqual(one);
    expect(await stored({ secret_shares: 1, secret_threshold: 1, stored_shares: 2 })).toEqual(one);
    expect(await stored({ secret_shares: 1, secret_threshold: 1, stored_shares: -3 })).toEqual(one);
    // Numbers the share configuration's own check would refuse are 1 before it runs.
    expect(await stored({ secret_shares: 1, secret_threshold: 0 })).toEqual(one);
    expect(await stored({ secret_shares: 300, secret_threshold: 256 })).toEqual(one);
    expect(await stored({ secret_shares: 0, secret_threshold: 0 })).toEqual(one);
    // The checks before the forcing still see the numbers sent.
    await expect(stored({ secret_shares: 2, secret_threshold: 3 })).rejects.toThrow("provided threshold greater than the total shares");
    await expect(stored({ secret_shares: 3, secret_threshold: 2, pgp_keys: [key.publicKeyBase64] })).rejects.toThrow("incorrect number of PGP keys for rekey");
    await expect(stored({ secret_shares: 3, secret_threshold: 2, backup: true })).rejects.toThrow(
      "cannot request a backup of the new keys without providing PGP keys for encryption",
    );
    await expect(
      stored({ secret_shares: 2, secret_threshold: 2, pgp_keys: [key.publicKeyBase64, key.publicKeyBase64], require_verification: true }),
    ).rejects.toThrow("PGP key encryption not supported when using stored keys");
    await expect(stored({ secret_shares: 1, secret_threshold: 1, pgp_keys: [key.publicKeyBase64], require_verification: true })).rejects.toThrow(
      "PGP key encryption not supported when using stored keys",
    );
    await expect(stored({ secret_shares: 1, secret_threshold: 1, pgp_keys: [key.publicKeyBase64], backup: true })).rejects.toThrow(
      "PGP key encryption not supported when using stored keys",
    );
    await expect(stored({ secret_shares: 4, secret_threshold: 2, require_verification: true })).rejects.toThrow(
      "requiring verification not supported when rekeying the barrier key with recovery keys",
    );
    expect(await stored({ secret_shares: 1, secret_threshold: 1, stored_shares: 1 })).toMatchObject({ secret_shares: 1, secret_threshold: 1, verificationRequired: false });
  });
});
