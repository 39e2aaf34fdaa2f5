// Checks an HTTP answer against the bundled description: documented status, content type and
// schema. Used on answers that did not come through the server's own validator (Prism's).
// The checking itself lives in scripts/contract/checker.ts (shared with traffic validation).
import fc from "fast-check";
import { validRequestArbitrary } from "../../scripts/contract/arbitrary.ts";
import { contractChecker } from "../../scripts/contract/checker.ts";
import type { Json, OpenApiDoc, Operation } from "../../scripts/contract/document.ts";
import { bodyText } from "../../scripts/docs/requests.ts";
import type { OpenApiDocument } from "../../server/shared/openapi.ts";

export function responseChecker(bundle: OpenApiDocument) {
  const checker = contractChecker(bundle as OpenApiDoc);

  /** Returns the problems found; an empty list means the answer follows the description. */
  return function check(template: string, method: string, status: number, contentType: string, body: unknown): string[] {
    const operation = checker.operations.find((o) => o.template === template && o.method === method);
    if (!operation) return [`${method.toUpperCase()} ${template} is not described`];
    return checker.checkResponseValue(operation, status, contentType, body).map((v) => `${v.pointer} ${v.reason}`);
  };
}

/**
 * A request body the operation's schema takes (its checker's word), for a description added with
 * add-api, whose examples are its lint's to judge: the first of `candidates` (an example, a
 * stand-in) the checker takes, else the first of 20 bodies conformance generates that it takes (the
 * stand-in of a oneOf may fit two alternatives); undefined when none is taken (a schema no value
 * meets: `allOf: [{type: string}, {type: integer}]`).
 */
export function bodyTheSchemaTakes(
  doc: OpenApiDoc,
  checker: ReturnType<typeof contractChecker>,
  operation: Operation,
  candidates: { mediaType: string; value: Json }[],
): { mediaType: string; value: Json } | undefined {
  const takes = (body: { mediaType: string; value: Json }) => {
    const wire = { method: operation.method.toUpperCase(), path: operation.template, query: [], headers: { "content-type": body.mediaType }, body: bodyText(body) };
    return !checker.checkRequest({ operation, pathParams: {} }, wire).some((v) => v.kind === "request-body");
  };
  const given = candidates.find(takes);
  if (given) return given;
  for (const request of fc.sample(validRequestArbitrary(doc, operation), { numRuns: 20, seed: 1 })) {
    const body = request.body as { mediaType: string; value: Json } | undefined;
    if (body && takes(body)) return body;
  }
  return undefined;
}
