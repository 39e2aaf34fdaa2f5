// The seal of a cluster: which key the operators' shares make up, and what rekeying rotates.
//
// - `shamir` (the default): the 32-byte root key is split into unseal key shares; rekeying with a
//   threshold of them makes a new root key and new shares, and the old shares stop working.
// - `stored`: the seal stores the root key itself (as an HSM or cloud KMS does); the operators hold
//   shares of a separate recovery key. Rekeying is authorized by recovery key shares and rotates the
//   stored root key; no shares are returned and the recovery shares stay as they were. Shares,
//   threshold and stored shares of such a rekey are all 1.
//
// Pure data and functions: keys are kept base64-encoded so that the state is plain JSON.
import { timingSafeEqual } from "node:crypto";
import { fromBase64, toBase64 } from "./key-encoding.ts";
import { KEY_LENGTH, shareLength, splitKey, type ShareConfig } from "./shamir.ts";

export type SealType = "shamir" | "stored";
export const SEAL_TYPES: readonly SealType[] = ["shamir", "stored"];

export interface SealState {
  type: SealType;
  /** The operators' shares: unseal key shares (`shamir`) or recovery key shares (`stored`). */
  shares: ShareConfig;
  /** The key the operators' shares make up (base64): the root key, or the recovery key. */
  operatorKey: string;
  /** The root key (base64); the same as operatorKey with the `shamir` seal. */
  rootKey: string;
  /** How many times the root key has been rotated. */
  rootKeyTerm: number;
}

/** Checks an operator share configuration as the real system checks a seal configuration. */
export function shareConfigProblem(config: ShareConfig): string | undefined {
  const { secret_shares: shares, secret_threshold: threshold } = config;
  // In the real system's order (vault/seal.go SealConfig.Validate).
  if (!Number.isInteger(shares) || shares < 1) return "shares must be at least one";
  if (!Number.isInteger(threshold) || threshold < 1) return "threshold must be at least one";
  if (shares > 1 && threshold === 1) return "threshold must be greater than one for multiple shares";
  if (shares > 255) return "shares must be less than 256";
  if (threshold > 255) return "threshold must be less than 256";
  if (threshold > shares) return "threshold cannot be larger than shares";
  return undefined;
}

/** A new seal with fresh keys, and the operators' shares of its operator key. */
export async function createSeal(
  type: SealType,
  shares: ShareConfig,
  randomKey: () => Uint8Array,
): Promise<{ state: SealState; operatorShares: Uint8Array[] }> {
  const problem = shareConfigProblem(shares);
  if (problem) throw new Error(problem);
  const rootKey = randomKey();
  const operatorKey = type === "shamir" ? rootKey : randomKey();
  const state: SealState = {
    type,
    shares: { ...shares },
    operatorKey: toBase64(operatorKey),
    rootKey: toBase64(rootKey),
    rootKeyTerm: 1,
  };
  return { state, operatorShares: await splitKey(operatorKey, shares) };
}

/** Length in bytes of one operator share. */
export function operatorShareLength(seal: SealState): number {
  return shareLength(seal.shares);
}

/** Whether a reconstructed key is the current operator key (constant-time comparison). */
export function isOperatorKey(seal: SealState, candidate: Uint8Array): boolean {
  const key = fromBase64(seal.operatorKey);
  return candidate.length === key.length && timingSafeEqual(candidate, key);
}

/** Whether a completed rekey hands new shares to the operators (not with stored keys). */
export function rekeyReturnsShares(seal: SealState): boolean {
  return seal.type === "shamir";
}

/** The seal after a rekey installed `newKey` (split with `config` for the operators). */
export function rekeyedSeal(seal: SealState, newKey: Uint8Array, config: ShareConfig): SealState {
  if (newKey.length !== KEY_LENGTH) throw new Error(`a root key is ${KEY_LENGTH} bytes`);
  const rootKey = toBase64(newKey);
  const rootKeyTerm = seal.rootKeyTerm + 1;
  if (seal.type === "shamir") return { ...seal, shares: { ...config }, operatorKey: rootKey, rootKey, rootKeyTerm };
  return { ...seal, rootKey, rootKeyTerm };
}
