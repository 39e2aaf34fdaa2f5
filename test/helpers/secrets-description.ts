// The check each part of the secrets description makes of the operations it adds: every one at its
// path and method, with its operationId, the capabilities it needs, and a handler on the server.
import { expect } from "vitest";
import { secretsHandlers } from "../../server/secrets/handlers/index.ts";
import type { loadBundle } from "../../server/shared/openapi.ts";

/** One operation as a test expects it described: [path template, method, operationId, capabilities]. */
export type ExpectedOperation = [template: string, method: string, operationId: string, capabilities: string[]];

export function expectOperationsDescribed(bundle: ReturnType<typeof loadBundle>, expected: ExpectedOperation[]): void {
  for (const [template, method, operationId, capabilities] of expected) {
    const operation = (bundle.paths[template] as Record<string, any>)[method];
    expect(operation.operationId, `${method} ${template}`).toBe(operationId);
    expect(operation["x-secrets-capabilities"], operationId).toEqual(capabilities);
    expect(secretsHandlers).toHaveProperty(operationId);
  }
}
