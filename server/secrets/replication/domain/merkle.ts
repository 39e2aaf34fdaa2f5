// The merkle root of a cluster's replicated data: a fingerprint both sides of a replication link
// compute over what they hold, equal exactly when they hold the same keys with the same values.
//
// Leaves are SHA-256(key, 0x00, canonical JSON of the value), in key order; each level hashes
// pairs of nodes (SHA-256 of the two hashes), an odd last node moving up as it is; the root is the
// hex of the top node, and the SHA-256 of nothing for no data. Canonical JSON sorts object keys,
// so values that are equal as JSON hash the same however they were built.
import { createHash } from "node:crypto";
import type { StoredValue } from "../../store/storage.ts";

export function canonicalJson(value: StoredValue | undefined): string {
  if (value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function leafHash(key: string, value: StoredValue): Buffer {
  return createHash("sha256").update(key, "utf8").update(Buffer.from([0])).update(canonicalJson(value), "utf8").digest();
}

/** The root over (key, value) pairs; the order given does not matter. */
export function merkleRoot(entries: Iterable<readonly [string, StoredValue]>): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return rootOfLeaves(sorted.map(([key, value]) => leafHash(key, value)));
}

/** The root over leaf hashes given in key order. */
function rootOfLeaves(leaves: Buffer[]): string {
  let level = leaves;
  if (level.length === 0) return createHash("sha256").digest("hex");
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const right = level[i + 1];
      next.push(right ? createHash("sha256").update(level[i]!).update(right).digest() : level[i]!);
    }
    level = next;
  }
  return level[0]!.toString("hex");
}

/**
 * The merkle root of the entries a storage holds under the keys `include` accepts, kept up to date
 * as the storage is written: each write rehashes its own leaf, and the root is rebuilt from the
 * leaves only when asked after a change (a status request asks often; hashing every value again
 * for each was seconds at 100,000 entries). Equal to merkleRoot over the same entries.
 */
export class MerkleTracker {
  readonly #leaves = new Map<string, Buffer>();
  #root: { index: number; root: string } | undefined;

  constructor(
    private readonly storage: {
      list(prefix: string): string[];
      get(key: string): StoredValue | undefined;
      index(): number;
      subscribe(listener: (write: { key: string; value: StoredValue | undefined }) => void): () => void;
    },
    private readonly include: (key: string) => boolean,
  ) {
    for (const key of storage.list("")) {
      const value = include(key) ? storage.get(key) : undefined;
      if (value !== undefined) this.#leaves.set(key, leafHash(key, value));
    }
    storage.subscribe(({ key, value }) => {
      if (!include(key)) return;
      if (value === undefined) this.#leaves.delete(key);
      else this.#leaves.set(key, leafHash(key, value));
      this.#root = undefined;
    });
  }

  root(): string {
    const index = this.storage.index();
    if (this.#root?.index !== index) {
      const keys = [...this.#leaves.keys()].sort();
      this.#root = { index, root: rootOfLeaves(keys.map((key) => this.#leaves.get(key)!)) };
    }
    return this.#root.root;
  }
}
