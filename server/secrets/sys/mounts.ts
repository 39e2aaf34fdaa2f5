// Secrets engines live under mounts the operator chooses. The service description places each
// engine's paths at the engine's default mount; every such path item carries `x-secrets-engine`
// (the engine) and `x-secrets-path` (its path relative to the mount). These pure functions read the
// default mount table from a document and move the engines to another mount table, so that the
// reference server validates and routes exactly the mounts it serves.

export interface Mount {
  /** Where the engine is mounted, relative to /v1, without slashes at the ends (e.g. `consul`, `team-a/aws`). */
  path: string;
  engine: string;
}

export interface MountableDocument {
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

interface EnginePathItem {
  "x-secrets-engine": string;
  "x-secrets-path": string;
  [key: string]: unknown;
}

function isEnginePath(item: Record<string, unknown>): item is EnginePathItem {
  return typeof item["x-secrets-engine"] === "string";
}

/** The mounts a document places its engines at, in document order. */
export function mountsOf(document: MountableDocument): Mount[] {
  const mounts = new Map<string, Mount>();
  for (const [template, item] of Object.entries(document.paths)) {
    if (!isEnginePath(item)) continue;
    const path = mountPathOf(template, item);
    mounts.set(path, { path, engine: item["x-secrets-engine"] });
  }
  return [...mounts.values()];
}

/** Checks a mount table; returns the problems found (empty when none). */
export function mountProblems(mounts: Mount[], engines: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const { path, engine } of mounts) {
    if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(path)) problems.push(`mount "${path}": a mount path is segments of letters, digits, ".", "_" and "-" separated by "/"`);
    if (path === "sys" || path.startsWith("sys/") || path === "identity" || path.startsWith("identity/")) {
      problems.push(`mount "${path}": "sys" and "identity" are reserved`);
    }
    for (const other of seen) {
      if (path === other || path.startsWith(`${other}/`) || other.startsWith(`${path}/`)) problems.push(`mount "${path}" overlaps mount "${other}"`);
    }
    if (!engines.includes(engine)) problems.push(`mount "${path}": unknown engine "${engine}" (known: ${engines.join(", ") || "none"})`);
    seen.add(path);
  }
  return problems;
}

/** The engines a document describes. */
export function enginesOf(document: MountableDocument): string[] {
  return [...new Set(mountsOf(document).map((mount) => mount.engine))];
}

/**
 * The document with every engine's paths at the given mounts instead of the default ones. Path items
 * are copied (with `x-secrets-mount` naming their mount); paths that belong to no engine stay.
 */
export function composeMounts<D extends MountableDocument>(document: D, mounts: Mount[]): D {
  const problems = mountProblems(mounts, enginesOf(document));
  if (problems.length > 0) throw new Error(problems.join("; "));
  const core: Record<string, Record<string, unknown>> = {};
  const engineItems = new Map<string, Map<string, EnginePathItem>>();
  for (const [template, item] of Object.entries(document.paths)) {
    if (!isEnginePath(item)) {
      core[template] = item;
      continue;
    }
    const items = engineItems.get(item["x-secrets-engine"]) ?? new Map<string, EnginePathItem>();
    if (!items.has(item["x-secrets-path"])) items.set(item["x-secrets-path"], item);
    engineItems.set(item["x-secrets-engine"], items);
  }
  const paths = { ...core };
  for (const mount of mounts) {
    for (const [relative, item] of engineItems.get(mount.engine) ?? []) {
      paths[`/${mount.path}${relative}`] = { ...structuredClone(item), "x-secrets-mount": mount.path };
    }
  }
  return { ...document, paths };
}

function mountPathOf(template: string, item: EnginePathItem): string {
  const relative = item["x-secrets-path"];
  if (!template.endsWith(relative) || template.length <= relative.length + 1) {
    throw new Error(`path ${template}: x-secrets-path ${relative} is not the end of it`);
  }
  return template.slice(1, template.length - relative.length);
}
