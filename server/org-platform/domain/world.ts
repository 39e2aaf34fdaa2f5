// The world file (ORG_PLATFORM_WORLD; its JSON Schema is server/org-platform/world.schema.json) and
// the records it becomes. The schema checks shapes; this checks what a schema cannot: references,
// uniqueness, the owners team and the permission cascade.
import { newId, newUuid } from "./ids.ts";
import {
  allAccess,
  isOwnersTeam,
  OWNERS_TEAM,
  type ApiToken,
  type Membership,
  type MembershipStatus,
  type OAuthClient,
  type OAuthToken,
  type Organization,
  type OrganizationAccessKey,
  type Plan,
  type Project,
  type ServiceProvider,
  type Team,
  type User,
  type Visibility,
} from "./model.ts";
import { connectionSettings } from "./oauth-clients.ts";
import { resolveOrganizationAccess } from "./teams.ts";

export interface WorldFile {
  users: WorldUser[];
  organizations: WorldOrganization[];
}

export interface WorldUser {
  id?: string;
  username: string;
  email: string;
  "service-account"?: boolean;
  tokens?: string[];
}

export interface WorldOrganization {
  name: string;
  "external-id"?: string;
  email: string;
  "created-at"?: string;
  plan: Plan;
  "self-hosted-release"?: string;
  token?: string;
  members?: { id?: string; user: string; status?: MembershipStatus; "created-at"?: string }[];
  projects?: { id?: string; name: string; description?: string | null; "created-at"?: string }[];
  teams?: WorldTeam[];
  "oauth-clients"?: WorldOAuthClient[];
}

export interface WorldTeam {
  id?: string;
  name: string;
  visibility?: Visibility;
  "sso-team-id"?: string | null;
  "organization-access"?: Partial<Record<OrganizationAccessKey, boolean>>;
  members?: string[];
  token?: string;
  "created-at"?: string;
}

export interface WorldOAuthClient {
  id?: string;
  uuid?: string;
  "service-provider": ServiceProvider;
  name?: string | null;
  "http-url": string;
  "api-url": string;
  key?: string | null;
  secret?: string;
  "rsa-public-key"?: string | null;
  "private-key"?: string;
  "organization-scoped"?: boolean;
  projects?: string[];
  "oauth-tokens"?: { id?: string; "service-provider-user"?: string | null; "created-at"?: string }[];
  "created-at"?: string;
}

/** Everything the server keeps, as loaded from a world. */
export interface WorldState {
  organizations: Organization[];
  users: User[];
  memberships: Membership[];
  projects: Project[];
  teams: Team[];
  oauthClients: OAuthClient[];
  oauthTokens: OAuthToken[];
  apiTokens: ApiToken[];
}

export class WorldError extends Error {
  override name = "WorldError";
}

