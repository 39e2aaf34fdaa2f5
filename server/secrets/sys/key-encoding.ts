// Key shares given by operators: hex or base64 (the standard alphabet, padded), decoded as the real
// system does: hex first, and base64 when the text is not hex or its hex decoding is not of a
// plausible key length (so that base64 text that happens to be hex is still read as base64).
import { InvalidRequestError } from "../errors.ts";

/** The shortest and longest decoded key the service reads as hex (the real system's bounds). */
export const MIN_KEY_BYTES = 16;
export const MAX_KEY_BYTES = 33;

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeKeyShare(text: string): Uint8Array {
  if (text === "") throw new InvalidRequestError("'key' must be specified in request body as JSON");
  if (HEX.test(text)) {
    const bytes = Buffer.from(text, "hex");
    if (bytes.length >= MIN_KEY_BYTES && bytes.length <= MAX_KEY_BYTES) return new Uint8Array(bytes);
  }
  // Line breaks are ignored in base64, as the real system's decoder ignores them.
  const base64 = text.replace(/[\r\n]/g, "");
  if (base64 !== "" && BASE64.test(base64)) return new Uint8Array(Buffer.from(base64, "base64"));
  throw new InvalidRequestError("'key' must be a valid hex or base64 string");
}

/** Refuses a decoded share that is not exactly one share of the key it should be part of. */
export function checkShareLength(share: Uint8Array, expected: number, of: string): void {
  if (share.length !== expected) {
    throw new InvalidRequestError(`key is ${share.length} bytes long, but a share of ${of} is ${expected} bytes`);
  }
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}
