// The lease table of each cluster, made on first use (the server asks for it at start, so that the
// leases of a storage that outlived a restart get their timers again), with the engines' backends.
import type { SecretsCluster } from "../cluster.ts";
import { engineLeaseBackends } from "./backends.ts";
import { LeaseManager } from "./manager.ts";

export { LeaseManager } from "./manager.ts";

const managers = new WeakMap<SecretsCluster, LeaseManager>();

export function leasesOf(cluster: SecretsCluster): LeaseManager {
  let manager = managers.get(cluster);
  if (!manager) {
    const replication = cluster.replication;
    // Only a cluster that is no replication secondary revokes at expiry (the primary revokes its secrets).
    const active = () => replication.dr.role !== "secondary" && replication.performance.role !== "secondary";
    manager = new LeaseManager(cluster.storage, engineLeaseBackends(cluster), undefined, active);
    managers.set(cluster, manager);
    manager.restore();
  }
  return manager;
}
