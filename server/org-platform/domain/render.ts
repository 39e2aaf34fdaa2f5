// JSON:API resource objects, typed by the description's generated types. Input-only attributes
// (secret, private key, token string) are never copied out.
import { createHash } from "node:crypto";
import type { components } from "../../../generated/org-platform/schema.ts";
import { teamPermissions, type Role } from "./access.ts";
import { PROVIDER_DISPLAY_NAMES } from "./oauth-clients.ts";
import { ssoAvailable } from "./teams.ts";
import type { Membership, OAuthClient, OAuthToken, Organization, Project, Team, User } from "./model.ts";

type Schemas = components["schemas"];
export type OAuthClientResource = Schemas["OAuthClient"];
export type OAuthTokenResource = Schemas["OAuthToken"];
export type ProjectResource = Schemas["Project"];
export type TeamResource = Schemas["Team"];
export type UserResource = Schemas["User"];
export type MembershipResource = Schemas["OrganizationMembership"];
export type OrganizationResource = Schemas["Organization"];

export const API_PREFIX = "/api/v2";

/** origin: the scheme, host and port the request was sent to (callback-url is absolute). */
export function renderOAuthClient(client: OAuthClient, organization: Organization, tokens: OAuthToken[], origin: string): OAuthClientResource {
  const first = tokens[0];
  return {
    id: client.id,
    type: "oauth-clients",
    attributes: {
      "created-at": client.createdAt,
      "callback-url": `${origin}/auth/${client.uuid}/callback`,
      "connect-path": `/auth/${client.uuid}?organization_id=${organization.externalId}`,
      "service-provider": client.serviceProvider,
      "service-provider-display-name": PROVIDER_DISPLAY_NAMES[client.serviceProvider],
      name: client.name,
      "http-url": client.httpUrl,
      "api-url": client.apiUrl,
      key: client.key,
      "rsa-public-key": client.rsaPublicKey,
      "organization-scoped": client.organizationScoped,
    },
    relationships: {
      organization: {
        data: { id: organization.name, type: "organizations" },
        links: { related: `${API_PREFIX}/organizations/${organization.name}` },
      },
      projects: { data: client.projectIds.map((id) => ({ id, type: "projects" as const })) },
      "oauth-tokens": {
        data: tokens.map((t) => ({ id: t.id, type: "oauth-tokens" as const })),
        ...(first && { links: { related: `${API_PREFIX}/oauth-tokens/${first.id}` } }),
      },
    },
  };
}

export function renderOAuthToken(token: OAuthToken): OAuthTokenResource {
  return {
    id: token.id,
    type: "oauth-tokens",
    attributes: {
      "created-at": token.createdAt,
      "service-provider-user": token.serviceProviderUser,
      "has-ssh-key": token.hasSshKey,
    },
    relationships: {
      "oauth-client": {
        data: { id: token.oauthClientId, type: "oauth-clients" },
        links: { related: `${API_PREFIX}/oauth-clients/${token.oauthClientId}` },
      },
    },
    links: { self: `${API_PREFIX}/oauth-tokens/${token.id}` },
  };
}

export function renderProject(project: Project): ProjectResource {
  return {
    id: project.id,
    type: "projects",
    attributes: { name: project.name, description: project.description, "created-at": project.createdAt },
    relationships: {
      organization: {
        data: { id: project.organization, type: "organizations" },
        links: { related: `${API_PREFIX}/organizations/${project.organization}` },
      },
    },
    links: { self: `${API_PREFIX}/projects/${project.id}` },
  };
}

export function renderOrganization(organization: Organization): OrganizationResource {
  return {
    id: organization.name,
    type: "organizations",
    attributes: {
      name: organization.name,
      "external-id": organization.externalId,
      "created-at": organization.createdAt,
      email: organization.email,
      "plan-identifier": organization.plan,
      "saml-enabled": false,
    },
    links: { self: `${API_PREFIX}/organizations/${organization.name}` },
  };
}

/**
 * members: the team's users whose membership is active (invited ones are hidden), with those
 * memberships (in the same order), so that included memberships are linked from the team.
 */
export function renderTeam(team: Team, organization: Organization, role: Role, members: User[], memberships: Membership[]): TeamResource {
  return {
    id: team.id,
    type: "teams",
    attributes: {
      name: team.name,
      ...(ssoAvailable(organization) && { "sso-team-id": team.ssoTeamId }),
      "users-count": members.length,
      visibility: team.visibility,
      permissions: teamPermissions(role, team),
      "organization-access": { ...team.organizationAccess },
    },
    relationships: {
      users: { data: members.map((u) => ({ id: u.id, type: "users" as const })) },
      "organization-memberships": { data: memberships.map((m) => ({ id: m.id, type: "organization-memberships" as const })) },
      "authentication-token": { meta: {} },
    },
    links: { self: `${API_PREFIX}/teams/${team.id}` },
  };
}

export function renderUser(user: User, role: Role): UserResource {
  const self = role.userId === user.id;
  return {
    id: user.id,
    type: "users",
    attributes: {
      username: user.username,
      "is-service-account": user.isServiceAccount,
      "avatar-url": avatarUrl(user.email),
      "v2-only": true,
      permissions: {
        "can-create-organizations": !user.isServiceAccount,
        "can-change-email": self,
        "can-change-username": self,
      },
    },
    links: { self: `${API_PREFIX}/users/${user.id}` },
  };
}

/** teams: the user's teams in the organization that the caller may see. */
export function renderMembership(membership: Membership, user: User, teams: Team[]): MembershipResource {
  return {
    id: membership.id,
    type: "organization-memberships",
    attributes: { status: membership.status, email: user.email },
    relationships: {
      teams: { data: teams.map((t) => ({ id: t.id, type: "teams" as const })) },
      user: { data: { id: user.id, type: "users" } },
      organization: {
        data: { id: membership.organization, type: "organizations" },
        links: { related: `${API_PREFIX}/organizations/${membership.organization}` },
      },
    },
    links: { self: `${API_PREFIX}/organization-memberships/${membership.id}` },
  };
}

/** The platform shows Gravatar images, keyed by the MD5 of the email address. */
function avatarUrl(email: string): string {
  const hash = createHash("md5").update(email.trim().toLowerCase()).digest("hex");
  return `https://www.gravatar.com/avatar/${hash}?s=100&d=mm`;
}
