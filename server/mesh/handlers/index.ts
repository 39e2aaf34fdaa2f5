// HTTP handlers of the mesh, keyed by operationId: each takes its operation's validated input (typed
// from the description) and the request's context (the service, the caller) and returns one of its
// documented replies. Refusals are thrown as MeshHttpError, which the app writes in the agent's words.
import type { operations } from "../../../generated/mesh/schema.ts";
import type { HandlerTable, Input, ReplyHeaders } from "../../shared/contract.ts";
import { bindHandlers } from "../../shared/handler-binding.ts";
import { blockingQuery, type BlockingWait, type WriteSource } from "../blocking.ts";
import type { AclTableName } from "../store/acl-store.ts";
import { parseDuration } from "../../shared/go-duration.ts";
import { MeshHttpError } from "../errors.ts";
import { durationText } from "../domain/durations.ts";
import { overrideMeshGateway, overrideProtocol } from "../domain/chain-overrides.ts";
import type { ChainOverrides, Indexed } from "../service.ts";
import { checkedWait, type MeshContext } from "./context.ts";

export { authenticate, checkBlockingParams, isBlocking, meshContext, tokenOf, type MeshContext } from "./context.ts";

type Slice = Partial<HandlerTable<operations, MeshContext>>;
type ReadChain = operations["readDiscoveryChain"];

/** The answer of every ACL delete: `true`, whether or not there was something to delete. */
const DELETED = { status: 200, body: true } as const;

export const chainHandlers = {
  readDiscoveryChain: ({ params, query }, context) => readChain(context, params.service_name, query, {}),
  readDiscoveryChainWithOverrides: ({ params, query, body }, context) =>
    readChain(context, params.service_name, query, {
      overrideConnectTimeout: checkedDuration("OverrideConnectTimeout", body?.OverrideConnectTimeout ?? undefined),
      overrideProtocol: overrideProtocol(body?.OverrideProtocol),
      overrideMeshGateway: overrideMeshGateway(body?.OverrideMeshGateway),
    }),
} satisfies Slice;

export const configEntryHandlers = {
  applyConfigEntry: ({ query, body }, { service, caller }) => ({ status: 200, body: service.applyEntry(caller, body, casOf(query.cas)) }),
  readConfigEntry: ({ params, query }, context) => {
    const { kind, name } = params;
    return answerBlocking(context, query, () => context.service.readEntry(context.caller, kind, name), (entry, index) => {
      // The RPC answers a missing entry with the index; the handler sets the headers, then answers
      // 404 (agent/config_endpoint.go configGet: setMeta before the nil check).
      if (entry === undefined) throw new MeshHttpError(404, `Config entry not found for "${kind}" / "${name}"`, indexHeaders(index));
      return entry;
    });
  },
  listConfigEntries: ({ params, query }, context) =>
    answerBlocking(context, query, () => context.service.listEntries(context.caller, params.kind), (entries) => entries),
  deleteConfigEntry: ({ params, query }, { service, caller }) => {
    const cas = casOf(query.cas);
    const deleted = service.deleteEntry(caller, params.kind, params.name, cas);
    // The real system answers the boolean only for check-and-set deletes.
    return { status: 200, body: cas === undefined ? {} : deleted };
  },
} satisfies Slice;

// The ACL reads are blocking queries on their table (agent/acl_endpoint.go sets the query meta of
// each; agent/consul/acl_endpoint.go runs each through blockingQuery).
export const aclPolicyHandlers = {
  listAclPolicies: ({ query }, context) => answerAcl(context, query, "acl-policies", (authorizer) => context.service.acl.policies.list(authorizer)),
  createAclPolicy: ({ body }, { service, caller }) => ({ status: 200, body: service.acl.policies.create(caller.authorizer, body) }),
  readAclPolicy: ({ params, query }, context) => answerAcl(context, query, "acl-policies", (authorizer) => context.service.acl.policies.read(authorizer, params.id)),
  readAclPolicyByName: ({ params, query }, context) =>
    answerAcl(context, query, "acl-policies", (authorizer) => context.service.acl.policies.readByName(authorizer, params.name)),
  updateAclPolicy: ({ params, body }, { service, caller }) => ({ status: 200, body: service.acl.policies.update(caller.authorizer, params.id, body) }),
  deleteAclPolicy: ({ params }, { service, caller }) => {
    service.acl.policies.delete(caller.authorizer, params.id);
    return DELETED;
  },
} satisfies Slice;

