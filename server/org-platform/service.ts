// The organization platform: authentication, access rules, OAuth clients and teams over a store. No
// express here: handlers translate HTTP to these calls, and ApiError back to JSON:API errors.
import type { components } from "../../generated/org-platform/schema.ts";
import { canManageTeams, canManageVcsSettings, canSeeTeam, roleIn, type Caller, type Role } from "./domain/access.ts";
import { notFound, unauthorized } from "./domain/errors.ts";
import { newId, newUuid, now } from "./domain/ids.ts";
import type { OAuthClient, Organization, Team, User } from "./domain/model.ts";
import {
  changedOAuthClient,
  newOAuthClient,
  withProjectsAttached,
  withProjectsDetached,
  type OAuthClientCreateInput,
  type OAuthClientUpdateInput,
  type ResourceIdentifierInput,
} from "./domain/oauth-clients.ts";
import { paginate, type ListLocation, type Page } from "./domain/pagination.ts";
import { renderMembership, renderOAuthClient, renderOAuthToken, renderProject, renderTeam, renderUser } from "./domain/render.ts";
import { changedTeam, checkDeletable, hasTeamManagement, newTeam, type TeamInput } from "./domain/teams.ts";
import type { OrgPlatformStore } from "./store/store.ts";

type Schemas = components["schemas"];
export type OAuthClientInclude = "oauth_tokens" | "projects";
export type TeamInclude = "users" | "organization-memberships";

export interface ListOptions<I> {
  /** Absent: not paginated (only list OAuth clients allows it). */
  page?: Page;
  include: I[];
  location: ListLocation;
}

export class OrgPlatformService {
  constructor(readonly store: OrgPlatformStore) {}

  /** The caller a bearer token stands for; no token or an unknown one is a 401. */
  authenticate(secret: string | undefined): Caller {
    const token = secret ? this.store.apiToken(secret) : undefined;
    if (token?.kind === "user") {
      const user = this.store.user(token.userId);
      if (user) return { kind: "user", user };
    } else if (token?.kind === "team") {
      const team = this.store.team(token.teamId);
      if (team) return { kind: "team", team };
    } else if (token?.kind === "organization") {
      if (this.store.organization(token.organization)) return { kind: "organization", organization: token.organization };
    }
    throw unauthorized();
  }

  /** The organization and the caller's role in it; a 404 when either is missing. */
  private access(caller: Caller, organizationName: string): { organization: Organization; role: Role } {
    const organization = this.store.organization(organizationName);
    const role = organization && roleIn(caller, organization.name, this.store.memberships(organization.name), this.store.teams(organization.name));
    if (!organization || !role) throw notFound();
    return { organization, role };
  }

  // ---- OAuth clients

  listOAuthClients(caller: Caller, organizationName: string, options: ListOptions<OAuthClientInclude>, origin: string): Schemas["OAuthClientListDocument"] {
    const { organization } = this.access(caller, organizationName);
    const clients = this.store.oauthClients(organization.name);
    if (!options.page) {
      return { data: clients.map((c) => this.renderClient(c, organization, origin)), ...this.clientIncluded(clients, options.include) };
    }
    const { items, meta, links } = paginate(clients, options.page, options.location);
    return {
      data: items.map((c) => this.renderClient(c, organization, origin)),
      ...this.clientIncluded(items, options.include),
      meta: { pagination: meta },
      links,
    };
  }

  readOAuthClient(caller: Caller, id: string, include: OAuthClientInclude[], origin: string): Schemas["OAuthClientDocument"] {
    const { client, organization } = this.clientFor(caller, id, false);
    return { data: this.renderClient(client, organization, origin), ...this.clientIncluded([client], include) };
  }

  createOAuthClient(caller: Caller, organizationName: string, input: OAuthClientCreateInput, origin: string): Schemas["OAuthClientDocument"] {
    const { organization, role } = this.access(caller, organizationName);
    if (!canManageVcsSettings(role)) throw notFound();
    const { client, token } = newOAuthClient(
      organization,
      input,
      this.store.projects(organization.name),
      { client: newId("oc"), token: newId("ot"), uuid: newUuid() },
      now(),
    );
    this.store.saveOAuthClient(client);
    this.store.saveOAuthToken(token);
    return { data: this.renderClient(client, organization, origin) };
  }

  updateOAuthClient(caller: Caller, id: string, input: OAuthClientUpdateInput, origin: string): Schemas["OAuthClientDocument"] {
    const { client, organization } = this.clientFor(caller, id, true);
    const changed = changedOAuthClient(client, input, this.store.projects(organization.name));
    this.store.saveOAuthClient(changed);
    return { data: this.renderClient(changed, organization, origin) };
  }

  deleteOAuthClient(caller: Caller, id: string): void {
    const { client } = this.clientFor(caller, id, true);
    this.store.deleteOAuthClient(client.id);
  }

  attachOAuthClientProjects(caller: Caller, id: string, projects: ResourceIdentifierInput[]): void {
    const { client, organization } = this.clientFor(caller, id, true);
    this.store.saveOAuthClient(withProjectsAttached(client, projects, this.store.projects(organization.name)));
  }

  detachOAuthClientProjects(caller: Caller, id: string, projects: ResourceIdentifierInput[]): void {
    const { client, organization } = this.clientFor(caller, id, true);
    this.store.saveOAuthClient(withProjectsDetached(client, projects, this.store.projects(organization.name)));
  }

