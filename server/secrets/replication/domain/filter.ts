// Paths filters of performance replication: which mounts and namespaces a performance secondary
// receives. Pure functions over mount paths.
//
// - A filter path is a mount path or a namespace path, written with a trailing slash (`consul/`,
//   `team-a/`, `team-a/aws/`); a leading slash is dropped and a missing trailing one added.
// - A mount is covered by a filter path when the path is the mount itself or a namespace that
//   contains it (`team-a/` covers the mount `team-a/aws`). Namespaces are the path prefixes of
//   mounts (the mount `team-a/aws` lives in the namespace `team-a/`) and the namespaces data is
//   stored in (MFA methods carry their `namespace_path`).
// - `allow`: only covered mounts are replicated. `deny`: covered mounts are not. Data of a
//   namespace follows isNamespaceReplicated. Without a filter everything is replicated. Data of no
//   mount and of the root namespace (service configuration, the seal) is always replicated.
// - The deprecated mount filter is the same filter with `whitelist` for `allow` and `blacklist` for
//   `deny`.
import type { StoredValue } from "../../store/storage.ts";

export type PathsFilterMode = "allow" | "deny";
export type MountFilterMode = "whitelist" | "blacklist";

export interface PathsFilter {
  mode: PathsFilterMode;
  /** Normalized: no leading slash, one trailing slash, no duplicates, in the order given. */
  paths: string[];
}

const FILTER_PATH = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/;

export function normalizeFilterPath(path: string): string {
  const trimmed = path.trim().replace(/^\/+/, "");
  return trimmed.endsWith("/") ? trimmed : `${trimmed}/`;
}

/** A filter from request parameters, or the problem with them. */
export function parsePathsFilter(mode: string | undefined, paths: unknown): { filter: PathsFilter } | { problem: string } {
  const chosen = mode ?? "allow";
  if (chosen !== "allow" && chosen !== "deny") return { problem: `mode must be "allow" or "deny", not ${JSON.stringify(chosen)}` };
  const list = paths ?? [];
  if (!Array.isArray(list) || list.some((p) => typeof p !== "string")) return { problem: "paths must be a list of mount or namespace paths" };
  const normalized: string[] = [];
  for (const raw of list as string[]) {
    const path = normalizeFilterPath(raw);
    if (!FILTER_PATH.test(path) || path.split("/").some((segment) => segment === "." || segment === "..")) {
      return { problem: `paths: ${JSON.stringify(raw)} is not a mount or namespace path (segments of letters, digits, ".", "_" and "-")` };
    }
    if (path.startsWith("sys/") || path.startsWith("identity/")) {
      return { problem: `paths: ${JSON.stringify(raw)} cannot be filtered: "sys/" and "identity/" are always replicated` };
    }
    if (!normalized.includes(path)) normalized.push(path);
  }
  return { filter: { mode: chosen, paths: normalized } };
}

export function mountFilterModeToPaths(mode: MountFilterMode): PathsFilterMode {
  return mode === "whitelist" ? "allow" : "deny";
}

export function pathsFilterModeToMount(mode: PathsFilterMode): MountFilterMode {
  return mode === "allow" ? "whitelist" : "blacklist";
}

function covers(filterPath: string, mountPath: string): boolean {
  return normalizeFilterPath(mountPath).startsWith(filterPath);
}

/** Whether a mount (path with or without the trailing slash) is replicated under the filter. */
export function isMountReplicated(filter: PathsFilter | undefined, mountPath: string): boolean {
  if (!filter) return true;
  const covered = filter.paths.some((path) => covers(path, mountPath));
  return filter.mode === "allow" ? covered : !covered;
}

/**
 * Whether data of a namespace (not of a mount: e.g. its MFA methods) is replicated under the filter.
 * The root namespace ("") always is. `deny`: unless a listed path is the namespace or a parent of it.
 * `allow`: when a listed path is the namespace, a parent of it, or inside it (the namespace must
 * exist on the secondary for the mount listed inside it).
 */
export function isNamespaceReplicated(filter: PathsFilter | undefined, namespace: string): boolean {
  if (!filter || namespace === "" || namespace === "/") return true;
  const ns = normalizeFilterPath(namespace);
  if (filter.mode === "deny") return !filter.paths.some((path) => ns.startsWith(path));
  return filter.paths.some((path) => ns.startsWith(path) || path.startsWith(ns));
}

/** The namespaces the mounts live in: every proper path prefix, with a trailing slash. */
export function namespacesOf(mounts: Iterable<string>): string[] {
  const namespaces = new Set<string>();
  for (const mount of mounts) {
    const segments = normalizeFilterPath(mount).split("/").filter(Boolean);
    for (let i = 1; i < segments.length; i++) namespaces.add(`${segments.slice(0, i).join("/")}/`);
  }
  return [...namespaces].sort();
}

export interface DynamicFilter {
  dynamic_filtered_mounts: string[];
  dynamic_filtered_namespaces: string[];
}

/** What the filter keeps from a secondary, given the mounts (and namespaces holding data) that exist now. */
export function dynamicFilter(filter: PathsFilter | undefined, mounts: Iterable<string>, extraNamespaces: string[] = []): DynamicFilter {
  const known = [...new Set([...mounts].map(normalizeFilterPath))].sort();
  const filteredMounts = known.filter((mount) => !isMountReplicated(filter, mount));
  const filteredNamespaces = [...new Set([...namespacesOf(known), ...extraNamespaces.map(normalizeFilterPath)])]
    .filter((namespace) => !isNamespaceReplicated(filter, namespace))
    .sort();
  return { dynamic_filtered_mounts: filteredMounts, dynamic_filtered_namespaces: filteredNamespaces };
}

/** The filter as stored and sent to secondaries (plain JSON). */
export function filterToJson(filter: PathsFilter): StoredValue {
  return { mode: filter.mode, paths: [...filter.paths] };
}
