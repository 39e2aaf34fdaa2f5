// HTTP handlers of the organization platform, keyed by operationId: read the request, call the
// service, answer a JSON:API document. The validator has checked the request against the description.
import type { Request, Response } from "express";
import type { operations } from "../../../generated/org-platform/schema.ts";
import type { Caller } from "../domain/access.ts";
import { invalidAttribute, invalidInclude } from "../domain/errors.ts";
import type { OAuthClientCreateInput, OAuthClientUpdateInput, ResourceIdentifierInput } from "../domain/oauth-clients.ts";
import { pageOf, type ListLocation, type Page } from "../domain/pagination.ts";
import type { TeamInput } from "../domain/teams.ts";
import type { MembershipInclude, OAuthClientInclude, OrgPlatformService, TeamInclude } from "../service.ts";

import { JSON_API } from "../http/body.ts";
export { JSON_API };

export interface HandlerContext {
  service: OrgPlatformService;
  caller: Caller;
  /** Scheme, host and port the request was sent to. */
  origin: string;
}

export type Handler = (context: HandlerContext, req: Request, res: Response) => void;

const CLIENT_INCLUDES: readonly OAuthClientInclude[] = ["oauth_tokens", "projects"];
const TEAM_INCLUDES: readonly TeamInclude[] = ["users", "organization-memberships"];
const MEMBERSHIP_INCLUDES: readonly MembershipInclude[] = ["user", "teams"];

export const orgPlatformHandlers = {
  listOAuthClients: ({ service, caller, origin }, req, res) => {
    // Neither page parameter: the whole list, unpaginated.
    const paginated = query(req, "page[number]") !== undefined || query(req, "page[size]") !== undefined;
    const document = service.listOAuthClients(
      caller,
      pathParam(req, "organization_name"),
      { page: paginated ? pageParams(req) : undefined, include: includes(req, CLIENT_INCLUDES), location: locationOf(req, origin) },
      origin,
    );
    send(res, 200, document);
  },

  readOAuthClient: ({ service, caller, origin }, req, res) => {
    send(res, 200, service.readOAuthClient(caller, pathParam(req, "oauth_client_id"), includes(req, CLIENT_INCLUDES), origin));
  },

  createOAuthClient: ({ service, caller, origin }, req, res) => {
    const data = documentData(req);
    const input: OAuthClientCreateInput = {
      attributes: (data.attributes ?? {}) as OAuthClientCreateInput["attributes"],
      projects: relationshipData(data, "projects"),
    };
    send(res, 201, service.createOAuthClient(caller, pathParam(req, "organization_name"), input, origin));
  },

  updateOAuthClient: ({ service, caller, origin }, req, res) => {
    const id = pathParam(req, "oauth_client_id");
    const data = documentData(req, id);
    const input: OAuthClientUpdateInput = {
      attributes: (data.attributes ?? {}) as OAuthClientUpdateInput["attributes"],
      projects: relationshipData(data, "projects"),
    };
    send(res, 200, service.updateOAuthClient(caller, id, input, origin));
  },

  deleteOAuthClient: ({ service, caller }, req, res) => {
    service.deleteOAuthClient(caller, pathParam(req, "oauth_client_id"));
    res.status(204).end();
  },

  attachOAuthClientProjects: ({ service, caller }, req, res) => {
    service.attachOAuthClientProjects(caller, pathParam(req, "oauth_client_id"), identifierList(req));
    res.status(204).end();
  },

  detachOAuthClientProjects: ({ service, caller }, req, res) => {
    service.detachOAuthClientProjects(caller, pathParam(req, "oauth_client_id"), identifierList(req));
    res.status(204).end();
  },

  listTeams: ({ service, caller, origin }, req, res) => {
    // An empty search or filter is none.
    const names = query(req, "filter[names]") || undefined;
    const document = service.listTeams(
      caller,
      pathParam(req, "organization_name"),
      { q: query(req, "q") || undefined, names: names === undefined ? undefined : names.split(",") },
      { page: pageParams(req), include: includes(req, TEAM_INCLUDES), location: locationOf(req, origin) },
    );
    send(res, 200, document);
  },

  createTeam: ({ service, caller }, req, res) => {
    const data = documentData(req);
    // The platform answers 200, not 201, to a created team.
    send(res, 200, service.createTeam(caller, pathParam(req, "organization_name"), (data.attributes ?? {}) as TeamInput, includes(req, TEAM_INCLUDES)));
  },

  readTeam: ({ service, caller }, req, res) => {
    send(res, 200, service.readTeam(caller, pathParam(req, "team_id"), includes(req, TEAM_INCLUDES)));
  },

  updateTeam: ({ service, caller }, req, res) => {
    const id = pathParam(req, "team_id");
    const data = documentData(req, id);
    send(res, 200, service.updateTeam(caller, id, (data.attributes ?? {}) as TeamInput, includes(req, TEAM_INCLUDES)));
  },

  deleteTeam: ({ service, caller }, req, res) => {
    service.deleteTeam(caller, pathParam(req, "team_id"));
    res.status(204).end();
  },

  // Related resources, read-only: where links and relationships point.
  readOrganization: ({ service, caller }, req, res) => {
    send(res, 200, service.readOrganization(caller, pathParam(req, "organization_name")));
  },

  readOAuthToken: ({ service, caller }, req, res) => {
    send(res, 200, service.readOAuthToken(caller, pathParam(req, "oauth_token_id")));
  },

  readProject: ({ service, caller }, req, res) => {
    send(res, 200, service.readProject(caller, pathParam(req, "project_id")));
  },

  readUser: ({ service, caller }, req, res) => {
    send(res, 200, service.readUser(caller, pathParam(req, "user_id")));
  },

  ping: (_context, _req, res) => {
    res.status(204).end();
  },

  readOrganizationMembership: ({ service, caller }, req, res) => {
    send(res, 200, service.readMembership(caller, pathParam(req, "organization_membership_id"), includes(req, MEMBERSHIP_INCLUDES)));
  },
} satisfies Record<keyof operations, Handler>;

