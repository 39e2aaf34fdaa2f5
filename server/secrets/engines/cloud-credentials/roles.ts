// Roles of the cloud credentials engine: how a write is read and merged into the stored role, the
// rules a role must follow, the upgrade of entries stored by earlier versions (legacy `policy`/`arn`
// roles), and the read shape. Pure: no storage, no provider.
import { compactJson, managedPolicyArnProblem, parseArn } from "./arns.ts";
import { commaStringSlice, fieldValidationFailure, lenientDuration } from "../../framework-fields.ts";
import { goMultiErrorText, goQuote } from "../../../shared/go-text.ts";
import type { components } from "../../../../generated/secrets/schema.ts";
import type { BodyRead } from "../../wire.ts";

export const CREDENTIAL_TYPES = ["iam_user", "assumed_role", "federation_token"] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];
const STS_TYPES: readonly string[] = ["assumed_role", "federation_token"];

function isCredentialType(type: string): type is CredentialType {
  return (CREDENTIAL_TYPES as readonly string[]).includes(type);
}

/** A role as stored (the real engine's role entry; durations in seconds). */
export interface RoleEntry {
  credential_types: string[];
  policy_arns: string[];
  role_arns: string[];
  policy_document: string;
  iam_groups: string[];
  iam_tags: Record<string, string>;
  default_sts_ttl: number;
  max_sts_ttl: number;
  user_path: string;
  permissions_boundary_arn: string;
  /** Data of a legacy entry that could not be read as a role. */
  invalid_data?: string;
  /** A legacy role: IAM-user credentials only through /creds, STS credentials only through /sts. */
  prohibit_flexible_cred_path?: boolean;
  version: number;
}

/** What a role write may carry (after the schema check: types are right, values unchecked). */
export type RoleWrite = BodyRead<"CloudCredentialsRoleRequest">;

/** The parameters that cannot be mixed with the legacy `policy` and `arn`, in the order they are checked. */
const NEW_PARAMETERS = [
  "credential_type",
  "role_arns",
  "policy_arns",
  "policy_document",
  "default_sts_ttl",
  "max_sts_ttl",
  "user_path",
  "permissions_boundary_arn",
  "iam_groups",
  "iam_tags",
] as const;

export const LEGACY_WARNING = "Detected use of legacy role or policy parameter. Please upgrade to use the new parameters.";
export const USER_PATH_PATTERN = /^\/([\x21-\x7F]{0,510}\/)?$/;

export function emptyRole(): RoleEntry {
  return {
    credential_types: [],
    policy_arns: [],
    role_arns: [],
    policy_document: "",
    iam_groups: [],
    iam_tags: {},
    default_sts_ttl: 0,
    max_sts_ttl: 0,
    user_path: "",
    permissions_boundary_arn: "",
    version: 3,
  };
}

/**
 * A write's outcome: the role to store, or the one refusal (`status` 500 where the real handler
 * returns a plain error, else 400).
 */
export type RoleWriteResult = { role: RoleEntry; warnings: string[] } | { error: string; status: 400 | 500 };

/**
 * The role after a write: the existing role (if any) with the sent fields changed, or the role a
 * legacy parameter stands for; else the first refusal, in the real handler's order
 * (builtin/logical/aws/path_roles.go, pathRolesWrite): values that cannot be read, the two legacy
 * parameters together, each parameter in turn (mixed with a legacy one, or a policy document that
 * is not JSON), a legacy value that is neither a policy nor an ARN, then every rule of the role at
 * once as one message. `existing` is not changed.
 */
