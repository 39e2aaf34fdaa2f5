// The organization platform: authentication, access rules, OAuth clients and teams over a store. No
// express here: handlers translate HTTP to these calls, and ApiError back to JSON:API errors.
import type { components, operations } from "../../generated/org-platform/schema.ts";
import { canManageTeams, canManageVcsSettings, canSeeTeam, roleIn, type Caller, type Role } from "./domain/access.ts";
import { allAccess } from "./domain/model.ts";
import { BoundedCache } from "../shared/bounded-cache.ts";
import { unchanging } from "../shared/json-text.ts";
import { notFound, unauthorized } from "./domain/errors.ts";
import { newId, newUuid, now } from "./domain/ids.ts";
import type { Membership, OAuthClient, Organization, Project, Team, User } from "./domain/model.ts";
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
import {
  renderMembership,
  renderOAuthClient,
  renderOAuthToken,
  renderOrganization,
  renderProject,
  renderTeam,
  renderUser,
  type TeamResource,
} from "./domain/render.ts";
import { changedTeam, checkDeletable, hasTeamManagement, newTeam, type TeamCreateInput, type TeamInput } from "./domain/teams.ts";
import type { OrgPlatformStore } from "./store/store.ts";

type Schemas = components["schemas"];
type Parameters = components["parameters"];
/** The related resources an `include` may name, per kind of resource. */
export type OAuthClientInclude = Parameters["OAuthClientInclude"][number];
export type TeamInclude = Parameters["TeamInclude"][number];
export type MembershipInclude = Parameters["OrganizationMembershipInclude"][number];

export interface ListOptions<I> {
  /** Absent: not paginated (only list OAuth clients allows it). */
  page?: Page;
  include: I[];
  location: ListLocation;
}

