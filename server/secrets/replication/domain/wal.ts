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
  // Kept entries are #entries[#head...]: dropping the oldest empties its slot (its value can be
  // collected at once: the byte budget holds) and moves #head; the array is compacted only when
  // half of it is empty slots, so that an append costs the same however full the log is.
  readonly #entries: (WalEntry | undefined)[] = [];
  /** Bytes of each kept entry, in the same order. */
  readonly #sizes: number[] = [];
  #head = 0;
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

  /** Entries kept. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** Numbers the next entry after `index` (an empty log only: a restored cluster's continuation). */
  startAt(index: number): void {
    if (this.size === 0 && index > this.#last) this.#last = index;
  }

  /** Index of the newest entry (0 before the first). */
  get last(): number {
    return this.#last;
  }

  /**
   * Numbers a write without keeping it, and lets go of every entry kept: a secondary asking for
   * anything before it resyncs. For a cluster that ships its writes to no one.
   */
  advance(): void {
    ++this.#last;
    this.#entries.length = 0;
    this.#sizes.length = 0;
    this.#head = 0;
    this.#bytes = 0;
  }

  /** `bytes`: the JSON size of key and value when the caller knows it already. */
  append(key: string, value: StoredValue | undefined, bytes?: number): WalEntry {
    const entry = { index: ++this.#last, key, value };
    const size = bytes ?? Buffer.byteLength(key) + (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
    this.#entries.push(entry);
    this.#sizes.push(size);
    this.#bytes += size;
    while (this.size > this.retain || (this.#bytes > this.retainBytes && this.size > 0)) {
      this.#bytes -= this.#sizes[this.#head]!;
      this.#entries[this.#head] = undefined;
      this.#head++;
    }
    if (this.#head > 0 && this.#head * 2 >= this.#entries.length) {
      this.#entries.splice(0, this.#head);
      this.#sizes.splice(0, this.#head);
      this.#head = 0;
    }
    return entry;
  }

  /** Entries after `index` (at most `limit`), or `truncated` when some of them are gone. */
  since(index: number, limit = Infinity): WalRead {
    if (index >= this.#last) return { entries: [] };
    const oldest = this.#entries[this.#head]?.index ?? this.#last + 1;
    if (index < oldest - 1) return { truncated: true };
    const start = this.#head + index - oldest + 1;
    return { entries: this.#entries.slice(start, start + Math.min(limit, this.size)) as WalEntry[] };
  }
}
