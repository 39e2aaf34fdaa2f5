// Rekeying on a cluster: runs the rekey state machine (domain/rekey.ts) one request at a time,
// carries out what its transitions ask (encrypt the new shares to PGP keys, keep the backup,
// install the new key in the seal) and renders the answers in the API's shapes. A refused request
// changes nothing (except that shares which fail to make up the key clear the progress, as in the
// real system); the attempt is replaced only after every step of a request has succeeded.
import type { components } from "../../../generated/secrets/schema.ts";
import { decodeKeyShare, toBase64, toHex } from "../sys/key-encoding.ts";
import { encryptShares } from "../sys/pgp.ts";
import {
  checkRekeyRequest,
  checkShareBounds,
  transition,
  type RekeyAttempt,
  type RekeyContext,
  type RekeyEffect,
  type RekeyEvent,
  type RekeyRequest,
} from "./rekey.ts";
import { rekeyedSeal } from "../sys/seal.ts";
import { InvalidRequestError, Refusal } from "../errors.ts";
import type { SealStore } from "../sys/seal-store.ts";
import type { Random } from "../random.ts";

type Schemas = components["schemas"];
export type RekeyStatusView = Schemas["RekeyStatus"];
export type RekeyUpdateView = Schemas["RekeyUpdateResult"];
export type VerificationStatusView = Schemas["RekeyVerificationStatus"];
export type VerificationResultView = Schemas["RekeyVerificationResult"];
export type RekeyBackupView = Schemas["RekeyBackup"];

