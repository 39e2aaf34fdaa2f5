// Who the caller is in an organization, and what that lets it do. Pure: the caller's memberships and
// teams are passed in.
import type { components } from "../../../generated/org-platform/schema.ts";
import { allAccess, isOwnersTeam, ORGANIZATION_ACCESS_KEYS, type Membership, type OrganizationAccess, type Team, type User } from "./model.ts";

export type Caller =
  | { kind: "user"; user: User }
  | { kind: "team"; team: Team }
  | { kind: "organization"; organization: string };

export interface Role {
  organization: string;
  /** Acts as an owner: a member of the owners team, the organization token, the owners-team token. */
  owner: boolean;
  /** The caller's teams in the organization (for a team token, its team). */
  teamIds: ReadonlySet<string>;
  /** What the caller's teams may do, together. */
  access: OrganizationAccess;
  /** Set when the caller is a user. */
  userId?: string;
}

/**
 * The caller's role in an organization, or undefined when it has none there: another organization's
 * token, or a user who is not an active member (an invited user has not joined yet).
 */
export function roleIn(caller: Caller, organization: string, memberships: readonly Membership[], teams: readonly Team[]): Role | undefined {
  switch (caller.kind) {
    case "organization":
      if (caller.organization !== organization) return undefined;
      return { organization, owner: true, teamIds: new Set(), access: allAccess(true) };
    case "team":
      if (caller.team.organization !== organization) return undefined;
      return roleOfTeams(organization, [caller.team]);
    case "user": {
      const active = memberships.some((m) => m.organization === organization && m.userId === caller.user.id && m.status === "active");
      if (!active) return undefined;
      const own = teams.filter((t) => t.organization === organization && t.userIds.includes(caller.user.id));
      return { ...roleOfTeams(organization, own), userId: caller.user.id };
    }
  }
}

function roleOfTeams(organization: string, teams: Team[]): Role {
  const access = allAccess(false);
  for (const team of teams) {
    for (const key of ORGANIZATION_ACCESS_KEYS) access[key] ||= team.organizationAccess[key];
  }
  return { organization, owner: teams.some(isOwnersTeam), teamIds: new Set(teams.map((t) => t.id)), access };
}

/** Members see visible teams and their own secret teams; owners see every team. */
export function canSeeTeam(role: Role, team: Team): boolean {
  return role.owner || team.visibility === "organization" || role.teamIds.has(team.id);
}

/** Only owners (and the tokens that act as one) create, change and delete teams. */
export function canManageTeams(role: Role): boolean {
  return role.owner;
}

/** Creating and changing OAuth clients needs the manage-VCS-settings permission. */
export function canManageVcsSettings(role: Role): boolean {
  return role.owner || role.access["manage-vcs-settings"];
}

/** A team's `permissions` attribute, as the description gives it. */
export type TeamPermissions = components["schemas"]["TeamPermissions"];

/**
 * What the caller may do with a team. The owners team can be neither destroyed nor given other
 * permissions; manage-membership lets a member change the membership of the other teams.
 */
export function teamPermissions(role: Role, team: Team): TeamPermissions {
  const owners = isOwnersTeam(team);
  return {
    "can-update-membership": role.owner || (role.access["manage-membership"] && !owners),
    "can-destroy": role.owner && !owners,
    "can-update-organization-access": role.owner && !owners,
    "can-update-api-token": role.owner,
    "can-update-visibility": role.owner,
  };
}
