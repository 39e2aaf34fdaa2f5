// Storage of configuration entries, with a raft-like index: every write gets the next index, and
// the index of every key (deleted ones too) is kept so blocking queries can tell what changed.
// Optionally durable: with a data directory every write is committed to SQLite (one transaction for
// the entry, its key index and the store index) before it is acknowledged.
import { EventEmitter } from "node:events";
import type { DataDirectory, DurableTable } from "../../shared/data-dir.ts";
import {
  DEFAULT_NAMESPACE,
  type ConfigEntry,
  type EntryKind,
  type EntryLookup,
  type ProxyDefaultsEntry,
  type ServiceDefaultsEntry,
  type ServiceResolverEntry,
  type ServiceRouterEntry,
  type ServiceSplitterEntry,
} from "../domain/entries.ts";

export interface EntryKey {
  kind: EntryKind;
  namespace: string;
  name: string;
}

/**
 * The store key of an entry: a JSON array, so that no kind, namespace or name (whatever characters it
 * holds, `/` included) can produce the key of another entry.
 */
export function entryKey(kind: EntryKind, namespace: string, name: string): string {
  // A chain compile asks for dozens of keys: written out directly when no character needs escaping
  // (the same text JSON.stringify makes, for a fraction of its cost).
  if (ESCAPED.test(kind) || ESCAPED.test(namespace) || ESCAPED.test(name)) return JSON.stringify([kind, namespace, name]);
  return `["${kind}","${namespace}","${name}"]`;
}

/** Characters JSON.stringify writes otherwise than as themselves (and U+2028/9, to be safe). */
const ESCAPED = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** The common beginning of the keys of every entry of a kind in a namespace (and of no other key). */
export function entryKeyPrefix(kind: EntryKind, namespace: string): string {
  return `${JSON.stringify([kind, namespace]).slice(0, -1)},`;
}

export interface ConfigEntryStore {
  /** The index of the newest write. */
  currentIndex(): number;
  /** The index of the last write (or delete) of a key; 0 when never written (or the reaped floor). */
  keyIndex(key: string): number;
  /** The highest index among the keys that match. */
  maxKeyIndex(match: (key: string) => boolean): number;
  get(kind: EntryKind, namespace: string, name: string): ConfigEntry | undefined;
  /** Entries of a kind in a namespace, sorted by name. */
  list(kind: EntryKind, namespace: string): ConfigEntry[];
  all(): ConfigEntry[];
  /** Writes an entry (its Namespace must be set); returns the stored entry with its indexes. */
  put(entry: ConfigEntry): ConfigEntry;
  delete(kind: EntryKind, namespace: string, name: string): void;
  /** Calls the listener with the key of every write and delete; returns the unsubscribe function. */
  subscribe(listener: (key: string) => void): () => void;
}

/** A read-only view of the entries of a store, optionally with one proposed change applied. */
export function lookupOf(
  read: (kind: EntryKind, namespace: string, name: string) => ConfigEntry | undefined,
): EntryLookup {
  return {
    resolver: (ns, name) => read("service-resolver", ns, name) as ServiceResolverEntry | undefined,
    splitter: (ns, name) => read("service-splitter", ns, name) as ServiceSplitterEntry | undefined,
    router: (ns, name) => read("service-router", ns, name) as ServiceRouterEntry | undefined,
    serviceDefaults: (ns, name) => read("service-defaults", ns, name) as ServiceDefaultsEntry | undefined,
    proxyDefaults: () => read("proxy-defaults", DEFAULT_NAMESPACE, "global") as ProxyDefaultsEntry | undefined,
  };
}

/** Where a store keeps its state across restarts: three tables of one data directory. */
class EntryPersistence {
  private readonly entries: DurableTable<ConfigEntry>;
  private readonly indexes: DurableTable<number>;
  private readonly counters: DurableTable<number>;

  constructor(private readonly dir: DataDirectory) {
    this.entries = dir.table<ConfigEntry>("config_entries");
    this.indexes = dir.table<number>("config_entry_indexes");
    this.counters = dir.table<number>("config_entry_counters");
  }

  load(): { entries: Array<[string, ConfigEntry]>; indexes: Array<[string, number]>; index: number; floor: number } {
    return {
      entries: this.entries.entries(),
      indexes: this.indexes.entries(),
      index: this.counters.get("index") ?? 0,
      floor: this.counters.get("floor") ?? 0,
    };
  }