export class RekeyService {
  #attempt: RekeyAttempt | undefined;
  /** Requests run one after the other (PGP encryption and share splitting are asynchronous). */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly seal: SealStore,
    private readonly random: Random,
  ) {}

  /** GET /sys/rekey/init */
  status(): RekeyStatusView {
    const attempt = this.#attempt;
    const required = this.seal.get().shares.secret_threshold;
    if (!attempt) {
      return { nonce: "", started: false, t: 0, n: 0, progress: 0, required, pgp_fingerprints: null, backup: false, verification_required: false };
    }
    const { config } = attempt;
    return {
      nonce: attempt.nonce,
      started: true,
      t: config.secret_threshold,
      n: config.secret_shares,
      progress: attempt.progress.length,
      required,
      pgp_fingerprints: fingerprintsOf(attempt),
      backup: config.backup,
      verification_required: config.verificationRequired,
      ...(verificationNonceOf(attempt) ? { verification_nonce: verificationNonceOf(attempt) } : {}),
    };
  }

  /** POST /sys/rekey/init */
  start(request: RekeyRequest): Promise<RekeyStatusView> {
    return this.#serialized(async () => {
      const config = await checkRekeyRequest(request, this.seal.get().type);
      await this.#apply({ type: "start", config });
      return this.status();
    });
  }

  /** DELETE /sys/rekey/init */
  cancel(): Promise<void> {
    return this.#serialized(async () => {
      await this.#apply({ type: "cancel" });
    });
  }

  /** POST /sys/rekey/update: the attempt's status, or the new shares when complete. */
  submitShare(key: string, nonce: string): Promise<RekeyStatusView | RekeyUpdateView> {
    return this.#serialized(async () => {
      const share = decodeKeyShare(key);
      checkShareBounds(share);
      const attempt = this.#attempt;
      const { effect, handedOut } = await this.#apply({ type: "submitShare", nonce, share });
      if (effect?.kind !== "newShares" || !handedOut) return this.status();
      return {
        nonce,
        complete: true as const,
        keys: handedOut.map(toHex),
        keys_base64: handedOut.map(toBase64),
        pgp_fingerprints: fingerprintsOf(attempt!),
        backup: attempt!.config.backup,
        verification_required: attempt!.config.verificationRequired,
        ...(effect.verificationNonce ? { verification_nonce: effect.verificationNonce } : {}),
      };
    });
  }

  /** GET /sys/rekey/verify */
  verificationStatus(): VerificationStatusView {
    const attempt = this.#attempt;
    if (!attempt) throw new InvalidRequestError("no rekey configuration found");
    return {
      nonce: verificationNonceOf(attempt),
      started: attempt.verification !== undefined,
      t: attempt.config.secret_threshold,
      n: attempt.config.secret_shares,
      progress: attempt.verification?.progress.length ?? 0,
    };
  }

  /** POST /sys/rekey/verify: the verification status, or `complete` once the key is rotated. */
  submitVerificationShare(key: string, nonce: string): Promise<VerificationStatusView | VerificationResultView> {
    return this.#serialized(async () => {
      const share = decodeKeyShare(key);
      checkShareBounds(share);
      const { effect } = await this.#apply({ type: "submitVerificationShare", nonce, share });
      if (effect?.kind === "install") return { nonce: effect.verificationNonce, complete: true as const };
      return this.verificationStatus();
    });
  }

  /** DELETE /sys/rekey/verify */
  restartVerification(): Promise<VerificationStatusView> {
    return this.#serialized(async () => {
      await this.#apply({ type: "restartVerification" });
      return this.verificationStatus();
    });
  }

  /** GET /sys/rekey/backup */
  backup(): RekeyBackupView {
    const backup = this.seal.backup();
    if (!backup) throw new InvalidRequestError("no backed-up keys found");
    const base64 = Object.fromEntries(
      Object.entries(backup.keys).map(([fingerprint, keys]) => [fingerprint, keys.map((hex) => toBase64(Buffer.from(hex, "hex")))]),
    );
    return { nonce: backup.nonce, keys: backup.keys, keys_base64: base64 };
  }

  /** DELETE /sys/rekey/backup */
  deleteBackup(): void {
    this.seal.deleteBackup();
  }

  /**
   * Runs one event through the state machine, carries out its effect and commits the new attempt;
   * a refusal is thrown (400, or the real system's 500) after its state change (progress cleared) is committed.
   */
  async #apply(event: RekeyEvent): Promise<{ effect?: RekeyEffect; handedOut?: Uint8Array[] }> {
    const before = this.#attempt;
    const { attempt, effect, refusal } = await transition(before, event, this.#context());
    let handedOut: Uint8Array[] | undefined;
    if (effect?.kind === "newShares") {
      handedOut = await this.#handOut(before!, effect);
      if (effect.install) this.#install(effect.key, before!);
    } else if (effect?.kind === "install") {
      this.#install(effect.key, before!);
    }
    this.#attempt = attempt;
    // A 500 is the real handler's own error passed on as it is (no multierror wrapping on the raw sys/rekey handlers).
    if (refusal) throw refusal.status === 500 ? new Refusal(500, [refusal.message]) : new InvalidRequestError(refusal.message);
    return { effect, handedOut };
  }

  /** The new shares as handed out: encrypted to the PGP keys (and backed up) when there are keys. */
  async #handOut(attempt: RekeyAttempt, effect: Extract<RekeyEffect, { kind: "newShares" }>): Promise<Uint8Array[]> {
    const { pgpKeys, backup } = attempt.config;
    if (pgpKeys.length === 0) return effect.shares;
    const encrypted = await encryptShares(effect.shares, pgpKeys);
    if (backup) {
      const keys: Record<string, string[]> = {};
      pgpKeys.forEach(({ fingerprint }, i) => (keys[fingerprint] ??= []).push(toHex(encrypted[i]!)));
      this.seal.putBackup({ nonce: attempt.nonce, keys });
    }
    return encrypted;
  }

  #install(key: Uint8Array, attempt: RekeyAttempt): void {
    // Only the share configuration goes into the seal (not the PGP keys the attempt holds).
    const { secret_shares, secret_threshold } = attempt.config;
    this.seal.put(rekeyedSeal(this.seal.get(), key, { secret_shares, secret_threshold }));
  }

  #context(): RekeyContext {
    return {
      seal: this.seal.get(),
      newNonce: () => this.random.uuid(),
      newKey: () => this.random.key(),
      now: () => new Date().toISOString(),
    };
  }

  #serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

/** The attempt's verification nonce: its new shares', or one a restart made before them; "" for none. */
function verificationNonceOf(attempt: RekeyAttempt): string {
  return attempt.verification?.nonce ?? attempt.restartedVerificationNonce ?? "";
}

function fingerprintsOf(attempt: RekeyAttempt): string[] | null {
  return attempt.config.pgpKeys.length > 0 ? attempt.config.pgpKeys.map((key) => key.fingerprint) : null;
}

