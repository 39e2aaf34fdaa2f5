// What the simulated cloud provider starts with: its account, IAM users with their access keys,
// groups, roles and customer-managed policies, the role assigned to the server's machine, and the
// custom endpoints it answers at. The `cloud` section of the world file (SECRETS_WORLD) replaces the
// default account below; it is checked here, and a problem stops the server with the entry named.
//
//   cloud:
//     account_id: "123456789012"
//     users:
//       - name: secrets-root
//         access_keys: [{ access_key: AKIAIOSFODNN7EXAMPLE, secret_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY }]
//     groups:
//       - name: developers
//         policy_arns: [arn:aws:iam::aws:policy/ReadOnlyAccess]
//         policies: { developers-s3: '{"Version":"2012-10-17","Statement":[...]}' }
//     roles:
//       - { name: deploy, max_session_duration: 3600 }
//     policies:
//       - { name: secrets-boundary, document: { Version: "2012-10-17", Statement: [...] } }
//     assigned_role: deploy          # optional: the last source of root credentials
//     endpoints: [https://iam.example.internal]   # custom endpoints it answers at
import { policyArnProblem } from "./arns.ts";

export interface CloudWorldUser {
  name: string;
  path: string;
  access_keys: { access_key: string; secret_key: string }[];
}

export interface CloudWorldGroup {
  name: string;
  path: string;
  policy_arns: string[];
  /** Inline policies by name (JSON documents). */
  policies: Record<string, string>;
}

export interface CloudWorldRole {
  name: string;
  path: string;
  /** Seconds, 3600 to 43200. */
  max_session_duration: number;
}

export interface CloudWorldPolicy {
  name: string;
  path: string;
  document: string;
}

export interface CloudWorld {
  account_id: string;
  users: CloudWorldUser[];
  groups: CloudWorldGroup[];
  roles: CloudWorldRole[];
  policies: CloudWorldPolicy[];
  assigned_role?: string;
  endpoints: string[];
}

/** The provider's own managed policies (`arn:aws:iam::aws:policy/<name>`), which every account has. */
export const PROVIDER_MANAGED_POLICIES = [
  "AdministratorAccess",
  "PowerUserAccess",
  "ReadOnlyAccess",
  "IAMReadOnlyAccess",
  "AmazonS3FullAccess",
  "AmazonS3ReadOnlyAccess",
  "AmazonEC2ReadOnlyAccess",
  "AmazonDynamoDBReadOnlyAccess",
  "CloudWatchReadOnlyAccess",
  "job-function/ViewOnlyAccess",
].map((name) => `arn:aws:iam::aws:policy/${name}`);

const ALLOW_ALL = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}';

/** The account the reference server's simulated provider has when the world file has no `cloud` section. */
export const DEFAULT_CLOUD_WORLD: CloudWorld = {
  account_id: "123456789012",
  users: [
    {
      name: "secrets-root",
      path: "/",
      // The provider's documented example keys.
      access_keys: [{ access_key: "AKIAIOSFODNN7EXAMPLE", secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }],
    },
  ],
  groups: [
    {
      name: "developers",
      path: "/",
      policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
      policies: {
        "developers-s3": '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:ListBucket","s3:GetObject"],"Resource":"*"}]}',
      },
    },
    { name: "operators", path: "/", policy_arns: ["arn:aws:iam::aws:policy/PowerUserAccess"], policies: {} },
  ],
  roles: [
    { name: "deploy", path: "/", max_session_duration: 3600 },
    { name: "readonly", path: "/", max_session_duration: 3600 },
    { name: "long-sessions", path: "/", max_session_duration: 43200 },
  ],
  policies: [
    { name: "secrets-boundary", path: "/", document: ALLOW_ALL },
    {
      name: "deploy-tools",
      path: "/",
      document: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ecr:*","ecs:UpdateService"],"Resource":"*"}]}',
    },
  ],
  endpoints: [],
};

const NAME = /^[\w+=,.@-]+$/;
const PATH = /^\/([\x21-\x7E]{0,510}\/)?$/;
const KEYS = ["account_id", "users", "groups", "roles", "policies", "assigned_role", "endpoints"];

