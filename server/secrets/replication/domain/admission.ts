// Which requests a cluster serves in its replication roles, decided before the request's operation
// runs.
// - sys/replication/* is always served: it is how a cluster changes its roles.
// - A DR secondary serves nothing else (400 `path disabled in replication DR secondary mode`, the
//   real system's words).
// - A performance secondary has no route to a mount its paths filter leaves out (404, the real
//   system's words), and refuses every write (400) naming the primary to write to: the real system
//   forwards such writes to the primary, which this server does not do.
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { isMountReplicated, type PathsFilter } from "./filter.ts";
import type { ReplicationRole } from "./states.ts";

export type RequestMethodName = "get" | "put" | "post" | "delete" | "patch" | "list";

const REPLICATION_PATHS = /^sys\/replication\//;
const WRITE_METHODS: readonly RequestMethodName[] = ["put", "post", "delete", "patch"];

/** What the decision reads of the performance mode (read only when this cluster is its secondary). */
export interface PerformanceRole {
  readonly role: ReplicationRole;
  /** The paths filter received from the primary. */
  readonly secondaryFilter: PathsFilter | undefined;
  /** The primary's API address, when known. */
  readonly primaryApiAddr: string | undefined;
}

/**
 * Throws when the request may not run on this cluster now. `path` is relative to /v1 without the
 * leading slash; `mount` is the mount an engine operation is served at (undefined for sys/*).
 */
export function admitRequest(method: RequestMethodName, path: string, mount: string | undefined, drRole: ReplicationRole, performance: PerformanceRole): void {
  if (REPLICATION_PATHS.test(path)) return;
  if (drRole === "secondary") throw new InvalidRequestError("path disabled in replication DR secondary mode");
  if (performance.role !== "secondary") return;
  if (mount !== undefined && !isMountReplicated(performance.secondaryFilter, mount)) {
    throw new NotFoundError(`no handler for route "${path}". route entry not found.`);
  }
  if (WRITE_METHODS.includes(method)) {
    const primary = performance.primaryApiAddr;
    throw new InvalidRequestError(
      `cannot write to a performance secondary: replicated data is written on the performance primary${primary ? ` (${primary})` : ""} and reaches this cluster by replication`,
    );
  }
}