export class OrgPlatformService {
  /** Teams by name per organization, at one state version (teamsByName). */
  private nameOrder = new PerStateVersion(() => this.store.version(), () => new Map<string, readonly Team[]>());
  /**
   * Callers' roles at one state version, by caller and organization (null: none there). Every request
   * asks twice (authorized, then acted on), and a member's role looks through the organization's
   * memberships and teams.
   */
  private roles = new PerStateVersion(() => this.store.version(), newRoleCache);
  /**
   * Team resources as rendered at one state version, by the caller's role (kept per version too:
   * roleOf) and team. Kept unchanging, so that the writer keeps their JSON text too: a page of teams
   * is mostly these.
   */
  private renderedTeams = new PerStateVersion(
    () => this.store.version(),
    (): RenderedTeams => ({ units: 0, byRole: new Map() }),
    (kept) => kept.units >= MAX_RENDERED_UNITS,
  );

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
    const role = organization && this.roleOf(caller, organization.name);
    if (!organization || !role) throw notFound();
    return { organization, role };
  }

  /** The caller's role in an organization (undefined: none), worked out once per state version. */
  private roleOf(caller: Caller, organization: string): Role | undefined {
    const roles = this.roles.current;
    const key = `${callerKey(caller)}\n${organization}`;
    const known = roles.get(key);
    if (known !== undefined) return known ?? undefined;
    const role = roleIn(caller, organization, this.store.memberships(organization), this.store.teams(organization));
    roles.set(key, role ?? null);
    return role;
  }

  /**
   * Resolves what an operation acts on and refuses a caller who may not act on it (the 404 of the
   * endpoint), from the path alone: it runs before the request's query and body are looked at, so a
   * caller who may not act never learns whether its input was valid. The handler checks again, on
   * the same state, as it acts.
   */
  authorize(caller: Caller, operationId: keyof operations, params: Readonly<Record<string, string>>): void {
    switch (operationId) {
      case "listOAuthClients":
      case "listTeams":
        this.access(caller, params.organization_name ?? "");
        return;
      case "createOAuthClient":
        if (!canManageVcsSettings(this.access(caller, params.organization_name ?? "").role)) throw notFound();
        return;
      case "createTeam": {
        const { organization, role } = this.access(caller, params.organization_name ?? "");
        if (!canManageTeams(role) || !hasTeamManagement(organization)) throw notFound();
        return;
      }
      case "readOAuthClient":
      case "updateOAuthClient":
      case "deleteOAuthClient":
      case "attachOAuthClientProjects":
      case "detachOAuthClientProjects":
        this.clientFor(caller, params.oauth_client_id ?? "", operationId !== "readOAuthClient");
        return;
      case "readTeam":
      case "updateTeam":
      case "deleteTeam":
        this.teamFor(caller, params.team_id ?? "", operationId !== "readTeam");
        return;
    }
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
      this.store.oauthClients(organization.name).length,
    );
    this.store.transaction(() => {
      this.store.saveOAuthClient(client);
      this.store.saveOAuthToken(token);
    });
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
            return project && project.organization === client.organization ? renderProject(project) : undefined;
          });
        }
      }
    }
    return { included };
  }

  // ---- Related resources: what relationships and links point to, read-only. Each is readable by
  // exactly the callers who could see it in `included`, so that neither path shows more.

  readOrganization(caller: Caller, name: string): Schemas["OrganizationDocument"] {
    const { organization } = this.access(caller, name);
    return { data: renderOrganization(organization) };
  }

  readOAuthToken(caller: Caller, id: string): Schemas["OAuthTokenDocument"] {
    const token = this.store.oauthToken(id);
    const client = token && this.store.oauthClient(token.oauthClientId);
    if (!token || !client) throw notFound();
    this.access(caller, client.organization);
    return { data: renderOAuthToken(token) };
  }

  readProject(caller: Caller, id: string): Schemas["ProjectDocument"] {
    const project: Project | undefined = this.store.project(id);
    if (!project) throw notFound();
    this.access(caller, project.organization);
    return { data: renderProject(project) };
  }

  /** A user is visible to itself and to whoever has a role in an organization the user is an active member of. */
  readUser(caller: Caller, id: string): Schemas["UserDocument"] {
    const user = this.store.user(id);
    if (!user) throw notFound();
    if (caller.kind === "user" && caller.user.id === user.id) {
      return { data: renderUser(user, { organization: "", owner: false, teamIds: new Set(), access: allAccess(false), userId: user.id }) };
    }
    for (const organization of this.store.organizations()) {
      const member = this.store.memberships(organization.name).some((m) => m.userId === user.id && m.status === "active");
      const role = member && this.roleOf(caller, organization.name);
      if (role) return { data: renderUser(user, role) };
    }
    throw notFound();
  }

  /** Active memberships are visible to the organization's members; invited ones only to owners. */
  readMembership(caller: Caller, id: string, include: MembershipInclude[]): Schemas["OrganizationMembershipDocument"] {
    const membership = this.store.membership(id);
    const user = membership && this.store.user(membership.userId);
    if (!membership || !user) throw notFound();
    const { organization, role } = this.access(caller, membership.organization);
    if (membership.status !== "active" && !role.owner) throw notFound();
    const data = this.renderMembership(membership, user, organization, role);
    if (include.length === 0) return { data };
    // Exactly what data links to: the user, and the teams its relationships name (those the caller may see).
    const included: Schemas["OrganizationMembershipIncluded"][] = [];
    if (include.includes("user")) included.push(renderUser(user, role));
    if (include.includes("teams")) {
      for (const { id: teamId } of data.relationships.teams.data) {
        const team = this.store.team(teamId);
        if (team) included.push(this.renderTeam(team, organization, role));
      }
    }
    return { data, included };
  }

  /** teams: the user's teams that the caller may see. */
  private renderMembership(membership: Membership, user: User, organization: Organization, role: Role) {
    const teams = this.store.teams(organization.name).filter((t) => canSeeTeam(role, t) && t.userIds.includes(user.id));
    return renderMembership(membership, user, teams);
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
    const teams = this.teamsByName(organization.name).filter(
      (t) => canSeeTeam(role, t) && (q === undefined || t.name.toLowerCase().includes(q)) && (filters.names === undefined || filters.names.includes(t.name)),
    );
    const { items, meta, links } = paginate(teams, options.page, options.location);
    return {
      data: items.map((t) => this.renderTeam(t, organization, role)),
      ...this.teamIncluded(items, organization, role, options.include),
      meta: { pagination: meta },
      links,
    };
  }

  /** An organization's teams in name order; sorted again only after a write (lists are read far more often). */
  private teamsByName(organization: string): readonly Team[] {
    const byOrganization = this.nameOrder.current;
    let sorted = byOrganization.get(organization);
    if (!sorted) {
      sorted = sortByName(this.store.teams(organization));
      byOrganization.set(organization, sorted);
    }
    return sorted;
  }

  readTeam(caller: Caller, id: string, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { team, organization, role } = this.teamFor(caller, id, false);
    return { data: this.renderTeam(team, organization, role), ...this.teamIncluded([team], organization, role, include) };
  }

  createTeam(caller: Caller, organizationName: string, input: TeamCreateInput, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { organization, role } = this.access(caller, organizationName);
    if (!canManageTeams(role) || !hasTeamManagement(organization)) throw notFound();
    const team = newTeam(organization, input, this.store.teams(organization.name), newId("team"), now());
    this.store.saveTeam(team);
    return { data: this.teamResource(team, organization, role), ...this.teamIncluded([team], organization, role, include) };
  }

  updateTeam(caller: Caller, id: string, input: TeamInput, include: TeamInclude[]): Schemas["TeamDocument"] {
    const { team, organization, role } = this.teamFor(caller, id, true);
    const changed = changedTeam(team, organization, input, this.store.teams(organization.name));
    this.store.saveTeam(changed);
    return { data: this.teamResource(changed, organization, role), ...this.teamIncluded([changed], organization, role, include) };
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

  /** Team members whose membership is active, in the team's order, with those memberships. */
  private activeMembers(team: Team): { user: User; membership: Membership }[] {
    const active = this.store.activeMemberships(team.organization);
    return team.userIds.flatMap((id) => {
      const membership = active.get(id);
      const user = membership && this.store.user(id);
      return user && membership ? [{ user, membership }] : [];
    });
  }

  /**
   * A team as read (team: as stored at the current state version): kept for the version, unchanging.
   * A write renders its team with teamResource: nothing kept, as the next write moves the version.
   */
  private renderTeam(team: Team, organization: Organization, role: Role): TeamResource {
    const kept = this.renderedTeams.current;
    let byTeam = kept.byRole.get(role);
    if (!byTeam) kept.byRole.set(role, (byTeam = new Map()));
    let rendered = byTeam.get(team);
    if (!rendered) {
      rendered = unchanging(this.teamResource(team, organization, role));
      byTeam.set(team, rendered);
      kept.units += renderedUnits(rendered);
    }
    return rendered;
  }

  private teamResource(team: Team, organization: Organization, role: Role): TeamResource {
    const members = this.activeMembers(team);
    return renderTeam(team, organization, role, members.map((m) => m.user), members.map((m) => m.membership));
  }

  private teamIncluded(teams: Team[], organization: Organization, role: Role, include: TeamInclude[]): { included?: Schemas["TeamIncluded"][] } {
    if (include.length === 0) return {};
    // Only the members of the teams in data: every included resource is linked from primary data.
    const members = new Map<string, { user: User; membership: Membership }>();
    for (const team of teams) for (const member of this.activeMembers(team)) members.set(member.user.id, member);
    const included: Schemas["TeamIncluded"][] = [];
    if (include.includes("users")) {
      for (const { user } of members.values()) included.push(renderUser(user, role));
    }
    if (include.includes("organization-memberships")) {
      for (const { user, membership } of members.values()) included.push(this.renderMembership(membership, user, organization, role));
    }
    return { included };
  }
}

