// A cache keyed by strings that come from clients (paths, query strings, header values): it holds at
// most `maxEntries` keys and `maxChars` characters of them, and starts empty again when a new key
// would pass either bound. Clearing is what keeps it cheap; what it holds can always be worked out
// again, so losing it costs only time.
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  #chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: V): void {
    if (!this.#entries.has(key)) {
      if (this.#entries.size >= this.maxEntries || this.#chars + key.length > this.maxChars) this.clear();
      this.#chars += key.length;
    }
    this.#entries.set(key, value);
  }

  clear(): void {
    this.#entries.clear();
    this.#chars = 0;
  }

  /** Keys held, and their characters. */
  get size(): { entries: number; chars: number } {
    return { entries: this.#entries.size, chars: this.#chars };
  }
}