/** Turns a world file (already valid against the JSON Schema) into records; `at` is when it loads. */
export function loadWorld(file: WorldFile, at: string = new Date().toISOString()): WorldState {
  const state: WorldState = { organizations: [], users: [], memberships: [], projects: [], teams: [], oauthClients: [], oauthTokens: [], apiTokens: [] };
  const ids = new Set<string>();
  const unique = (id: string, where: string) => {
    if (ids.has(id)) throw new WorldError(`${where}: id ${id} is used twice`);
    ids.add(id);
    return id;
  };
  const secrets = new Set<string>();
  const addToken = (token: ApiToken, where: string) => {
    if (secrets.has(token.secret)) throw new WorldError(`${where}: the token is used twice`);
    secrets.add(token.secret);
    state.apiTokens.push(token);
  };

  const usersByName = new Map<string, User>();
  file.users.forEach((u, i) => {
    const where = `users[${i}] (${u.username})`;
    if (usersByName.has(u.username)) throw new WorldError(`${where}: username is used twice`);
    const user: User = { id: unique(u.id ?? newId("user"), where), username: u.username, email: u.email, isServiceAccount: u["service-account"] ?? false };
    usersByName.set(u.username, user);
    state.users.push(user);
    for (const secret of u.tokens ?? []) addToken({ secret, kind: "user", userId: user.id }, where);
  });

  const orgNames = new Set<string>();
  file.organizations.forEach((o, i) => {
    const where = `organizations[${i}] (${o.name})`;
    if (orgNames.has(o.name)) throw new WorldError(`${where}: name is used twice`);
    orgNames.add(o.name);
    const organization: Organization = {
      name: o.name,
      externalId: unique(o["external-id"] ?? newId("org"), where),
      email: o.email,
      createdAt: o["created-at"] ?? at,
      plan: o.plan,
      ...(o["self-hosted-release"] && { selfHostedRelease: o["self-hosted-release"] }),
    };
    state.organizations.push(organization);
    if (o.token) addToken({ secret: o.token, kind: "organization", organization: o.name }, where);

    const memberIds = new Map<string, string>();
    (o.members ?? []).forEach((m, j) => {
      const at2 = `${where}.members[${j}]`;
      const user = usersByName.get(m.user);
      if (!user) throw new WorldError(`${at2}: unknown user ${m.user}`);
      if (memberIds.has(m.user)) throw new WorldError(`${at2}: ${m.user} is a member twice`);
      memberIds.set(m.user, user.id);
      state.memberships.push({ id: unique(m.id ?? newId("ou"), at2), organization: o.name, userId: user.id, status: m.status ?? "active", createdAt: m["created-at"] ?? at });
    });

    const projectIds = new Set<string>();
    (o.projects ?? []).forEach((p, j) => {
      const id = unique(p.id ?? newId("prj"), `${where}.projects[${j}]`);
      projectIds.add(id);
      state.projects.push({ id, organization: o.name, name: p.name, description: p.description ?? null, createdAt: p["created-at"] ?? at });
    });

    const teams = [...(o.teams ?? [])];
    // Every organization has an owners team.
    if (!teams.some(isOwnersTeam)) teams.unshift({ name: OWNERS_TEAM });
    const teamNames = new Set<string>();
    teams.forEach((t, j) => {
      const at2 = `${where}.teams[${j}] (${t.name})`;
      if (teamNames.has(t.name.toLowerCase())) throw new WorldError(`${at2}: team name is used twice`);
      teamNames.add(t.name.toLowerCase());
      // The owners team has every permission; other teams follow the cascade rules, as writes do.
      let organizationAccess = allAccess(true);
      if (!isOwnersTeam(t)) {
        try {
          organizationAccess = resolveOrganizationAccess(allAccess(false), t["organization-access"]);
        } catch (error) {
          throw new WorldError(`${at2}: organization-access: ${(error as Error).message}`);
        }
      }
      const userIds = (t.members ?? []).map((name) => {
        const id = memberIds.get(name);
        if (!id) throw new WorldError(`${at2}: ${name} is not a member of the organization`);
        return id;
      });
      const team: Team = {
        id: unique(t.id ?? newId("team"), at2),
        organization: o.name,
        name: t.name,
        visibility: t.visibility ?? "secret",
        organizationAccess,
        ssoTeamId: t["sso-team-id"] ?? null,
        userIds: [...new Set(userIds)],
        createdAt: t["created-at"] ?? at,
      };
      state.teams.push(team);
      if (t.token) addToken({ secret: t.token, kind: "team", teamId: team.id }, at2);
    });

    (o["oauth-clients"] ?? []).forEach((c, j) => {
      const at2 = `${where}.oauth-clients[${j}]`;
      for (const id of c.projects ?? []) {
        if (!projectIds.has(id)) throw new WorldError(`${at2}: project ${id} is not a project of ${o.name}`);
      }
      const client: OAuthClient = {
        id: unique(c.id ?? newId("oc"), at2),
        organization: o.name,
        uuid: c.uuid ?? newUuid(),
        createdAt: c["created-at"] ?? at,
        serviceProvider: c["service-provider"],
        ...connectionSettings(c),
        projectIds: [...new Set(c.projects ?? [])],
        ...(c.secret !== undefined && { secret: c.secret }),
        ...(c["private-key"] !== undefined && { privateKey: c["private-key"] }),
      };
      state.oauthClients.push(client);
      (c["oauth-tokens"] ?? []).forEach((t, k) => {
        state.oauthTokens.push({
          id: unique(t.id ?? newId("ot"), `${at2}.oauth-tokens[${k}]`),
          oauthClientId: client.id,
          createdAt: t["created-at"] ?? client.createdAt,
          serviceProviderUser: t["service-provider-user"] ?? null,
          hasSshKey: false,
        });
      });
    });
  });
  return state;
}
