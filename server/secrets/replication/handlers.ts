// Handlers of the 35 replication operations (/sys/replication/dr/* and /sys/replication/performance/*),
// keyed by operationId: call the cluster's replication, answer. State changes run one at a time
// through the manager's queue.
import type { SecretsCluster } from "../cluster.ts";
import { envelope, NO_CONTENT, type RequestBody, type SecretsHandlerTable } from "../handlers/types.ts";
import { mountFilterModeToPaths, pathsFilterModeToMount } from "./domain/filter.ts";
import type { ReplicationMode } from "./domain/states.ts";
import { lenientBoolean } from "../framework-fields.ts";

const replication = (cluster: SecretsCluster, mode: ReplicationMode) => cluster.replication.mode(mode);

/** Runs a state change in the manager's queue; done, nothing to say. */
async function changed(cluster: SecretsCluster, run: () => unknown): Promise<typeof NO_CONTENT> {
  await cluster.replication.serialized(run);
  return NO_CONTENT;
}

function status(cluster: SecretsCluster, mode: ReplicationMode) {
  return { status: 200 as const, body: envelope(cluster, replication(cluster, mode).status()) };
}

/** An activation token: encrypted to the secondary's public key when it gave one, else response-wrapped. */
async function secondaryToken(cluster: SecretsCluster, mode: ReplicationMode, body: RequestBody<"createDrSecondaryToken" | "createPerformanceSecondaryToken">) {
  const issued = await cluster.replication.serialized(() => replication(cluster, mode).secondaryToken(body));
  const common = { request_id: cluster.newRequestId(), lease_id: "", lease_duration: 0, renewable: false, warnings: null };
  if (issued.type === "encrypted") return { status: 200 as const, body: { ...common, data: { token: issued.token }, wrap_info: null } };
  return {
    status: 200 as const,
    body: { ...common, data: null, wrap_info: { token: issued.token, ttl: issued.ttlSeconds, creation_time: issued.creationTime, wrapped_accessor: "" } },
  };
}

async function publicKey(cluster: SecretsCluster, mode: ReplicationMode) {
  const key = await cluster.replication.serialized(() => replication(cluster, mode).generatePublicKey());
  return { status: 200 as const, body: envelope(cluster, { secondary_public_key: key }) };
}

async function promote(cluster: SecretsCluster, mode: ReplicationMode, body: RequestBody<"promoteDrSecondary" | "promotePerformanceSecondary">) {
  await cluster.replication.serialized(() => replication(cluster, mode).promote({ ...body, force: lenientBoolean(body.force, false) }));
  const progress = { complete: true, progress: 0, required: 0 };
  return { status: 200 as const, body: { ...progress, ...envelope(cluster, progress) } };
}

/** A secondary's paths filter. */
function pathsFilter(cluster: SecretsCluster, id: string) {
  const { mode, paths } = replication(cluster, "performance").readPathsFilter(id);
  return { status: 200 as const, body: envelope(cluster, { mode, paths }) };
}

/** A secondary's paths filter in the mount filter's terms. */
function mountFilter(cluster: SecretsCluster, id: string) {
  const { mode, paths } = replication(cluster, "performance").readPathsFilter(id);
  return { status: 200 as const, body: envelope(cluster, { mode: pathsFilterModeToMount(mode), paths }) };
}

export const replicationHandlers = {
  readDrReplicationStatus: (_input, { cluster }) => status(cluster, "dr"),
  enableDrPrimary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "dr").enablePrimary(body)),
  demoteDrPrimary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "dr").demote()),
  disableDrPrimary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "dr").disablePrimary()),
  createDrSecondaryToken: ({ body }, { cluster }) => secondaryToken(cluster, "dr", body),
  revokeDrSecondary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "dr").revokeSecondary(body)),
  generateDrSecondaryPublicKey: (_input, { cluster }) => publicKey(cluster, "dr"),
  enableDrSecondary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "dr").enableSecondary(body)),
  promoteDrSecondary: ({ body }, { cluster }) => promote(cluster, "dr", body),
  disableDrSecondary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "dr").disableSecondary()),
  updateDrSecondaryPrimary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "dr").updatePrimary(body)),

  readDrOperationTokenAttempt: (_input, { cluster }) => ({ status: 200, body: cluster.replication.operationTokens.status() }),
  startDrOperationTokenAttempt: async ({ body }, { cluster }) => ({ status: 200, body: await cluster.replication.operationTokens.start(body.pgp_key || undefined, body.otp || undefined) }),
  cancelDrOperationTokenAttempt: async (_input, { cluster }) => {
    await cluster.replication.operationTokens.cancel();
    return NO_CONTENT;
  },
  submitDrOperationTokenShare: async ({ body: { key, nonce } }, { cluster }) => ({ status: 200, body: await cluster.replication.operationTokens.submitShare(key, nonce) }),
  deleteDrOperationToken: ({ body }, { cluster }) => changed(cluster, () => cluster.replication.operationTokens.delete(body.dr_operation_token)),

  readPerformanceReplicationStatus: (_input, { cluster }) => status(cluster, "performance"),
  enablePerformancePrimary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "performance").enablePrimary(body)),
  demotePerformancePrimary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "performance").demote()),
  disablePerformancePrimary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "performance").disablePrimary()),
  createPerformanceSecondaryToken: ({ body }, { cluster }) => secondaryToken(cluster, "performance", body),
  revokePerformanceSecondary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "performance").revokeSecondary(body)),
  generatePerformanceSecondaryPublicKey: (_input, { cluster }) => publicKey(cluster, "performance"),
  enablePerformanceSecondary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "performance").enableSecondary(body)),
  promotePerformanceSecondary: ({ body }, { cluster }) => promote(cluster, "performance", body),
  disablePerformanceSecondary: (_input, { cluster }) => changed(cluster, () => replication(cluster, "performance").disableSecondary()),
  updatePerformanceSecondaryPrimary: ({ body }, { cluster }) => changed(cluster, () => replication(cluster, "performance").updatePrimary(body)),

  writePerformancePathsFilter: ({ params, body: { mode, paths } }, { cluster }) =>
    changed(cluster, () => replication(cluster, "performance").writePathsFilter(params.id, { mode, paths })),
  readPerformancePathsFilter: ({ params }, { cluster }) => pathsFilter(cluster, params.id),
  deletePerformancePathsFilter: ({ params }, { cluster }) => changed(cluster, () => replication(cluster, "performance").deletePathsFilter(params.id)),
  readPerformancePrimaryDynamicFilter: ({ params }, { cluster }) => ({ status: 200, body: envelope(cluster, replication(cluster, "performance").primaryDynamicFilter(params.id)) }),
  readPerformanceSecondaryDynamicFilter: ({ params }, { cluster }) => ({ status: 200, body: envelope(cluster, replication(cluster, "performance").secondaryDynamicFilter(params.id)) }),
  writePerformanceMountFilter: ({ params, body: { mode, paths } }, { cluster }) =>
    changed(cluster, () => replication(cluster, "performance").writePathsFilter(params.id, { mode: mountFilterModeToPaths(mode ?? "whitelist"), paths })),
  readPerformanceMountFilter: ({ params }, { cluster }) => mountFilter(cluster, params.id),
  deletePerformanceMountFilter: ({ params }, { cluster }) => changed(cluster, () => replication(cluster, "performance").deletePathsFilter(params.id)),
} satisfies Partial<SecretsHandlerTable>;
