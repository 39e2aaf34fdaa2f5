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
    manager = new LeaseManager(cluster.storage, engineLeaseBackends(cluster));
    managers.set(cluster, manager);
    manager.restore();
  }
  return manager;
}
