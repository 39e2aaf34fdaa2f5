// Secondary activation tokens and the credentials they carry, with node:crypto only.
//
// An activation token is a JWT signed by the primary with ES512 (ECDSA over P-521 with SHA-512),
// the form the real system gives its replication wrapping tokens. Its claims are the real ones:
// `accessor` (empty), `addr` (the primary's API address), `iat`, `nbf`, `exp` (seconds), `jti` (the
// wrapping token) and `type`:
//
// - `wrapping`: the credentials stay on the primary; the secondary unwraps them once, before
//   `exp`, from the primary's API address (`POST /v1/sys/wrapping/unwrap`);
// - `encrypted` (when the secondary sent `secondary_public_key`): the credentials travel inside the
//   token, in the claim `enc`, encrypted to the secondary's key, so that activation needs no call to
//   the primary's API. The secondary made that key pair with `generate-public-key`: an ECDH key on
//   P-521 (the curve the real system uses for its replication keys). The encryption is ECIES: an
//   ephemeral P-521 key, ECDH with the secondary's public key, HKDF-SHA512 of the shared secret
//   (salt: the ephemeral public key, info: `secrets-replication-activation`) into an AES-256-GCM key,
//   a random 12-byte nonce. `enc` is base64url of the JSON {epk, nonce, ciphertext, tag} (each base64).
import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, sign, verify, type KeyObject } from "node:crypto";
import type { components } from "../../../../generated/secrets/internal-schema.ts";

export type ActivationTokenType = "wrapping" | "encrypted";

export interface ActivationClaims {
  accessor: string;
  addr: string;
  exp: number;
  iat: number;
  jti: string;
  nbf: number;
  type: ActivationTokenType;
  /** The encrypted credentials (type `encrypted`). */
  enc?: string;
}

/** What a secondary needs to join its primary: the answer of the unwrap, or the content of `enc`. */
export type ActivationCredentials = components["schemas"]["ActivationCredentials"];

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** A signing key pair for a primary's tokens. */
export function generateSigningKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync("ec", { namedCurve: "P-521" });
}

export function signActivationToken(claims: ActivationClaims, privateKey: KeyObject): string {
  const header = base64url(JSON.stringify({ alg: "ES512", typ: "JWT" }));
  const payload = base64url(JSON.stringify(claims));
  const signature = sign("sha512", Buffer.from(`${header}.${payload}`), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${header}.${payload}.${base64url(signature)}`;
}

export class ActivationTokenError extends Error {
  override name = "ActivationTokenError";
}

/** The claims of a token, read without checking the signature (a secondary cannot: it has no key). */
export function readActivationToken(token: string): ActivationClaims {
  const parts = token.split(".");
  if (parts.length !== 3) throw new ActivationTokenError("not a JWT (three base64url parts separated by dots)");
  let header: { alg?: unknown };
  let claims: Partial<ActivationClaims>;
  try {
    header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
    claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
  } catch {
    throw new ActivationTokenError("its header or claims are not base64url JSON");
  }
  if (header.alg !== "ES512") throw new ActivationTokenError(`unexpected signing algorithm ${JSON.stringify(header.alg)}`);
  if (typeof claims.addr !== "string" || typeof claims.jti !== "string" || typeof claims.exp !== "number") {
    throw new ActivationTokenError("its claims lack addr, jti or exp");
  }
  if (claims.type !== "wrapping" && claims.type !== "encrypted") throw new ActivationTokenError(`unknown token type ${JSON.stringify(claims.type)}`);
  if (claims.type === "encrypted" && typeof claims.enc !== "string") throw new ActivationTokenError("an encrypted token has no enc claim");
  return claims as ActivationClaims;
}

/** The claims of a token this primary signed; throws when the signature does not verify. */
export function verifyActivationToken(token: string, publicKey: KeyObject): ActivationClaims {
  const claims = readActivationToken(token);
  const [header, payload, signature] = token.split(".");
  const valid = verify("sha512", Buffer.from(`${header}.${payload}`), { key: publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signature!, "base64url"));
  if (!valid) throw new ActivationTokenError("the signature does not verify");
  return claims;
}

/** A secondary's key pair: the public key as base64 of its DER SubjectPublicKeyInfo. */
export function generateSecondaryKeyPair(): { publicKey: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-521" });
  return { publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"), privateKey };
}

/** Reads a `secondary_public_key`; throws ActivationTokenError when it is not a P-521 public key. */
export function readSecondaryPublicKey(base64: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(base64, "base64"), format: "der", type: "spki" });
  } catch {
    throw new ActivationTokenError("secondary_public_key is not a base64 DER public key (from secondary/generate-public-key)");
  }
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "secp521r1") {
    throw new ActivationTokenError("secondary_public_key is not a P-521 key (from secondary/generate-public-key)");
  }
  return key;
}

const INFO = Buffer.from("secrets-replication-activation");

function aesKey(shared: Buffer, ephemeralPublic: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha512", shared, ephemeralPublic, INFO, 32));
}

export function encryptToSecondary(plaintext: string, recipient: KeyObject): string {
  const ephemeral = generateKeyPairSync("ec", { namedCurve: "P-521" });
  const epk = ephemeral.publicKey.export({ type: "spki", format: "der" });
  const key = aesKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }), epk);
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const sealed = { epk: epk.toString("base64"), nonce: nonce.toString("base64"), ciphertext: ciphertext.toString("base64"), tag: cipher.getAuthTag().toString("base64") };
  return base64url(JSON.stringify(sealed));
}

export function decryptForSecondary(enc: string, privateKey: KeyObject): string {
  try {
    const sealed = JSON.parse(Buffer.from(enc, "base64url").toString("utf8")) as Record<string, string>;
    const epk = Buffer.from(sealed.epk!, "base64");
    const publicKey = createPublicKey({ key: epk, format: "der", type: "spki" });
    const key = aesKey(diffieHellman({ privateKey, publicKey }), epk);
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.nonce!, "base64"));
    decipher.setAuthTag(Buffer.from(sealed.tag!, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext!, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new ActivationTokenError("its credentials cannot be decrypted with this cluster's key (made by the last generate-public-key)");
  }
}

