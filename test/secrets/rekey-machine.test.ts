// The rekey state machine on its own: every (phase, event) pair of the transition table, with a
// deterministic context.
import { describe, expect, it } from "vitest";
import { rekeyConfig as config } from "../helpers/rekey.ts";
import {
  checkRekeyRequest,
  phaseOf,
  REKEY_TRANSITIONS,
  transition,
  type RekeyAttempt,
  type RekeyContext,
} from "../../server/secrets/rekey/rekey.ts";
import { createSeal, type SealState } from "../../server/secrets/sys/seal.ts";
import { KEY_LENGTH } from "../../server/secrets/sys/shamir.ts";

let counter = 0;
const nextKey = () => new Uint8Array(KEY_LENGTH).fill(++counter % 250);

async function setup() {
  const { state, operatorShares } = await createSeal("shamir", { secret_shares: 3, secret_threshold: 2 }, nextKey);
  let nonce = 0;
  const context = (seal: SealState = state): RekeyContext => ({
    seal,
    newNonce: () => `00000000-0000-4000-8000-${String(++nonce).padStart(12, "0")}`,
    newKey: nextKey,
    now: () => "2026-01-01T00:00:00.000Z",
  });
  return { seal: state, shares: operatorShares, context };
}


describe("REKEY_TRANSITIONS", () => {
  it("has a transition for every phase and event", () => {
    for (const phase of ["none", "collecting", "verifying"] as const) {
      expect(Object.keys(REKEY_TRANSITIONS[phase]).sort()).toEqual(["cancel", "restartVerification", "start", "submitShare", "submitVerificationShare"]);
    }
  });

  it("refuses what the phase does not allow, changing nothing", async () => {
    const { context, shares } = await setup();
    const share = shares[0]!;
    await expect(transition(undefined, { type: "submitShare", nonce: "n", share }, context())).rejects.toThrow("no barrier rekey in progress");
    await expect(transition(undefined, { type: "submitVerificationShare", nonce: "n", share }, context())).rejects.toThrow("no rekey in progress");
    await expect(transition(undefined, { type: "restartVerification" }, context())).rejects.toThrow("no rekey configuration found");
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    await expect(transition(attempt, { type: "start", config: config() }, context())).rejects.toThrow("rekey already in progress");
    // vault/rekey.go RekeyVerifyRestart: allowed before the new shares exist; it keeps a verification nonce.
    const restarted = await transition(attempt, { type: "restartVerification" }, context());
    expect(phaseOf(restarted.attempt)).toBe("collecting");
    expect(restarted.attempt!.restartedVerificationNonce).toEqual(expect.any(String));
    await expect(transition(attempt, { type: "submitVerificationShare", nonce: attempt!.nonce, share }, context())).rejects.toThrow(
      "no rekey verification in progress",
    );
  });

  it("collects current shares, then hands out new ones and installs the key at once", async () => {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    expect(phaseOf(attempt)).toBe("collecting");
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[2]! }, context());
    expect(one.attempt!.progress).toHaveLength(1);
    expect(one.effect).toBeUndefined();
    const done = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    expect(phaseOf(done.attempt)).toBe("none");
    expect(done.effect).toMatchObject({ kind: "newShares", install: true });
    expect(done.effect?.kind === "newShares" && done.effect.shares).toHaveLength(2);
  });

  it("clears the progress (and keeps the attempt) when the shares make up another key", async () => {
    const { context, shares } = await setup();
    const other = await createSeal("shamir", { secret_shares: 3, secret_threshold: 2 }, nextKey);
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    // A share of the other key at another x-coordinate (its last byte; the coordinates are random, and
    // one the first share also has is refused earlier: "duplicate part detected").
    const foreign = other.operatorShares.find((share) => share.at(-1) !== shares[0]!.at(-1))!;
    const failed = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: foreign }, context());
    // vault/rekey.go BarrierRekeyUpdate: the default seal's key fails to decrypt the stored root key (500).
    expect(failed.refusal).toEqual({
      status: 500,
      message: "failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed",
    });
    expect(failed.attempt).toMatchObject({ nonce: attempt!.nonce, progress: [] });
    expect(failed.effect).toBeUndefined();
  });

  it("with verification: hands out new shares, waits, and installs the key once they are given back", async () => {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config({ verificationRequired: true }) }, context());
    let state: RekeyAttempt | undefined = attempt;
    state = (await transition(state, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context())).attempt;
    const handed = await transition(state, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    expect(phaseOf(handed.attempt)).toBe("verifying");
    expect(handed.effect).toMatchObject({ kind: "newShares", install: false, verificationNonce: handed.attempt!.verification!.nonce });
    const newShares = handed.effect?.kind === "newShares" ? handed.effect.shares : [];
    await expect(transition(handed.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[2]! }, context())).rejects.toThrow(
      /^rekey operation already finished; verification must be performed; nonce for the verification operation is "/,
    );
    const restarted = await transition(handed.attempt, { type: "restartVerification" }, context());
    expect(restarted.attempt!.verification!.nonce).not.toBe(handed.attempt!.verification!.nonce);
    const vNonce = restarted.attempt!.verification!.nonce;
    const half = await transition(restarted.attempt, { type: "submitVerificationShare", nonce: vNonce, share: newShares[1]! }, context());
    const verified = await transition(half.attempt, { type: "submitVerificationShare", nonce: vNonce, share: newShares[0]! }, context());
    expect(verified.attempt).toBeUndefined();
    expect(verified.effect).toMatchObject({ kind: "install", verificationNonce: vNonce });
  });

  it("rotates the verification nonce when the new shares are wrong", async () => {
    const { context, shares } = await setup();
    const { attempt } = await transition(undefined, { type: "start", config: config({ verificationRequired: true }) }, context());
    const one = await transition(attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[0]! }, context());
    const handed = await transition(one.attempt, { type: "submitShare", nonce: attempt!.nonce, share: shares[1]! }, context());
    const vNonce = handed.attempt!.verification!.nonce;
    const newShare = handed.effect?.kind === "newShares" ? handed.effect.shares[0]! : new Uint8Array(33).fill(7);
    // A wrong share whose x coordinate (the last byte) is not the new share's: with the same x the
    // combination fails as duplicate parts instead (new shares' x are random: one run in 255).
    const wrong = new Uint8Array(33).fill(5);
    wrong[32] = (newShare[32]! % 255) + 1;
    const half = await transition(handed.attempt, { type: "submitVerificationShare", nonce: vNonce, share: wrong }, context());
    const failed = await transition(half.attempt, { type: "submitVerificationShare", nonce: vNonce, share: newShare }, context());
    expect(failed.refusal).toEqual({ status: 400, message: "rekey verification failed; incorrect key shares supplied" });
    expect(failed.attempt!.verification!.progress).toEqual([]);
    expect(failed.attempt!.verification!.nonce).not.toBe(vNonce);
  });

  it("cancels from any phase", async () => {
    const { context } = await setup();
    expect((await transition(undefined, { type: "cancel" }, context())).attempt).toBeUndefined();
    const { attempt } = await transition(undefined, { type: "start", config: config() }, context());
    expect((await transition(attempt, { type: "cancel" }, context())).attempt).toBeUndefined();
  });
});

