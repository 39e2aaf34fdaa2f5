// Refusals the secrets service answers with `{"errors": [message]}` and a status. They carry no
// express types, so domain code and services can throw them.

/** Bad input or a request the current state does not allow: 400. */
export class InvalidRequestError extends Error {
  override name = "InvalidRequestError";
  readonly status = 400;
}

/** No token, an unknown token, or a missing capability: 403 `permission denied`. */
export class PermissionDeniedError extends Error {
  override name = "PermissionDeniedError";
  readonly status = 403;
  constructor() {
    super("permission denied");
  }
}

/** An object that does not exist where the operation says so, or a path nothing is mounted at: 404. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
  readonly status = 404;
}

/** A method the path does not support: 405 `unsupported operation`, with the methods it has (`Allow`). */
export class UnsupportedOperationError extends Error {
  override name = "UnsupportedOperationError";
  readonly status = 405;
  constructor(
    readonly allowed: readonly string[] = [],
    /** What the answer's `errors` say (the real server's HTTP layer says nothing). */
    readonly messages: readonly string[] = ["unsupported operation"],
  ) {
    super("unsupported operation");
  }
}

/**
 * A failure the real system answers with 500 and these words, where its HTTP layer passes its own
 * error on as it is (`{"errors": [message]}`): rekey shares that do not make up the current key.
 */
export class ServerFailureError extends Error {
  override name = "ServerFailureError";
  readonly status = 500;
}

/** A refusal with several messages or another status (400, 404, 502): engines and push-MFA use it. */
export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly status: 400 | 404 | 502,
    readonly messages: string[],
  ) {
    super(messages.join("; ") || `status ${status}`);
  }
}

export { StorageLimitError } from "./store/storage.ts";
import { StorageLimitError } from "./store/storage.ts";

export type SecretsError = InvalidRequestError | PermissionDeniedError | NotFoundError | UnsupportedOperationError | StorageLimitError | ServerFailureError;

export function isSecretsError(error: unknown): error is SecretsError {
  return (
    error instanceof InvalidRequestError ||
    error instanceof PermissionDeniedError ||
    error instanceof NotFoundError ||
    error instanceof UnsupportedOperationError ||
    error instanceof StorageLimitError ||
    error instanceof ServerFailureError
  );
}

/** The service's answers before a request reaches it (431, 408, 503...): its `{"errors": [...]}` envelope. */
export const SECRETS_RAW_ANSWERS = {
  contentType: "application/json",
  body: (_status: number, _reason: string, detail: string) => JSON.stringify({ errors: [detail] }),
};
