// DR operation tokens on a DR secondary: the generation attempt (domain/operation-token.ts) run
// one request at a time, the tokens it makes (kept as SHA-256 hashes, without TTL, until deleted),
// and their check for DR promote, update-primary and operation-token/delete.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import * as openpgp from "openpgp";
import { decodeKeyShare } from "../sys/key-encoding.ts";
import { PgpKeyError, readPgpKeys, type PgpRecipient } from "../sys/pgp.ts";
import { InvalidRequestError } from "../errors.ts";
import type { Random } from "../random.ts";
import type { SealStore } from "../sys/seal-store.ts";
import { generateOtp, encodeToken, OTP_LENGTH } from "./domain/otp.ts";
import { operationTokenTransition, type OperationTokenAttempt, type OperationTokenEvent, type OperationTokenOutcome } from "./domain/operation-token.ts";
import type { components } from "../../../generated/secrets/schema.ts";

export type OperationTokenStatusView = components["schemas"]["DrOperationTokenAttempt"];
export type OperationTokenStartView = components["schemas"]["DrOperationTokenStarted"];

export class OperationTokenService {
  #attempt: OperationTokenAttempt | undefined;
  readonly #tokens = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly seal: SealStore,
    private readonly random: Random,
    /** Why generation is not possible now (this cluster is not a DR secondary), or undefined. */
    private readonly refusal: (what: string) => string | undefined,
  ) {}

  /** GET .../generate-operation-token/attempt: never shows the OTP. */
  status(): OperationTokenStatusView {
    this.#requireDrSecondary("read the DR operation token generation");
    return this.#view();
  }

  /**
   * PUT .../attempt: the status with the OTP the server made (once) and its length. A caller's own
   * OTP (`otp`, the older clients' flow) is used instead and not answered back (http/sys_generate_root.go
   * handleSysGenerateRootAttemptPut answers `otp` ""); it must be as long as a token.
   */
  start(pgpKey: string | undefined, otp?: string): Promise<OperationTokenStartView> {
    return this.#serialized(async () => {
      this.#requireDrSecondary("start a DR operation token generation");
      if (otp) {
        if (otp.length !== OTP_LENGTH) throw new InvalidRequestError("OTP string is wrong length");
        await this.#apply({ type: "start", otp });
        return { ...this.#view(), otp: "", otp_length: OTP_LENGTH };
      }
      let pgp: PgpRecipient | undefined;
      if (pgpKey) {
        try {
          [pgp] = await readPgpKeys([pgpKey]);
        } catch (error) {
          if (error instanceof PgpKeyError) throw new InvalidRequestError(`invalid pgp_key: ${error.message}`);
          throw error;
        }
      }
      await this.#apply({ type: "start", ...(pgp ? { pgp } : {}) });
      return { ...this.#view(), otp: this.#attempt!.otp, otp_length: OTP_LENGTH };
    });
  }

  /** DELETE .../attempt */
  cancel(): Promise<void> {
    return this.#serialized(async () => {
      this.#requireDrSecondary("cancel a DR operation token generation");
      await this.#apply({ type: "cancel" });
    });
  }

  /** PUT .../update: the status, or the encoded token once the threshold is reached. */
  submitShare(key: string, nonce: string): Promise<OperationTokenStatusView> {
    return this.#serialized(async () => {
      this.#requireDrSecondary("provide a key share for a DR operation token");
      const share = decodeKeyShare(key);
      const outcome = await this.#apply({ type: "submitShare", nonce, share });
      if (!outcome.token) return this.#view();
      const { token, otp, pgp, nonce: attemptNonce, progress } = outcome.token;
      this.#tokens.add(hash(token));
      return {
        started: true,
        nonce: attemptNonce,
        progress,
        required: this.seal.get().shares.secret_threshold,
        encoded_token: pgp ? await encryptToken(token, pgp) : encodeToken(token, otp),
        pgp_fingerprint: pgp?.fingerprint ?? "",
        complete: true,
      };
    });
  }

  /** Throws 400 unless the token is a live DR operation token. */
  verify(token: string | undefined): void {
    if (!token || !this.#has(token)) throw new InvalidRequestError("invalid DR operation token");
  }

  /** POST .../operation-token/delete: the token authorizes its own deletion. */
  delete(token: string | undefined): void {
    this.verify(token);
    this.#tokens.delete(hash(token!));
  }

  /** The cluster stopped being a DR secondary: an attempt in progress ends (tokens stay). */
  abandonAttempt(): void {
    this.#attempt = undefined;
  }

  #has(token: string): boolean {
    const wanted = Buffer.from(hash(token), "hex");
    for (const stored of this.#tokens) {
      if (timingSafeEqual(Buffer.from(stored, "hex"), wanted)) return true;
    }
    return false;
  }

  #view(): OperationTokenStatusView {
    const attempt = this.#attempt;
    const required = this.seal.get().shares.secret_threshold;
    return {
      started: attempt !== undefined,
      nonce: attempt?.nonce ?? "",
      progress: attempt?.progress.length ?? 0,
      required,
      encoded_token: "",
      pgp_fingerprint: attempt?.pgp?.fingerprint ?? "",
      complete: false,
    };
  }

  #requireDrSecondary(what: string): void {
    const refusal = this.refusal(what);
    if (refusal) throw new InvalidRequestError(refusal);
  }

  async #apply(event: OperationTokenEvent): Promise<OperationTokenOutcome> {
    const outcome = await operationTokenTransition(this.#attempt, event, {
      seal: this.seal.get(),
      newNonce: () => this.random.uuid(),
      newOtp: () => generateOtp(OTP_LENGTH, (count) => new Uint8Array(randomBytes(count))),
      newToken: () => this.random.token(),
    });
    this.#attempt = outcome.attempt;
    if (outcome.refusal) throw new InvalidRequestError(outcome.refusal);
    return outcome;
  }

  #serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

/** The token's bytes in a binary OpenPGP message to the key, base64 (as the real system returns it). */
async function encryptToken(token: string, pgp: PgpRecipient): Promise<string> {
  const message = await openpgp.createMessage({ binary: new TextEncoder().encode(token) });
  const encrypted = (await openpgp.encrypt({ message, encryptionKeys: pgp.key, format: "binary" })) as Uint8Array;
  return Buffer.from(encrypted).toString("base64");
}

function hash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