describe("checkRekeyRequest", () => {
  it("checks the parameters in the real system's order", async () => {
    await expect(checkRekeyRequest({ secret_shares: 3, secret_threshold: 5, backup: true }, "shamir")).rejects.toThrow(/backup of the new keys/);
    await expect(checkRekeyRequest({ secret_shares: 3, secret_threshold: 5, pgp_keys: ["a"] }, "shamir")).rejects.toThrow("incorrect number of PGP keys for rekey");
    await expect(checkRekeyRequest({ secret_shares: 3, secret_threshold: 5 }, "shamir")).rejects.toThrow("provided threshold greater than the total shares");
    await expect(checkRekeyRequest({ secret_shares: 3, secret_threshold: 1 }, "shamir")).rejects.toThrow(
      "invalid rekey seal configuration: threshold must be greater than one for multiple shares",
    );
    await expect(checkRekeyRequest({ secret_shares: 1, secret_threshold: 1, pgp_keys: ["not base64!"] }, "shamir")).rejects.toThrow(
      /^invalid rekey seal configuration: error decoding given PGP key/,
    );
    // A seal that stores its keys takes any shares as 1 (vault/rekey.go BarrierRekeyInit).
    expect(await checkRekeyRequest({ secret_shares: 2, secret_threshold: 2 }, "stored")).toMatchObject({ secret_shares: 1, secret_threshold: 1 });
    expect(await checkRekeyRequest({ secret_shares: 1, secret_threshold: 1 }, "stored")).toMatchObject({ secret_shares: 1, secret_threshold: 1 });
  });
});
