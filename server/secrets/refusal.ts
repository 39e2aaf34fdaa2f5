// A refusal with several messages and any status (the core's error classes carry one message and
// a fixed status). Handlers that catch it answer `{"errors": messages}` with its status; domain
// code and services throw it. Used by the discovery-token engine and the push-MFA methods.
import type { Response } from "express";

export class Refusal extends Error {
  override name = "Refusal";
  constructor(
    readonly status: 400 | 404 | 502,
    readonly messages: string[],
  ) {
    super(messages.join("; ") || `status ${status}`);
  }
}

/** Answers a Refusal in the error envelope; anything else is rethrown for the app's error handler. */
export function answerRefusal(res: Response, error: unknown): void {
  if (!(error instanceof Refusal)) throw error;
  res.status(error.status).json({ errors: error.messages });
}
