// DR operation token generation: the seed's state table, as a transition table. Pure: randomness,
// the seal and the new token come from the context; encrypting to a PGP key is left to the caller.
//
//   phase    event         condition                    next
//   none     start         -                            started (new nonce; an OTP unless a PGP key is given)
//   none     cancel        -                            none
//   none     submitShare   -                            refused: no attempt in progress
//   started  start         -                            refused: one attempt at a time
//   started  cancel        any                          none (progress cleared; the way to change OTP or PGP key)
//   started  submitShare   below the threshold          started (progress + 1)
//   started  submitShare   threshold, key verified      none: a new token, encoded with the OTP or to the PGP key
//   started  submitShare   threshold, wrong key         started, progress cleared (400)
//
// The shares are the operator shares of the seal the DR secondary holds, which is the primary's
// (replication gives a secondary the primary's seal): unseal key shares, or recovery key shares with
// a seal that stores its keys.
import { timingSafeEqual } from "node:crypto";
import { InvalidRequestError } from "../../errors.ts";
import { checkShareLength } from "../../sys/key-encoding.ts";
import type { PgpRecipient } from "../../sys/pgp.ts";
import { isOperatorKey, operatorShareLength, type SealState } from "../../sys/seal.ts";
import { combineShares } from "../../sys/shamir.ts";

export interface OperationTokenAttempt {
  nonce: string;
  /** The OTP the token is encoded with (never shown again after the start), or "" with a PGP key. */
  otp: string;
  pgp?: PgpRecipient;
  progress: Uint8Array[];
}

export type OperationTokenEvent =
  /** `otp`: the caller's own OTP (checked for its length before), which wins over `pgp`. */
  | { type: "start"; pgp?: PgpRecipient; otp?: string }
  | { type: "cancel" }
  | { type: "submitShare"; nonce: string; share: Uint8Array };

export interface OperationTokenContext {
  seal: SealState;
  newNonce(): string;
  newOtp(): string;
  newToken(): string;
}

export interface OperationTokenOutcome {
  attempt: OperationTokenAttempt | undefined;
  /** A new DR operation token was made: hand it out (encoded with `otp` or encrypted to `pgp`). */
  token?: { token: string; otp: string; pgp?: PgpRecipient; nonce: string; progress: number };
  /** The event was refused although the state changed (progress cleared). */
  refusal?: string;
}

type Phase = "none" | "started";
type Handler<E extends OperationTokenEvent> = (attempt: OperationTokenAttempt | undefined, event: E, context: OperationTokenContext) => Promise<OperationTokenOutcome>;

const refuse = (message: string) => async (): Promise<never> => {
  throw new InvalidRequestError(message);
};

/** How each seal finds that a key is not its own: the default seal cannot decrypt its stored key with it; a seal that stores its keys compares the recovery key. */
const KEY_NOT_THE_SEALS: Record<SealState["type"], string> = {
  shamir: "invalid key: failed to decrypt keys from storage: cipher: message authentication failed",
  stored: "recovery key verification failed: recovery key does not match submitted values",
};

const submitShare: Handler<{ type: "submitShare"; nonce: string; share: Uint8Array }> = async (attempt, event, context) => {
  const current = attempt!;
  checkShareLength(event.share, operatorShareLength(context.seal), "the key");
  if (event.nonce !== current.nonce) {
    throw new InvalidRequestError(`incorrect nonce supplied; nonce for this root generation operation is "${current.nonce}"`);
  }
  if (current.progress.some((given) => given.length === event.share.length && timingSafeEqual(given, event.share))) {
    throw new InvalidRequestError("given key has already been provided during this generation operation");
  }
  const progress = [...current.progress, event.share];
  const threshold = context.seal.shares.secret_threshold;
  if (progress.length < threshold) return { attempt: { ...current, progress } };
  // A DR operation token is made by the root generation's code (vault/generate_root.go
  // GenerateRootUpdate, GenerateDROperationTokenStrategy), and refused in its words: shares that
  // cannot be combined, `failed to compute root key: ...`; a key that is not the seal's,
  // `root generation aborted: unable to authenticate: ...` (the strategy's authenticate).
  let problem: string | undefined;
  try {
    const key = await combineShares(progress, threshold);
    if (!isOperatorKey(context.seal, key)) problem = `root generation aborted: unable to authenticate: ${KEY_NOT_THE_SEALS[context.seal.type]}`;
  } catch (error) {
    problem = `failed to compute root key: ${(error as Error).message}`;
  }
  if (problem) return { attempt: { ...current, progress: [] }, refusal: problem };
  return {
    attempt: undefined,
    token: { token: context.newToken(), otp: current.otp, ...(current.pgp ? { pgp: current.pgp } : {}), nonce: current.nonce, progress: progress.length },
  };
};

export const OPERATION_TOKEN_TRANSITIONS: { [P in Phase]: { [T in OperationTokenEvent["type"]]: Handler<Extract<OperationTokenEvent, { type: T }>> } } = {
  none: {
    // As vault/generate_root.go GenerateRootInit: a given OTP first, else the PGP key, else an OTP of the server's.
    start: async (_attempt, event, context) => ({
      attempt: event.otp
        ? { nonce: context.newNonce(), otp: event.otp, progress: [] }
        : { nonce: context.newNonce(), otp: event.pgp ? "" : context.newOtp(), ...(event.pgp ? { pgp: event.pgp } : {}), progress: [] },
    }),
    cancel: async () => ({ attempt: undefined }),
    submitShare: refuse("no root generation in progress"),
  },
  started: {
    start: refuse("root generation already in progress"),
    cancel: async () => ({ attempt: undefined }),
    submitShare,
  },
};

export function operationTokenTransition(
  attempt: OperationTokenAttempt | undefined,
  event: OperationTokenEvent,
  context: OperationTokenContext,
): Promise<OperationTokenOutcome> {
  const handler = OPERATION_TOKEN_TRANSITIONS[attempt ? "started" : "none"][event.type] as Handler<OperationTokenEvent>;
  return handler(attempt, event, context);
}
