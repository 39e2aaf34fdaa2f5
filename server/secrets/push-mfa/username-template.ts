// `username_format` of push-MFA methods: the real system's identity templating (ACL mode), text with
// directives in double braces such as `{{identity.entity.name}}`. Checked when a method is written,
// so that a bad template is refused then rather than at login. Pure functions.

export const KNOWN_DIRECTIVES =
  "identity.entity.id, identity.entity.name, identity.entity.metadata.<key>, " +
  "identity.entity.aliases.<mount accessor>.{id,name,metadata.<key>,custom_metadata.<key>}, " +
  "identity.groups.ids.<group id>.{name,metadata.<key>}, identity.groups.names.<group name>.{id,metadata.<key>}";

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Whether one directive (the text between the braces, trimmed) names a known identity value. */
export function isKnownDirective(directive: string): boolean {
  const entity = /^identity\.entity\.(.+)$/.exec(directive)?.[1];
  if (entity !== undefined) {
    if (entity === "id" || entity === "name") return true;
    if (entity.startsWith("metadata.")) return entity.length > "metadata.".length;
    const alias = /^aliases\.([^.]+)\.(.+)$/.exec(entity);
    if (alias && SEGMENT.test(alias[1]!)) return aliasField(alias[2]!);
    return false;
  }
  const group = /^identity\.groups\.(ids|names)\.([^.]+)\.(.+)$/.exec(directive);
  if (group) {
    const [, by, , field] = group;
    if (field!.startsWith("metadata.")) return field!.length > "metadata.".length;
    return field === (by === "ids" ? "name" : "id");
  }
  return false;
}

function aliasField(field: string): boolean {
  if (field === "id" || field === "name") return true;
  for (const prefix of ["metadata.", "custom_metadata."]) if (field.startsWith(prefix)) return field.length > prefix.length;
  return false;
}

/** The problems of a template (empty when it is valid, and for the empty template). */
export function usernameFormatProblems(template: string): string[] {
  const problems: string[] = [];
  const pieces = template.split("{{");
  if (pieces[0]!.includes("}}")) return ["username_format: unbalanced templating characters"];
  for (const piece of pieces.slice(1)) {
    const parts = piece.split("}}");
    if (parts.length !== 2) return ["username_format: unbalanced templating characters"];
    const directive = parts[0]!.trim();
    if (!isKnownDirective(directive)) {
      problems.push(`username_format: unknown template directive ${JSON.stringify(directive)} (known: ${KNOWN_DIRECTIVES})`);
    }
  }
  return problems;
}