export function applyRoleWrite(existing: RoleEntry | undefined, body: RoleWrite): RoleWriteResult {
  const refused = (error: string, status: 400 | 500 = 400): RoleWriteResult => ({ error, status });
  const warnings: string[] = [];
  // A copy of the stored role's members: each is replaced below, never changed in place (a stored
  // role is frozen), so nothing deeper is copied.
  const role: RoleEntry = existing ? { ...existing } : emptyRole();
  if (role.invalid_data !== undefined) {
    warnings.push(`Invalid data of ${goQuote(role.invalid_data)} cleared out of role`);
    delete role.invalid_data;
  }
  const has = (key: keyof RoleWrite) => body[key] !== undefined;

  // The durations were read before the handler ran (the framework's field validation: LenientDuration).
  const durations: Partial<Record<"default_sts_ttl" | "max_sts_ttl", number>> = {};
  for (const field of ["default_sts_ttl", "max_sts_ttl"] as const) {
    if (has(field)) durations[field] = lenientDuration(body[field], 0);
  }
  let tags: Record<string, string> | undefined;
  if (has("iam_tags")) {
    // A TypeKVPairs field: the framework reads it before the handler, and says so when it cannot.
    const parsed = keyValuePairs(body.iam_tags!);
    if ("error" in parsed) return refused(fieldValidationFailure("iam_tags", body.iam_tags, parsed.error));
    tags = parsed.value;
  }

  // Both legacy parameters: legacyRoleData's plain error, a 500.
  const legacyPolicy = body.policy ?? "";
  const legacyArn = body.arn ?? "";
  if (legacyPolicy !== "" && legacyArn !== "") return refused("only one of policy or arn should be provided", 500);
  const legacy = legacyPolicy || legacyArn;

  for (const key of NEW_PARAMETERS) {
    if (!has(key)) continue;
    // iam_groups and iam_tags are the seed's addition ("cannot be mixed with those above"); the real
    // handler drops them silently when the legacy role replaces the entry.
    if (legacy !== "") return refused(`cannot supply deprecated role or policy parameters with ${key === "credential_type" ? "an explicit credential_type" : key}`);
    switch (key) {
      case "credential_type":
        role.credential_types = [body.credential_type!];
        break;
      case "role_arns":
      case "policy_arns":
      case "iam_groups":
        role[key] = commaStringSlice(body[key]!);
        break;
      case "policy_document": {
        const text = body.policy_document!;
        const compacted = text === "" ? "" : compactJson(text);
        if (compacted === undefined) return refused(`cannot parse policy document: ${goQuote(text)}`);
        role.policy_document = compacted;
        break;
      }
      case "default_sts_ttl":
      case "max_sts_ttl":
        role[key] = durations[key]!;
        break;
      case "user_path":
      case "permissions_boundary_arn":
        role[key] = body[key]!;
        break;
      case "iam_tags":
        role.iam_tags = tags!;
        break;
    }
  }

  if (legacy !== "") {
    const upgraded = upgradeLegacyEntry(legacy);
    if (upgraded.invalid_data !== undefined) return refused(`unable to parse supplied data: ${goQuote(upgraded.invalid_data)}`);
    return { role: upgraded, warnings: [...warnings, LEGACY_WARNING] };
  }
  // A role written with the current parameters is no longer a legacy role.
  delete role.prohibit_flexible_cred_path;
  const problems = roleProblems(role);
  // validate()'s go-multierror, quoted with %q into one message.
  if (problems.length > 0) return refused(`error(s) validating supplied role data: ${goQuote(goMultiErrorText(problems))}`);
  return { role, warnings };
}

