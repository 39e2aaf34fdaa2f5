// An opt-in data directory for a reference server: one SQLite database (better-sqlite3) that keeps
// what the server acknowledged across restarts and kill -9. Every service uses the same layout, so
// one piece of code decides how a directory is created, recognised and refused:
//
//   <dir>/            mode 700 (it may hold key material)
//   <dir>/state.db    mode 600; WAL journal, synchronous=FULL: a write is on disk before the answer
//
// The database holds a `meta` row naming the service and the format version. A directory that holds
// another service's database, an unknown format, files that are not ours, or a damaged database is
// refused at start with a message naming the directory; it never becomes a silently empty server.
import Database from "better-sqlite3";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

export const DATA_FILE = "state.db";
const FORMAT_VERSION = 1;
/** SQLite's own companions of the database file. */
const OWN_FILES = new Set([DATA_FILE, `${DATA_FILE}-wal`, `${DATA_FILE}-shm`, `${DATA_FILE}-journal`]);

export class DataDirectoryError extends Error {}

/**
 * A write the data directory could not store (disk full, read-only, locked by another process, I/O
 * error): nothing of it was kept, and the service answers 503 without changing its state in memory.
 * Writes work again once the disk does; reads are served from memory meanwhile.
 */
export class StorageUnavailableError extends Error {
  override name = "StorageUnavailableError";
  constructor(
    /** Why, in words for a client: "the disk is full". */
    readonly reason: string,
    readonly code: string,
  ) {
    super(`could not store the write: ${reason}; nothing was changed, retry once the data directory can be written`);
  }
}

/** How long a write waits for a lock another process holds before it is refused (the event loop waits with it). */
const BUSY_TIMEOUT_MS = 500;

/** Why a disk-level failure (a SqliteError's or an fs error's code) keeps writes out, and what to do; undefined for anything else. */
export function writeFault(error: unknown): { reason: string; advice: string; code: string } | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string") return undefined;
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT" || code === "EFBIG") {
    return { code, reason: "the disk is full", advice: "free some space on its disk or use a directory on another disk" };
  }
  if (code.startsWith("SQLITE_READONLY") || code === "EROFS") {
    return { code, reason: "the file system is read-only", advice: "mount it writable or use a writable directory" };
  }
  if (code === "EACCES" || code === "EPERM" || code.startsWith("SQLITE_PERM") || code.startsWith("SQLITE_AUTH")) {
    return { code, reason: "this user may not write it", advice: "give this user write access (owner or mode) or use another directory" };
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return { code, reason: "another process holds its database locked", advice: "stop the other process using it (another server on the same directory?) or use another directory" };
  }
  if (code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN") || code === "EIO") {
    return { code, reason: "the disk refused the write (full, read-only or failing)", advice: "check its disk (space, mount, errors) or use another directory" };
  }
  return undefined;
}

/** The error a failed write becomes: StorageUnavailableError for a disk-level failure, else itself. */
function asStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const fault = writeFault(error);
  return fault ? new StorageUnavailableError(fault.reason, fault.code) : error;
}

export type Row = { key: string; value: string };

/** A table of JSON documents by key: the shape every service's state fits in. */
export class DurableTable<T> {
  readonly #get: Database.Statement<[string], Row>;
  readonly #put: Database.Statement<[string, string]>;
  readonly #delete: Database.Statement<[string]>;
  readonly #all: Database.Statement<[], Row>;
  readonly #clear: Database.Statement<[]>;