/** Teams in name order: case-insensitive, then byte order for names that differ only in case. */
function sortByName(teams: readonly Team[]): readonly Team[] {
  const keyed = teams.map((team) => ({ team, lower: team.name.toLowerCase() }));
  keyed.sort((a, b) => compareStrings(a.lower, b.lower) || compareStrings(a.team.name, b.team.name));
  return keyed.map(({ team }) => team);
}

const compareStrings = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** Who a caller is, as a key: its kind and the id the store knows it by. */
function callerKey(caller: Caller): string {
  switch (caller.kind) {
    case "user":
      return `user:${caller.user.id}`;
    case "team":
      return `team:${caller.team.id}`;
    case "organization":
      return `organization:${caller.organization}`;
  }
}

/** Roles kept: as many as callers and organizations ask, up to 10,000 keys of 1 MB in all. */
function newRoleCache(): BoundedCache<Role | null> {
  return new BoundedCache(10_000, 1_000_000);
}

/**
 * What is worked out from the state and kept until the state version moves (any write moves it), or
 * until `full` says the kept value holds enough: then it is made anew.
 */
class PerStateVersion<T> {
  #version = -1;
  #value: T | undefined;

  constructor(
    private readonly version: () => number,
    private readonly make: () => T,
    private readonly full: (value: T) => boolean = () => false,
  ) {}

  /** The value kept for the state as it is now. */
  get current(): T {
    const version = this.version();
    if (this.#value === undefined || version !== this.#version || this.full(this.#value)) {
      this.#version = version;
      this.#value = this.make();
    }
    return this.#value;
  }
}

interface RenderedTeams {
  /** What the kept teams hold, in renderedUnits. */
  units: number;
  byRole: Map<Role, Map<Team, TeamResource>>;
}

/**
 * What a rendered team holds, in units of about 100 bytes (and as much again for its JSON text):
 * the team (its attributes, some ten units) and two references per member.
 */
function renderedUnits(team: TeamResource): number {
  return 10 + 2 * team.relationships.users.data.length;
}

/** Units of rendered teams kept at most (about 6 MB with their JSON texts): a few thousand teams of a few members. */
const MAX_RENDERED_UNITS = 32_768;
