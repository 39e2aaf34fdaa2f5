// The write-ahead log a cluster keeps of its replicated writes: every put and delete of a
// replicated key gets the next index (`last_wal`), and the newest entries are kept so that a
// secondary can ask for what came after the index it has applied. An older index than the log
// still holds means the secondary must take a full copy (merkle sync) instead.
import type { StoredValue } from "../../store/storage.ts";

export interface WalEntry {
  index: number;
  key: string;
  /** Undefined for a delete. */
  value: StoredValue | undefined;
}

export type WalRead = { entries: WalEntry[] } | { truncated: true };

/** Bytes of JSON the log keeps at most: older entries go first (a secondary that needs them resyncs). */
export const DEFAULT_WAL_BYTES = 16 * 1024 * 1024;

export class WalLog {
  readonly #entries: WalEntry[] = [];
  /** Bytes of each kept entry, in the same order. */
  readonly #sizes: number[] = [];
  #bytes = 0;
  #last = 0;

  constructor(
    private readonly retain = 10_000,
    private readonly retainBytes = DEFAULT_WAL_BYTES,
  ) {
    if (!Number.isInteger(retain) || retain < 1) throw new Error("a WAL keeps at least one entry");
  }

  /** Bytes of JSON held by the kept entries. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Numbers the next entry after `index` (an empty log only: a restored cluster's continuation). */
  startAt(index: number): void {
    if (this.#entries.length === 0 && index > this.#last) this.#last = index;
  }

  /** Index of the newest entry (0 before the first). */
  get last(): number {
    return this.#last;
  }

  append(key: string, value: StoredValue | undefined): WalEntry {
    const entry = { index: ++this.#last, key, value };
    const size = Buffer.byteLength(key) + (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
    this.#entries.push(entry);
    this.#sizes.push(size);
    this.#bytes += size;
    let drop = 0;
    while (this.#entries.length - drop > this.retain || (this.#bytes > this.retainBytes && drop < this.#entries.length)) {
      this.#bytes -= this.#sizes[drop]!;
      drop++;
    }
    if (drop > 0) {
      this.#entries.splice(0, drop);
      this.#sizes.splice(0, drop);
    }
    return entry;
  }

  /** Entries after `index` (at most `limit`), or `truncated` when some of them are gone. */
  since(index: number, limit = Infinity): WalRead {
    if (index >= this.#last) return { entries: [] };
    const oldest = this.#entries[0]?.index ?? this.#last + 1;
    if (index < oldest - 1) return { truncated: true };
    const start = index - oldest + 1;
    return { entries: this.#entries.slice(start, start + Math.min(limit, this.#entries.length)) };
  }
}
