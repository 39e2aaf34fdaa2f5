// Blocking queries: answer at once unless the client sent an `index` the answer has not passed yet;
// then wait until a write touches one of the answer's inputs, or until `wait` passes.
import { parseDuration } from "../shared/go-duration.ts";
import type { Indexed } from "./service.ts";
import type { ConfigEntryStore } from "./store/config-entry-store.ts";

const DEFAULT_WAIT_MS = 5 * 60_000;
const MAX_WAIT_MS = 10 * 60_000;

export interface BlockingParams {
  index?: number;
  /** Go duration string; default 5m, capped at 10m. */
  wait?: string;
  /** Registers what to do when the client goes away (only called when the query blocks). */
  onClientGone: (stop: () => void) => void;
}

export async function blockingQuery<T>(
  store: ConfigEntryStore,
  params: BlockingParams,
  run: () => Indexed<T>,
): Promise<Indexed<T>> {
  let result = run();
  const minIndex = params.index ?? 0;
  if (minIndex === 0) return result;
  const waitMs = Math.min(params.wait ? parseDuration(params.wait) / 1e6 : DEFAULT_WAIT_MS, MAX_WAIT_MS);
  const deadline = Date.now() + waitMs;
  while (result.index <= minIndex) {
    const changed = await nextChange(store, result.watches, deadline - Date.now(), params.onClientGone);
    if (!changed) break;
    result = run();
  }
  return result;
}

/** Resolves true on the next write to a watched key, false on timeout or abort. */
function nextChange(
  store: ConfigEntryStore,
  watches: (key: string) => boolean,
  timeoutMs: number,
  onClientGone: (stop: () => void) => void,
): Promise<boolean> {
  if (timeoutMs <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let done = false;
    const finish = (changed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(changed);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const unsubscribe = store.subscribe((key) => {
      if (watches(key)) finish(true);
    });
    onClientGone(() => finish(false));
  });
}
