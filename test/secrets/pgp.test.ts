// Key shares and PGP on their own (server/secrets/sys/pgp.ts): the operators' keys read as the real
// system reads them (base64 binary keys that can encrypt, named by their fingerprint), and each
// share encrypted, as its hex text, to its own operator's key only.
import * as openpgp from "openpgp";
import { beforeAll, describe, expect, it } from "vitest";
import { toHex } from "../../server/secrets/sys/key-encoding.ts";
import { encryptShares, PgpKeyError, readPgpKeys } from "../../server/secrets/sys/pgp.ts";
import { rejectionOf } from "../helpers/thrown.ts";

interface Operator {
  base64: string;
  privateKey: openpgp.PrivateKey;
}

async function operator(name: string, subkeys?: []): Promise<Operator> {
  const generated = await openpgp.generateKey({ type: "ecc", curve: "ed25519Legacy", userIDs: [{ name }], format: "binary", ...(subkeys && { subkeys }) });
  return { base64: Buffer.from(generated.publicKey).toString("base64"), privateKey: await openpgp.readPrivateKey({ binaryKey: generated.privateKey }) };
}

/** The refusal's words (a PgpKeyError). */
async function refusal(keys: string[]): Promise<string> {
  const error = await rejectionOf(readPgpKeys(keys));
  expect(error).toBeInstanceOf(PgpKeyError);
  expect((error as Error).name).toBe("PgpKeyError");
  return (error as Error).message;
}

let alice: Operator;
let bob: Operator;
let signOnly: Operator;
beforeAll(async () => {
  [alice, bob, signOnly] = await Promise.all([operator("alice"), operator("bob"), operator("signer", [])]);
});

describe("readPgpKeys", () => {
  it("reads base64 binary public keys in order, each named by its lowercase hex fingerprint; line breaks in the base64 are ignored", async () => {
    const wrapped = alice.base64.replace(/(.{64})/g, "$1\r\n");
    const recipients = await readPgpKeys([wrapped, bob.base64]);
    expect(recipients.map((r) => r.fingerprint)).toEqual([alice.privateKey.getFingerprint(), bob.privateKey.getFingerprint()]);
    for (const r of recipients) expect(r.fingerprint).toMatch(/^[0-9a-f]{40}$/);
  });

  it("refuses text that is not base64, naming the key by its place from 1", async () => {
    expect(await refusal([""])).toBe("error decoding given PGP key: key 1 is not base64");
    expect(await refusal([alice.base64, "not base64!"])).toBe("error decoding given PGP key: key 2 is not base64");
    expect(await refusal([alice.base64, bob.base64, `${alice.base64.slice(0, -4)}abc`])).toBe("error decoding given PGP key: key 3 is not base64");
  });

  it("refuses base64 that is no PGP key, and a key that cannot encrypt, in the real system's words", async () => {
    expect(await refusal([Buffer.from("no key here").toString("base64")])).toMatch(/^error parsing given PGP key: ./);
    const fingerprint = signOnly.privateKey.getFingerprint();
    expect(await refusal([alice.base64, signOnly.base64])).toMatch(new RegExp(`^error parsing given PGP key: key ${fingerprint} cannot encrypt: .`));
  });
});

describe("encryptShares", () => {
  it("encrypts each share, as its hex text, to its own operator: only that operator's key opens it", async () => {
    const shares = [Uint8Array.from([1, 2, 254]), Uint8Array.from([0, 255, 16])];
    const messages = await encryptShares(shares, await readPgpKeys([alice.base64, bob.base64]));
    expect(messages).toHaveLength(2);
    const open = async (message: Uint8Array, key: openpgp.PrivateKey) => {
      const { data } = await openpgp.decrypt({ message: await openpgp.readMessage({ binaryMessage: message }), decryptionKeys: key, format: "binary" });
      return new TextDecoder().decode(data as Uint8Array);
    };
    expect(await open(messages[0]!, alice.privateKey)).toBe(toHex(shares[0]!));
    expect(await open(messages[1]!, bob.privateKey)).toBe(toHex(shares[1]!));
    await expect(open(messages[0]!, bob.privateKey)).rejects.toThrow();
    await expect(open(messages[1]!, alice.privateKey)).rejects.toThrow();
  });
});
