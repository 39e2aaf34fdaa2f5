// Shamir's secret sharing of 32-byte keys in the real system's share format: GF(2^8) with the AES
// polynomial, each share the y bytes followed by its x coordinate as the last byte (so a share is
// one byte longer than the key). The arithmetic is the audited `shamir-secret-sharing` library,
// which uses exactly that format. As the real system does, a key split into a single share is
// returned as it is (no x coordinate), and a threshold of 1 means that one share is the key.
import { combine, split } from "shamir-secret-sharing";

/** Length in bytes of the root key and of the keys made by rekeying. */
export const KEY_LENGTH = 32;
/** Bytes a share adds to the key: the x coordinate. */
export const SHARE_OVERHEAD = 1;

export interface ShareConfig {
  /** Number of shares. */
  secret_shares: number;
  /** Number of shares needed to reconstruct the key. */
  secret_threshold: number;
}

/** Length in bytes of one share of a key split with this configuration. */
export function shareLength(config: ShareConfig): number {
  return config.secret_shares === 1 ? KEY_LENGTH : KEY_LENGTH + SHARE_OVERHEAD;
}

/** Splits a key into shares (the library wants plain Uint8Arrays, not Buffers). */
export async function splitKey(key: Uint8Array, config: ShareConfig): Promise<Uint8Array[]> {
  if (config.secret_shares === 1) return [Uint8Array.from(key)];
  return split(Uint8Array.from(key), config.secret_shares, config.secret_threshold);
}

/**
 * Combines shares into the key they make up. With a threshold of 1 the single share is the key.
 * Throws when the shares cannot be combined at all (fewer than two, shorter than two bytes, different
 * lengths, a repeated x coordinate), with the real system's words in its order (shamir/shamir.go
 * Combine); shares of another key combine into a wrong key without an error, so callers compare the result.
 */
export async function combineShares(shares: Uint8Array[], threshold: number): Promise<Uint8Array> {
  if (threshold === 1) {
    const [key] = shares;
    if (!key) throw new Error("no key share to combine");
    return Uint8Array.from(key);
  }
  if (shares.length < 2) throw new Error("less than two parts cannot be used to reconstruct the secret");
  const length = shares[0]!.length;
  if (length < 2) throw new Error("parts must be at least two bytes");
  if (shares.some((share) => share.length !== length)) throw new Error("all parts must be the same length");
  if (new Set(shares.map((share) => share[share.length - 1])).size !== shares.length) throw new Error("duplicate part detected");
  return combine(shares.map((share) => Uint8Array.from(share)));
}
