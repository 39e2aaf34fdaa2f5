// Storage of configuration entries, with a raft-like index: every write gets the next index, and
// the index of every key (deleted ones too) is kept so blocking queries can tell what changed.
import { EventEmitter } from "node:events";
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

export function entryKey(kind: EntryKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export interface ConfigEntryStore {
  /** The index of the newest write. */
  currentIndex(): number;
  /** The index of the last write (or delete) of a key; 0 when never written. */
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

export class MemoryConfigEntryStore implements ConfigEntryStore {
  private readonly entries = new Map<string, ConfigEntry>();
  private readonly indexes = new Map<string, number>();
  private index = 0;
  private readonly changes = new EventEmitter();

  constructor(initial: ConfigEntry[] = []) {
    this.changes.setMaxListeners(0);
    for (const entry of initial) this.put(entry);
  }

  currentIndex(): number {
    return this.index;
  }

  keyIndex(key: string): number {
    return this.indexes.get(key) ?? 0;
  }

  maxKeyIndex(match: (key: string) => boolean): number {
    let max = 0;
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
    const index = ++this.index;
    const createIndex = this.entries.get(key)?.CreateIndex ?? index;
    const stored = { ...entry, CreateIndex: createIndex, ModifyIndex: index } as ConfigEntry;
    this.entries.set(key, stored);
    this.indexes.set(key, index);
    this.changes.emit("change", key);
    return stored;
  }

  delete(kind: EntryKind, namespace: string, name: string): void {
    const key = entryKey(kind, namespace, name);
    if (!this.entries.delete(key)) return;
    this.indexes.set(key, ++this.index);
    this.changes.emit("change", key);
  }

  subscribe(listener: (key: string) => void): () => void {
    this.changes.on("change", listener);
    return () => this.changes.off("change", listener);
  }
}