/** The `cloud` section of a world file; throws with the entry named. */
export function parseCloudWorld(raw: unknown, source = "cloud"): CloudWorld {
  const fail = (where: string, message: string): never => {
    throw new Error(`${source}${where}: ${message}`);
  };
  const map = (value: unknown, where: string): Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : fail(where, "must be a map");
  const list = (value: unknown, where: string): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : fail(where, "must be a list"));
  const text = (value: unknown, where: string): string => (typeof value === "string" ? value : fail(where, "must be a string"));
  const only = (value: Record<string, unknown>, keys: string[], where: string) => {
    const extra = Object.keys(value).filter((key) => !keys.includes(key));
    if (extra.length > 0) fail(where, `unknown keys ${extra.map((k) => `"${k}"`).join(", ")} (known: ${keys.join(", ")})`);
  };
  const name = (value: unknown, where: string, max: number) => {
    const n = text(value, `${where}.name`);
    if (n.length < 1 || n.length > max || !NAME.test(n)) fail(`${where}.name`, `"${n}" is not a valid name (1-${max} letters, digits and +=,.@_-)`);
    return n;
  };
  const path = (value: unknown, where: string) => {
    const p = value === undefined ? "/" : text(value, `${where}.path`);
    if (!PATH.test(p)) fail(`${where}.path`, `"${p}" is not a valid path ("/" or "/a/b/")`);
    return p;
  };
  const document = (value: unknown, where: string) => {
    const doc = typeof value === "string" ? value : typeof value === "object" && value !== null ? JSON.stringify(value) : fail(where, "must be a JSON policy document");
    try {
      JSON.parse(doc);
    } catch {
      fail(where, "is not JSON");
    }
    return doc;
  };
  const unique = (names: string[], what: string) => {
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n.toLowerCase())) fail(`.${what}`, `"${n}" is declared twice`);
      seen.add(n.toLowerCase());
    }
  };

  const data = map(raw, "");
  only(data, KEYS, "");
  const account = data.account_id === undefined ? "123456789012" : text(data.account_id, ".account_id");
  if (!/^\d{12}$/.test(account)) fail(".account_id", `"${account}" is not a 12-digit account id`);

  const policies = list(data.policies, ".policies").map((entry, i): CloudWorldPolicy => {
    const where = `.policies[${i}]`;
    const value = map(entry, where);
    only(value, ["name", "path", "document"], where);
    return { name: name(value.name, where, 128), path: path(value.path, where), document: document(value.document ?? ALLOW_ALL, `${where}.document`) };
  });
  unique(policies.map((p) => p.name), "policies");
  const known = new Set([...PROVIDER_MANAGED_POLICIES, ...policies.map((p) => `arn:aws:iam::${account}:policy${p.path}${p.name}`)]);
  const policyArns = (value: unknown, where: string) =>
    list(value, where).map((arn, j) => {
      const a = text(arn, `${where}[${j}]`);
      const problem = policyArnProblem(a);
      if (problem) fail(`${where}[${j}]`, problem);
      if (!known.has(a)) fail(`${where}[${j}]`, `no managed policy ${a} (the provider's own, or one of "policies")`);
      return a;
    });

  const keyIds = new Set<string>();
  const users = list(data.users, ".users").map((entry, i): CloudWorldUser => {
    const where = `.users[${i}]`;
    const value = map(entry, where);
    only(value, ["name", "path", "access_keys"], where);
    const keys = list(value.access_keys, `${where}.access_keys`).map((key, j) => {
      const at = `${where}.access_keys[${j}]`;
      const k = map(key, at);
      only(k, ["access_key", "secret_key"], at);
      const id = text(k.access_key, `${at}.access_key`);
      const secret = text(k.secret_key, `${at}.secret_key`);
      if (!/^AKIA[A-Z0-9]{16}$/.test(id)) fail(`${at}.access_key`, `"${id}" is not an access key id (AKIA and 16 upper-case letters or digits)`);
      if (secret.length !== 40) fail(`${at}.secret_key`, "must be 40 characters");
      if (keyIds.has(id)) fail(`${at}.access_key`, `"${id}" is declared twice`);
      keyIds.add(id);
      return { access_key: id, secret_key: secret };
    });
    if (keys.length > 2) fail(`${where}.access_keys`, "a user has at most 2 access keys");
    return { name: name(value.name, where, 64), path: path(value.path, where), access_keys: keys };
  });
  unique(users.map((u) => u.name), "users");

  const groups = list(data.groups, ".groups").map((entry, i): CloudWorldGroup => {
    const where = `.groups[${i}]`;
    const value = map(entry, where);
    only(value, ["name", "path", "policy_arns", "policies"], where);
    const inline = map(value.policies ?? {}, `${where}.policies`);
    return {
      name: name(value.name, where, 128),
      path: path(value.path, where),
      policy_arns: policyArns(value.policy_arns, `${where}.policy_arns`),
      policies: Object.fromEntries(Object.entries(inline).map(([n, doc]) => [n, document(doc, `${where}.policies.${n}`)])),
    };
  });
  unique(groups.map((g) => g.name), "groups");

  const roles = list(data.roles, ".roles").map((entry, i): CloudWorldRole => {
    const where = `.roles[${i}]`;
    const value = map(entry, where);
    only(value, ["name", "path", "max_session_duration"], where);
    const max = value.max_session_duration ?? 3600;
    if (typeof max !== "number" || !Number.isInteger(max) || max < 3600 || max > 43200) fail(`${where}.max_session_duration`, "must be a whole number of seconds from 3600 to 43200");
    return { name: name(value.name, where, 64), path: path(value.path, where), max_session_duration: max as number };
  });
  unique(roles.map((r) => r.name), "roles");

  const assigned = data.assigned_role === undefined ? undefined : text(data.assigned_role, ".assigned_role");
  if (assigned !== undefined && !roles.some((r) => r.name === assigned)) fail(".assigned_role", `no role "${assigned}" in "roles"`);
  const endpoints = list(data.endpoints, ".endpoints").map((e, i) => {
    const endpoint = text(e, `.endpoints[${i}]`);
    if (!URL.canParse(endpoint)) fail(`.endpoints[${i}]`, `"${endpoint}" is not a URL`);
    return endpoint;
  });
  return { account_id: account, users, groups, roles, policies, ...(assigned ? { assigned_role: assigned } : {}), endpoints };
}