  /** A client the caller may read (or change, with manage); a 404 otherwise. */
  private clientFor(caller: Caller, id: string, manage: boolean): { client: OAuthClient; organization: Organization } {
    const client = this.store.oauthClient(id);
    if (!client) throw notFound();
    const { organization, role } = this.access(caller, client.organization);
    if (manage && !canManageVcsSettings(role)) throw notFound();
    return { client, organization };
  }

  private renderClient(client: OAuthClient, organization: Organization, origin: string) {
    return renderOAuthClient(client, organization, this.store.oauthTokens(client.id), origin);
  }

  private clientIncluded(clients: OAuthClient[], include: OAuthClientInclude[]): { included?: Schemas["OAuthClientIncluded"][] } {
    if (include.length === 0) return {};
    const included: Schemas["OAuthClientIncluded"][] = [];
    const seen = new Set<string>();
    const add = (key: string, make: () => Schemas["OAuthClientIncluded"] | undefined) => {
      if (seen.has(key)) return;
      seen.add(key);
      const resource = make();
      if (resource) included.push(resource);
    };
    for (const client of clients) {
      if (include.includes("oauth_tokens")) {
        for (const token of this.store.oauthTokens(client.id)) add(`ot:${token.id}`, () => renderOAuthToken(token));
      }
      if (include.includes("projects")) {
        for (const id of client.projectIds) {
          add(`prj:${id}`, () => {
            const project = this.store.project(id);
            return project && renderProject(project);
          });
        }
      }
    }
    return { included };
  }

  // ---- Teams

  listTeams(
    caller: Caller,
    organizationName: string,
    filters: { q?: string; names?: string[] },
    options: ListOptions<TeamInclude> & { page: Page },
  ): Schemas["TeamListDocument"] {
    const { organization, role } = this.access(caller, organizationName);
    const q = filters.q?.toLowerCase();
    const teams = this.store
      .teams(organization.name)
      .filter((t) => canSeeTeam(role, t))
      .filter((t) => q === undefined || t.name.toLowerCase().includes(q))
      .filter((t) => filters.names === undefined || filters.names.includes(t.name))
      .sort((a, b) => compareNames(a.name, b.name));
    const { items, meta, links } = paginate(teams, options.page, options.location);
    return {
      data: items.map((t) => this.renderTeam(t, organization, role)),
      ...this.teamIncluded(items, organization, role, options.include),
      meta: { pagination: meta },
      links,
    };
  }

  readTeam(caller: Caller, id: string, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { team, organization, role } = this.teamFor(caller, id, false);
    return { data: this.renderTeam(team, organization, role), ...this.teamIncluded([team], organization, role, include) };
  }

  createTeam(caller: Caller, organizationName: string, input: TeamInput, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { organization, role } = this.access(caller, organizationName);
    if (!canManageTeams(role) || !hasTeamManagement(organization)) throw notFound();
    const team = newTeam(organization, input, this.store.teams(organization.name), newId("team"), now());
    this.store.saveTeam(team);
    return { data: this.renderTeam(team, organization, role), ...this.teamIncluded([team], organization, role, include) };
  }

  updateTeam(caller: Caller, id: string, input: TeamInput, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { team, organization, role } = this.teamFor(caller, id, true);
    const changed = changedTeam(team, organization, input, this.store.teams(organization.name));
    this.store.saveTeam(changed);
    return { data: this.renderTeam(changed, organization, role), ...this.teamIncluded([changed], organization, role, include) };
  }

  deleteTeam(caller: Caller, id: string): void {
    const { team } = this.teamFor(caller, id, true);
    checkDeletable(team);
    this.store.deleteTeam(team.id);
  }

  /** A team the caller may see (or change, with manage); a 404 otherwise. */
  private teamFor(caller: Caller, id: string, manage: boolean): { team: Team; organization: Organization; role: Role } {
    const team = this.store.team(id);
    if (!team) throw notFound();
    const { organization, role } = this.access(caller, team.organization);
    if (!canSeeTeam(role, team) || (manage && !canManageTeams(role))) throw notFound();
    return { team, organization, role };
  }

  /** Team members whose membership is active, in the team's order. */
  private activeMembers(team: Team): User[] {
    const active = new Set(this.store.memberships(team.organization).filter((m) => m.status === "active").map((m) => m.userId));
    return team.userIds.filter((id) => active.has(id)).flatMap((id) => this.store.user(id) ?? []);
  }

  private renderTeam(team: Team, organization: Organization, role: Role) {
    return renderTeam(team, organization, role, this.activeMembers(team));
  }

  private teamIncluded(teams: Team[], organization: Organization, role: Role, include: TeamInclude[]): { included?: Schemas["TeamIncluded"][] } {
    if (include.length === 0) return {};
    const members = new Map<string, User>();
    for (const team of teams) for (const user of this.activeMembers(team)) members.set(user.id, user);
    const included: Schemas["TeamIncluded"][] = [];
    if (include.includes("users")) {
      for (const user of members.values()) included.push(renderUser(user, role));
    }
    if (include.includes("organization-memberships")) {
      const memberships = this.store.memberships(organization.name);
      const visibleTeams = this.store.teams(organization.name).filter((t) => canSeeTeam(role, t));
      for (const user of members.values()) {
        const membership = memberships.find((m) => m.userId === user.id);
        if (membership) {
          included.push(renderMembership(membership, user, visibleTeams.filter((t) => t.userIds.includes(user.id))));
        }
      }
    }
    return { included };
  }
}

function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
