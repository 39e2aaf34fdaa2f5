// Storage of the organization platform's records: the interface the service uses, and the in-memory
// store the reference server runs on. Writes replace whole records; the service validates a change
// completely before it writes, so a refused request leaves the store as it was.
import type { ApiToken, Membership, OAuthClient, OAuthToken, Organization, Project, Team, User } from "../domain/model.ts";
import type { WorldState } from "../domain/world.ts";

export interface OrgPlatformStore {
  organization(name: string): Organization | undefined;
  organizations(): Organization[];
  user(id: string): User | undefined;
  users(): User[];
  /** Memberships of an organization, invited ones included. */
  memberships(organization: string): readonly Membership[];
  /** The active memberships of an organization, by user id. */
  activeMemberships(organization: string): ReadonlyMap<string, Membership>;
  membership(id: string): Membership | undefined;
  projects(organization: string): Project[];
  project(id: string): Project | undefined;

  team(id: string): Team | undefined;
  /** Teams of an organization in creation order. */
  teams(organization: string): readonly Team[];
  saveTeam(team: Team): void;
  /** Deletes the team and its team tokens. */
  deleteTeam(id: string): void;

  oauthClient(id: string): OAuthClient | undefined;
  /** OAuth clients of an organization in creation order. */
  oauthClients(organization: string): OAuthClient[];
  saveOAuthClient(client: OAuthClient): void;
  /** Deletes the client and its OAuth tokens. */
  deleteOAuthClient(id: string): void;
  oauthTokens(oauthClientId: string): OAuthToken[];
  oauthToken(id: string): OAuthToken | undefined;
  saveOAuthToken(token: OAuthToken): void;

  apiToken(secret: string): ApiToken | undefined;
  apiTokens(): ApiToken[];

  /** Runs `work` so that all of its writes are kept, or none (one request's writes). */
  transaction<R>(work: () => R): R;
  /** Moves with every write. */
  version(): number;
}

export class MemoryOrgPlatformStore implements OrgPlatformStore {
  private readonly orgs = new Map<string, Organization>();
  private readonly usersById = new Map<string, User>();
  private membershipList: Membership[] = [];
  // Per organization, built on first read: every request reads its organization's memberships
  // and teams (the caller's role), and lists read them whole. Memberships change only with the
  // world; an organization's team list is dropped when one of its teams is written.
  private readonly membershipsByOrganization = new Map<string, { all: readonly Membership[]; active: ReadonlyMap<string, Membership> }>();
  private readonly teamLists = new Map<string, readonly Team[]>();
  private readonly projectsById = new Map<string, Project>();
  // Maps keep insertion order: lists come out in creation order.
  private readonly teamsById = new Map<string, Team>();
  private readonly clientsById = new Map<string, OAuthClient>();
  private readonly tokensById = new Map<string, OAuthToken>();
  private readonly apiTokensBySecret = new Map<string, ApiToken>();
  private writes = 0;

  constructor(world: WorldState) {
    this.reset(world);
  }

  /** Replaces everything with a world (tests start each case from the same state this way). */
  reset(world: WorldState): void {
    this.writes++;
    for (const map of [this.orgs, this.usersById, this.projectsById, this.teamsById, this.clientsById, this.tokensById, this.apiTokensBySecret]) map.clear();
    this.membershipsByOrganization.clear();
    this.teamLists.clear();
    for (const o of world.organizations) this.orgs.set(o.name, o);
    for (const u of world.users) this.usersById.set(u.id, u);
    this.membershipList = [...world.memberships];
    for (const p of world.projects) this.projectsById.set(p.id, p);
    for (const t of world.teams) this.teamsById.set(t.id, t);
    for (const c of world.oauthClients) this.clientsById.set(c.id, c);
    for (const t of world.oauthTokens) this.tokensById.set(t.id, t);
    for (const t of world.apiTokens) this.apiTokensBySecret.set(t.secret, t);
  }

  organization(name: string) {
    return this.orgs.get(name);
  }
  organizations() {
    return [...this.orgs.values()];
  }
  user(id: string) {
    return this.usersById.get(id);
  }
  users() {
    return [...this.usersById.values()];
  }
  memberships(organization: string) {
    return this.membershipsOf(organization).all;
  }
  activeMemberships(organization: string) {
    return this.membershipsOf(organization).active;
  }
  private membershipsOf(organization: string) {
    let found = this.membershipsByOrganization.get(organization);
    if (!found) {
      const all = this.membershipList.filter((m) => m.organization === organization);
      found = { all, active: new Map(all.filter((m) => m.status === "active").map((m) => [m.userId, m])) };
      this.membershipsByOrganization.set(organization, found);
    }
    return found;
  }
  membership(id: string) {
    return this.membershipList.find((m) => m.id === id);
  }
  projects(organization: string) {
    return [...this.projectsById.values()].filter((p) => p.organization === organization);
  }
  project(id: string) {
    return this.projectsById.get(id);
  }

  team(id: string) {
    return this.teamsById.get(id);
  }
  teams(organization: string) {
    let list = this.teamLists.get(organization);
    if (!list) {
      list = [...this.teamsById.values()].filter((t) => t.organization === organization);
      this.teamLists.set(organization, list);
    }
    return list;
  }
  saveTeam(team: Team) {
    this.writes++;
    const before = this.teamsById.get(team.id);
    if (before) this.teamLists.delete(before.organization);
    this.teamLists.delete(team.organization);
    this.teamsById.set(team.id, team);
  }
  deleteTeam(id: string) {
    this.writes++;
    const team = this.teamsById.get(id);
    if (team) this.teamLists.delete(team.organization);
    this.teamsById.delete(id);
    for (const [secret, token] of this.apiTokensBySecret) {
      if (token.kind === "team" && token.teamId === id) this.apiTokensBySecret.delete(secret);
    }
  }

  oauthClient(id: string) {
    return this.clientsById.get(id);
  }
  oauthClients(organization: string) {
    return [...this.clientsById.values()].filter((c) => c.organization === organization);
  }
  saveOAuthClient(client: OAuthClient) {
    this.writes++;
    this.clientsById.set(client.id, client);
  }
  deleteOAuthClient(id: string) {
    this.writes++;
    this.clientsById.delete(id);
    for (const [tokenId, token] of this.tokensById) {
      if (token.oauthClientId === id) this.tokensById.delete(tokenId);
    }
  }
  oauthTokens(oauthClientId: string) {
    return [...this.tokensById.values()].filter((t) => t.oauthClientId === oauthClientId);
  }
  oauthToken(id: string) {
    return this.tokensById.get(id);
  }
  saveOAuthToken(token: OAuthToken) {
    this.writes++;
    this.tokensById.set(token.id, token);
  }
  /** In memory every write of a request is made after all of its checks: nothing to undo. */
  transaction<R>(work: () => R): R {
    return work();
  }
  version(): number {
    return this.writes;
  }

  apiToken(secret: string) {
    return this.apiTokensBySecret.get(secret);
  }
  apiTokens() {
    return [...this.apiTokensBySecret.values()];
  }
}
