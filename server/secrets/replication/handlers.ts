// Handlers of the 35 replication operations (/sys/replication/dr/* and /sys/replication/performance/*),
// keyed by operationId: parse, call the cluster's replication, answer. State changes run one at a
// time through the manager's queue.
import type { Request, Response } from "express";
import type { operations } from "../../../generated/secrets/schema.ts";
import type { SecretsCluster } from "../cluster.ts";
import { envelope, noContent, type Handler, type RequestBody } from "../handlers/types.ts";
import { mountFilterModeToPaths, pathsFilterModeToMount, type MountFilterMode } from "./domain/filter.ts";
import type { ReplicationMode } from "./domain/states.ts";
import type { ActivationRequest } from "./mode.ts";

type Body<O extends keyof operations> = RequestBody<O>;

type DrOperation =
  | "readDrReplicationStatus"
  | "enableDrPrimary"
  | "demoteDrPrimary"
  | "disableDrPrimary"
  | "createDrSecondaryToken"
  | "revokeDrSecondary"
  | "generateDrSecondaryPublicKey"
  | "enableDrSecondary"
  | "promoteDrSecondary"
  | "disableDrSecondary"
  | "updateDrSecondaryPrimary"
  | "readDrOperationTokenAttempt"
  | "startDrOperationTokenAttempt"
  | "cancelDrOperationTokenAttempt"
  | "submitDrOperationTokenShare"
  | "deleteDrOperationToken";

type PerformanceOperation =
  | "readPerformanceReplicationStatus"
  | "enablePerformancePrimary"
  | "demotePerformancePrimary"
  | "disablePerformancePrimary"
  | "createPerformanceSecondaryToken"
  | "revokePerformanceSecondary"
  | "generatePerformanceSecondaryPublicKey"
  | "enablePerformanceSecondary"
  | "promotePerformanceSecondary"
  | "disablePerformanceSecondary"
  | "updatePerformanceSecondaryPrimary"
  | "writePerformancePathsFilter"
  | "readPerformancePathsFilter"
  | "deletePerformancePathsFilter"
  | "readPerformancePrimaryDynamicFilter"
  | "readPerformanceSecondaryDynamicFilter"
  | "writePerformanceMountFilter"
  | "readPerformanceMountFilter"
  | "deletePerformanceMountFilter";

const replication = (cluster: SecretsCluster, mode: ReplicationMode) => cluster.replication.mode(mode);

/** Runs a state change in the manager's queue and answers 204. */
const change =
  (run: (cluster: SecretsCluster, req: Request) => unknown): Handler =>
  async (cluster, req, res) => {
    await cluster.replication.serialized(() => run(cluster, req));
    noContent(res);
  };

function status(mode: ReplicationMode): Handler {
  return (cluster, _req, res) => {
    res.json(envelope(cluster, replication(cluster, mode).status()));
  };
}

function secondaryToken(mode: ReplicationMode): Handler {
  return async (cluster, req, res) => {
    const issued = await cluster.replication.serialized(() => replication(cluster, mode).secondaryToken(req.body as Body<"createDrSecondaryToken">));
    const common = { request_id: cluster.newRequestId(), lease_id: "", lease_duration: 0, renewable: false, warnings: null };
    if (issued.type === "encrypted") {
      res.json({ ...common, data: { token: issued.token }, wrap_info: null });
      return;
    }
    res.json({
      ...common,
      data: null,
      wrap_info: { token: issued.token, ttl: issued.ttlSeconds, creation_time: issued.creationTime, wrapped_accessor: "" },
    });
  };
}

function publicKey(mode: ReplicationMode): Handler {
  return async (cluster, _req, res) => {
    const key = await cluster.replication.serialized(() => replication(cluster, mode).generatePublicKey());
    res.json(envelope(cluster, { secondary_public_key: key }));
  };
}

function promote(mode: ReplicationMode): Handler {
  return async (cluster, req, res) => {
    await cluster.replication.serialized(() => replication(cluster, mode).promote(req.body as Body<"promoteDrSecondary">));
    const progress = { complete: true, progress: 0, required: 0 };
    res.json({ ...progress, ...envelope(cluster, progress) });
  };
}

const activation = (req: Request) => req.body as ActivationRequest & { dr_operation_token?: string };

