// Handlers of the lease operations (PUT /sys/leases/renew, /revoke, /lookup), with the real
// system's statuses and words (vault/logical_system.go handleRenew, handleRevoke, handleLeaseLookup).
import { parseDurationSeconds } from "../../shared/go-duration.ts";
import type { SecretsCluster } from "../cluster.ts";
import { InvalidRequestError } from "../errors.ts";
import { envelope, NO_CONTENT, nothing, type SecretsHandlerTable } from "../handlers/types.ts";
import { leasesOf } from "./index.ts";

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

export const leaseHandlers = {
  renewLease: async ({ body }, { cluster }) => {
    const leaseId = leaseIdOf(body);
    let increment = 0;
    if (body.increment !== undefined) {
      const parsed = parseDurationSeconds(body.increment, "increment");
      if ("error" in parsed) throw new InvalidRequestError(parsed.error);
      increment = parsed.value;
    }
    const renewed = await leasesOf(cluster).renew(leaseId, increment);
    return {
      status: 200,
      body: {
        ...envelope(cluster, null),
        lease_id: renewed.lease_id,
        renewable: renewed.renewable,
        lease_duration: renewed.lease_duration,
        warnings: renewed.warnings.length > 0 ? renewed.warnings : null,
      },
    };
  },

  revokeLease: async ({ body }, { cluster }) => {
    const leaseId = leaseIdOf(body);
    const leases = leasesOf(cluster);
    if (body.sync === false) {
      leases.revoke(leaseId).catch((error: unknown) => console.error(`secrets: revoking lease ${leaseId}: ${String(error instanceof Error ? error.message : error)}`));
      return ACCEPTED;
    }
    await leases.revoke(leaseId);
    return NO_CONTENT;
  },

  lookupLease: ({ body }, { cluster }) => ({ status: 200, body: envelope(cluster, leasesOf(cluster).lookup(leaseIdOf(body))) }),

  listLeases: (_input, { cluster }) => keysAnswer(cluster, leasesOf(cluster).children("")),

  listLeasesUnderPrefix: ({ params }, { cluster }) => keysAnswer(cluster, leasesOf(cluster).children(params.prefix)),

  revokeLeasePrefix: async ({ params: { prefix }, body }, { cluster }) => {
    const leases = leasesOf(cluster);
    if (body.sync === false) {
      leases.revokePrefix(prefix).catch((error: unknown) => console.error(`secrets: revoking leases under ${prefix}: ${String(error instanceof Error ? error.message : error)}`));
      return ACCEPTED;
    }
    await leases.revokePrefix(prefix);
    return NO_CONTENT;
  },

  forceRevokeLeasePrefix: async ({ params }, { cluster }) => {
    await leasesOf(cluster).revokePrefix(params.prefix, { force: true });
    return NO_CONTENT;
  },
} satisfies Partial<SecretsHandlerTable>;
