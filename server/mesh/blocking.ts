// Blocking queries: answer at once unless the client sent an `index` the answer has not passed yet;
// then wait until a write touches one of the answer's inputs, or until `wait` passes.
import { parseGoDuration } from "../shared/go-duration.ts";
import type { Indexed } from "./service.ts";

const DEFAULT_WAIT_MS = 5 * 60_000;
const MAX_WAIT_MS = 10 * 60_000;

/** What a blocking query waits for: an index to pass, for at most a while. */
export interface BlockingWait {
  index?: number;
  /** How long to wait, from parseWait (default 5m, capped at 10m). */
  waitMs: number;
}

export interface BlockingParams extends BlockingWait {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** Why the `wait` and `index` query parameters cannot be used, in the real agent's words. */
export class BlockingParamError extends Error {}

/**
 * The agent's parseWait: `wait` is any Go duration ("Invalid wait time" otherwise), `index` an
 * unsigned integer ("Invalid index"). A wait of zero or less means the default (5m), and no wait is
 * longer than the server's limit (10m), as the servers' blocking-query loop settles it.
 */
export function parseWait(wait: string | undefined, index: string | undefined): BlockingWait {
  let waitMs = DEFAULT_WAIT_MS;
  if (wait !== undefined && wait !== "") {
    const parsed = parseGoDuration(wait);
    if ("error" in parsed) throw new BlockingParamError("Invalid wait time");
    const ms = Number(parsed.value / 1_000_000n);
    waitMs = ms <= 0 ? DEFAULT_WAIT_MS : Math.min(ms, MAX_WAIT_MS);
  }
  if (index === undefined || index === "") return { waitMs };
  if (!/^\d+$/.test(index) || BigInt(index) > 0xffff_ffff_ffff_ffffn) throw new BlockingParamError("Invalid index");
  return { waitMs, index: Number(index) };
}

/** What a blocking query waits on: a store that announces the key of every write. */
export interface WriteSource {
  subscribe(listener: (key: string) => void): () => void;
}

export async function blockingQuery<T>(
  store: WriteSource,
  params: BlockingParams,
  run: () => Indexed<T>,
): Promise<Indexed<T>> {
  let result = run();
  const minIndex = params.index ?? 0;
  if (minIndex === 0) return result;
  const deadline = Date.now() + params.waitMs;
  while (result.index <= minIndex && !params.signal.aborted) {
    const changed = await nextChange(store, result.watches, deadline - Date.now(), params.signal);
    if (!changed) break;
    result = run();
  }
  return result;
}

/** Resolves true on the next write to a watched key, false on timeout or abort; leaves no listener behind. */
function nextChange(
  store: WriteSource,
  watches: (key: string) => boolean,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  if (timeoutMs <= 0 || signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    let done = false;
    const finish = (changed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      signal.removeEventListener("abort", onAbort);
      resolve(changed);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const unsubscribe = store.subscribe((key) => {
      if (watches(key)) finish(true);
    });
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
