// OAuth client rules: providers, the input-only attributes, project scoping.
import type { components } from "../../../generated/org-platform/schema.ts";
import { invalidAttribute, invalidRelationship } from "./errors.ts";
import type { OAuthClient, OAuthToken, Organization, Project, ServiceProvider } from "./model.ts";

/** Readable provider names (the neutral names of the seed). */
export const PROVIDER_DISPLAY_NAMES: Record<ServiceProvider, string> = {
  vcs_a: "VCS A",
  vcs_a_enterprise: "VCS A Enterprise",
  vcs_b_hosted: "VCS B",
  vcs_b_community_edition: "VCS B Community Edition",
  vcs_b_enterprise_edition: "VCS B Enterprise Edition",
  vcs_c_server: "VCS C Server",
};

/** OAuth clients an organization may have: with the attribute limits, this bounds what one organization holds. */
export const MAX_OAUTH_CLIENTS_PER_ORGANIZATION = 200;

type Schemas = components["schemas"];

/** A project named in a request (relationships.projects.data, or the data of a relationship request). */
export type ResourceIdentifierInput = Schemas["ProjectIdentifierInput"];

/**
 * A create request's attributes and projects, as sent. `private-key: null` is the same as absent
 * (go-tfe sends `"private-key": null` with every create).
 */
export interface OAuthClientCreateInput {
  attributes: Schemas["OAuthClientCreateRequest"]["data"]["attributes"];
  projects?: ResourceIdentifierInput[];
}

/** An update request's attributes (none sent: none change) and projects (absent: unchanged). */
export interface OAuthClientUpdateInput {
  attributes: NonNullable<Schemas["OAuthClientUpdateRequest"]["data"]["attributes"]>;
  projects?: ResourceIdentifierInput[];
}

/** The attributes that set up a VCS connection, as a create request or a world file names them. */
export interface ConnectionSettingsAttributes {
  name?: string | null;
  "http-url": string;
  "api-url": string;
  key?: string | null;
  "rsa-public-key"?: string | null;
  "organization-scoped"?: boolean;
}

/** A new VCS connection's settings from its attributes, with the API's defaults for those left out. */
export function connectionSettings(a: ConnectionSettingsAttributes): Pick<OAuthClient, "name" | "httpUrl" | "apiUrl" | "key" | "rsaPublicKey" | "organizationScoped"> {
  return {
    name: a.name ?? null,
    httpUrl: a["http-url"],
    apiUrl: a["api-url"],
    key: a.key ?? null,
    rsaPublicKey: a["rsa-public-key"] ?? null,
    organizationScoped: a["organization-scoped"] ?? true,
  };
}

/**
 * The ids of the projects named by a request, all of which must be projects of the organization
 * (422 naming the first one that is not). Duplicates count once.
 */
export function resolveProjects(refs: ResourceIdentifierInput[], organization: string, organizationProjects: Project[], pointer: string): string[] {
  const ids: string[] = [];
  refs.forEach((ref, i) => {
    if (ref?.type !== "projects") {
      throw invalidRelationship(`${pointer}/${i}/type`, `type must be "projects"`);
    }
    const project = organizationProjects.find((p) => p.id === ref.id);
    if (!project) {
      throw invalidRelationship(`${pointer}/${i}/id`, `Project ${String(ref.id)} not found in organization ${organization}`);
    }
    if (!ids.includes(project.id)) ids.push(project.id);
  });
  return ids;
}

/** The SSH public key is the public half of the secret: it only comes with it. */
function checkKeyPair(attributes: { secret?: string | null; "rsa-public-key"?: string }): void {
  if (attributes["rsa-public-key"] !== undefined && attributes.secret == null) {
    throw invalidAttribute("/data/attributes/secret", "secret is required together with rsa-public-key");
  }
}

export function newOAuthClient(
  organization: Organization,
  input: OAuthClientCreateInput,
  organizationProjects: Project[],
  ids: { client: string; token: string; uuid: string },
  createdAt: string,
  existingClients = 0,
): { client: OAuthClient; token: OAuthToken } {
  if (existingClients >= MAX_OAUTH_CLIENTS_PER_ORGANIZATION) {
    throw invalidAttribute("", `An organization has at most ${MAX_OAUTH_CLIENTS_PER_ORGANIZATION} OAuth clients`);
  }
  const a = input.attributes;
  const provider = a["service-provider"];
  if (!(provider in PROVIDER_DISPLAY_NAMES)) {
    throw invalidAttribute("/data/attributes/service-provider", `service-provider must be one of ${Object.keys(PROVIDER_DISPLAY_NAMES).join(", ")}`);
  }
  if (!a["oauth-token-string"]) {
    throw invalidAttribute("/data/attributes/oauth-token-string", "oauth-token-string is required");
  }
  if (provider === "vcs_c_server" && !a["private-key"]) {
    throw invalidAttribute("/data/attributes/private-key", "private-key is required for vcs_c_server");
  }
  checkKeyPair(a);
  const projectIds = resolveProjects(input.projects ?? [], organization.name, organizationProjects, "/data/relationships/projects/data");
  const client: OAuthClient = {
    id: ids.client,
    organization: organization.name,
    uuid: ids.uuid,
    createdAt,
    serviceProvider: provider,
    ...connectionSettings(a),
    projectIds,
    ...(a.secret != null && { secret: a.secret }),
    // Only the server-edition provider uses a private key; for the others it is ignored.
    ...(provider === "vcs_c_server" && a["private-key"] != null && { privateKey: a["private-key"] }),
  };
  const token: OAuthToken = {
    id: ids.token,
    oauthClientId: client.id,
    createdAt,
    // Known only by asking the provider, which the reference server does not do.
    serviceProviderUser: null,
    hasSshKey: false,
    tokenString: a["oauth-token-string"],
  };
  return { client, token };
}

export function changedOAuthClient(client: OAuthClient, input: OAuthClientUpdateInput, organizationProjects: Project[]): OAuthClient {
  const a = input.attributes;
  checkKeyPair(a);
  const changed: OAuthClient = { ...client };
  if (a.name !== undefined) changed.name = a.name;
  if (a.key !== undefined) changed.key = a.key;
  if (a.secret !== undefined) changed.secret = a.secret;
  if (a["rsa-public-key"] !== undefined) changed.rsaPublicKey = a["rsa-public-key"];
  if (a["organization-scoped"] !== undefined) changed.organizationScoped = a["organization-scoped"];
  if (input.projects !== undefined) {
    // An empty list clears every assignment.
    changed.projectIds = resolveProjects(input.projects, client.organization, organizationProjects, "/data/relationships/projects/data");
  }
  return changed;
}

export function withProjectsAttached(client: OAuthClient, refs: ResourceIdentifierInput[], organizationProjects: Project[]): OAuthClient {
  const ids = resolveProjects(refs, client.organization, organizationProjects, "/data");
  return { ...client, projectIds: [...client.projectIds, ...ids.filter((id) => !client.projectIds.includes(id))] };
}

export function withProjectsDetached(client: OAuthClient, refs: ResourceIdentifierInput[], organizationProjects: Project[]): OAuthClient {
  const ids = resolveProjects(refs, client.organization, organizationProjects, "/data");
  return { ...client, projectIds: client.projectIds.filter((id) => !ids.includes(id)) };
}
