// HTTP handlers of the mesh, keyed by operationId: parse the request, call the service, answer.
import type { Request, Response } from "express";
import type { operations } from "../../../generated/mesh/schema.ts";
import type { LegacyTokenInput, PolicyInput, RoleInput, TokenInput } from "../acl-service.ts";
import { BlockingParamError, blockingQuery, parseWait } from "../blocking.ts";
import { parseDuration } from "../../shared/go-duration.ts";
import type { ConfigEntry, EntryKind } from "../domain/entries.ts";
import { MeshHttpError } from "../errors.ts";
import { durationText } from "../domain/durations.ts";
import type { Caller, ChainOverrides, Indexed, MeshService } from "../service.ts";

export type Handler = (service: MeshService, req: Request, res: Response) => void | Promise<void>;

export const meshHandlers = {
  readDiscoveryChain: (service, req, res) => readChain(service, req, res, {}),

  readDiscoveryChainWithOverrides: (service, req, res) => {
    const body = (req.body ?? {}) as {
      OverrideConnectTimeout?: string | number;
      OverrideProtocol?: string;
      OverrideMeshGateway?: ChainOverrides["overrideMeshGateway"];
    };
    return readChain(service, req, res, {
      overrideConnectTimeout: checkedDuration("OverrideConnectTimeout", body.OverrideConnectTimeout),
      overrideProtocol: body.OverrideProtocol,
      overrideMeshGateway: body.OverrideMeshGateway,
    });
  },

  applyConfigEntry: (service, req, res) => {
    res.json(service.applyEntry(callerOf(service, req), req.body as ConfigEntry, casOf(req)));
  },

  readConfigEntry: async (service, req, res) => {
    const caller = callerOf(service, req);
    const kind = req.params.kind as EntryKind;
    const name = String(req.params.name);
    await answerBlocking(service, req, res, () => service.readEntry(caller, kind, name));
  },

  listConfigEntries: async (service, req, res) => {
    const caller = callerOf(service, req);
    await answerBlocking(service, req, res, () => service.listEntries(caller, req.params.kind as EntryKind));
  },

  deleteConfigEntry: (service, req, res) => {
    const cas = casOf(req);
    const deleted = service.deleteEntry(callerOf(service, req), req.params.kind as EntryKind, String(req.params.name), cas);
    // The real system answers the boolean only for check-and-set deletes.
    res.json(cas === undefined ? {} : deleted);
  },

  listAclPolicies: (service, req, res) => {
    res.json(service.acl.listPolicies(callerOf(service, req).authorizer));
  },
  createAclPolicy: (service, req, res) => {
    res.json(service.acl.createPolicy(callerOf(service, req).authorizer, req.body as PolicyInput));
  },
  readAclPolicy: (service, req, res) => {
    res.json(service.acl.readPolicy(callerOf(service, req).authorizer, String(req.params.id)));
  },
  readAclPolicyByName: (service, req, res) => {
    res.json(service.acl.readPolicyByName(callerOf(service, req).authorizer, String(req.params.name)));
  },
  updateAclPolicy: (service, req, res) => {
    res.json(service.acl.updatePolicy(callerOf(service, req).authorizer, String(req.params.id), req.body as PolicyInput));
  },
  deleteAclPolicy: (service, req, res) => {
    service.acl.deletePolicy(callerOf(service, req).authorizer, String(req.params.id));
    res.json(true);
  },
  listAclRoles: (service, req, res) => {
    res.json(service.acl.listRoles(callerOf(service, req).authorizer, queryString(req, "policy")));
  },
  createAclRole: (service, req, res) => {
    res.json(service.acl.createRole(callerOf(service, req).authorizer, req.body as RoleInput));
  },
  readAclRole: (service, req, res) => {
    res.json(service.acl.readRole(callerOf(service, req).authorizer, String(req.params.id)));
  },
  readAclRoleByName: (service, req, res) => {
    res.json(service.acl.readRoleByName(callerOf(service, req).authorizer, String(req.params.name)));
  },
  updateAclRole: (service, req, res) => {
    res.json(service.acl.updateRole(callerOf(service, req).authorizer, String(req.params.id), req.body as RoleInput));
  },
  deleteAclRole: (service, req, res) => {
    service.acl.deleteRole(callerOf(service, req).authorizer, String(req.params.id));
    res.json(true);
  },
  listAclTokens: (service, req, res) => {
    const filter = { policy: queryString(req, "policy"), role: queryString(req, "role"), authMethod: queryString(req, "authmethod") };
    res.json(service.acl.listTokens(callerOf(service, req).authorizer, filter));
  },
  createAclToken: (service, req, res) => {
    const caller = callerOf(service, req);
    res.json(service.acl.createToken(caller.authorizer, req.body as TokenInput, caller.namespace));
  },
  readAclTokenSelf: (service, req, res) => {
    res.json(service.acl.readTokenSelf(tokenOf(req)));
  },
  readAclToken: (service, req, res) => {
    res.json(service.acl.readToken(callerOf(service, req).authorizer, String(req.params.accessor_id)));
  },
  updateAclToken: (service, req, res) => {
    res.json(service.acl.updateToken(callerOf(service, req).authorizer, String(req.params.accessor_id), req.body as TokenInput));
  },
  cloneAclToken: (service, req, res) => {
    const body = (req.body ?? {}) as { Description?: string };
    res.json(service.acl.cloneToken(callerOf(service, req).authorizer, String(req.params.accessor_id), body));
  },
  deleteAclToken: (service, req, res) => {
    service.acl.deleteToken(callerOf(service, req).authorizer, String(req.params.accessor_id));
    res.json(true);
  },
  listLegacyAclTokens: (service, req, res) => {
    res.json(service.acl.listLegacyTokens(callerOf(service, req).authorizer));
  },
  createLegacyAclToken: (service, req, res) => {
    res.json(service.acl.createLegacyToken(callerOf(service, req).authorizer, (req.body ?? {}) as LegacyTokenInput));
  },
  updateLegacyAclToken: (service, req, res) => {
    res.json(service.acl.updateLegacyToken(callerOf(service, req).authorizer, (req.body ?? {}) as LegacyTokenInput));
  },
  cloneLegacyAclToken: (service, req, res) => {
    res.json(service.acl.cloneLegacyToken(callerOf(service, req).authorizer, String(req.params.id)));
  },
  readLegacyAclToken: (service, req, res) => {
    res.json(service.acl.legacyTokenInfo(callerOf(service, req).authorizer, String(req.params.id)));
  },
  destroyLegacyAclToken: (service, req, res) => {
    service.acl.destroyLegacyToken(callerOf(service, req).authorizer, String(req.params.id));
    res.json(true);
  },
  readAgentSelf: (service, req, res) => {
    res.json(service.agentSelf(callerOf(service, req)));
  },
} satisfies Record<keyof operations, Handler>;

