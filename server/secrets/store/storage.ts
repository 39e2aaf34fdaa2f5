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

export class MemoryStorage implements Storage {
  readonly #entries = new Map<string, StoredValue>();
  readonly #listeners = new Set<(write: StorageWrite) => void>();
  #index = 0;

  get<T extends StoredValue = StoredValue>(key: string): T | undefined {
    const value = this.#entries.get(key);
    // Values go out as copies, so that no caller can change stored state by accident.
    return value === undefined ? undefined : (structuredClone(value) as T);
  }

  put(key: string, value: StoredValue): void {
    this.#entries.set(key, structuredClone(value));
    this.#announce(key, value);
  }

  delete(key: string): void {
    if (!this.#entries.delete(key)) return;
    this.#announce(key, undefined);
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

  #announce(key: string, value: StoredValue | undefined): void {
    const write = { index: ++this.#index, key, value };
    for (const listener of this.#listeners) listener(write);
  }
}
