// The storage of one cluster: a key-value store of JSON values with a write index, like the real
// system's physical storage. Every write and delete gets the next index and is announced to the
// subscribers, so that replication (which ships writes between clusters) can be built on it.
//
// Key prefixes: `core/` holds the cluster's own key material and is never replicated; `sys/` holds
// service configuration; engines store under `logical/<mount uuid>/`.

export type StoredValue = string | number | boolean | null | StoredValue[] | { [key: string]: StoredValue };

export interface StorageWrite {
  index: number;
  key: string;
  /** Undefined for a delete. */
  value: StoredValue | undefined;
  /** Bytes of JSON of key and value (what entryBytes counts). */
  bytes: number;
}

export interface Storage {
  get<T extends StoredValue = StoredValue>(key: string): T | undefined;
  put(key: string, value: StoredValue): void;
  delete(key: string): void;
  /** Keys under a prefix, sorted. */
  list(prefix: string): string[];
  /** Index of the newest write (0 before the first). */
  index(): number;
  /** Calls the listener after every write and delete; returns the unsubscribe function. */
  subscribe(listener: (write: StorageWrite) => void): () => void;
}

/** Largest stored value, in bytes of JSON: the real server's integrated storage refuses larger entries. */
export const MAX_ENTRY_BYTES = 1024 * 1024;
/** What an in-memory storage holds at most, in bytes of JSON (keys and values). */
export const DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024;

/** A write refused because of its size or the storage's budget: answered 413. */
export class StorageLimitError extends Error {
  override name = "StorageLimitError";
  readonly status = 413;
}

/** The JSON size of a value: what it costs to keep and to ship; refuses one over MAX_ENTRY_BYTES. */
export function entryBytes(key: string, value: StoredValue): number {
  return entryText(key, value).bytes;
}

/** A value's JSON text and the entry's size (as entryBytes); refuses one over MAX_ENTRY_BYTES. */
function entryText(key: string, value: StoredValue): { text: string; bytes: number } {
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_ENTRY_BYTES) {
    throw new StorageLimitError(`put failed due to value being too large; got ${bytes} bytes, max: ${MAX_ENTRY_BYTES} bytes`);
  }
  return { text, bytes: bytes + Buffer.byteLength(key) };
}

/** The value frozen all the way down (a value held by a storage, read by many, changed by none). */
function deepFrozen<T extends StoredValue>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFrozen(member);
    Object.freeze(value);
  }
  return value;
}

export class MemoryStorage implements Storage {
  readonly #entries = new Map<string, { value: StoredValue; bytes: number }>();
  readonly #listeners = new Set<(write: StorageWrite) => void>();
  #index = 0;
  #bytes = 0;

  /** `budget`: the bytes of JSON it holds at most; a write past it is refused (413). */
  constructor(private readonly budget = DEFAULT_MEMORY_BUDGET) {}

  /** Bytes of JSON held (keys and values). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The stored value itself, frozen: no caller can change stored state by accident (a change
   * throws), and a read copies nothing.
   */
  get<T extends StoredValue = StoredValue>(key: string): T | undefined {
    return this.#entries.get(key)?.value as T | undefined;
  }

  /** Throws StorageLimitError when the write would be refused; returns its JSON text, its size and the new total. */
  check(key: string, value: StoredValue): { text: string; bytes: number; total: number } {
    const { text, bytes } = entryText(key, value);
    const total = this.#bytes - (this.#entries.get(key)?.bytes ?? 0) + bytes;
    if (total > this.budget) throw new StorageLimitError(`storage is full: ${this.budget} bytes in use or requested, refusing a write of ${bytes} bytes`);
    return { text, bytes, total };
  }

  /** Fills an empty storage with entries kept elsewhere (a data directory), announcing nothing. */
  load(entries: Iterable<[string, StoredValue]>): void {
    for (const [key, value] of entries) {
      const { text, bytes, total } = this.check(key, value);
      this.#entries.set(key, { value: deepFrozen(JSON.parse(text) as StoredValue), bytes });
      this.#bytes = total;
    }
  }

  /** Keeps a copy of the value (its JSON parsed again: what a restart reads back), frozen. */
  put(key: string, value: StoredValue): void {
    const { text, bytes, total } = this.check(key, value);
    const stored = deepFrozen(JSON.parse(text) as StoredValue);
    this.#entries.set(key, { value: stored, bytes });
    this.#bytes = total;
    this.#announce(key, stored, bytes);
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    this.#announce(key, undefined, Buffer.byteLength(key));
  }

  list(prefix: string): string[] {
    return [...this.#entries.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  index(): number {
    return this.#index;
  }

  subscribe(listener: (write: StorageWrite) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #announce(key: string, value: StoredValue | undefined, bytes: number): void {
    const write = { index: ++this.#index, key, value, bytes };
    for (const listener of this.#listeners) listener(write);
  }
}
