// Where a cluster's randomness comes from: keys, nonces, tokens. Tests may give their own.
import { randomBytes, randomUUID } from "node:crypto";
import { KEY_LENGTH } from "./sys/shamir.ts";

export interface Random {
  /** A new 32-byte key. */
  key(): Uint8Array;
  uuid(): string;
  /** A new token secret: `s.` and 24 base62 characters (the real system's service-token form). */
  token(): string;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const cryptoRandom: Random = {
  key: () => new Uint8Array(randomBytes(KEY_LENGTH)),
  uuid: () => randomUUID(),
  token: () => {
    let text = "";
    while (text.length < 24) {
      for (const byte of randomBytes(32)) {
        // 248 = 4 * 62: skip the top bytes so that every character is equally likely.
        if (byte < 248 && text.length < 24) text += BASE62[byte % 62];
      }
    }
    return `s.${text}`;
  },
};
