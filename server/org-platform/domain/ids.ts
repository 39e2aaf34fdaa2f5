// Ids with the platform's prefixes and a random 16-character suffix, as the real platform makes them.
import { randomInt, randomUUID } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export type IdPrefix = "oc" | "ot" | "team" | "prj" | "user" | "ou" | "org";

export function newId(prefix: IdPrefix): string {
  let suffix = "";
  for (let i = 0; i < 16; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}-${suffix}`;
}

export function newUuid(): string {
  return randomUUID();
}

/** ISO 8601 with milliseconds, UTC (Date#toISOString always has them). */
export function now(): string {
  return new Date().toISOString();
}
