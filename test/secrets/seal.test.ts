// The seal of a cluster on its own (server/secrets/sys/seal.ts): the share configurations it takes,
// in the real system's order of checks (vault/seal.go SealConfig.Validate), the keys a new seal
// makes, the constant-time check of a reconstructed key and what a rekey rotates.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromBase64 } from "../../server/secrets/sys/key-encoding.ts";
import { createSeal, isOperatorKey, operatorShareLength, rekeyedSeal, rekeyReturnsShares, shareConfigProblem } from "../../server/secrets/sys/seal.ts";
import { combineShares, KEY_LENGTH } from "../../server/secrets/sys/shamir.ts";

const config = (secret_shares: number, secret_threshold: number) => ({ secret_shares, secret_threshold });
const key = () => new Uint8Array(randomBytes(KEY_LENGTH));

describe("shareConfigProblem", () => {
  it("takes one share of one, and up to 255 shares with a threshold of two to all of them", () => {
    for (const [shares, threshold] of [[1, 1], [2, 2], [5, 3], [255, 2], [255, 255]]) expect(shareConfigProblem(config(shares!, threshold!)), `${shares}/${threshold}`).toBeUndefined();
  });

  it("refuses the rest in the real system's order and words", () => {
    const cases: [number, number, string][] = [
      [0, 1, "shares must be at least one"],
      [-1, 1, "shares must be at least one"],
      [1.5, 1, "shares must be at least one"],
      [Number.NaN, 1, "shares must be at least one"],
      [0, 0, "shares must be at least one"],
      [1, 0, "threshold must be at least one"],
      [3, 2.5, "threshold must be at least one"],
      [3, -2, "threshold must be at least one"],
      [2, 1, "threshold must be greater than one for multiple shares"],
      [256, 2, "shares must be less than 256"],
      [256, 300, "shares must be less than 256"],
      [255, 256, "threshold must be less than 256"],
      [3, 4, "threshold cannot be larger than shares"],
    ];
    for (const [shares, threshold, problem] of cases) expect(shareConfigProblem(config(shares, threshold)), `${shares}/${threshold}`).toBe(problem);
  });
});

describe("createSeal", () => {
  it("with the shamir seal, splits the root key itself among the operators", async () => {
    const keys = [key(), key()];
    const root = keys[0]!;
    const { state, operatorShares } = await createSeal("shamir", config(5, 3), () => keys.shift()!);
    // One key drawn: the root key is the operators' key.
    expect(keys).toHaveLength(1);
    expect(state).toMatchObject({ type: "shamir", shares: config(5, 3), rootKeyTerm: 1 });
    expect(fromBase64(state.rootKey)).toEqual(root);
    expect(state.operatorKey).toBe(state.rootKey);
    expect(operatorShares).toHaveLength(5);
    expect(await combineShares(operatorShares.slice(1, 4), 3)).toEqual(root);
  });

  it("with the stored seal, splits a recovery key of its own, not the root key", async () => {
    const keys = [key(), key()];
    const { state, operatorShares } = await createSeal("stored", config(3, 2), () => keys.shift()!);
    expect(state.operatorKey).not.toBe(state.rootKey);
    expect(await combineShares(operatorShares.slice(0, 2), 2)).toEqual(fromBase64(state.operatorKey));
  });

  it("refuses a configuration the seal does not take, with its words", async () => {
    await expect(createSeal("shamir", config(2, 1), key)).rejects.toThrow("threshold must be greater than one for multiple shares");
  });
});

describe("isOperatorKey", () => {
  it("is true for the operators' key only: not another key, not one shorter or longer", async () => {
    const { state } = await createSeal("stored", config(1, 1), key);
    const operatorKey = fromBase64(state.operatorKey);
    expect(isOperatorKey(state, operatorKey)).toBe(true);
    expect(isOperatorKey(state, fromBase64(state.rootKey))).toBe(false);
    expect(isOperatorKey(state, key())).toBe(false);
    expect(isOperatorKey(state, operatorKey.subarray(0, KEY_LENGTH - 1))).toBe(false);
    expect(isOperatorKey(state, Uint8Array.from([...operatorKey, 0]))).toBe(false);
    expect(isOperatorKey(state, new Uint8Array(0))).toBe(false);
  });
});

describe("what a rekey rotates", () => {
  it("shares are as long as the key with one share, one byte longer (the x coordinate) with more", async () => {
    expect(operatorShareLength((await createSeal("shamir", config(1, 1), key)).state)).toBe(KEY_LENGTH);
    expect(operatorShareLength((await createSeal("shamir", config(3, 2), key)).state)).toBe(KEY_LENGTH + 1);
  });

  it("with the shamir seal: a new root key, which is the operators' key, in the new configuration, and new shares", async () => {
    const { state } = await createSeal("shamir", config(3, 2), key);
    expect(rekeyReturnsShares(state)).toBe(true);
    const next = key();
    const rekeyed = rekeyedSeal(state, next, config(5, 4));
    expect(rekeyed).toEqual({ type: "shamir", shares: config(5, 4), operatorKey: rekeyed.rootKey, rootKey: rekeyed.rootKey, rootKeyTerm: 2 });
    expect(fromBase64(rekeyed.rootKey)).toEqual(next);
  });

  it("with the stored seal: a new root key only; the recovery key and its shares stay, no shares are returned", async () => {
    const { state } = await createSeal("stored", config(3, 2), key);
    expect(rekeyReturnsShares(state)).toBe(false);
    const rekeyed = rekeyedSeal(state, key(), config(1, 1));
    expect(rekeyed).toEqual({ ...state, rootKey: rekeyed.rootKey, rootKeyTerm: 2 });
    expect(rekeyed.rootKey).not.toBe(state.rootKey);
  });

  it("takes only a key of the root key's length", async () => {
    const { state } = await createSeal("shamir", config(1, 1), key);
    for (const length of [0, KEY_LENGTH - 1, KEY_LENGTH + 1]) expect(() => rekeyedSeal(state, new Uint8Array(length), config(1, 1))).toThrow(`a root key is ${KEY_LENGTH} bytes`);
  });
});