  constructor(db: Database.Database, readonly name: string) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`bad table name ${name}`);
    db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID`);
    this.#get = db.prepare(`SELECT key, value FROM "${name}" WHERE key = ?`);
    this.#put = db.prepare(`INSERT INTO "${name}" (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`);
    this.#delete = db.prepare(`DELETE FROM "${name}" WHERE key = ?`);
    this.#all = db.prepare(`SELECT key, value FROM "${name}" ORDER BY key`);
    this.#clear = db.prepare(`DELETE FROM "${name}"`);
  }

  get(key: string): T | undefined {
    const row = this.#get.get(key);
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  put(key: string, value: T): void {
    try {
      this.#put.run(key, JSON.stringify(value));
    } catch (error) {
      throw asStorageError(error);
    }
  }

  delete(key: string): void {
    try {
      this.#delete.run(key);
    } catch (error) {
      throw asStorageError(error);
    }
  }

  clear(): void {
    try {
      this.#clear.run();
    } catch (error) {
      throw asStorageError(error);
    }
  }

  /** Every document, in key order. */
  entries(): Array<[string, T]> {
    return this.#all.all().map((row) => [row.key, JSON.parse(row.value) as T]);
  }
}

export class DataDirectory {
  readonly path: string;
  readonly db: Database.Database;
  /** True when the directory was empty (or absent) and has just been initialised. */
  readonly created: boolean;

  private constructor(path: string, db: Database.Database, created: boolean) {
    this.path = path;
    this.db = db;
    this.created = created;
  }

  /**
   * Opens (or creates) the data directory of `service`. Throws DataDirectoryError, naming the
   * directory and what is wrong with it, when it belongs to something else or is damaged.
   */
  static open(path: string, service: string): DataDirectory {
    try {
      return DataDirectory.#open(path, service);
    } catch (error) {
      if (error instanceof DataDirectoryError) throw error;
      const fault = writeFault(error);
      if (fault) throw new DataDirectoryError(`data directory ${path} cannot be written: ${fault.reason} (${fault.code}); ${fault.advice}`);
      throw error;
    }
  }

  static #open(path: string, service: string): DataDirectory {
    if (existsSync(path) && !statSync(path).isDirectory()) throw new DataDirectoryError(`data directory ${path} is not a directory`);
    try {
      mkdirSync(path, { recursive: true, mode: 0o700 });
    } catch (error) {
      // A recursive mkdir reports ENOENT where the parent is there but cannot take the directory
      // (a read-only file system): made once more without recursion, it reports why.
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && existsSync(dirname(path))) mkdirSync(path, { mode: 0o700 });
      throw error;
    }
    const foreign = readdirSync(path).filter((name) => !OWN_FILES.has(name));
    if (foreign.length > 0) {
      throw new DataDirectoryError(
        `data directory ${path} holds files that are not a ${service} data directory's (${foreign.slice(0, 3).join(", ")}); use an empty or new directory`,
      );
    }
    chmodSync(path, 0o700);
    const file = join(path, DATA_FILE);
    const created = !existsSync(file);
    // Created 600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
    if (created) closeSync(openSync(file, "a", 0o600));
    chmodSync(file, 0o600);
    let db: Database.Database;
    try {
      db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("foreign_keys = ON");
      const check = db.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new Error(String(check));
    } catch (error) {
      if (writeFault(error)) throw error;
      throw new DataDirectoryError(`data directory ${path}: ${DATA_FILE} is not a readable database (${(error as Error).message})`);
    }
    try {
      db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)");
      const meta = new Map(db.prepare<[], Row>("SELECT key, value FROM meta").all().map((row) => [row.key, row.value]));
      const userTables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'meta'").all();
      if (meta.size === 0 && userTables.length === 0) {
        const insert = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
        db.transaction(() => {
          insert.run("service", service);
          insert.run("format", String(FORMAT_VERSION));
          insert.run("created", new Date().toISOString());
        })();
      } else if (meta.get("service") !== service) {
        throw new DataDirectoryError(
          `data directory ${path} belongs to ${meta.get("service") ? `the ${meta.get("service")} service` : "something else"}, not to the ${service} service`,
        );
      } else if (meta.get("format") !== String(FORMAT_VERSION)) {
        throw new DataDirectoryError(`data directory ${path} has format ${meta.get("format")}; this server reads format ${FORMAT_VERSION}`);
      }
      // A directory that cannot take a write is refused now, not at the first acknowledged write.
      db.prepare("INSERT INTO meta (key, value) VALUES ('opened', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(new Date().toISOString());
    } catch (error) {
      db.close();
      if (error instanceof DataDirectoryError || writeFault(error)) throw error;
      throw new DataDirectoryError(`data directory ${path}: ${(error as Error).message}`);
    }
    return new DataDirectory(path, db, created);
  }

  table<T>(name: string): DurableTable<T> {
    return new DurableTable<T>(this.db, name);
  }

  /** Runs `work` as one transaction: all of its writes are kept, or none. */
  transaction<R>(work: () => R): R {
    try {
      return this.db.transaction(work)();
    } catch (error) {
      throw asStorageError(error);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