  /**
   * One write, all or nothing: the entry (or its removal), the key's index, the store's index, and
   * the tombstones reaped by it (their indexes dropped, the floor raised).
   */
  write(key: string, entry: ConfigEntry | undefined, index: number, reaped: string[], floor: number): void {
    this.dir.transaction(() => {
      if (entry) this.entries.put(key, entry);
      else this.entries.delete(key);
      this.indexes.put(key, index);
      for (const old of reaped) this.indexes.delete(old);
      this.counters.put("index", index);
      this.counters.put("floor", floor);
    });
  }
}

/** Deleted keys whose index is remembered; older ones are reaped (Consul reaps its tombstones too). */
export const MAX_TOMBSTONES = 10_000;

export class MemoryConfigEntryStore implements ConfigEntryStore {
  private readonly entries = new Map<string, ConfigEntry>();
  private readonly indexes = new Map<string, number>();
  /** Deleted keys, oldest first: they keep an index only so blocking queries see the delete. */
  private readonly tombstones = new Map<string, number>();
  /** The highest index among reaped tombstones: what a key never seen (or reaped) reports. */
  private floor = 0;
  private index = 0;
  private readonly changes = new EventEmitter();
  private readonly persistence: EntryPersistence | undefined;

  /** With `dir`, the store starts from what the directory holds and commits every write to it. */
  constructor(initial: ConfigEntry[] = [], dir?: DataDirectory) {
    this.changes.setMaxListeners(0);
    if (dir) {
      this.persistence = new EntryPersistence(dir);
      const loaded = this.persistence.load();
      for (const [key, entry] of loaded.entries) this.entries.set(key, entry);
      for (const [key, index] of loaded.indexes) {
        this.indexes.set(key, index);
        if (!this.entries.has(key)) this.tombstones.set(key, index);
      }
      this.index = loaded.index;
      this.floor = loaded.floor;
    }
    for (const entry of initial) this.put(entry);
  }

  currentIndex(): number {
    return this.index;
  }

  keyIndex(key: string): number {
    return this.indexes.get(key) ?? this.floor;
  }

  maxKeyIndex(match: (key: string) => boolean): number {
    let max = this.floor;
    for (const [key, index] of this.indexes) if (index > max && match(key)) max = index;
    return max;
  }

  get(kind: EntryKind, namespace: string, name: string): ConfigEntry | undefined {
    return this.entries.get(entryKey(kind, namespace, name));
  }

  list(kind: EntryKind, namespace: string): ConfigEntry[] {
    return [...this.entries.values()]
      .filter((e) => e.Kind === kind && e.Namespace === namespace)
      .sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  }

  all(): ConfigEntry[] {
    return [...this.entries.values()];
  }

  put(entry: ConfigEntry): ConfigEntry {
    const key = entryKey(entry.Kind, entry.Namespace ?? DEFAULT_NAMESPACE, entry.Name);
    const index = this.index + 1;
    const createIndex = this.entries.get(key)?.CreateIndex ?? index;
    const stored = { ...entry, CreateIndex: createIndex, ModifyIndex: index } as ConfigEntry;
    // Committed first: a write that fails to reach the disk changes nothing here either.
    this.persistence?.write(key, stored, index, [], this.floor);
    this.index = index;
    this.entries.set(key, stored);
    this.indexes.set(key, index);
    this.tombstones.delete(key);
    this.changes.emit("change", key);
    return stored;
  }

  delete(kind: EntryKind, namespace: string, name: string): void {
    const key = entryKey(kind, namespace, name);
    if (!this.entries.has(key)) return;
    const index = this.index + 1;
    const reaped: string[] = [];
    for (const old of this.tombstones.keys()) {
      if (this.tombstones.size + 1 - reaped.length <= MAX_TOMBSTONES) break;
      reaped.push(old);
    }
    const floor = Math.max(this.floor, ...reaped.map((old) => this.tombstones.get(old)!));
    this.persistence?.write(key, undefined, index, reaped, floor);
    this.index = index;
    this.floor = floor;
    for (const old of reaped) {
      this.tombstones.delete(old);
      this.indexes.delete(old);
    }
    this.entries.delete(key);
    this.indexes.set(key, index);
    this.tombstones.set(key, index);
    this.changes.emit("change", key);
  }

  subscribe(listener: (key: string) => void): () => void {
    this.changes.on("change", listener);
    return () => this.changes.off("change", listener);
  }
}
