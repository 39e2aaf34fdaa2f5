// A JSON:API error the server answers with. Domain code throws it; the app renders it as
// {"errors": [{status, title, detail, source}]}.
import type { components } from "../../../generated/org-platform/schema.ts";

/**
 * The most errors one answer lists (ErrorDocument's maxItems). The validator finds one problem per
 * wrong value: a 1 MiB array of wrong items was answered with 500,000 errors (56 MB, 2.6 s). The
 * first ones are listed; the mock lists the same.
 */
export const MAX_ERRORS = 100;

/** One error of an error document, as the description gives it. */
export type ErrorObject = components["schemas"]["ErrorObject"];

export class ApiError extends Error {
  override name = "ApiError";
  readonly errors: ErrorObject[];

  constructor(
    readonly status: number,
    errors: Omit<ErrorObject, "status">[],
  ) {
    super(errors.map((e) => e.detail ?? e.title).join("; "));
    this.errors = errors.map((e) => ({ status: String(status), ...e }));
  }
}

export function unauthorized(): ApiError {
  // The platform's own document, exactly: {"errors":[{"status":"401","title":"unauthorized"}]}.
  return new ApiError(401, [{ title: "unauthorized" }]);
}

/** The one answer to "does not exist" and "you may not": callers learn nothing from a refusal. */
export function notFound(): ApiError {
  // The platform's own document, exactly: {"errors":[{"status":"404","title":"not found"}]} (go-tfe
  // matches on the status only, other clients on the title).
  return new ApiError(404, [{ title: "not found" }]);
}

export function invalidAttribute(pointer: string, detail: string): ApiError {
  return new ApiError(422, [{ title: "invalid attribute", detail, source: { pointer } }]);
}

export function invalidRelationship(pointer: string, detail: string): ApiError {
  return new ApiError(422, [{ title: "invalid relationship", detail, source: { pointer } }]);
}

export function invalidParameter(parameter: string, detail: string): ApiError {
  return new ApiError(400, [{ title: "invalid query parameter", detail, source: { parameter } }]);
}

/** The platform's title for an include value an endpoint does not offer; go-tfe matches on it. */
export const INVALID_INCLUDE = "Invalid include parameter";

export function invalidInclude(detail: string): ApiError {
  return new ApiError(400, [{ title: INVALID_INCLUDE, detail, source: { parameter: "include" } }]);
}

/** The platform's answers before a request reaches it (431, 408, 503...): JSON:API errors. */
export const ORG_PLATFORM_RAW_ANSWERS = {
  contentType: "application/vnd.api+json",
  body: (status: number, reason: string, detail: string) => JSON.stringify({ errors: [{ status: String(status), title: reason.toLowerCase(), detail }] }),
};
