// Key shares are in the real system's format: the y bytes then the x coordinate as the last byte,
// over GF(2^8) with the AES polynomial. An independent combiner written from that definition (below)
// must reconstruct the key from any threshold of shares the service makes.
import { describe, expect, it } from "vitest";
import { decodeKeyShare } from "../../server/secrets/sys/key-encoding.ts";
import { createSeal, isOperatorKey, rekeyedSeal } from "../../server/secrets/sys/seal.ts";
import { combineShares, KEY_LENGTH, shareLength, splitKey } from "../../server/secrets/sys/shamir.ts";

/** Multiplication in GF(2^8) modulo the AES polynomial x^8 + x^4 + x^3 + x + 1 (0x11b). */
function gfMul(a: number, b: number): number {
  let product = 0;
  for (let i = 0; i < 8; i++) {
    if (b & 1) product ^= a;
    const carry = a & 0x80;
    a = (a << 1) & 0xff;
    if (carry) a ^= 0x1b;
    b >>= 1;
  }
  return product;
}

function gfInverse(a: number): number {
  // a^254 = a^-1 in GF(2^8).
  let result = 1;
  for (let i = 0; i < 254; i++) result = gfMul(result, a);
  return result;
}

/** Lagrange interpolation at x = 0, byte by byte; each share is y bytes then x. */
function referenceCombine(shares: Uint8Array[]): Uint8Array {
  const length = shares[0]!.length - 1;
  const xs = shares.map((share) => share[length]!);
  const secret = new Uint8Array(length);
  for (let byte = 0; byte < length; byte++) {
    let value = 0;
    for (let j = 0; j < shares.length; j++) {
      let basis = 1;
      for (let m = 0; m < shares.length; m++) {
        if (m === j) continue;
        // l_j(0) = prod x_m / (x_m - x_j); subtraction is xor in GF(2^8).
        basis = gfMul(basis, gfMul(xs[m]!, gfInverse(xs[m]! ^ xs[j]!)));
      }
      value ^= gfMul(shares[j]![byte]!, basis);
    }
    secret[byte] = value;
  }
  return secret;
}

const key = new Uint8Array(Array.from({ length: KEY_LENGTH }, (_, i) => (i * 37 + 11) & 0xff));

describe("splitKey and combineShares", () => {
  it("makes 33-byte shares with distinct x coordinates as the last byte", async () => {
    const shares = await splitKey(key, { secret_shares: 5, secret_threshold: 3 });
    expect(shares).toHaveLength(5);
    for (const share of shares) expect(share).toHaveLength(33);
    expect(new Set(shares.map((share) => share[32])).size).toBe(5);
    expect(shareLength({ secret_shares: 5, secret_threshold: 3 })).toBe(33);
  });

  it("is combined by an independent GF(2^8) combiner from any threshold of shares", async () => {
    const shares = await splitKey(key, { secret_shares: 5, secret_threshold: 3 });
    for (const pick of [[0, 1, 2], [0, 2, 4], [4, 3, 1], [1, 2, 3, 4]]) {
      const chosen = pick.map((i) => shares[i]!);
      expect(referenceCombine(chosen)).toEqual(key);
      expect(await combineShares(chosen, 3)).toEqual(key);
    }
  });

  it("gives a wrong key (not an error) from fewer shares than the threshold", async () => {
    const shares = await splitKey(key, { secret_shares: 5, secret_threshold: 3 });
    expect(await combineShares(shares.slice(0, 2), 3)).not.toEqual(key);
  });

  it("refuses shares with the same x coordinate", async () => {
    const shares = await splitKey(key, { secret_shares: 3, secret_threshold: 2 });
    const twin = Uint8Array.from(shares[0]!);
    twin[0] = twin[0]! ^ 1;
    await expect(combineShares([shares[0]!, twin], 2)).rejects.toThrow(/^duplicate part detected$/);
    await expect(combineShares([shares[1]!, shares[0]!, twin], 2)).rejects.toThrow(/^duplicate part detected$/);
  });

  // shamir/shamir.go Combine: its words, and the lengths checked before the x coordinates.
  it("refuses shares of different lengths, before looking for a repeated x coordinate", async () => {
    const shares = await splitKey(key, { secret_shares: 3, secret_threshold: 2 });
    const shorter = shares[1]!.slice(1);
    await expect(combineShares([shares[0]!, shorter], 2)).rejects.toThrow(/^all parts must be the same length$/);
    await expect(combineShares([shares[0]!, shares[0]!, shorter], 2)).rejects.toThrow(/^all parts must be the same length$/);
    await expect(combineShares([shares[0]!, shares[1]!, shares[2]!.slice(1)], 2)).rejects.toThrow(/^all parts must be the same length$/);
  });

  it("hands out the key itself for a single share, as the real system does", async () => {
    const shares = await splitKey(key, { secret_shares: 1, secret_threshold: 1 });
    expect(shares).toEqual([key]);
    expect(await combineShares(shares, 1)).toEqual(key);
    expect(shareLength({ secret_shares: 1, secret_threshold: 1 })).toBe(32);
  });

  it("refuses to combine no shares, whatever the threshold (no empty key is ever made up)", async () => {
    await expect(combineShares([], 1)).rejects.toThrow("no key share to combine");
    // shamir/shamir.go Combine's words, in its order.
    await expect(combineShares([], 2)).rejects.toThrow(/^less than two parts cannot be used to reconstruct the secret$/);
    await expect(combineShares([new Uint8Array(33)], 2)).rejects.toThrow(/^less than two parts cannot be used to reconstruct the secret$/);
    await expect(combineShares([new Uint8Array(1), new Uint8Array(33)], 2)).rejects.toThrow(/^parts must be at least two bytes$/);
    await expect(combineShares([new Uint8Array(2), new Uint8Array(1)], 2)).rejects.toThrow(/^all parts must be the same length$/);
  });
});