function readChain(service: MeshService, req: Request, res: Response, overrides: ChainOverrides): Promise<void> {
  const caller = callerOf(service, req);
  const serviceName = String(req.params.service_name);
  const compileDc = queryString(req, "compile-dc");
  return answerBlocking(
    service,
    req,
    res,
    () => service.readChain(caller, serviceName, compileDc, overrides),
    (chain) => ({ Chain: chain }),
  );
}

async function answerBlocking<T>(
  service: MeshService,
  req: Request,
  res: Response,
  run: () => Indexed<T>,
  render: (value: T) => unknown = (value) => value,
): Promise<void> {
  if ("stale" in req.query && "consistent" in req.query) {
    throw new MeshHttpError(400, "Cannot specify ?stale with ?consistent, conflicting semantics.");
  }
  // One listener for the whole query, however often it wakes up before its index is reached.
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once("close", onClose);
  let result: Indexed<T>;
  try {
    result = await blockingQuery(service.store, { ...blockingParamsOf(req), signal: gone.signal }, run);
  } finally {
    res.off("close", onClose);
  }
  if (gone.signal.aborted) return;
  res.set({
    "X-Mesh-Index": String(result.index),
    "X-Mesh-KnownLeader": "true",
    "X-Mesh-LastContact": "0",
  });
  res.json(render(result.value));
}

/** `wait` and `index`, checked by the app before validation (see blockingParamsGuard). */
function blockingParamsOf(req: Request): { waitMs: number; index?: number } {
  const checked = req.res?.locals.blocking as ReturnType<typeof parseWait> | undefined;
  if (checked) return checked;
  try {
    return parseWait(rawQuery(req, "wait"), rawQuery(req, "index"));
  } catch (error) {
    if (error instanceof BlockingParamError) throw new MeshHttpError(400, error.message);
    throw error;
  }
}

function rawQuery(req: Request, name: string): string | undefined {
  const value = req.query[name] as unknown;
  return value === undefined ? undefined : String(value);
}

/** Refuses a bad `wait` or `index` with the agent's own 400 before anything else reads them. */
export function checkBlockingParams(req: Request, res: Response): void {
  if (req.method !== "GET" && req.method !== "POST") return;
  if (req.query.wait === undefined && req.query.index === undefined) return;
  res.locals.blocking = blockingParamsOf(req);
}

/** A duration string or number of nanoseconds (as Go clients send it), as a duration string. */
function checkedDuration(field: string, value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const text = durationText(value) as string;
    parseDuration(text);
    return text;
  } catch (error) {
    throw new MeshHttpError(400, `Request decoding failed: ${field}: ${(error as Error).message}`);
  }
}

/** The token as the agent's parseToken finds it: `?token=`, then the token header, then a bearer token. */
export function tokenOf(req: Request): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "")?.[1];
  return queryString(req, "token") || req.get("x-mesh-token") || bearer;
}

function callerOf(service: MeshService, req: Request): Caller {
  return service.identify(tokenOf(req), queryString(req, "ns"), req.get("x-mesh-namespace"));
}

function casOf(req: Request): number | undefined {
  return queryInteger(req, "cas");
}

function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The validator has checked (and may have coerced) integer parameters already. */
function queryInteger(req: Request, name: string): number | undefined {
  const value = req.query[name] as unknown;
  return value === undefined || value === "" ? undefined : Number(value);
}
