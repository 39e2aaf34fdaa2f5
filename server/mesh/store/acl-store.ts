// Storage of ACL policies, roles and tokens, by id, with creation/modification indexes; optionally
// durable (every write committed to the data directory, with the index, before it is acknowledged).
import type { components } from "../../../generated/mesh/schema.ts";
import type { DataDirectory, DurableTable } from "../../shared/data-dir.ts";

// The records are the described wire forms (generated/mesh/schema.ts), except that a stored link
// always has both its ID and its name (an input link may carry either), and a token keeps what the
// API does not show (its own rules, and whether it is legacy or the management token).
type Schemas = components["schemas"];

/** A link to a policy or role as stored: by ID, with the name it had when last read. */
export type AclLink = Required<Schemas["AclLink"]>;
/** A service identity: write on the service and its sidecar proxy, read on every service. */
export type ServiceIdentity = Schemas["ServiceIdentity"];
/** A node identity: write on the node, read on every service, in one datacenter. */
export type NodeIdentity = Schemas["NodeIdentity"];
export type AclPolicy = Schemas["AclPolicy"];
export type AclRole = Omit<Schemas["AclRole"], "Policies"> & { Policies: AclLink[] };
export type AclTokenRecord = Omit<Schemas["AclToken"], "Policies" | "Roles"> & {
  Policies: AclLink[];
  Roles: AclLink[];
  /** Rules of the token itself: legacy tokens and tokens declared in MESH_ACL_FILE. */
  Rules?: string;
  /** A token of the legacy API (or one the legacy API lists: the anonymous and initial management tokens). */
  Legacy?: boolean;
  /** The management token: every permission. */
  Management?: boolean;
};

type Indexed = { CreateIndex: number; ModifyIndex: number };

interface Durable<T> {
  dir: DataDirectory;
  rows: DurableTable<T>;
  counters: DurableTable<number>;
}

/** The key a write of a table is announced with: its name, as the real state store names its tables. */
export type AclTableName = "acl-policies" | "acl-roles" | "acl-tokens";

class Table<T extends Indexed> {
  private readonly rows = new Map<string, T>();
  /** The index of the table's newest write or delete (memdb's table index), what its reads answer with. */
  private tableIndex = 0;
  /** Ids by a second key (a token's secret), when the table has one: every request finds its token in one lookup. */
  private readonly ids = new Map<string, string>();
  constructor(
    private readonly name: AclTableName,
    private readonly index: { current: number },
    private readonly changed: (table: AclTableName) => void,
    private readonly durable?: Durable<T>,
    private readonly secondKey?: (row: T) => string,
  ) {
    for (const [id, row] of durable?.rows.entries() ?? []) this.keep(id, row);
    // Kept with the rows, so a delete still counts after a restart; older directories start from their rows.
    this.tableIndex = durable?.counters.get(name) ?? Math.max(0, ...this.all().map((row) => row.ModifyIndex));
  }
  /** The index of the table's newest write or delete. */
  currentIndex(): number {
    return this.tableIndex;
  }
  get(id: string): T | undefined {
    return this.rows.get(id);
  }
  /** The row whose second key is `key`. */
  getBy(key: string): T | undefined {
    const id = this.ids.get(key);
    return id === undefined ? undefined : this.rows.get(id);
  }
  all(): T[] {
    return [...this.rows.values()];
  }
  put(id: string, row: Omit<T, keyof Indexed>): T {
    const index = this.index.current + 1;
    const stored = { ...row, CreateIndex: this.rows.get(id)?.CreateIndex ?? index, ModifyIndex: index } as T;
    this.commit(index, (d) => d.rows.put(id, stored));
    this.forgetSecondKey(id);
    this.keep(id, stored);
    return stored;
  }
  delete(id: string): boolean {
    if (!this.rows.has(id)) return false;
    this.commit(this.index.current + 1, (d) => d.rows.delete(id));
    this.forgetSecondKey(id);
    return this.rows.delete(id);
  }
  private keep(id: string, row: T): void {
    this.rows.set(id, row);
    if (this.secondKey) this.ids.set(this.secondKey(row), id);
  }
  private forgetSecondKey(id: string): void {
    const row = this.rows.get(id);
    if (row !== undefined && this.secondKey && this.ids.get(this.secondKey(row)) === id) this.ids.delete(this.secondKey(row));
  }
  /** Writes the change and the new index in one transaction, then moves the index. */
  private commit(index: number, change: (durable: Durable<T>) => void): void {
    const durable = this.durable;
    if (durable) {
      durable.dir.transaction(() => {
        change(durable);
        durable.counters.put("index", index);
        durable.counters.put(this.name, index);
      });
    }
    this.index.current = index;
    this.tableIndex = index;
    this.changed(this.name);
  }
}

export class MemoryAclStore {
  private readonly index: { current: number };
  readonly policies: Table<AclPolicy>;
  readonly roles: Table<AclRole>;
  readonly tokens: Table<AclTokenRecord>;

  /** With `dir`, starts from what the directory holds and commits every write to it. */
  constructor(dir?: DataDirectory) {
    const counters = dir?.table<number>("acl_counters");
    this.index = { current: counters?.get("index") ?? 0 };
    const durable = <T>(name: string): Durable<T> | undefined =>
      dir && counters ? { dir, rows: dir.table<T>(name), counters } : undefined;
    const changed = (table: AclTableName) => {
      for (const listener of [...this.listeners]) listener(table);
    };
    this.policies = new Table<AclPolicy>("acl-policies", this.index, changed, durable("acl_policies"));
    this.roles = new Table<AclRole>("acl-roles", this.index, changed, durable("acl_roles"));
    this.tokens = new Table<AclTokenRecord>("acl-tokens", this.index, changed, durable("acl_tokens"), (token) => token.SecretID);
  }

  private readonly listeners = new Set<(table: string) => void>();

  /** Calls the listener with the table of every write and delete (what blocking reads wait for); returns the unsubscribe function. */
  subscribe(listener: (table: string) => void): () => void {
    const own = (table: string) => listener(table);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  /** The index of the newest write of a policy, role or token. */
  currentIndex(): number {
    return this.index.current;
  }
}
