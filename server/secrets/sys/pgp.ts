// OpenPGP for key shares, as the real system does it: operators give base64-encoded binary public
// keys; a share is encrypted to its key as the hex text of the share, in a binary OpenPGP message;
// keys are named by their fingerprint in lowercase hex. The holder of the private key decrypts the
// message and gets the hex share back.
import * as openpgp from "openpgp";
import { toHex } from "./key-encoding.ts";

export interface PgpRecipient {
  fingerprint: string;
  key: openpgp.PublicKey;
}

/** A PGP key that cannot be used; the message says why, in the real system's words. */
export class PgpKeyError extends Error {
  override name = "PgpKeyError";
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Reads base64 binary public keys (order kept) and checks that each can encrypt. */
export async function readPgpKeys(base64Keys: string[]): Promise<PgpRecipient[]> {
  const recipients: PgpRecipient[] = [];
  for (const [i, text] of base64Keys.entries()) {
    const compact = text.replace(/[\r\n]/g, "");
    if (compact === "" || !BASE64.test(compact)) {
      throw new PgpKeyError(`error decoding given PGP key: key ${i + 1} is not base64`);
    }
    let key: openpgp.Key;
    try {
      key = await openpgp.readKey({ binaryKey: new Uint8Array(Buffer.from(compact, "base64")) });
    } catch (error) {
      throw new PgpKeyError(`error parsing given PGP key: ${(error as Error).message}`);
    }
    const publicKey = key.toPublic();
    try {
      await publicKey.getEncryptionKey();
    } catch (error) {
      throw new PgpKeyError(`error parsing given PGP key: key ${publicKey.getFingerprint()} cannot encrypt: ${(error as Error).message}`);
    }
    recipients.push({ fingerprint: publicKey.getFingerprint(), key: publicKey });
  }
  return recipients;
}

/** Encrypts share i (as its hex text) to recipient i; returns the binary OpenPGP messages. */
export async function encryptShares(shares: Uint8Array[], recipients: PgpRecipient[]): Promise<Uint8Array[]> {
  return Promise.all(
    shares.map(async (share, i) => {
      const message = await openpgp.createMessage({ binary: new TextEncoder().encode(toHex(share)) });
      return openpgp.encrypt({ message, encryptionKeys: recipients[i]!.key, format: "binary" }) as Promise<Uint8Array>;
    }),
  );
}
