// The rekey attempt: its parameters and its state machine, as the seed's rekey table and the real
// system define them. Pure: no HTTP, no storage. Randomness and time come from the context, and the
// transitions say what to do (new shares to hand out, a key to install) rather than doing it.
//
//   phase       event                     condition                     next
//   none        start                     valid parameters              collecting (new nonce)
//   collecting  cancel / none: cancel     any                           none (current shares stay valid)
//   collecting  submitShare               below the threshold           collecting (progress + 1)
//   collecting  submitShare               threshold, key verified,
//                                         no verification               none: new shares, key rotated
//   collecting  submitShare               threshold, key verified,
//                                         require_verification          verifying: new shares + verification nonce
//   collecting  submitShare               threshold, wrong key          collecting, progress cleared (400 or 500)
//   verifying   submitVerificationShare   below the new threshold       verifying (progress + 1)
//   verifying   submitVerificationShare   threshold, new key            none: key rotated
//   verifying   submitVerificationShare   threshold, wrong key          verifying, progress cleared, new nonce (400 or 500)
//   collecting  restartVerification       any                           collecting, a verification nonce kept for later
//   verifying   restartVerification       any                           verifying, progress cleared, new nonce
//   verifying   cancel                    any                           none (current shares stay valid)
//
// Every other (phase, event) pair is refused with 400 and changes nothing.
import { timingSafeEqual } from "node:crypto";
import { InvalidRequestError } from "../errors.ts";
import { MAX_KEY_BYTES, MIN_KEY_BYTES } from "../sys/key-encoding.ts";
import { PgpKeyError, readPgpKeys, type PgpRecipient } from "../sys/pgp.ts";
import { isOperatorKey, rekeyReturnsShares, shareConfigProblem, type SealState, type SealType } from "../sys/seal.ts";
import type { BodyRead } from "../wire.ts";
import { combineShares, splitKey, type ShareConfig } from "../sys/shamir.ts";

/** The body of POST /sys/rekey/init. */
export type RekeyRequest = BodyRead<"RekeyInitRequest">;

export interface RekeyConfig extends ShareConfig {
  pgpKeys: PgpRecipient[];
  backup: boolean;
  verificationRequired: boolean;
}

export interface Verification {
  nonce: string;
  /** The new key, installed once a threshold of its shares is given back. */
  key: Uint8Array;
  progress: Uint8Array[];
}

export interface RekeyAttempt {
  nonce: string;
  /** When the attempt started (ISO 8601). */
  started: string;
  config: RekeyConfig;
  /** Current shares given so far. */
  progress: Uint8Array[];
  /** Present while the attempt waits for its new shares to be verified. */
  verification?: Verification;
  /**
   * A verification nonce made by a verification restart before there was anything to verify: the
   * real system keeps it (and shows it) until the new shares get their own.
   */
  restartedVerificationNonce?: string;
}

export type RekeyPhase = "none" | "collecting" | "verifying";

export function phaseOf(attempt: RekeyAttempt | undefined): RekeyPhase {
  if (!attempt) return "none";
  return attempt.verification ? "verifying" : "collecting";
}

export type RekeyEvent =
  | { type: "start"; config: RekeyConfig }
  | { type: "cancel" }
  | { type: "submitShare"; nonce: string; share: Uint8Array }
  | { type: "submitVerificationShare"; nonce: string; share: Uint8Array }
  | { type: "restartVerification" };

export interface RekeyContext {
  seal: SealState;
  newNonce(): string;
  newKey(): Uint8Array;
  now(): string;
}

/** What a transition asks the service to do besides replacing the attempt. */
export type RekeyEffect =
  /** New shares to hand out (and back up); `install` when the root key is rotated at once. */
  | { kind: "newShares"; key: Uint8Array; shares: Uint8Array[]; install: boolean; verificationNonce?: string }
  /** The verified new key to install. */
  | { kind: "install"; key: Uint8Array; verificationNonce: string };

/** A refusal after a state change, with the real system's status: 400, or 500 for its own failures. */
export interface RekeyRefusal {
  status: 400 | 500;
  message: string;
}

export interface RekeyOutcome {
  /** The attempt after the event (undefined: none). */
  attempt: RekeyAttempt | undefined;
  effect?: RekeyEffect;
  /** The event was refused although the state changed (progress cleared): answer with this. */
  refusal?: RekeyRefusal;
}

type Transition<E extends RekeyEvent> = (attempt: RekeyAttempt | undefined, event: E, context: RekeyContext) => Promise<RekeyOutcome>;
type TransitionTable = {
  [P in RekeyPhase]: { [T in RekeyEvent["type"]]: Transition<Extract<RekeyEvent, { type: T }>> };
};

const refuse = (message: string) => async (): Promise<never> => {
  throw new InvalidRequestError(message);
};

const inProgress = refuse("rekey already in progress");
const cancel: Transition<{ type: "cancel" }> = async () => ({ attempt: undefined });

const start: Transition<{ type: "start"; config: RekeyConfig }> = async (_attempt, { config }, context) => ({
  attempt: { nonce: context.newNonce(), started: context.now(), config, progress: [] },
});

