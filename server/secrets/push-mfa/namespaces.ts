// Namespaces of the identity store: paths of names (`team-a/`, `team-a/dev/`), the root namespace
// being "". A namespace's parents are the paths it starts with. Pure functions.

import { trimEndOf, trimStartOf } from "../../shared/trim.ts";

export const ROOT_NAMESPACE = "";

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** The canonical form of a namespace path ("team-a" and "/team-a/" are "team-a/"; "" and "/" the root). */
export function canonicalNamespace(text: string | undefined): string | { error: string } {
  const trimmed = trimEndOf(trimStartOf((text ?? "").trim(), "/"), "/");
  if (trimmed === "") return ROOT_NAMESPACE;
  const segments = trimmed.split("/");
  const bad = segments.find((segment) => !SEGMENT.test(segment) || segment === "." || segment === "..");
  if (bad !== undefined) return { error: `namespace ${JSON.stringify(text)}: a namespace path is names of letters, digits, ".", "_" and "-" separated by "/"` };
  return `${segments.join("/")}/`;
}

/** Whether `ancestor` is a strict parent of `namespace` (the root is everyone's parent). */
export function isAncestor(ancestor: string, namespace: string): boolean {
  return ancestor !== namespace && namespace.startsWith(ancestor);
}

/** The namespace and all its parents, root first. */
export function withParents(namespace: string): string[] {
  const segments = namespace.split("/").filter((segment) => segment !== "");
  return [ROOT_NAMESPACE, ...segments.map((_, i) => `${segments.slice(0, i + 1).join("/")}/`)];
}
