// Where an engine mount keeps its data: `logical/<mount uuid>/` in the cluster's storage, as the
// real system lays out its engines, so that replication can ship writes by mount and filter them.
// The uuid is derived from the engine and the mount path (a name-based, version-5-style UUID), so
// every cluster that mounts the same engine at the same path uses the same keys; replication can
// compute it from a mount table with `mountUuid`.
import { createHash } from "node:crypto";

export function mountUuid(engine: string, mountPath: string): string {
  const key = `${engine}\u0000${mountPath}`;
  let uuid = uuids.get(key);
  if (uuid === undefined) {
    // Mounts are the server's configured few; the bound only keeps a misuse from growing it.
    if (uuids.size >= 1_000) uuids.clear();
    uuids.set(key, (uuid = uuidOf(engine, mountPath)));
  }
  return uuid;
}

/** Mount UUIDs worked out (a hash each), by engine and mount path: every request to a mount needs its own. */
const uuids = new Map<string, string>();

function uuidOf(engine: string, mountPath: string): string {
  const bytes = createHash("sha1").update(`secrets-mount\u0000${engine}\u0000${mountPath}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The storage prefix of a mount: `logical/<mount uuid>/`. */
export function mountStoragePrefix(engine: string, mountPath: string): string {
  return `logical/${mountUuid(engine, mountPath)}/`;
}
