// The org platform's state kept in a data directory (ORG_PLATFORM_DATA_DIR), on the shared SQLite
// layer (server/shared/data-dir.ts). Reads come from an in-memory copy; every write goes to the
// database first, in one transaction per request, and is on disk (synchronous=FULL) before the answer
// is sent. An empty directory is seeded from the world; a directory with data ignores the world.
import { DataDirectory, DataDirectoryError, type DurableTable } from "../../shared/data-dir.ts";
import type { ApiToken, Membership, OAuthClient, OAuthToken, Organization, Project, Team, User } from "../domain/model.ts";
import type { WorldState } from "../domain/world.ts";
import { MemoryOrgPlatformStore, type OrgPlatformStore } from "./store.ts";

export const SERVICE_NAME = "org-platform";

/** A record and its place in creation order (lists come out in creation order). */
interface Stored<T> {
  seq: number;
  record: T;
}

type Kind = keyof WorldState;
const KINDS: readonly Kind[] = ["organizations", "users", "memberships", "projects", "teams", "oauthClients", "oauthTokens", "apiTokens"];
const TABLE_NAMES: Record<Kind, string> = {
  organizations: "organizations",
  users: "users",
  memberships: "memberships",
  projects: "projects",
  teams: "teams",
  oauthClients: "oauth_clients",
  oauthTokens: "oauth_tokens",
  apiTokens: "api_tokens",
};

function keyOf(kind: Kind, record: WorldState[Kind][number]): string {
  if (kind === "organizations") return (record as Organization).name;
  if (kind === "apiTokens") return (record as ApiToken).secret;
  return (record as { id: string }).id;
}

export class DurableOrgPlatformStore implements OrgPlatformStore {
  private readonly tables: { [K in Kind]: DurableTable<Stored<WorldState[K][number]>> };
  private readonly memory: MemoryOrgPlatformStore;
  private seq = 0;
  /** Positions of the records kept, so that a rewrite keeps a record's place in creation order. */
  private readonly seqOf = new Map<string, number>();
  /**
   * Changes to the copy in memory, held while a transaction runs and made only once it has been
   * committed: a write the disk refuses (full, read-only, locked) leaves memory as it was, even when
   * the refusal comes at the commit of an outer transaction.
   */
  private pending: Array<() => void> | undefined;

  constructor(
    private readonly dir: DataDirectory,
    seed: () => WorldState,
  ) {
    this.tables = Object.fromEntries(KINDS.map((kind) => [kind, dir.table(TABLE_NAMES[kind])])) as typeof this.tables;
    const marker = dir.table<boolean>("org_platform_meta");
    if (!marker.get("seeded")) {
      const world = seed();
      dir.transaction(() => {
        for (const kind of KINDS) for (const record of world[kind]) this.put(kind, record);
        marker.put("seeded", true);
      });
    }
    this.memory = new MemoryOrgPlatformStore(this.load());
  }

  /** Everything in the database, each kind in creation order. */
  private load(): WorldState {
    const world = {} as Record<Kind, unknown[]>;
    for (const kind of KINDS) {
      const rows = this.tables[kind].entries().map(([key, value]) => ({ key, ...(value as Stored<unknown>) }));
      rows.sort((a, b) => a.seq - b.seq);
      for (const row of rows) {
        this.seqOf.set(`${kind}/${row.key}`, row.seq);
        this.seq = Math.max(this.seq, row.seq);
      }
      world[kind] = rows.map((row) => row.record);
    }
    return world as unknown as WorldState;
  }

  private put<K extends Kind>(kind: K, record: WorldState[K][number]): void {
    const key = keyOf(kind, record);
    const id = `${kind}/${key}`;
    let seq = this.seqOf.get(id);
    if (seq === undefined) {
      seq = ++this.seq;
      this.seqOf.set(id, seq);
    }
    (this.tables[kind] as DurableTable<Stored<unknown>>).put(key, { seq, record });
  }

  private remove(kind: Kind, key: string): void {
    this.tables[kind].delete(key);
    this.afterCommit(() => this.seqOf.delete(`${kind}/${key}`));
  }