function modeHandlers(mode: ReplicationMode) {
  return {
    status: status(mode),
    enablePrimary: change((cluster, req) => replication(cluster, mode).enablePrimary(req.body as Body<"enableDrPrimary">)),
    demote: change((cluster) => replication(cluster, mode).demote()),
    disablePrimary: change((cluster) => replication(cluster, mode).disablePrimary()),
    secondaryToken: secondaryToken(mode),
    revokeSecondary: change((cluster, req) => replication(cluster, mode).revokeSecondary(req.body as Body<"revokeDrSecondary">)),
    publicKey: publicKey(mode),
    enableSecondary: change((cluster, req) => replication(cluster, mode).enableSecondary(activation(req))),
    promote: promote(mode),
    disableSecondary: change((cluster) => replication(cluster, mode).disableSecondary()),
    updatePrimary: change((cluster, req) => replication(cluster, mode).updatePrimary(activation(req))),
  };
}

const dr = modeHandlers("dr");
const performance = modeHandlers("performance");
const filterId = (req: Request) => String(req.params.id);

function respondFilter(cluster: SecretsCluster, res: Response, mount: boolean, id: string): void {
  const filter = replication(cluster, "performance").readPathsFilter(id);
  res.json(envelope(cluster, { mode: mount ? pathsFilterModeToMount(filter.mode) : filter.mode, paths: filter.paths }));
}

export const replicationHandlers = {
  readDrReplicationStatus: dr.status,
  enableDrPrimary: dr.enablePrimary,
  demoteDrPrimary: dr.demote,
  disableDrPrimary: dr.disablePrimary,
  createDrSecondaryToken: dr.secondaryToken,
  revokeDrSecondary: dr.revokeSecondary,
  generateDrSecondaryPublicKey: dr.publicKey,
  enableDrSecondary: dr.enableSecondary,
  promoteDrSecondary: dr.promote,
  disableDrSecondary: dr.disableSecondary,
  updateDrSecondaryPrimary: dr.updatePrimary,

  readDrOperationTokenAttempt: (cluster, _req, res) => {
    res.json(cluster.replication.operationTokens.status());
  },
  startDrOperationTokenAttempt: async (cluster, req, res) => {
    const { pgp_key } = req.body as Body<"startDrOperationTokenAttempt">;
    res.json(await cluster.replication.operationTokens.start(pgp_key || undefined));
  },
  cancelDrOperationTokenAttempt: async (cluster, _req, res) => {
    await cluster.replication.operationTokens.cancel();
    noContent(res);
  },
  submitDrOperationTokenShare: async (cluster, req, res) => {
    const { key, nonce } = req.body as Body<"submitDrOperationTokenShare">;
    res.json(await cluster.replication.operationTokens.submitShare(key, nonce));
  },
  deleteDrOperationToken: change((cluster, req) => cluster.replication.operationTokens.delete((req.body as Body<"deleteDrOperationToken">).dr_operation_token)),

  readPerformanceReplicationStatus: performance.status,
  enablePerformancePrimary: performance.enablePrimary,
  demotePerformancePrimary: performance.demote,
  disablePerformancePrimary: performance.disablePrimary,
  createPerformanceSecondaryToken: performance.secondaryToken,
  revokePerformanceSecondary: performance.revokeSecondary,
  generatePerformanceSecondaryPublicKey: performance.publicKey,
  enablePerformanceSecondary: performance.enableSecondary,
  promotePerformanceSecondary: performance.promote,
  disablePerformanceSecondary: performance.disableSecondary,
  updatePerformanceSecondaryPrimary: performance.updatePrimary,

  writePerformancePathsFilter: change((cluster, req) => {
    const { mode, paths } = req.body as Body<"writePerformancePathsFilter">;
    replication(cluster, "performance").writePathsFilter(filterId(req), { mode, paths });
  }),
  readPerformancePathsFilter: (cluster, req, res) => respondFilter(cluster, res, false, filterId(req)),
  deletePerformancePathsFilter: change((cluster, req) => replication(cluster, "performance").deletePathsFilter(filterId(req))),
  readPerformancePrimaryDynamicFilter: (cluster, req, res) => {
    res.json(envelope(cluster, replication(cluster, "performance").primaryDynamicFilter(filterId(req))));
  },
  readPerformanceSecondaryDynamicFilter: (cluster, req, res) => {
    res.json(envelope(cluster, replication(cluster, "performance").secondaryDynamicFilter(filterId(req))));
  },
  writePerformanceMountFilter: change((cluster, req) => {
    const { mode, paths } = req.body as Body<"writePerformanceMountFilter">;
    replication(cluster, "performance").writePathsFilter(filterId(req), { mode: mountFilterModeToPaths((mode ?? "whitelist") as MountFilterMode), paths });
  }),
  readPerformanceMountFilter: (cluster, req, res) => respondFilter(cluster, res, true, filterId(req)),
  deletePerformanceMountFilter: change((cluster, req) => replication(cluster, "performance").deletePathsFilter(filterId(req))),
} satisfies Record<DrOperation | PerformanceOperation, Handler>;
