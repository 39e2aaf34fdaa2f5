// Storage of ACL policies, roles and tokens, by id, with creation/modification indexes.
export interface AclLink {
  ID: string;
  Name: string;
}

export interface AclPolicy {
  ID: string;
  Name: string;
  Description: string;
  /** The rules as written (HCL or JSON). */
  Rules: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export interface AclRole {
  ID: string;
  Name: string;
  Description: string;
  Policies: AclLink[];
  CreateIndex: number;
  ModifyIndex: number;
}

export interface AclTokenRecord {
  AccessorID: string;
  SecretID: string;
  Description: string;
  Policies: AclLink[];
  Roles: AclLink[];
  Local: boolean;
  Namespace: string;
  CreateTime: string;
  ExpirationTime?: string;
  /** Rules of the token itself (tokens declared in MESH_ACL_FILE). */
  Rules?: string;
  /** The management token: every permission. */
  Management?: boolean;
  CreateIndex: number;
  ModifyIndex: number;
}

type Indexed = { CreateIndex: number; ModifyIndex: number };

class Table<T extends Indexed> {
  private readonly rows = new Map<string, T>();
  constructor(private readonly nextIndex: () => number) {}
  get(id: string): T | undefined {
    return this.rows.get(id);
  }
  all(): T[] {
    return [...this.rows.values()];
  }
  put(id: string, row: Omit<T, keyof Indexed>): T {
    const index = this.nextIndex();
    const stored = { ...row, CreateIndex: this.rows.get(id)?.CreateIndex ?? index, ModifyIndex: index } as T;
    this.rows.set(id, stored);
    return stored;
  }
  delete(id: string): boolean {
    return this.rows.delete(id);
  }
}

export class MemoryAclStore {
  private index = 0;
  private readonly next = () => ++this.index;
  readonly policies = new Table<AclPolicy>(this.next);
  readonly roles = new Table<AclRole>(this.next);
  readonly tokens = new Table<AclTokenRecord>(this.next);
}