describe("seals", () => {
  let counter = 0;
  const randomKey = () => new Uint8Array(KEY_LENGTH).fill(++counter);

  it("shamir: the operators' shares make up the root key, and a rekey replaces it", async () => {
    const { state, operatorShares } = await createSeal("shamir", { secret_shares: 3, secret_threshold: 2 }, randomKey);
    expect(state.operatorKey).toBe(state.rootKey);
    expect(isOperatorKey(state, referenceCombine(operatorShares.slice(0, 2)))).toBe(true);
    const next = rekeyedSeal(state, new Uint8Array(KEY_LENGTH).fill(99), { secret_shares: 1, secret_threshold: 1 });
    expect(next.rootKeyTerm).toBe(2);
    expect(next.shares).toEqual({ secret_shares: 1, secret_threshold: 1 });
    expect(isOperatorKey(next, referenceCombine(operatorShares.slice(0, 2)))).toBe(false);
    expect(isOperatorKey(next, new Uint8Array(KEY_LENGTH).fill(99))).toBe(true);
  });

  it("stored: the operators hold recovery shares; a rekey rotates only the root key", async () => {
    const { state, operatorShares } = await createSeal("stored", { secret_shares: 3, secret_threshold: 2 }, randomKey);
    expect(state.operatorKey).not.toBe(state.rootKey);
    const next = rekeyedSeal(state, new Uint8Array(KEY_LENGTH).fill(7), { secret_shares: 1, secret_threshold: 1 });
    expect(next.rootKey).not.toBe(state.rootKey);
    expect(next.shares).toEqual(state.shares);
    expect(isOperatorKey(next, referenceCombine(operatorShares.slice(1, 3)))).toBe(true);
  });

  it("refuses share configurations the real system refuses", async () => {
    await expect(createSeal("shamir", { secret_shares: 3, secret_threshold: 1 }, randomKey)).rejects.toThrow(/greater than one/);
    await expect(createSeal("shamir", { secret_shares: 2, secret_threshold: 3 }, randomKey)).rejects.toThrow(/larger than shares/);
    await expect(createSeal("shamir", { secret_shares: 256, secret_threshold: 3 }, randomKey)).rejects.toThrow(/less than 256/);
  });
});

describe("decodeKeyShare", () => {
  const share = new Uint8Array(33).fill(0xab);
  const hex = Buffer.from(share).toString("hex");
  const base64 = Buffer.from(share).toString("base64");

  it("reads hex in either case, and base64", () => {
    expect(decodeKeyShare(hex)).toEqual(share);
    expect(decodeKeyShare(hex.toUpperCase())).toEqual(share);
    expect(decodeKeyShare(base64)).toEqual(share);
  });

  it("reads base64 that happens to be hex of an implausible length as base64", () => {
    // 44 hex digits would be 22 bytes (a plausible key) — but 12 hex digits decode to 6 bytes,
    // below the minimum, so the text is read as base64 as the real system does.
    expect(decodeKeyShare("abcdefabcdef")).toEqual(new Uint8Array(Buffer.from("abcdefabcdef", "base64")));
  });

  it("refuses text that is neither, and an empty key", () => {
    expect(() => decodeKeyShare("not a key!")).toThrow("'key' must be a valid hex or base64 string");
    expect(() => decodeKeyShare("q83vq83v-q83vq83vq83vq83vq83vq83vq83vq83vq83v")).toThrow("'key' must be a valid hex or base64 string");
    expect(() => decodeKeyShare(base64.slice(0, -1))).toThrow("'key' must be a valid hex or base64 string");
    expect(() => decodeKeyShare("")).toThrow("'key' must be specified in request body as JSON");
  });
});
