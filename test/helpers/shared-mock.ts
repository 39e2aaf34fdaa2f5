// The run's shared stateless mock of an API (test/setup/shared-mocks.ts starts it on the first ask).
import { inject } from "vitest";
import type {} from "../setup/shared-mocks.ts"; // its ProvidedContext

export interface SharedMock {
  /** The mock as `npm run mock` serves it: the front (scripts/mock/front.ts) with Prism behind it. */
  url: string;
  /** Prism itself, behind the front. */
  prismUrl: string;
}

export async function sharedMock(api: string): Promise<SharedMock> {
  // Prism's start-up is bounded by startMock's own limit (30 s); this only guards against a hung setup.
  const response = await fetch(`${inject("sharedMocks")}/${encodeURIComponent(api)}`, { signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(text);
  return JSON.parse(text) as SharedMock;
}