/** What is wrong with a role (empty when nothing): the real engine's rules and the seed's. */
export function roleProblems(role: RoleEntry): string[] {
  const problems: string[] = [];
  const types = role.credential_types;
  const hasType = (type: string) => types.includes(type);
  const sts = types.some((type) => STS_TYPES.includes(type));
  if (types.length === 0) problems.push("did not supply credential_type");
  for (const type of types) {
    if (!isCredentialType(type)) problems.push(`unrecognized credential type: ${type}`);
  }
  if (role.default_sts_ttl !== 0 && !sts) problems.push("default_sts_ttl parameter only valid for assumed_role and federation_token credential types");
  if (role.max_sts_ttl !== 0 && !sts) problems.push("max_sts_ttl parameter only valid for assumed_role and federation_token credential types");
  if (role.max_sts_ttl > 0 && role.default_sts_ttl > 0 && role.default_sts_ttl > role.max_sts_ttl) {
    problems.push('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value');
  }
  if (role.user_path !== "") {
    if (!hasType("iam_user")) problems.push("user_path parameter only valid for iam_user credential type");
    if (!USER_PATH_PATTERN.test(role.user_path)) {
      problems.push(`the specified value for user_path is invalid. It must match ${goQuote(USER_PATH_PATTERN.source)} regexp`);
    }
  }
  if (role.permissions_boundary_arn !== "") {
    if (!hasType("iam_user")) problems.push("cannot supply permissions_boundary_arn when credential_type isn't iam_user");
    const problem = managedPolicyArnProblem(role.permissions_boundary_arn);
    // The real validate() appends this one to a new list (`multierror.Append(fmt.Errorf(...))`,
    // without the list so far), so it replaces the problems found before it.
    if (problem) problems.splice(0, problems.length, `invalid permissions_boundary_arn parameter: ${problem}`);
  }
  if (role.role_arns.length > 0 && !hasType("assumed_role")) problems.push("cannot supply role_arns when credential_type isn't assumed_role");
  // The seed's rules, stated in its role parameter table (`role_arns` "required for assumed_role";
  // "for iam_user or federation_token at least one of policy_arns or policy_document is required"),
  // kept because the seed is explicit where it is: the real engine's validate()
  // (builtin/logical/aws/path_roles.go) has neither, and accepts an iam_user role with only
  // iam_groups (its backend_test.go, TestBackend_iamUserGroups).
  if (hasType("assumed_role") && role.role_arns.length === 0) problems.push("must specify at least one of role_arns with assumed_role credential_type");
  for (const type of ["iam_user", "federation_token"]) {
    if (hasType(type) && role.policy_arns.length === 0 && role.policy_document === "") {
      problems.push(`must specify at least one of policy_arns or policy_document with ${type} credential_type`);
    }
  }
  // Neither `role_arns` nor `policy_arns` entries are checked for their form (the real engine's
  // validate() in builtin/logical/aws/path_roles.go checks neither; the seed says nothing of it): the
  // provider refuses what it does not know when credentials are requested.
  return problems;
}

/**
 * The role a legacy entry stands for (the data of a `policy` or `arn` parameter, as earlier versions
 * stored it): a policy document is an `iam_user`/`federation_token` role, a policy ARN an `iam_user`
 * role, a role ARN an `assumed_role` role; anything else keeps the data in `invalid_data`.
 */
export function upgradeLegacyEntry(data: string): RoleEntry {
  const invalid = { ...emptyRole(), invalid_data: data, version: 1 };
  if (data.startsWith("arn:")) {
    const arn = parseArn(data);
    if ("error" in arn) return invalid;
    const type = arn.resource.split("/")[0];
    if (type === "role") return { ...emptyRole(), credential_types: ["assumed_role"], role_arns: [data], prohibit_flexible_cred_path: true, version: 1 };
    if (type === "policy") return { ...emptyRole(), credential_types: ["iam_user"], policy_arns: [data], prohibit_flexible_cred_path: true, version: 1 };
    return invalid;
  }
  const compacted = compactJson(data);
  if (compacted === undefined) return invalid;
  return { ...emptyRole(), credential_types: ["iam_user", "federation_token"], policy_document: compacted, prohibit_flexible_cred_path: true, version: 1 };
}

/** The read shape of a role (a stored role's types were checked when it was written). */
export function roleResponse(role: RoleEntry): components["schemas"]["CloudCredentialsRole"] {
  return {
    credential_type: role.credential_types.join(","),
    credential_types: role.credential_types.filter(isCredentialType),
    role_arns: [...role.role_arns],
    policy_arns: [...role.policy_arns],
    policy_document: role.policy_document,
    iam_groups: [...role.iam_groups],
    iam_tags: { ...role.iam_tags },
    default_sts_ttl: role.default_sts_ttl,
    max_sts_ttl: role.max_sts_ttl,
    user_path: role.user_path,
    permissions_boundary_arn: role.permissions_boundary_arn,
    ...(role.invalid_data !== undefined ? { invalid_data: role.invalid_data } : {}),
  };
}

