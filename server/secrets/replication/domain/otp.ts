// One-time passwords for DR operation token generation, as the real system builds them (its
// `roottoken` helper): the OTP is a random base62 string exactly as long as the token, and the
// `encoded_token` handed out is the token's bytes XOR the OTP's bytes, base64 without padding
// (Go's base64.RawStdEncoding). Tokens here are `s.` and 24 base62 characters, so the OTP is 26
// characters long.

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Length of a service token (`s.` + 24 characters), and so of an OTP. */
export const OTP_LENGTH = 26;

/** A random base62 string of `length` characters; every character equally likely. */
export function generateOtp(length: number, randomBytes: (count: number) => Uint8Array): string {
  let text = "";
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes from 248 up would make the first characters likelier.
      if (byte < 248 && text.length < length) text += BASE62[byte % 62];
    }
  }
  return text;
}

export function isOtp(text: string, length = OTP_LENGTH): boolean {
  return text.length === length && [...text].every((c) => BASE62.includes(c));
}

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== b.length) throw new Error(`length of the token (${a.length}) and of the OTP (${b.length}) differ`);
  return a.map((byte, i) => byte ^ b[i]!);
}

/** The encoded token: base64 (no padding) of the token's bytes XOR the OTP's bytes. */
export function encodeToken(token: string, otp: string): string {
  if (token === "") throw new Error("no token provided");
  if (otp === "") throw new Error("no otp provided");
  return Buffer.from(xor(Buffer.from(token, "utf8"), Buffer.from(otp, "utf8"))).toString("base64").replace(/=+$/, "");
}

/** The token back from an encoded token and its OTP (padded or unpadded base64). */
export function decodeToken(encoded: string, otp: string): string {
  const bytes = Buffer.from(encoded, "base64");
  return Buffer.from(xor(bytes, Buffer.from(otp, "utf8"))).toString("utf8");
}
