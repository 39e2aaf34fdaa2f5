// Which requests a cluster serves in its replication roles, decided before the request's operation
// runs.
// - sys/replication/* is always served: it is how a cluster changes its roles.
// - A DR secondary serves nothing else (400 `path disabled in replication DR secondary mode`, the
//   real system's words).
// - A performance secondary has no route to a mount its paths filter leaves out (404, the real
//   system's words), and refuses every write (400) naming the primary to write to: the real system
//   forwards such writes to the primary, which this server does not do.
// - Rekeying on a performance secondary: the real handlers of sys/rekey/init and sys/rekey/verify
//   refuse it before looking at the method (400, http/sys_rekey.go handleSysRekeyInit and
//   handleSysRekeyVerify); the one of sys/rekey/update has no such check and is not forwarded, so it
//   runs as on any cluster (and finds no attempt, as none can start there).
// - Token lookups (auth/token/lookup, auth/token/lookup-self) write nothing, and a performance
//   secondary keeps its own tokens (the real system's performance replication documentation: "Each
//   performance secondary issues and manages its own tokens and leases"): served there, POST too.
import { InvalidRequestError, NotFoundError } from "../../errors.ts";
import { isMountReplicated, type PathsFilter } from "./filter.ts";
import type { ReplicationRole } from "./states.ts";

export type RequestMethodName = "get" | "put" | "post" | "delete" | "patch" | "list";

const REPLICATION_PATHS = /^sys\/replication\//;
const PRIMARY_ONLY_REKEY_PATHS: ReadonlySet<string> = new Set(["sys/rekey/init", "sys/rekey/verify"]);
const LOCAL_REKEY_PATH = "sys/rekey/update";
const LOCAL_TOKEN_PATHS: ReadonlySet<string> = new Set(["auth/token/lookup", "auth/token/lookup-self"]);
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
  // A LIST's path carries a trailing `/` (as lists are routed); the real server's mux hands a LIST of
  // these exact paths to the rekey handlers all the same.
  const rekeyPath = method === "list" ? path.replace(/\/$/, "") : path;
  if (PRIMARY_ONLY_REKEY_PATHS.has(rekeyPath)) throw new InvalidRequestError("rekeying can only be performed on the primary cluster when replication is activated");
  if (rekeyPath === LOCAL_REKEY_PATH || LOCAL_TOKEN_PATHS.has(path)) return;
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