  /** Runs `change` once the outermost transaction has been committed (at once outside any). */
  private afterCommit(change: () => void): void {
    if (this.pending) this.pending.push(change);
    else change();
  }

  transaction<R>(work: () => R): R {
    if (this.pending) return this.dir.transaction(work);
    const pending: Array<() => void> = (this.pending = []);
    let result: R;
    try {
      result = this.dir.transaction(work);
    } finally {
      this.pending = undefined;
    }
    for (const change of pending) change();
    return result;
  }
  version(): number {
    return this.memory.version();
  }

  organization(name: string) {
    return this.memory.organization(name);
  }
  organizations() {
    return this.memory.organizations();
  }
  user(id: string) {
    return this.memory.user(id);
  }
  memberships(organization: string): readonly Membership[] {
    return this.memory.memberships(organization);
  }
  activeMemberships(organization: string): ReadonlyMap<string, Membership> {
    return this.memory.activeMemberships(organization);
  }
  membership(id: string) {
    return this.memory.membership(id);
  }
  projects(organization: string): Project[] {
    return this.memory.projects(organization);
  }
  project(id: string) {
    return this.memory.project(id);
  }
  team(id: string) {
    return this.memory.team(id);
  }
  teams(organization: string): readonly Team[] {
    return this.memory.teams(organization);
  }
  oauthClient(id: string) {
    return this.memory.oauthClient(id);
  }
  oauthClients(organization: string): OAuthClient[] {
    return this.memory.oauthClients(organization);
  }
  oauthTokens(oauthClientId: string): OAuthToken[] {
    return this.memory.oauthTokens(oauthClientId);
  }
  oauthToken(id: string) {
    return this.memory.oauthToken(id);
  }
  apiToken(secret: string) {
    return this.memory.apiToken(secret);
  }
  apiTokens(): ApiToken[] {
    return this.memory.apiTokens();
  }
  users(): User[] {
    return this.memory.users();
  }

  // Writes: the database first (a failed write leaves memory as it was), then the copy in memory.
  saveTeam(team: Team): void {
    this.transaction(() => {
      this.put("teams", team);
      this.afterCommit(() => this.memory.saveTeam(team));
    });
  }
  deleteTeam(id: string): void {
    this.transaction(() => {
      this.remove("teams", id);
      for (const token of this.memory.apiTokens()) {
        if (token.kind === "team" && token.teamId === id) this.remove("apiTokens", token.secret);
      }
      this.afterCommit(() => this.memory.deleteTeam(id));
    });
  }
  saveOAuthClient(client: OAuthClient): void {
    this.transaction(() => {
      this.put("oauthClients", client);
      this.afterCommit(() => this.memory.saveOAuthClient(client));
    });
  }
  deleteOAuthClient(id: string): void {
    this.transaction(() => {
      this.remove("oauthClients", id);
      for (const token of this.memory.oauthTokens(id)) this.remove("oauthTokens", token.id);
      this.afterCommit(() => this.memory.deleteOAuthClient(id));
    });
  }
  saveOAuthToken(token: OAuthToken): void {
    this.transaction(() => {
      this.put("oauthTokens", token);
      this.afterCommit(() => this.memory.saveOAuthToken(token));
    });
  }
}

/**
 * Opens the data directory (created mode 700 when missing) and the store on it. A directory of another
 * service, with foreign files or a damaged database throws DataDirectoryError naming the directory.
 */
export function openDurableStore(path: string, seed: () => WorldState): { store: DurableOrgPlatformStore; created: boolean; close(): void } {
  const dir = DataDirectory.open(path, SERVICE_NAME);
  try {
    const store = new DurableOrgPlatformStore(dir, seed);
    return { store, created: dir.created, close: () => dir.close() };
  } catch (error) {
    dir.close();
    if (error instanceof DataDirectoryError) throw error;
    throw new DataDirectoryError(`data directory ${path}: its ${SERVICE_NAME} data cannot be read (${(error as Error).message})`);
  }
}
