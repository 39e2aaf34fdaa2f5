// HTTP handlers of the organization platform, one per operationId: from the operation's validated
// input (typed from the description) to one of its documented replies, a JSON:API document from the
// service. Errors are thrown as ApiError and rendered by the app. No Express here.
import type { operations } from "../../../generated/org-platform/schema.ts";
import type { HandlerTable, Input } from "../../shared/contract.ts";
import { bindHandlers } from "../../shared/handler-binding.ts";
import type { Caller } from "../domain/access.ts";
import { invalidAttribute, invalidInclude } from "../domain/errors.ts";
import { pageOf, type ListLocation, type Page } from "../domain/pagination.ts";
import { writeJsonApi } from "../http/body.ts";
import { SentQuery, type OperationQueryName } from "../http/sent-query.ts";
import type { MembershipInclude, OAuthClientInclude, OrgPlatformService, TeamInclude } from "../service.ts";

/** What a handler needs beyond its input. */
export interface OrgPlatformContext {
  service: OrgPlatformService;
  /** The authenticated caller (ping, the one operation answered without a token, does not read it). */
  caller: Caller;
  /** Scheme, host and port the request was sent to: links and callback URLs are absolute. */
  origin: string;
  /** The request as sent, where the validated input does not keep it (see SentRequest). */
  sent: SentRequest;
}

/**
 * The part of the raw request the handlers read. Pagination links are the list's canonical URL with
 * the query as sent (parameters of other API versions kept, page[...] replaced), and the query
 * parameters are read under their wire names (http/sent-query.ts), not from req.query.
 */
export interface SentRequest {
  /** The canonical path (repeated and trailing slashes settled). */
  path: string;
  /** The query string as sent, without the "?" ("" when none). */
  query: string;
}

/** Each operation's input as bindHandlers gives it (contract.ts's Input). */
export type OrgPlatformInputs = { [K in keyof operations]: Input<operations[K]> };
export type OrgPlatformHandlerTable = HandlerTable<operations, OrgPlatformContext, OrgPlatformInputs>;
type Slice = Partial<OrgPlatformHandlerTable>;

/** The query of this request, read under the names the description gives operation K. */
function sentQuery<K extends keyof operations>(context: OrgPlatformContext): SentQuery<OperationQueryName<operations[K]>> {
  return new SentQuery(context.sent.query);
}

const CLIENT_INCLUDES: readonly OAuthClientInclude[] = ["oauth_tokens", "projects"];
const TEAM_INCLUDES: readonly TeamInclude[] = ["users", "organization-memberships"];
const MEMBERSHIP_INCLUDES: readonly MembershipInclude[] = ["user", "teams"];

const oauthClients = {
  listOAuthClients: ({ params }, context) => {
    const query = sentQuery<"listOAuthClients">(context);
    // Neither page parameter: the whole list, unpaginated.
    const number = query.get("page[number]");
    const size = query.get("page[size]");
    const page = number !== undefined || size !== undefined ? pageFrom(number, size) : undefined;
    const location = locationOf(context, query.pairsWithout("page[number]", "page[size]"));
    const include = includes(query.getAll("include"), CLIENT_INCLUDES);
    const { service, caller, origin } = context;
    return { status: 200, body: service.listOAuthClients(caller, params.organization_name, { page, include, location }, origin) };
  },

  readOAuthClient: ({ params }, context) => {
    const include = includes(sentQuery<"readOAuthClient">(context).getAll("include"), CLIENT_INCLUDES);
    const { service, caller, origin } = context;
    return { status: 200, body: service.readOAuthClient(caller, params.oauth_client_id, include, origin) };
  },

  createOAuthClient: ({ params, body: { data } }, { service, caller, origin }) => {
    const input = { attributes: data.attributes, projects: data.relationships?.projects?.data };
    return { status: 201, body: service.createOAuthClient(caller, params.organization_name, input, origin) };
  },

  updateOAuthClient: ({ params, body: { data } }, { service, caller, origin }) => {
    checkDocumentId(data.id, params.oauth_client_id);
    const input = { attributes: data.attributes ?? {}, projects: data.relationships?.projects?.data };
    return { status: 200, body: service.updateOAuthClient(caller, params.oauth_client_id, input, origin) };
  },

  deleteOAuthClient: ({ params }, { service, caller }) => {
    service.deleteOAuthClient(caller, params.oauth_client_id);
    return { status: 204 };
  },

  attachOAuthClientProjects: ({ params, body }, { service, caller }) => {
    service.attachOAuthClientProjects(caller, params.oauth_client_id, body.data);
    return { status: 204 };
  },

  detachOAuthClientProjects: ({ params, body }, { service, caller }) => {
    service.detachOAuthClientProjects(caller, params.oauth_client_id, body.data);
    return { status: 204 };
  },
} satisfies Slice;

