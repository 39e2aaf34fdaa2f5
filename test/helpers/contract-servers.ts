// A reference server shared by the tests of a describe block: the description it serves, and the
// server itself, started before the block's tests and closed after them.
import { afterAll, beforeAll } from "vitest";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import type { ReferenceServer, RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

export function referenceServerForBlock(server: ReferenceServer): { bundle: OpenApiDoc; running: () => RunningReferenceServer } {
  let running: RunningReferenceServer | undefined;
  beforeAll(async () => {
    running = await server.start();
  });
  afterAll(() => running?.close());
  return {
    bundle: server.description?.() ?? (loadBundle(server.api) as OpenApiDoc),
    running: () => {
      if (!running) throw new Error(`${server.api}: the reference server runs only during the block's tests`);
      return running;
    },
  };
}
