// Typed views of the cluster's storage, one per kind of record: where the kind is kept (one key, or
// a key prefix and a name per record), its record type, and how a stored value reads back. The one
// place a record becomes a stored JSON value and a stored value a record: the modules that keep
// records use a view and no cast.
import type { Storage, StoredValue } from "./storage.ts";

/**
 * A record type that is plain JSON data (strings, numbers, booleans, null, arrays and objects of
 * them; optional members left out): what is stored is what reads back. A member that is not JSON
 * (a bigint, a function, a Buffer...) is `never` here, so the views below refuse to store it.
 */
export type Json<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends (infer E)[]
    ? Json<E>[]
    : T extends readonly (infer E)[]
      ? readonly Json<E>[]
      : T extends (...args: never[]) => unknown
        ? never
        : T extends object
          ? { [K in keyof T]: Json<T[K]> }
          : never;

/**
 * How a stored value reads as a record: undefined when it holds none of the kind (something
 * another version or another kind left there). Without one, a value is the record this code stored.
 */
export type ReadRecord<T> = (stored: StoredValue) => T | undefined;

/** The stored value as the record it was stored as (records are JSON: stored and read back as they are). */
function asStored<T>(stored: StoredValue): T {
  return stored as unknown as T;
}

/** The record as the JSON value it is (the record type is checked to be JSON, Json<T>). */
function toStored<T>(record: T): StoredValue {
  return record as unknown as StoredValue;
}

/** Reads the values `accept` takes as records of the kind (as they were stored), and no others. */
export function storedWhere<T>(accept: (stored: StoredValue) => boolean): ReadRecord<T> {
  return (stored) => (accept(stored) ? asStored<T>(stored) : undefined);
}

/** Whether a stored value is a JSON object (not null, not an array). */
export function isStoredObject(stored: StoredValue): stored is { [key: string]: StoredValue } {
  return typeof stored === "object" && stored !== null && !Array.isArray(stored);
}

/** A record kept at one key (the seal, the cluster's own record). */
export class StoredRecord<T> {
  constructor(
    private readonly storage: Storage,
    readonly key: string,
    private readonly read: ReadRecord<T> = asStored,
  ) {}

  get(): T | undefined {
    const stored = this.storage.get(this.key);
    return stored === undefined ? undefined : this.read(stored);
  }

  put(record: Json<T>): void {
    this.storage.put(this.key, toStored(record));
  }

  delete(): void {
    this.storage.delete(this.key);
  }
}

/** Records of one kind, each at its prefix and its name (a role, a lease, an MFA method). */
export class StoredRecords<T> {
  constructor(
    private readonly storage: Storage,
    readonly prefix: string,
    private readonly read: ReadRecord<T> = asStored,
  ) {}

  key(name: string): string {
    return this.prefix + name;
  }

  get(name: string): T | undefined {
    const stored = this.storage.get(this.prefix + name);
    return stored === undefined ? undefined : this.read(stored);
  }

  /** Whether anything is stored under the name (a record of this kind or not). */
  has(name: string): boolean {
    return this.storage.get(this.prefix + name) !== undefined;
  }

  put(name: string, record: Json<T>): void {
    this.storage.put(this.prefix + name, toStored(record));
  }

  delete(name: string): void {
    this.storage.delete(this.prefix + name);
  }

  /** The names stored under the prefix (and under `under` below it), sorted; a name keeps its `/`s. */
  names(under = ""): string[] {
    return this.storage.list(this.prefix + under).map((key) => key.slice(this.prefix.length));
  }

  /** The records stored, in name order; values that are none of the kind left out. */
  all(): T[] {
    return this.names().flatMap((name) => {
      const record = this.get(name);
      return record === undefined ? [] : [record];
    });
  }
}