function send(res: Response, status: number, document: object): void {
  res.status(status).type(JSON_API).json(document);
}

function pathParam(req: Request, name: string): string {
  return String(req.params[name]);
}

/**
 * A query parameter as sent, read from the URL itself (brackets as they are or percent-encoded):
 * the validator reshapes req.query (page[number] becomes page.number), so it is not relied on.
 */
function query(req: Request, name: string): string | undefined {
  return searchParams(req).get(name) ?? undefined;
}

function searchParams(req: Request): URLSearchParams {
  return new URLSearchParams(req.originalUrl.split("?")[1] ?? "");
}

/** The validator has checked the range; an absent parameter takes its default. */
function pageParams(req: Request): Page {
  const number = query(req, "page[number]");
  const size = query(req, "page[size]");
  return pageOf(number === undefined ? undefined : Number(number), size === undefined ? undefined : Number(size));
}

function includes<T extends string>(req: Request, allowed: readonly T[]): T[] {
  // JSON:API sends one comma-separated include; a repeated parameter is read the same way.
  const values = searchParams(req)
    .getAll("include")
    .flatMap((v) => v.split(","))
    .filter((v) => v !== "");
  const unknown = values.find((v) => !allowed.includes(v as T));
  if (unknown !== undefined) throw invalidInclude(`include: must be one of ${allowed.join(", ")} (got ${unknown})`);
  return [...new Set(values as T[])];
}

/** The list's own URL and its query parameters other than the page ones, for pagination links. */
function locationOf(req: Request, origin: string): ListLocation {
  // The canonical path (repeated and trailing slashes settled), the query as sent.
  const pathname = req.path;
  const search = req.originalUrl.split("?")[1] ?? "";
  const pairs = [...new URLSearchParams(search)].filter(([key]) => key !== "page[number]" && key !== "page[size]");
  return { url: `${origin}${pathname}`, query: pairs };
}

interface ResourceDocumentData {
  id?: unknown;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
}

/** `data` of a single-resource request document; on update, a `data.id` must be the path's id. */
function documentData(req: Request, pathId?: string): ResourceDocumentData {
  const data = ((req.body ?? {}) as { data?: ResourceDocumentData }).data ?? {};
  if (pathId !== undefined && data.id !== undefined && data.id !== pathId) {
    throw invalidAttribute("/data/id", `data.id must be the id in the path (${pathId})`);
  }
  return data;
}

function relationshipData(data: ResourceDocumentData, name: string): ResourceIdentifierInput[] | undefined {
  const value = data.relationships?.[name]?.data;
  return Array.isArray(value) ? (value as ResourceIdentifierInput[]) : undefined;
}

function identifierList(req: Request): ResourceIdentifierInput[] {
  const data = ((req.body ?? {}) as { data?: unknown }).data;
  return Array.isArray(data) ? (data as ResourceIdentifierInput[]) : [];
}
