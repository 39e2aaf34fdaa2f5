// Names the engine gives to what it creates in the provider: IAM users, role sessions and federated
// users. The real engine's default username template, with the service's own prefix (`secrets-`):
//
//   IAM users and generated role session names (at most 64 characters):
//     secrets-<display name>-<role name (together cut to 42)>-<unix time>-<20 random characters>
//   federated users (at most 32 characters, the provider's limit):
//     secrets-<unix time>-<random characters>
import { randomInt } from "node:crypto";

export const NAME_PREFIX = "secrets";
export const MAX_USER_NAME = 64;
export const MAX_FEDERATED_NAME = 32;
export const MAX_SESSION_NAME = 64;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `length` random letters and digits. */
export function randomAlphanumeric(length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return text;
}

/** Characters the provider does not allow in names become `_`. */
export function normalizeName(name: string): string {
  return name.replace(/[^a-zA-Z0-9+=,.@_-]/g, "_");
}

export interface NameSource {
  /** Seconds since the epoch. */
  unixTime: number;
  random: (length: number) => string;
}

/** The name of a new IAM user (also a generated role session name). */
export function iamUserName(displayName: string, roleName: string, { unixTime, random }: NameSource): string {
  const middle = `${normalizeName(displayName)}-${normalizeName(roleName)}`.slice(0, 42);
  return `${NAME_PREFIX}-${middle}-${unixTime}-${random(20)}`.slice(0, MAX_USER_NAME);
}

/** The name of a new federated user. */
export function federatedUserName({ unixTime, random }: NameSource): string {
  return `${NAME_PREFIX}-${unixTime}-${random(20)}`.slice(0, MAX_FEDERATED_NAME);
}

/** The session name of an assumed role: the one asked for (cleaned, cut to 64), else a generated one. */
export function roleSessionName(requested: string | undefined, displayName: string, roleName: string, source: NameSource): string {
  if (requested) return normalizeName(requested).slice(0, MAX_SESSION_NAME);
  return iamUserName(displayName, roleName, source);
}
