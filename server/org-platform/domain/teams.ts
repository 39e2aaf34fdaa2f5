// Team rules: names, the permission cascade, the owners team, single sign-on availability.
import type { components } from "../../../generated/org-platform/schema.ts";
import { invalidAttribute } from "./errors.ts";
import {
  allAccess,
  isOwnersTeam,
  ORGANIZATION_ACCESS_KEYS,
  type Organization,
  type OrganizationAccess,
  type OrganizationAccessKey,
  type Team,
} from "./model.ts";

/** Attributes of an update request, as sent (unknown keys are ignored): what is not sent keeps its value. */
export type TeamInput = NonNullable<components["schemas"]["TeamUpdateRequest"]["data"]["attributes"]>;

/** Attributes of a create request, as sent: a name, the rest defaulted. */
export type TeamCreateInput = components["schemas"]["TeamCreateRequest"]["data"]["attributes"];

const NAME = /^[A-Za-z0-9_-]+$/;

/** Teams an organization may have: with the attribute limits, this bounds what one organization holds. */
export const MAX_TEAMS_PER_ORGANIZATION = 1000;

/**
 * Project permissions cascade to workspaces, and managing implies reading: [implier, implied].
 * The platform states the first three; managing projects without reading them is not possible there
 * either.
 */
export const CASCADE: readonly (readonly [OrganizationAccessKey, OrganizationAccessKey])[] = [
  ["manage-projects", "manage-workspaces"],
  ["manage-projects", "read-projects"],
  ["read-projects", "read-workspaces"],
  ["manage-workspaces", "read-workspaces"],
];

/**
 * The permissions after a request: sent values replace previous ones, implied permissions that were
 * not sent are turned on, and an implied permission sent as false is a 422 naming the rule.
 */
export function resolveOrganizationAccess(
  previous: OrganizationAccess,
  sent: TeamInput["organization-access"],
): OrganizationAccess {
  const result = { ...previous };
  const explicit = new Set<OrganizationAccessKey>();
  for (const key of ORGANIZATION_ACCESS_KEYS) {
    const value = sent?.[key];
    if (typeof value === "boolean") {
      result[key] = value;
      explicit.add(key);
    }
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [implier, implied] of CASCADE) {
      if (!result[implier] || result[implied]) continue;
      if (explicit.has(implied)) {
        throw invalidAttribute(
          `/data/attributes/organization-access/${implied}`,
          `${implied} cannot be false while ${implier} is true (${implier} implies ${implied}; project permissions cascade to workspaces)`,
        );
      }
      result[implied] = true;
      changed = true;
    }
  }
  return result;
}

function checkName(name: string, organizationTeams: readonly Team[], self?: Team): void {
  if (!NAME.test(name)) {
    throw invalidAttribute("/data/attributes/name", "Name can only include letters, numbers, - and _");
  }
  const lower = name.toLowerCase();
  if (organizationTeams.some((t) => t.id !== self?.id && t.name.toLowerCase() === lower)) {
    throw invalidAttribute("/data/attributes/name", "Name has already been taken");
  }
}

/** Self-hosted release as [yyyymm, n]: "v202204-1" → [202204, 1]. */
export function parseRelease(release: string): [number, number] | undefined {
  const match = /^v?(\d{6})-(\d+)$/.exec(release);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

const SSO_RELEASE: [number, number] = [202204, 1];

/** sso-team-id exists in the Business tier, and on self-hosted release 202204-1 and later. */
export function ssoAvailable(organization: Organization): boolean {
  if (organization.plan === "business") return true;
  const release = organization.selfHostedRelease && parseRelease(organization.selfHostedRelease);
  if (!release) return false;
  return release[0] > SSO_RELEASE[0] || (release[0] === SSO_RELEASE[0] && release[1] >= SSO_RELEASE[1]);
}

/** Team management is a paid feature: the free plan only has its owners team. */
export function hasTeamManagement(organization: Organization): boolean {
  return organization.plan !== "free";
}

export function newTeam(
  organization: Organization,
  input: TeamCreateInput,
  organizationTeams: readonly Team[],
  id: string,
  createdAt: string,
): Team {
  if (organizationTeams.length >= MAX_TEAMS_PER_ORGANIZATION) {
    throw invalidAttribute("", `An organization has at most ${MAX_TEAMS_PER_ORGANIZATION} teams`);
  }
  const name = input.name ?? "";
  checkName(name, organizationTeams);
  return {
    id,
    organization: organization.name,
    name,
    visibility: input.visibility ?? "secret",
    organizationAccess: resolveOrganizationAccess(allAccess(false), input["organization-access"]),
    // Where SSO is not available the attribute does not exist: a sent value is ignored.
    ssoTeamId: ssoAvailable(organization) ? (input["sso-team-id"] ?? null) : null,
    userIds: [],
    createdAt,
  };
}

export function changedTeam(team: Team, organization: Organization, input: TeamInput, organizationTeams: readonly Team[]): Team {
  const owners = isOwnersTeam(team);
  if (input.name !== undefined && input.name !== team.name) {
    if (owners) throw invalidAttribute("/data/attributes/name", "The owners team cannot be renamed");
    checkName(input.name, organizationTeams, team);
  }
  const sentAccess = input["organization-access"];
  if (owners && sentAccess && ORGANIZATION_ACCESS_KEYS.some((key) => sentAccess[key] === false)) {
    throw invalidAttribute("/data/attributes/organization-access", "The owners team's organization access cannot be changed");
  }
  return {
    ...team,
    name: input.name ?? team.name,
    visibility: input.visibility ?? team.visibility,
    organizationAccess: owners ? allAccess(true) : resolveOrganizationAccess(team.organizationAccess, sentAccess),
    ssoTeamId: ssoAvailable(organization) && input["sso-team-id"] !== undefined ? input["sso-team-id"] : team.ssoTeamId,
  };
}

export function checkDeletable(team: Team): void {
  if (isOwnersTeam(team)) throw invalidAttribute("", "The owners team cannot be deleted");
}