export const aclRoleHandlers = {
  listAclRoles: ({ query }, context) => answerAcl(context, query, "acl-roles", (authorizer) => context.service.acl.roles.list(authorizer, text(query.policy))),
  createAclRole: ({ body }, { service, caller }) => ({ status: 200, body: service.acl.roles.create(caller.authorizer, body) }),
  readAclRole: ({ params, query }, context) => answerAcl(context, query, "acl-roles", (authorizer) => context.service.acl.roles.read(authorizer, params.id)),
  readAclRoleByName: ({ params, query }, context) =>
    answerAcl(context, query, "acl-roles", (authorizer) => context.service.acl.roles.readByName(authorizer, params.name)),
  updateAclRole: ({ params, body }, { service, caller }) => ({ status: 200, body: service.acl.roles.update(caller.authorizer, params.id, body) }),
  deleteAclRole: ({ params }, { service, caller }) => {
    service.acl.roles.delete(caller.authorizer, params.id);
    return DELETED;
  },
} satisfies Slice;

export const aclTokenHandlers = {
  listAclTokens: ({ query }, context) => {
    const filter = { policy: text(query.policy), role: text(query.role), authMethod: text(query.authmethod) };
    return answerAcl(context, query, "acl-tokens", (authorizer) => context.service.acl.tokens.list(authorizer, filter));
  },
  createAclToken: ({ body }, { service, caller }) => ({ status: 200, body: service.acl.tokens.create(caller.authorizer, body, caller.namespace) }),
  readAclTokenSelf: ({ query }, context) => answerAcl(context, query, "acl-tokens", () => context.service.acl.tokens.readSelf(context.token)),
  readAclToken: ({ params, query }, context) =>
    answerAcl(context, query, "acl-tokens", (authorizer) => context.service.acl.tokens.read(authorizer, params.accessor_id)),
  updateAclToken: ({ params, body }, { service, caller }) => ({ status: 200, body: service.acl.tokens.update(caller.authorizer, params.accessor_id, body) }),
  cloneAclToken: ({ params, body }, { service, caller }) => ({ status: 200, body: service.acl.tokens.clone(caller.authorizer, params.accessor_id, body ?? {}) }),
  deleteAclToken: ({ params }, { service, caller }) => {
    service.acl.tokens.delete(caller.authorizer, params.accessor_id);
    return DELETED;
  },
} satisfies Slice;

export const legacyTokenHandlers = {
  listLegacyAclTokens: ({ query }, context) => answerAcl(context, query, "acl-tokens", (authorizer) => context.service.acl.legacy.list(authorizer)),
  createLegacyAclToken: ({ body }, { service, caller }) => ({ status: 200, body: service.acl.legacy.create(caller.authorizer, body ?? {}) }),
  updateLegacyAclToken: ({ body }, { service, caller }) => ({ status: 200, body: service.acl.legacy.update(caller.authorizer, body) }),
  cloneLegacyAclToken: ({ params }, { service, caller }) => ({ status: 200, body: service.acl.legacy.clone(caller.authorizer, params.id) }),
  readLegacyAclToken: ({ params, query }, context) =>
    answerAcl(context, query, "acl-tokens", (authorizer) => context.service.acl.legacy.info(authorizer, params.id)),
  destroyLegacyAclToken: ({ params }, { service, caller }) => {
    service.acl.legacy.destroy(caller.authorizer, params.id);
    return DELETED;
  },
} satisfies Slice;

export const agentHandlers = {
  readAgentSelf: (_input, { service, caller }) => ({ status: 200, body: service.agentSelf(caller) }),
} satisfies Slice;

