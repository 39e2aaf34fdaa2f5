// The order every service answers a request in, as the real services do it: a caller who may not
// act on a resource never learns whether its body was valid, and nothing is read or parsed for a
// stranger. Each stage goes on (next()), answers, or fails (next(error), a throw, a rejected
// promise) to the service's error handler, which writes the service's envelope.
import type { Stage } from "./stages.ts";
import type { ValidatorStages } from "./openapi.ts";

export interface ServiceStages {
  /** Before the operation is known: CORS preflights, the canonical path, headers every answer carries. */
  prepare: Stage[];
  /**
   * Finds the request's operation, once. The validator's match (req.openapi) when the service's paths
   * are the described ones; a service that routes its own way first (the secrets service's canonical
   * paths and LIST) matches here and lets the validator match the rewritten request again at `validate`.
   */
  match: Stage;
  /** Who is calling (401/403 in the service's envelope); the principal goes on res.locals. */
  authenticate: Stage;
  /** What the request acts on and whether the caller may (the org platform's 404, the secrets policy, the mesh ACL). */
  authorize: Stage;
  /** The body: media type, size and depth refused before it is parsed. */
  readBody: Stage;
  /** Decoding the service does in its own words before the description's check (mesh durations, names). */
  decode?: Stage;
  /**
   * A read answered before, sent again as it was (server/shared/answer-memo.ts): the same request
   * passed the description's checks then, and was authenticated and authorized again just now.
   */
  kept?: Stage;
  /** The operation's handler. */
  handle: Stage;
  /** What answers a request no stage answered (the service's 404). */
  notFound: Stage;
}

/**
 * The stages in order. `validator`: express-openapi-validator's public chain (undefined: the service
 * runs unvalidated); its match runs at `match` unless `matchAgainAtValidate`, where the service's URL
 * is rewritten to the described one before the check.
 */
export function requestPipeline(service: ServiceStages, validator: ValidatorStages | undefined, matchAgainAtValidate = false): Stage[] {
  const described = validator?.match ?? [];
  return [
    ...service.prepare,
    ...(matchAgainAtValidate ? [] : described),
    service.match,
    service.authenticate,
    service.authorize,
    service.readBody,
    ...(service.decode ? [service.decode] : []),
    ...(service.kept ? [service.kept] : []),
    ...(matchAgainAtValidate ? described : []),
    ...(validator?.request ?? []), // 400/422: parameters and body against the description, coerced
    // Each JSON answer checked before it is written as the service writes it (serviceApp's res.json):
    // a mismatch is a 500 naming the violation.
    ...(validator?.response ?? []),
    service.handle,
    service.notFound,
  ];
}