const submitShare: Transition<{ type: "submitShare"; nonce: string; share: Uint8Array }> = async (attempt, event, context) => {
  const current = attempt!;
  if (event.nonce !== current.nonce) {
    throw new InvalidRequestError(`incorrect nonce supplied; nonce for this rekey operation is "${current.nonce}"`);
  }
  if (current.progress.some((given) => sameBytes(given, event.share))) {
    // The real system's words for the barrier rekey (vault/rekey.go BarrierRekeyUpdate), "generation" and all.
    throw new InvalidRequestError("given key has already been provided during this generation operation");
  }
  const progress = [...current.progress, event.share];
  if (progress.length < context.seal.shares.secret_threshold) return { attempt: { ...current, progress } };

  // The threshold is reached: whatever happens next, the given shares are forgotten.
  const cleared = { ...current, progress: [] };
  const combined = await combineOrWhy(progress, context.seal.shares.secret_threshold);
  if (combined instanceof Error) return { attempt: cleared, refusal: { status: 500, message: `failed to compute root key: ${combined.message}` } };
  const failure = currentKeyProblem(context.seal, combined);
  if (failure) return { attempt: cleared, refusal: failure };

  const key = context.newKey();
  const shares = rekeyReturnsShares(context.seal) ? await splitKey(key, current.config) : [];
  if (!current.config.verificationRequired) {
    return { attempt: undefined, effect: { kind: "newShares", key, shares, install: true } };
  }
  const verificationNonce = context.newNonce();
  const { restartedVerificationNonce: _replaced, ...rest } = cleared;
  return {
    attempt: { ...rest, verification: { nonce: verificationNonce, key, progress: [] } },
    effect: { kind: "newShares", key, shares, install: false, verificationNonce },
  };
};

const submitVerificationShare: Transition<{ type: "submitVerificationShare"; nonce: string; share: Uint8Array }> = async (
  attempt,
  event,
  context,
) => {
  const current = attempt!;
  const verification = current.verification!;
  if (event.nonce !== verification.nonce) {
    throw new InvalidRequestError(`incorrect nonce supplied; nonce for this verify operation is "${verification.nonce}"`);
  }
  if (verification.progress.some((given) => sameBytes(given, event.share))) {
    throw new InvalidRequestError("given key has already been provided during this verify operation");
  }
  const progress = [...verification.progress, event.share];
  if (progress.length < current.config.secret_threshold) {
    return { attempt: { ...current, verification: { ...verification, progress } } };
  }
  // Refused or not, the progress is forgotten and the verification gets a new nonce (vault/rekey.go
  // RekeyVerify: its deferred reset runs on every answer past the threshold but the completion).
  const combined = await combineOrWhy(progress, current.config.secret_threshold);
  const failure: RekeyRefusal | undefined =
    combined instanceof Error
      ? { status: 500, message: `failed to compute key for verification: ${combined.message}` }
      : sameBytes(combined, verification.key)
        ? undefined
        : { status: 400, message: "rekey verification failed; incorrect key shares supplied" };
  if (failure) {
    return { attempt: { ...current, verification: { ...verification, nonce: context.newNonce(), progress: [] } }, refusal: failure };
  }
  return { attempt: undefined, effect: { kind: "install", key: verification.key, verificationNonce: verification.nonce } };
};

const restartVerification: Transition<{ type: "restartVerification" }> = async (attempt, _event, context) => ({
  attempt: { ...attempt!, verification: { ...attempt!.verification!, nonce: context.newNonce(), progress: [] } },
});

/**
 * A restart before the new shares exist: the real system (vault/rekey.go RekeyVerifyRestart) sets a
 * new verification nonce on the attempt anyway and answers the verification status (not started).
 */
const restartBeforeVerification: Transition<{ type: "restartVerification" }> = async (attempt, _event, context) => ({
  attempt: { ...attempt!, restartedVerificationNonce: context.newNonce() },
});

/** The rekey state machine: what each event does in each phase. */
export const REKEY_TRANSITIONS: TransitionTable = {
  none: {
    start,
    cancel,
    submitShare: refuse("no barrier rekey in progress"),
    submitVerificationShare: refuse("no rekey in progress"),
    restartVerification: refuse("no rekey configuration found"),
  },
  collecting: {
    start: inProgress,
    cancel,
    submitShare,
    submitVerificationShare: refuse("no rekey verification in progress"),
    restartVerification: restartBeforeVerification,
  },
  verifying: {
    start: inProgress,
    cancel,
    submitShare: async (attempt) => {
      throw new InvalidRequestError(
        `rekey operation already finished; verification must be performed; nonce for the verification operation is "${attempt!.verification!.nonce}"`,
      );
    },
    submitVerificationShare,
    restartVerification,
  },
};

/**
 * The real system's bounds on a decoded share, checked before anything else about the attempt
 * (vault/rekey.go BarrierRekeyUpdate and RekeyVerify: the barrier's key length, 16 to 32 bytes,
 * plus one byte of share overhead). A share of the wrong length inside the bounds is taken and
 * fails when the shares are combined, as there.
 */