/** Every operation of the description, and no other (tsc refuses a missing or unknown one). */
export const meshHandlers = {
  ...chainHandlers,
  ...configEntryHandlers,
  ...aclPolicyHandlers,
  ...aclRoleHandlers,
  ...aclTokenHandlers,
  ...legacyTokenHandlers,
  ...agentHandlers,
} satisfies HandlerTable<operations, MeshContext>;

/** The table bound to Express: runs a request's operation with its context and writes the reply. */
export const boundMeshHandlers = bindHandlers<operations, MeshContext, { [K in keyof operations]: Input<operations[K]> }>(meshHandlers);

/** The query parameters of a blocking read. */
type BlockingQuery = Input<ReadChain>["query"];

function readChain(context: MeshContext, serviceName: string, query: BlockingQuery, overrides: ChainOverrides) {
  const compileDc = text(query["compile-dc"]);
  return answerBlocking(context, query, () => context.service.readChain(context.caller, serviceName, compileDc, overrides), (Chain) => ({ Chain }));
}

/** The reply of a read that blocks: its body, and the index to send back to block on. */
interface BlockingReply<B> {
  status: 200;
  body: B;
  headers: ReplyHeaders;
}

/**
 * A read as a blocking query: answered at once without an `index` (no promise on that path), else
 * when the answer's index passes it or `wait` runs out. A client that goes away ends the wait; the
 * answer then written reaches no one.
 */
function answerBlocking<T, B>(
  context: MeshContext,
  query: Pick<BlockingQuery, "stale" | "consistent" | "wait" | "index">,
  run: () => Indexed<T>,
  render: (value: T, index: number) => B,
  source: WriteSource = context.service.store,
): BlockingReply<B> | Promise<BlockingReply<B>> {
  if (query.stale !== undefined && query.consistent !== undefined) {
    throw new MeshHttpError(400, "Cannot specify ?stale with ?consistent, conflicting semantics.");
  }
  const wait = context.blocking ?? waitOf(query);
  const reply = (result: Indexed<T>): BlockingReply<B> => ({ status: 200, body: render(result.value, result.index), headers: indexHeaders(result.index) });
  if (!wait.index) return reply(run());
  return context.whileConnected((signal) => blockingQuery(source, { ...wait, signal }, run)).then(reply);
}

/** An ACL read of one table as a blocking query: woken by writes of that table. */
function answerAcl<T>(
  context: MeshContext,
  query: Pick<BlockingQuery, "stale" | "consistent" | "wait" | "index">,
  table: AclTableName,
  read: (authorizer: MeshContext["caller"]["authorizer"]) => T,
): BlockingReply<T> | Promise<BlockingReply<T>> {
  const { acl } = context.service;
  return answerBlocking(context, query, () => acl.indexed(table, () => read(context.caller.authorizer)), (value) => value, acl);
}

/** The headers of a blocking read's answer: its index, and a leader that is known and in contact. */
function indexHeaders(index: number): ReplyHeaders {
  return { "X-Mesh-Index": String(index), "X-Mesh-KnownLeader": "true", "X-Mesh-LastContact": "0" };
}

/** `wait` and `index` from the validated query, when the app did not check them first. */
function waitOf(query: Pick<BlockingQuery, "wait" | "index">): BlockingWait {
  return checkedWait(query.wait, query.index === undefined ? undefined : String(query.index));
}

/** A duration string or number of nanoseconds (as Go clients send it), as a duration string. */
function checkedDuration(field: string, value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const text = durationText(value);
    parseDuration(text);
    return text;
  } catch (error) {
    throw new MeshHttpError(400, `Request decoding failed: ${field}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `cas` as a number; with validation off (the benchmark's baseline) the query is the raw text. */
function casOf(cas: number | undefined): number | undefined {
  return cas === undefined || String(cas) === "" ? undefined : Number(cas);
}

/** A query value that is a non-empty string, or undefined (absent, empty, or repeated). */
function text(value: string | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
