// The cluster's storage kept in a data directory (SECRETS_DATA_DIR): the same key-value store of
// JSON values as MemoryStorage, with every write on disk (SQLite, synchronous) before it is
// acknowledged, and its write index kept with it. Reads are served from memory: the whole store is
// loaded at start, as it is bounded by the same byte budget as the in-memory one.
import type { DataDirectory, DurableTable } from "../../shared/data-dir.ts";
import { DEFAULT_MEMORY_BUDGET, MemoryStorage, type StoredValue, type Storage, type StorageWrite } from "./storage.ts";

const INDEX_KEY = "index";

export class DurableStorage implements Storage {
  readonly #memory: MemoryStorage;
  readonly #table: DurableTable<StoredValue>;
  readonly #meta: DurableTable<number>;
  readonly #directory: DataDirectory;
  #index: number;

  constructor(directory: DataDirectory, budget = DEFAULT_MEMORY_BUDGET) {
    this.#directory = directory;
    this.#table = directory.table<StoredValue>("storage");
    this.#meta = directory.table<number>("storage_meta");
    this.#memory = new MemoryStorage(budget);
    // Loaded without announcing: what is on disk was announced when it was written.
    this.#memory.load(this.#table.entries());
    this.#index = this.#meta.get(INDEX_KEY) ?? 0;
  }

  /** Bytes of JSON held. */
  get bytes(): number {
    return this.#memory.bytes;
  }

  get<T extends StoredValue = StoredValue>(key: string): T | undefined {
    return this.#memory.get<T>(key);
  }

  put(key: string, value: StoredValue): void {
    // Checked (size, budget) and written to disk first: a refused write changes nothing, an
    // acknowledged one is on disk.
    this.#memory.check(key, value);
    this.#directory.transaction(() => {
      this.#table.put(key, value);
      this.#meta.put(INDEX_KEY, this.#index + 1);
    });
    this.#index++;
    this.#memory.put(key, value);
  }

  delete(key: string): void {
    if (this.#memory.get(key) === undefined) return;
    this.#directory.transaction(() => {
      this.#table.delete(key);
      this.#meta.put(INDEX_KEY, this.#index + 1);
    });
    this.#index++;
    this.#memory.delete(key);
  }

  list(prefix: string): string[] {
    return this.#memory.list(prefix);
  }

  index(): number {
    return this.#index;
  }

  subscribe(listener: (write: StorageWrite) => void): () => void {
    // The memory store announces with its own index; subscribers get the durable one.
    return this.#memory.subscribe((write) => listener({ ...write, index: this.#index }));
  }
}
