// The records the organization platform keeps. Attribute names are camelCase here; the wire format
// (hyphenated JSON:API) is made in render.ts. The enumerations are the description's.
import type { components } from "../../../generated/org-platform/schema.ts";

type Schemas = components["schemas"];

/** Whether a list names every member of a union; `Holds<...>` of a false one does not compile. */
type ListsAll<List extends readonly string[], Union extends string> = [Exclude<Union, List[number]>] extends [never] ? true : false;
type Holds<T extends true> = T;

export type Plan = "free" | "team" | "business";

export interface Organization {
  name: string;
  externalId: string;
  email: string;
  createdAt: string;
  plan: Plan;
  /** Simulated self-hosted release, e.g. v202204-1. */
  selfHostedRelease?: string;
}

export interface User {
  id: string;
  username: string;
  email: string;
  isServiceAccount: boolean;
}

export type MembershipStatus = "active" | "invited";

export interface Membership {
  id: string;
  organization: string;
  userId: string;
  status: MembershipStatus;
  createdAt: string;
}

export interface Project {
  id: string;
  organization: string;
  name: string;
  description: string | null;
  createdAt: string;
}

export const ORGANIZATION_ACCESS_KEYS = [
  "manage-policies",
  "manage-policy-overrides",
  "manage-run-tasks",
  "manage-workspaces",
  "manage-vcs-settings",
  "manage-providers",
  "manage-modules",
  "manage-projects",
  "read-projects",
  "read-workspaces",
  "manage-membership",
] as const satisfies readonly (keyof Schemas["OrganizationAccess"])[];

export type OrganizationAccessKey = keyof Schemas["OrganizationAccess"];
/** The list above has every permission the description gives a team. */
export type OrganizationAccessKeysListed = Holds<ListsAll<typeof ORGANIZATION_ACCESS_KEYS, OrganizationAccessKey>>;
export type OrganizationAccess = Record<OrganizationAccessKey, boolean>;

export type Visibility = Schemas["TeamVisibility"];

export const OWNERS_TEAM = "owners";

export interface Team {
  id: string;
  organization: string;
  name: string;
  visibility: Visibility;
  organizationAccess: OrganizationAccess;
  ssoTeamId: string | null;
  /** Members, invited ones included (they are hidden from responses until they accept). */
  userIds: string[];
  createdAt: string;
}

export const SERVICE_PROVIDERS = [
  "vcs_a",
  "vcs_a_enterprise",
  "vcs_b_hosted",
  "vcs_b_community_edition",
  "vcs_b_enterprise_edition",
  "vcs_c_server",
] as const satisfies readonly Schemas["ServiceProvider"][];

export type ServiceProvider = Schemas["ServiceProvider"];
/** The list above has every provider the description offers. */
export type ServiceProvidersListed = Holds<ListsAll<typeof SERVICE_PROVIDERS, ServiceProvider>>;

export interface OAuthClient {
  id: string;
  organization: string;
  /** Makes callback-url and connect-path, as the real platform's per-client uuid does. */
  uuid: string;
  createdAt: string;
  serviceProvider: ServiceProvider;
  name: string | null;
  httpUrl: string;
  apiUrl: string;
  key: string | null;
  rsaPublicKey: string | null;
  organizationScoped: boolean;
  projectIds: string[];
  /** Write-only: stored, never rendered. */
  secret?: string;
  /** Write-only: stored, never rendered. */
  privateKey?: string;
}

export interface OAuthToken {
  id: string;
  oauthClientId: string;
  createdAt: string;
  serviceProviderUser: string | null;
  hasSshKey: boolean;
  /** Write-only: the provider token string it was made from. */
  tokenString?: string;
}

/** An API token secret and what it acts as. */
export type ApiToken =
  | { secret: string; kind: "user"; userId: string }
  | { secret: string; kind: "team"; teamId: string }
  | { secret: string; kind: "organization"; organization: string };

export function isOwnersTeam(team: Pick<Team, "name">): boolean {
  return team.name === OWNERS_TEAM;
}

export function allAccess(value: boolean): OrganizationAccess {
  return Object.fromEntries(ORGANIZATION_ACCESS_KEYS.map((key) => [key, value])) as OrganizationAccess;
}