/** A role read from storage, whatever an earlier version left there (missing fields are empty). */
export function normalizeStoredRole(raw: unknown): RoleEntry {
  const value = (typeof raw === "object" && raw !== null && !Array.isArray(raw) ? raw : {}) as Partial<Record<keyof RoleEntry, unknown>>;
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const seconds = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  const tags = typeof value.iam_tags === "object" && value.iam_tags !== null && !Array.isArray(value.iam_tags) ? value.iam_tags : {};
  const role: RoleEntry = {
    credential_types: strings(value.credential_types),
    policy_arns: strings(value.policy_arns),
    role_arns: strings(value.role_arns),
    policy_document: text(value.policy_document),
    iam_groups: strings(value.iam_groups),
    iam_tags: Object.fromEntries(Object.entries(tags).filter(([, v]) => typeof v === "string")) as Record<string, string>,
    default_sts_ttl: seconds(value.default_sts_ttl),
    max_sts_ttl: seconds(value.max_sts_ttl),
    user_path: text(value.user_path),
    permissions_boundary_arn: text(value.permissions_boundary_arn),
    version: typeof value.version === "number" ? value.version : 0,
  };
  if (typeof value.invalid_data === "string" && value.invalid_data !== "") role.invalid_data = value.invalid_data;
  if (value.prohibit_flexible_cred_path === true) role.prohibit_flexible_cred_path = true;
  return role;
}

/** `iam_tags`: a JSON object, or `key=value` strings (one string, or a list). */
export function keyValuePairs(raw: string | string[] | Record<string, string>): { value: Record<string, string> } | { error: string } {
  if (typeof raw === "object" && !Array.isArray(raw)) return { value: { ...raw } };
  const result: Record<string, string> = {};
  for (const pair of Array.isArray(raw) ? raw : [raw]) {
    const equals = pair.indexOf("=");
    if (equals <= 0) return { error: `invalid key pair ${goQuote(pair)}` };
    result[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return { value: result };
}

/**
 * Which credentials a request for the role gives, by the path it came through (`creds` or `sts`):
 * the role's type; for a legacy policy-document role (two types) `iam_user` through /creds and
 * `federation_token` through /sts; legacy roles refuse the other path.
 */
export function credentialTypeFor(role: RoleEntry, path: "creds" | "sts"): { type: CredentialType } | { error: string } {
  let type: string;
  if (role.credential_types.length === 1) type = role.credential_types[0]!;
  else if (role.credential_types.length > 1) {
    type = path === "creds" ? "iam_user" : "federation_token";
    if (!role.credential_types.includes(type)) {
      return { error: `requested credential type ${goQuote(type)} not in allowed credential types []string{${role.credential_types.map(goQuote).join(", ")}}` };
    }
  } else type = "";
  if (role.prohibit_flexible_cred_path) {
    if (type === "iam_user" && path === "sts") {
      return { error: "attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles" };
    }
    if (type !== "iam_user" && path === "creds") {
      return { error: `attempted to retrieve ${type} credentials through the creds path; this is not allowed for legacy roles` };
    }
  }
  if (!(CREDENTIAL_TYPES as readonly string[]).includes(type)) return { error: `unknown credential_type: ${goQuote(type)}` };
  return { type: type as CredentialType };
}

/**
 * The role ARN an `assumed_role` request assumes: the one asked for if the role lists it, else the
 * role's only one.
 */
export function chooseRoleArn(role: RoleEntry, roleName: string, requested: string | undefined): { arn: string } | { error: string } {
  if (!requested) {
    if (role.role_arns.length !== 1) return { error: "did not supply a role_arn parameter and unable to determine one" };
    return { arn: role.role_arns[0]! };
  }
  if (!role.role_arns.includes(requested)) return { error: `role_arn ${goQuote(requested)} not in allowed role arns for role ${goQuote(roleName)}` };
  return { arn: requested };
}
