// Refusals the secrets service answers with `{"errors": [message]}` and a status. They carry no
// express types, so domain code and services can throw them.

/** A refusal of one status; its class says which (and names it in stack traces). */
abstract class StatusError extends Error {
  abstract readonly status: number;
  override get name(): string {
    return this.constructor.name;
  }
}

/** Bad input or a request the current state does not allow: 400. */
export class InvalidRequestError extends StatusError {
  readonly status = 400;
}

/** No token, an unknown token, or a missing capability: 403 `permission denied`. */
export class PermissionDeniedError extends StatusError {
  readonly status = 403;
  constructor() {
    super("permission denied");
  }
}

/** An object that does not exist where the operation says so, or a path nothing is mounted at: 404. */
export class NotFoundError extends StatusError {
  readonly status = 404;
}

/** A method the path does not support: 405 `unsupported operation`, with the methods it has (`Allow`). */
export class UnsupportedOperationError extends StatusError {
  readonly status = 405;
  constructor(
    readonly allowed: readonly string[] = [],
    /** What the answer's `errors` say (the real server's HTTP layer says nothing). */
    readonly messages: readonly string[] = ["unsupported operation"],
  ) {
    super("unsupported operation");
  }
}

/** A refusal with several messages or another status (400, 404, 500, 502): engines, push-MFA and rekey use it. */
export class Refusal extends StatusError {
  constructor(
    readonly status: 400 | 404 | 500 | 502,
    readonly messages: string[],
  ) {
    super(messages.join("; ") || `status ${status}`);
  }
}

/**
 * A handler's plain error, as the real server answers it: 500 with the text of the go-multierror the
 * request handling wraps it in (vault/request_handling.go appends it to a *multierror.Error; its
 * Error() lists the errors as below), not a 400 ErrorResponse.
 */
export function internalError(text: string): Refusal {
  return new Refusal(500, [goMultiErrorText([text])]);
}

import { goMultiErrorText } from "../shared/go-text.ts";
export { StorageLimitError } from "./store/storage.ts";
import { StorageLimitError } from "./store/storage.ts";

export type SecretsError = InvalidRequestError | PermissionDeniedError | NotFoundError | UnsupportedOperationError | StorageLimitError;

export function isSecretsError(error: unknown): error is SecretsError {
  return (
    error instanceof InvalidRequestError ||
    error instanceof PermissionDeniedError ||
    error instanceof NotFoundError ||
    error instanceof UnsupportedOperationError ||
    error instanceof StorageLimitError
  );
}

/** The service's answers before a request reaches it (431, 408, 503...): its `{"errors": [...]}` envelope. */
export const SECRETS_RAW_ANSWERS = {
  contentType: "application/json",
  body: (_status: number, _reason: string, detail: string) => JSON.stringify({ errors: [detail] }),
};