const teams = {
  listTeams: ({ params }, context) => {
    const query = sentQuery<"listTeams">(context);
    // An empty search or filter is none.
    const q = query.get("q") || undefined;
    const names = query.get("filter[names]") || undefined;
    const page = pageFrom(query.get("page[number]"), query.get("page[size]"));
    const location = locationOf(context, query.pairsWithout("page[number]", "page[size]"));
    const include = includes(query.getAll("include"), TEAM_INCLUDES);
    const filters = { q, names: names === undefined ? undefined : names.split(",") };
    return { status: 200, body: context.service.listTeams(context.caller, params.organization_name, filters, { page, include, location }) };
  },

  createTeam: ({ params, body: { data } }, context) => {
    const include = includes(sentQuery<"createTeam">(context).getAll("include"), TEAM_INCLUDES);
    // The platform answers 200, not 201, to a created team.
    return { status: 200, body: context.service.createTeam(context.caller, params.organization_name, data.attributes, include) };
  },

  readTeam: ({ params }, context) => {
    const include = includes(sentQuery<"readTeam">(context).getAll("include"), TEAM_INCLUDES);
    return { status: 200, body: context.service.readTeam(context.caller, params.team_id, include) };
  },

  updateTeam: ({ params, body: { data } }, context) => {
    checkDocumentId(data.id, params.team_id);
    const include = includes(sentQuery<"updateTeam">(context).getAll("include"), TEAM_INCLUDES);
    return { status: 200, body: context.service.updateTeam(context.caller, params.team_id, data.attributes ?? {}, include) };
  },

  deleteTeam: ({ params }, { service, caller }) => {
    service.deleteTeam(caller, params.team_id);
    return { status: 204 };
  },
} satisfies Slice;

/** Related resources, read-only: where links and relationships point. */
const related = {
  readOrganization: ({ params }, { service, caller }) => ({ status: 200, body: service.readOrganization(caller, params.organization_name) }),

  readOAuthToken: ({ params }, { service, caller }) => ({ status: 200, body: service.readOAuthToken(caller, params.oauth_token_id) }),

  readProject: ({ params }, { service, caller }) => ({ status: 200, body: service.readProject(caller, params.project_id) }),

  readUser: ({ params }, { service, caller }) => ({ status: 200, body: service.readUser(caller, params.user_id) }),

  readOrganizationMembership: ({ params }, context) => {
    const include = includes(sentQuery<"readOrganizationMembership">(context).getAll("include"), MEMBERSHIP_INCLUDES);
    return { status: 200, body: context.service.readMembership(context.caller, params.organization_membership_id, include) };
  },

  ping: () => ({ status: 204 }),
} satisfies Slice;

/** Every operation's handler: tsc refuses a table missing one, or holding one the description lacks. */
export const orgPlatformHandlers = { ...oauthClients, ...teams, ...related } satisfies OrgPlatformHandlerTable;

/** The table as one function of an operationId (server/shared/handler-binding.ts): what the app calls. */
export const runOrgPlatformOperation = bindHandlers<operations, OrgPlatformContext, OrgPlatformInputs>(orgPlatformHandlers, writeJsonApi);

/** The validator has checked the range; an absent parameter takes its default. */
function pageFrom(number: string | undefined, size: string | undefined): Page {
  return pageOf(number === undefined ? undefined : Number(number), size === undefined ? undefined : Number(size));
}

/**
 * The include values sent, each one the endpoint offers (a 400 naming the first that is not).
 * JSON:API sends one comma-separated include; a repeated parameter is read the same way.
 */
function includes<T extends string>(sent: string[], allowed: readonly T[]): T[] {
  const chosen: T[] = [];
  for (const value of sent.flatMap((v) => v.split(","))) {
    if (value === "") continue;
    const known = allowed.find((a) => a === value);
    if (known === undefined) throw invalidInclude(`include: must be one of ${allowed.join(", ")} (got ${value})`);
    if (!chosen.includes(known)) chosen.push(known);
  }
  return chosen;
}

/** The list's own URL and its query parameters other than the page ones, for pagination links. */
function locationOf({ origin, sent }: OrgPlatformContext, query: [string, string][]): ListLocation {
  return { url: `${origin}${sent.path}`, query };
}

/** On update, a `data.id`, when sent, must be the path's id. */
function checkDocumentId(sent: string | undefined, pathId: string): void {
  if (sent !== undefined && sent !== pathId) throw invalidAttribute("/data/id", `data.id must be the id in the path (${pathId})`);
}
