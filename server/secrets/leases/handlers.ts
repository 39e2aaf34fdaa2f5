// Handlers of the lease operations (PUT /sys/leases/renew, /revoke, /lookup, by prefix; the older
// paths /sys/renew, /sys/revoke, /sys/revoke-prefix, /sys/revoke-force; the lease id in the path),
// with the real system's statuses and words (vault/logical_system.go handleRenew, handleRevoke,
// handleLeaseLookup, handleRevokePrefixCommon).
import type { SecretsCluster } from "../cluster.ts";
import { InvalidRequestError } from "../errors.ts";
import { envelope, NO_CONTENT, nothing, type SecretsHandlerTable } from "../handlers/types.ts";
import { leasesOf } from "./index.ts";
import { lenientBoolean, lenientDuration } from "../framework-fields.ts";
import type { Schemas } from "../wire.ts";

/** A list answer; none is the real server's 404 with no message. */
function keysAnswer(cluster: SecretsCluster, keys: string[]) {
  if (keys.length === 0) return nothing();
  return { status: 200 as const, body: envelope(cluster, { keys }) };
}

/** The lease id of a body: the description requires it; the real handler refuses an empty one. */
function leaseIdOf(body: { lease_id: string }): string {
  if (body.lease_id === "") throw new InvalidRequestError("lease_id must be specified");
  return body.lease_id;
}

/** As the real system's lazy revocation: accepted now, done in the background. */
const ACCEPTED = { status: 202 } as const;

/**
 * The lease id of a body that may name one, else the one in the path: the body's wins when it is
 * not empty (vault/logical_system.go handleRenew, handleRevoke read `lease_id`, then `url_lease_id`).
 */
function leaseIdOr(body: { lease_id?: string | null } | null | undefined, inPath: string): string {
  return body?.lease_id || inPath;
}

async function renew(cluster: SecretsCluster, leaseId: string, increment: Schemas["LenientDuration"] | null | undefined) {
  const renewed = await leasesOf(cluster).renew(leaseId, lenientDuration(increment ?? undefined, 0));
  return {
    status: 200 as const,
    body: {
      ...envelope(cluster, null),
      lease_id: renewed.lease_id,
      renewable: renewed.renewable,
      lease_duration: renewed.lease_duration,
      warnings: renewed.warnings.length > 0 ? renewed.warnings : null,
    },
  };
}

async function revoke(cluster: SecretsCluster, leaseId: string, sync: Schemas["LenientBoolean"] | undefined) {
  const leases = leasesOf(cluster);
  if (!lenientBoolean(sync, true)) {
    leases.revoke(leaseId).catch((error: unknown) => console.error(`secrets: revoking lease ${leaseId}: ${String(error instanceof Error ? error.message : error)}`));
    return ACCEPTED;
  }
  await leases.revoke(leaseId);
  return NO_CONTENT;
}

async function revokePrefix(cluster: SecretsCluster, prefix: string, sync: Schemas["LenientBoolean"] | undefined) {
  const leases = leasesOf(cluster);
  if (!lenientBoolean(sync, true)) {
    leases.revokePrefix(prefix).catch((error: unknown) => console.error(`secrets: revoking leases under ${prefix}: ${String(error instanceof Error ? error.message : error)}`));
    return ACCEPTED;
  }
  await leases.revokePrefix(prefix);
  return NO_CONTENT;
}

async function forceRevokePrefix(cluster: SecretsCluster, prefix: string) {
  await leasesOf(cluster).revokePrefix(prefix, { force: true });
  return NO_CONTENT;
}

export const leaseHandlers = {
  renewLease: ({ body }, { cluster }) => renew(cluster, leaseIdOf(body), body.increment),
  // The older path and the forms with the id in the path are the same operation
  // (vault/logical_system_paths.go leasePaths: `(leases/)?renew` + OptionalParamRegex("url_lease_id")).
  renewLeaseLegacy: ({ body }, { cluster }) => renew(cluster, leaseIdOf(body), body.increment),
  renewLeaseById: ({ params, body }, { cluster }) => renew(cluster, leaseIdOr(body, params.url_lease_id), body.increment),
  renewLeaseByIdLegacy: ({ params, body }, { cluster }) => renew(cluster, leaseIdOr(body, params.url_lease_id), body.increment),

  revokeLease: ({ body }, { cluster }) => revoke(cluster, leaseIdOf(body), body.sync),
  revokeLeaseLegacy: ({ body }, { cluster }) => revoke(cluster, leaseIdOf(body), body.sync),
  revokeLeaseById: ({ params, body }, { cluster }) => revoke(cluster, leaseIdOr(body, params.url_lease_id), body.sync),
  revokeLeaseByIdLegacy: ({ params, body }, { cluster }) => revoke(cluster, leaseIdOr(body, params.url_lease_id), body.sync),

  lookupLease: ({ body }, { cluster }) => ({ status: 200, body: envelope(cluster, leasesOf(cluster).lookup(leaseIdOf(body))) }),

  listLeases: (_input, { cluster }) => keysAnswer(cluster, leasesOf(cluster).children("")),

  listLeasesUnderPrefix: ({ params }, { cluster }) => keysAnswer(cluster, leasesOf(cluster).children(params.prefix)),

  revokeLeasePrefix: ({ params: { prefix }, body }, { cluster }) => revokePrefix(cluster, prefix, body.sync),
  revokeLeasePrefixLegacy: ({ params: { prefix }, body }, { cluster }) => revokePrefix(cluster, prefix, body.sync),

  forceRevokeLeasePrefix: ({ params }, { cluster }) => forceRevokePrefix(cluster, params.prefix),
  forceRevokeLeasePrefixLegacy: ({ params }, { cluster }) => forceRevokePrefix(cluster, params.prefix),
} satisfies Partial<SecretsHandlerTable>;
