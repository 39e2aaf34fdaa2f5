// Handlers of the lease operations (PUT /sys/leases/renew, /revoke, /lookup), with the real
// system's statuses and words (vault/logical_system.go handleRenew, handleRevoke, handleLeaseLookup).
import type { Request } from "express";
import { parseDurationSeconds } from "../../shared/go-duration.ts";
import { InvalidRequestError } from "../errors.ts";
import { envelope, noContent, type Handler } from "../handlers/types.ts";
import { leasesOf } from "./index.ts";

type LeaseOperation = "renewLease" | "revokeLease" | "lookupLease" | "listLeases" | "listLeasesUnderPrefix" | "revokeLeasePrefix" | "forceRevokeLeasePrefix";

/** A list answer; none is the real server's 404 with no message. */
function keysAnswer(cluster: Parameters<Handler>[0], res: Parameters<Handler>[2], keys: string[]): void {
  if (keys.length === 0) {
    res.status(404).json({ errors: [] });
    return;
  }
  res.json(envelope(cluster, { keys }));
}

function leaseIdOf(req: Request): string {
  const raw = (req.body ?? {}) as { lease_id?: unknown };
  const id = typeof raw.lease_id === "string" ? raw.lease_id : "";
  if (id === "") throw new InvalidRequestError("lease_id must be specified");
  return id;
}

export const leaseHandlers = {
  renewLease: async (cluster, req, res) => {
    const leaseId = leaseIdOf(req);
    const raw = (req.body as { increment?: unknown }).increment;
    let increment = 0;
    if (raw !== undefined && raw !== null) {
      const parsed = parseDurationSeconds(raw, "increment");
      if ("error" in parsed) throw new InvalidRequestError(parsed.error);
      increment = parsed.value;
    }
    const renewed = await leasesOf(cluster).renew(leaseId, increment);
    res.json({
      ...envelope(cluster, null),
      lease_id: renewed.lease_id,
      renewable: renewed.renewable,
      lease_duration: renewed.lease_duration,
      warnings: renewed.warnings.length > 0 ? renewed.warnings : null,
    });
  },

  revokeLease: async (cluster, req, res) => {
    const leaseId = leaseIdOf(req);
    const leases = leasesOf(cluster);
    if ((req.body as { sync?: unknown }).sync === false) {
      // As the real system's lazy revocation: accepted now, done in the background.
      leases.revoke(leaseId).catch((error: unknown) => console.error(`secrets: revoking lease ${leaseId}: ${(error as Error).message}`));
      res.status(202).end();
      return;
    }
    await leases.revoke(leaseId);
    noContent(res);
  },

  lookupLease: (cluster, req, res) => {
    res.json(envelope(cluster, leasesOf(cluster).lookup(leaseIdOf(req))));
  },

  listLeases: (cluster, _req, res) => {
    keysAnswer(cluster, res, leasesOf(cluster).children(""));
  },

  listLeasesUnderPrefix: (cluster, req, res) => {
    keysAnswer(cluster, res, leasesOf(cluster).children(String(req.params.prefix)));
  },

  revokeLeasePrefix: async (cluster, req, res) => {
    const prefix = String(req.params.prefix);
    const leases = leasesOf(cluster);
    if ((req.body as { sync?: unknown } | undefined)?.sync === false) {
      leases.revokePrefix(prefix).catch((error: unknown) => console.error(`secrets: revoking leases under ${prefix}: ${(error as Error).message}`));
      res.status(202).end();
      return;
    }
    await leases.revokePrefix(prefix);
    noContent(res);
  },

  forceRevokeLeasePrefix: async (cluster, req, res) => {
    await leasesOf(cluster).revokePrefix(String(req.params.prefix), { force: true });
    noContent(res);
  },
} satisfies Record<LeaseOperation, Handler>;
