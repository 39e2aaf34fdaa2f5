// The identity part of the world file (SECRETS_WORLD): namespaces, push-MFA methods to start with,
// and the MFA login enforcements that use them (the reference server has no API for enforcements).
//
//   namespaces: [team-a, team-a/dev]          # parents are implied; the root namespace always exists
//   mfa_methods:
//     - id: 5d2c6c4e-8d4b-4a53-9f0e-2f1d8c7b6a59   # a UUID, fixed so enforcements can name it
//       namespace: team-a                    # optional, default the root namespace
//       api_hostname: api-2b5c39f5.push.example
//       integration_key: BIACEUEAXI20BNWTEYXT
//       secret_key: HIGTHtrIigh2rPZQMbguugt8IUftWhMRCOBzbuyz
//       username_format: "{{identity.entity.name}}"   # optional, as push_info and use_passcode
//   mfa_login_enforcements:
//     - name: require-push
//       namespace: team-a                    # optional, default the root namespace
//       mfa_method_ids: [5d2c6c4e-8d4b-4a53-9f0e-2f1d8c7b6a59]
//       auth_method_types: [userpass]        # at least one of auth_method_types, auth_method_accessors,
//                                            # identity_group_ids, identity_entity_ids
//       id: optional UUID (generated when absent)
//
// A problem stops the server at start, naming the entry.
import { randomUUID } from "node:crypto";
import { canonicalNamespace, isAncestor, withParents } from "./namespaces.ts";
import { checkPushMfaInput, type IdentitySettings, type MfaLoginEnforcement, type WorldPushMfaMethod } from "./methods.ts";

export const IDENTITY_WORLD_KEYS = ["namespaces", "mfa_methods", "mfa_login_enforcements"] as const;

const METHOD_KEYS = ["id", "namespace", "api_hostname", "integration_key", "secret_key", "username_format", "push_info", "use_passcode"];
const TARGETS = ["auth_method_accessors", "auth_method_types", "identity_group_ids", "identity_entity_ids"] as const;
const ENFORCEMENT_KEYS = ["id", "name", "namespace", "mfa_method_ids", ...TARGETS];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const EMPTY_IDENTITY: IdentitySettings = { namespaces: [], methods: [], enforcements: [] };

