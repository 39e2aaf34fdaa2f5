// Checks an HTTP answer against the bundled description: documented status, content type and
// schema. Used on answers that did not come through the server's own validator (Prism's).
// The checking itself lives in scripts/contract/checker.ts (shared with traffic validation).
import { contractChecker } from "../../scripts/contract/checker.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
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