export function checkShareBounds(share: Uint8Array): void {
  if (share.length < MIN_KEY_BYTES) throw new InvalidRequestError(`key is shorter than minimum ${MIN_KEY_BYTES} bytes`);
  if (share.length > MAX_KEY_BYTES) throw new InvalidRequestError(`key is longer than maximum ${MAX_KEY_BYTES} bytes`);
}

/** Applies an event to the attempt. Throws InvalidRequestError when refused without a state change. */
export function transition(attempt: RekeyAttempt | undefined, event: RekeyEvent, context: RekeyContext): Promise<RekeyOutcome> {
  const handler = REKEY_TRANSITIONS[phaseOf(attempt)][event.type] as Transition<RekeyEvent>;
  return handler(attempt, event, context);
}

/**
 * Checks the parameters of a new attempt in the order the real system does, and reads the PGP keys.
 * Every problem is a 400 with the real system's message.
 */
export async function checkRekeyRequest(request: RekeyRequest, sealType: SealType): Promise<RekeyConfig> {
  const { config, pgpKeys, backup, verificationRequired } = checkRekeyParameters(request, sealType);
  let recipients: PgpRecipient[];
  try {
    recipients = await readPgpKeys(pgpKeys);
  } catch (error) {
    if (error instanceof PgpKeyError) throw new InvalidRequestError(`invalid rekey seal configuration: ${error.message}`);
    throw error;
  }
  // A backup without PGP keys was refused above: `backup` here always has keys to encrypt for.
  return { ...config, pgpKeys: recipients, backup, verificationRequired };
}

/** The checks of a new attempt's parameters before its PGP keys are read, in the real system's order. */
export function checkRekeyParameters(request: Partial<RekeyRequest>, sealType: SealType) {
  const pgpKeys = request.pgp_keys ?? [];
  const backup = request.backup ?? false;
  const verificationRequired = request.require_verification ?? false;
  // Left out is 0, as the real system decodes them; 0 is then refused by the configuration check.
  let config: ShareConfig = { secret_shares: request.secret_shares ?? 0, secret_threshold: request.secret_threshold ?? 0 };
  if (backup && pgpKeys.length === 0) {
    throw new InvalidRequestError("cannot request a backup of the new keys without providing PGP keys for encryption");
  }
  if (pgpKeys.length > 0 && pgpKeys.length !== config.secret_shares) {
    throw new InvalidRequestError("incorrect number of PGP keys for rekey");
  }
  if (config.secret_threshold > config.secret_shares) {
    throw new InvalidRequestError("provided threshold greater than the total shares");
  }
  if (sealType === "stored") {
    // The real system (vault/rekey.go BarrierRekeyInit, its `default:` branch) does not refuse other
    // numbers: it sets shares, threshold and stored shares to 1 ("forcing rekey shares/threshold to
    // 1") and goes on, so the usual clients' defaults (5 shares, threshold 3) start an attempt of one.
    // (`stored_shares` is set to 1 with either seal; this server keeps no stored-shares count.)
    config = { secret_shares: 1, secret_threshold: 1 };
    // (The real system refuses a backup here next, "key backup not supported when using stored keys":
    // a backup needs PGP keys, refused at the start without them and just here with them.)
    if (pgpKeys.length > 0) throw new InvalidRequestError("PGP key encryption not supported when using stored keys");
    if (verificationRequired) {
      throw new InvalidRequestError("requiring verification not supported when rekeying the barrier key with recovery keys");
    }
  }
  const problem = shareConfigProblem(config);
  if (problem) throw new InvalidRequestError(`invalid rekey seal configuration: ${problem}`);
  return { config, pgpKeys, backup, verificationRequired };
}

/** The key the shares make up, or why they cannot be combined (the real system's words). */
async function combineOrWhy(shares: Uint8Array[], threshold: number): Promise<Uint8Array | Error> {
  try {
    return await combineShares(shares, threshold);
  } catch (error) {
    return error as Error;
  }
}

/** AES key lengths: the key the default seal's shares make up decrypts the stored root key with AES-GCM. */
const AES_KEY_LENGTHS = [16, 24, 32];

/**
 * Why a key made up of current shares is refused, as the real system finds it (vault/rekey.go
 * BarrierRekeyUpdate), or undefined for the current key. A seal that stores its keys compares it
 * with the recovery key (vault/seal_autoseal.go VerifyRecoveryKey): 400. The default seal does not
 * compare: it sets the key up as an AES-GCM key (500 `failed to setup unseal key`, from Go's
 * crypto/aes) and decrypts the stored root key with it, which fails for any other key (500 `failed
 * to read root key`, vault/seal.go readStoredKeys).
 */
function currentKeyProblem(seal: SealState, key: Uint8Array): RekeyRefusal | undefined {
  if (isOperatorKey(seal, key)) return undefined;
  if (seal.type === "stored") return { status: 400, message: "recovery key verification failed: recovery key does not match submitted values" };
  if (!AES_KEY_LENGTHS.includes(key.length)) return { status: 500, message: `failed to setup unseal key: crypto/aes: invalid key size ${key.length}` };
  return { status: 500, message: "failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed" };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