/** Reads the identity keys of a world file; `fail` throws with the message. */
export function parseIdentityWorld(data: Record<string, unknown>, fail: (message: string) => never): IdentitySettings {
  const namespaces = new Set<string>();
  const rawNamespaces = data.namespaces ?? [];
  if (!Array.isArray(rawNamespaces)) fail('"namespaces" must be a list of namespace paths');
  for (const [i, raw] of (rawNamespaces as unknown[]).entries()) {
    const namespace = typeof raw === "string" ? canonicalNamespace(raw) : { error: "must be a string" };
    if (typeof namespace !== "string") fail(`namespace [${i}]: ${namespace.error}`);
    if (namespace === "") fail(`namespace [${i}]: the root namespace always exists; list only the others`);
    for (const path of withParents(namespace as string)) if (path !== "") namespaces.add(path);
  }
  const namespaceOf = (raw: unknown, where: string): string => {
    if (raw === undefined) return "";
    const namespace = typeof raw === "string" ? canonicalNamespace(raw) : { error: "must be a string" };
    if (typeof namespace !== "string") return fail(`${where}: ${namespace.error}`);
    if (namespace !== "" && !namespaces.has(namespace)) fail(`${where}: namespace ${JSON.stringify(namespace)} is not listed in "namespaces"`);
    return namespace;
  };

  const methods = list(data.mfa_methods, "mfa_methods", fail).map((entry, i): WorldPushMfaMethod => {
    const where = `mfa_methods [${i}]`;
    const method = mapOf(entry, where, METHOD_KEYS, fail);
    if (typeof method.id !== "string" || !UUID.test(method.id)) fail(`${where}: "id" must be a UUID (enforcements name methods by it)`);
    for (const key of ["api_hostname", "integration_key", "secret_key", "username_format", "push_info"]) {
      if (method[key] !== undefined && typeof method[key] !== "string") fail(`${where}: "${key}" must be a string`);
    }
    if (method.use_passcode !== undefined && typeof method.use_passcode !== "boolean") fail(`${where}: "use_passcode" must be true or false`);
    const checked = checkPushMfaInput(method as never);
    if ("problem" in checked) fail(`${where}: ${checked.problem}`);
    const { namespace, ...input } = method;
    return { ...(input as unknown as WorldPushMfaMethod), id: (method.id as string).toLowerCase(), namespace_path: namespaceOf(namespace, where) };
  });
  const methodById = new Map<string, WorldPushMfaMethod>();
  for (const [i, method] of methods.entries()) {
    if (methodById.has(method.id)) fail(`mfa_methods [${i}]: id ${method.id} is declared twice`);
    methodById.set(method.id, method);
  }

  const names = new Set<string>();
  const enforcements = list(data.mfa_login_enforcements, "mfa_login_enforcements", fail).map((entry, i): MfaLoginEnforcement => {
    const where = `mfa_login_enforcements [${i}]`;
    const raw = mapOf(entry, where, ENFORCEMENT_KEYS, fail);
    if (typeof raw.name !== "string" || !/^[A-Za-z0-9_.-]+$/.test(raw.name)) fail(`${where}: "name" must be a name of letters, digits, ".", "_" and "-"`);
    const namespace = namespaceOf(raw.namespace, where);
    const key = `${namespace}${raw.name as string}`;
    if (names.has(key)) fail(`${where}: name ${JSON.stringify(raw.name)} is used twice in namespace ${JSON.stringify(namespace)}`);
    names.add(key);
    if (raw.id !== undefined && (typeof raw.id !== "string" || !UUID.test(raw.id))) fail(`${where}: "id" must be a UUID`);
    const strings = (field: string): string[] => {
      const value = raw[field] ?? [];
      if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === "")) fail(`${where}: "${field}" must be a list of strings`);
      return [...new Set(value as string[])];
    };
    const methodIds = strings("mfa_method_ids").map((id) => id.toLowerCase());
    if (methodIds.length === 0) fail(`${where}: "mfa_method_ids" must name at least one method`);
    for (const id of methodIds) {
      const method = methodById.get(id);
      if (!method) fail(`${where}: mfa method ${id} is not declared in "mfa_methods"`);
      if (method!.namespace_path !== namespace && !isAncestor(method!.namespace_path, namespace)) {
        fail(`${where}: mfa method ${id} belongs to namespace ${JSON.stringify(method!.namespace_path)}, neither the enforcement's nor a parent of it`);
      }
    }
    const targets = Object.fromEntries(TARGETS.map((field) => [field, strings(field)])) as Record<(typeof TARGETS)[number], string[]>;
    if (TARGETS.every((field) => targets[field].length === 0)) fail(`${where}: needs at least one of ${TARGETS.join(", ")}`);
    return { id: (raw.id as string | undefined)?.toLowerCase() ?? randomUUID(), name: raw.name as string, namespace_path: namespace, mfa_method_ids: methodIds, ...targets };
  });

  return { namespaces: [...namespaces].sort(), methods, enforcements };
}

function list(raw: unknown, key: string, fail: (message: string) => never): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) fail(`"${key}" must be a list`);
  return raw as unknown[];
}

function mapOf(entry: unknown, where: string, known: string[], fail: (message: string) => never): Record<string, unknown> {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) fail(`${where} must be a map`);
  const extra = Object.keys(entry as object).filter((key) => !known.includes(key));
  if (extra.length > 0) fail(`${where}: unknown keys ${extra.map((k) => `"${k}"`).join(", ")} (known: ${known.join(", ")})`);
  return entry as Record<string, unknown>;
}
