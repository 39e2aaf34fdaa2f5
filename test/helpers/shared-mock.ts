// The run's shared stateless mock of an API (test/setup/shared-mocks.ts starts it on the first ask).
import { availableParallelism } from "node:os";
import { inject } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import type {} from "../setup/shared-mocks.ts"; // its ProvidedContext

export interface SharedMock {
  /** The mock as `npm run mock` serves it: the front (scripts/mock/front.ts) with Prism behind it. */
  url: string;
  /** Prism itself, behind the front. */
  prismUrl: string;
}

export async function sharedMock(api: string): Promise<SharedMock> {
  // Prism's start-up is bounded by startMock's own limit (30 s); this only guards against a hung
  // setup. Prisms start one per core at a time: the last of many APIs waits for those before it.
  const wait = 60_000 + 4_000 * Math.ceil(APIS.length / availableParallelism());
  const response = await fetch(`${inject("sharedMocks")}/${encodeURIComponent(api)}`, { signal: AbortSignal.timeout(wait) });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  return JSON.parse(text) as SharedMock;
}
