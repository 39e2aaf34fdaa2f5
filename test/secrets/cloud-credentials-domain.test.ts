// The cloud credentials engine's pure modules: durations, TTLs, role rules and legacy upgrades,
// names, the root credential chain, ARNs and policy documents, the world file's `cloud` section.
import { describe, expect, it } from "vitest";
import { commaStringSlice } from "../../server/secrets/framework-fields.ts";
import { combinePolicyDocuments, compactJson, managedPolicyArnProblem, policyArnProblem } from "../../server/secrets/engines/cloud-credentials/arns.ts";
import { DEFAULT_CLOUD_WORLD, parseCloudWorld } from "../../server/secrets/engines/cloud-credentials/cloud-world.ts";
import { localCredentials, parseSharedCredentials, regionOf, type ChainEnvironment } from "../../server/secrets/engines/cloud-credentials/credential-chain.ts";
import { formatGoDuration, parseGoDuration } from "../../server/shared/go-duration.ts";
import { federatedUserName, iamUserName, normalizeName, roleSessionName } from "../../server/secrets/engines/cloud-credentials/names.ts";
import {
  applyRoleWrite,
  chooseRoleArn,
  credentialTypeFor,
  emptyRole,
  keyValuePairs,
  LEGACY_WARNING,
  normalizeStoredRole,
  roleProblems,
  roleResponse,
  upgradeLegacyEntry,
  type RoleEntry,
} from "../../server/secrets/engines/cloud-credentials/roles.ts";
import { iamUserLeaseTtl, stsTtl } from "../../server/secrets/engines/cloud-credentials/ttl.ts";
import { parseWorld } from "../../server/secrets/world.ts";

const ROLE_ARN = "arn:aws:iam::123456789012:role/deploy";
const POLICY_ARN = "arn:aws:iam::aws:policy/ReadOnlyAccess";

describe("durations", () => {
  it("reads Go durations and writes them back in long form", () => {
    const cases: [string, string][] = [
      ["30m", "30m0s"],
      ["1h", "1h0m0s"],
      ["90s", "1m30s"],
      ["1.5h", "1h30m0s"],
      ["1h30m45s", "1h30m45s"],
      ["768h", "768h0m0s"],
      ["500ms", "500ms"],
      ["1500ms", "1.5s"],
      ["0", "0s"],
      ["2h0m", "2h0m0s"],
      ["1us", "1µs"],
    ];
    for (const [input, output] of cases) {
      const parsed = parseGoDuration(input);
      expect(parsed, input).toHaveProperty("value");
      expect(formatGoDuration((parsed as { value: bigint }).value), input).toBe(output);
    }
    expect(formatGoDuration(-3_723_000_000_000n)).toBe("-1h2m3s");
  });

  it("refuses what Go refuses, with Go's words", () => {
    expect(parseGoDuration("3600")).toEqual({ error: 'time: missing unit in duration "3600"' });
    expect(parseGoDuration("1d")).toEqual({ error: 'time: unknown unit "d" in duration "1d"' });
    expect(parseGoDuration("")).toEqual({ error: 'time: invalid duration ""' });
    expect(parseGoDuration("h")).toEqual({ error: 'time: invalid duration "h"' });
    expect(parseGoDuration(".h")).toEqual({ error: 'time: invalid duration ".h"' });
    expect(parseGoDuration("99999999999h")).toEqual({ error: 'time: invalid duration "99999999999h"' });
  });

  it("is Go's ParseDuration on Go's own table (time_test.go parseDurationTests)", () => {
    const s = 1_000_000_000n;
    const valid: [string, bigint][] = [
      ["0", 0n], ["5s", 5n * s], ["30s", 30n * s], ["1478s", 1478n * s], ["-5s", -5n * s], ["+5s", 5n * s], ["-0", 0n], ["+0", 0n],
      ["5.0s", 5n * s], ["5.6s", 5_600_000_000n], ["5.s", 5n * s], [".5s", 500_000_000n], ["1.004s", 1_004_000_000n],
      ["100.00100s", 100_001_000_000n], ["10ns", 10n], ["11us", 11_000n], ["12µs", 12_000n], ["12μs", 12_000n], ["13ms", 13_000_000n],
      ["15m", 900n * s], ["16h", 57_600n * s], ["3h30m", 12_600n * s], ["10.5s4m", 250_500_000_000n], ["-2m3.4s", -123_400_000_000n],
      ["1h2m3s4ms5us6ns", 3_723_004_005_006n], ["39h9m14.425s", 140_954_425_000_000n], ["0.3333333333333333333h", 1200n * s],
      ["9007199254740993ns", 9_007_199_254_740_993n], ["9223372036854775807ns", 9_223_372_036_854_775_807n],
      ["9223372036854775.807us", 9_223_372_036_854_775_807n], ["9223372036s854ms775us807ns", 9_223_372_036_854_775_807n],
      ["-9223372036854775808ns", -9_223_372_036_854_775_808n], ["-2562047h47m16.854775808s", -9_223_372_036_854_775_808n],
      ["0.100000000000000000000h", 360n * s], ["0.830103483285477580700h", 2_988_372_539_827n],
    ];
    for (const [text, ns] of valid) expect(parseGoDuration(text), text).toEqual({ value: ns });
    for (const text of ["", "3", "-", "s", ".", "-.", ".s", "+.s", "1d", "9223372036854775808ns", "9223372036854775.808us", "9223372036854ms775us808ns", "-9223372036854775809ns"]) {
      expect(parseGoDuration(text), text).toHaveProperty("error");
    }
    // time.quote: each byte of a character that is not printable ASCII as \xNN.
    expect(parseGoDuration("1\u00e9")).toEqual({ error: 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"' });
    expect(parseGoDuration('1"\n')).toEqual({ error: 'time: unknown unit "\\"\\x0a" in duration "1\\"\\x0a"' });
  });
});

describe("TTLs", () => {
  it("gives STS credentials the requested ttl, else the role's default, else 3600s, capped by the role's maximum, else 768h", () => {
    expect(stsTtl({ defaultStsTtl: 0, maxStsTtl: 0 })).toBe(3600);
    expect(stsTtl({ defaultStsTtl: 1800, maxStsTtl: 0 })).toBe(1800);
    expect(stsTtl({ requested: 7200, defaultStsTtl: 1800, maxStsTtl: 0 })).toBe(7200);
    expect(stsTtl({ requested: 7200, defaultStsTtl: 1800, maxStsTtl: 3000 })).toBe(3000);
    expect(stsTtl({ defaultStsTtl: 0, maxStsTtl: 1000 })).toBe(1000);
    expect(stsTtl({ requested: 10_000_000, defaultStsTtl: 0, maxStsTtl: 0 })).toBe(768 * 3600);
    expect(stsTtl({ requested: 0, defaultStsTtl: 1800, maxStsTtl: 0 })).toBe(0);
  });

  it("gives IAM users the configured lease, else 768h, never above lease_max", () => {
    expect(iamUserLeaseTtl(undefined)).toBe(2_764_800);
    expect(iamUserLeaseTtl({ lease: 1800, leaseMax: 43200 })).toBe(1800);
    expect(iamUserLeaseTtl({ lease: 7200, leaseMax: 3600 })).toBe(3600);
    expect(iamUserLeaseTtl({ lease: 0, leaseMax: 3600 })).toBe(3600);
    expect(iamUserLeaseTtl({ lease: 10_000_000, leaseMax: 0 })).toBe(2_764_800);
  });
});

function written(existing: RoleEntry | undefined, body: Parameters<typeof applyRoleWrite>[1]): RoleEntry {
  const result = applyRoleWrite(existing, body);
  if ("error" in result) throw new Error(result.error);
  return result.role;
}

describe("role writes", () => {
  it("makes roles of each type with lists as arrays or comma strings, tags as pairs or objects", () => {
    const iamUser = written(undefined, {
      credential_type: "iam_user",
      policy_arns: ` ${POLICY_ARN} , arn:aws:iam::123456789012:policy/deploy-tools,`,
      policy_document: '{ "Version": "2012-10-17",\n "Statement": [ { "Effect": "Allow", "Action": "s3:*", "Resource": "*" } ] }',
      iam_groups: "developers,operators",
      iam_tags: ["team=platform", "note=a=b", "empty="],
      user_path: "/secrets/",
      permissions_boundary_arn: "arn:aws:iam::123456789012:policy/secrets-boundary",
    });
    expect(iamUser).toMatchObject({
      credential_types: ["iam_user"],
      // The trailing comma is an entry "", stored as the framework read it (ParseCommaStringSlice).
      policy_arns: [POLICY_ARN, "arn:aws:iam::123456789012:policy/deploy-tools", ""],
      policy_document: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}',
      iam_groups: ["developers", "operators"],
      iam_tags: { team: "platform", note: "a=b", empty: "" },
      user_path: "/secrets/",
    });
    expect(written(undefined, { credential_type: "assumed_role", role_arns: [ROLE_ARN], default_sts_ttl: "15m", max_sts_ttl: 3600 })).toMatchObject({
      role_arns: [ROLE_ARN],
      default_sts_ttl: 900,
      max_sts_ttl: 3600,
    });
    expect(written(undefined, { credential_type: "federation_token", policy_arns: POLICY_ARN, iam_tags: { a: "1" } })).toMatchObject({ iam_tags: { a: "1" } });
  });

  it("changes only the fields sent, then checks the whole role", () => {
    const role = written(undefined, { credential_type: "assumed_role", role_arns: ROLE_ARN });
    expect(written(role, { max_sts_ttl: "1h" })).toMatchObject({ credential_types: ["assumed_role"], role_arns: [ROLE_ARN], max_sts_ttl: 3600 });
    // Every problem, in one message: validate()'s go-multierror quoted with %q (path_roles.go, pathRolesWrite).
    expect(applyRoleWrite(role, { credential_type: "iam_user" })).toEqual({
      status: 400,
      error:
        'error(s) validating supplied role data: "2 errors occurred:\\n\\t* cannot supply role_arns when credential_type isn\'t assumed_role\\n\\t* must specify at least one of policy_arns or policy_document with iam_user credential_type\\n\\n"',
    });
    expect(role.credential_types).toEqual(["assumed_role"]);
  });

  it("reports every broken rule of the role", () => {
    const problems = (role: Partial<RoleEntry>) => roleProblems({ ...emptyRole(), ...role });
    expect(problems({})).toEqual(["did not supply credential_type"]);
    expect(problems({ credential_types: ["session_token"] })).toEqual(["unrecognized credential type: session_token"]);
    expect(problems({ credential_types: ["iam_user"], policy_arns: [POLICY_ARN], default_sts_ttl: 60, max_sts_ttl: 30 })).toEqual([
      "default_sts_ttl parameter only valid for assumed_role and federation_token credential types",
      "max_sts_ttl parameter only valid for assumed_role and federation_token credential types",
      '"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value',
    ]);
    expect(problems({ credential_types: ["federation_token"], policy_arns: [POLICY_ARN], default_sts_ttl: 7200, max_sts_ttl: 3600 })).toEqual([
      '"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value',
    ]);
    expect(problems({ credential_types: ["assumed_role"], role_arns: [ROLE_ARN], user_path: "/x/", permissions_boundary_arn: POLICY_ARN })).toEqual([
      "user_path parameter only valid for iam_user credential type",
      "cannot supply permissions_boundary_arn when credential_type isn't iam_user",
    ]);
    expect(problems({ credential_types: ["iam_user"], policy_arns: [POLICY_ARN], user_path: "no-slashes" })).toEqual([
      'the specified value for user_path is invalid. It must match "^\\\\/([\\\\x21-\\\\x7F]{0,510}\\\\/)?$" regexp',
    ]);
    expect(problems({ credential_types: ["iam_user"], policy_arns: [POLICY_ARN], permissions_boundary_arn: "arn:aws:s3:::bucket" })).toEqual([
      "invalid permissions_boundary_arn parameter: expected a service of iam but got s3",
    ]);
    // An unreadable boundary replaces the problems found before it (validate() appends it to a new
    // list: multierror.Append(fmt.Errorf(...)) without the list so far); those after it stay.
    expect(problems({ credential_types: ["federation_token"], policy_document: "{}", role_arns: [ROLE_ARN], user_path: "x", max_sts_ttl: 60, default_sts_ttl: 120, permissions_boundary_arn: "arn:aws:s3:::b" })).toEqual([
      "invalid permissions_boundary_arn parameter: expected a service of iam but got s3",
      "cannot supply role_arns when credential_type isn't assumed_role",
    ]);
    expect(problems({ credential_types: ["iam_user"], policy_document: "{}", role_arns: [ROLE_ARN] })).toEqual([
      "cannot supply role_arns when credential_type isn't assumed_role",
    ]);
    expect(problems({ credential_types: ["assumed_role"] })).toEqual(["must specify at least one of role_arns with assumed_role credential_type"]);
    expect(problems({ credential_types: ["federation_token"] })).toEqual([
      "must specify at least one of policy_arns or policy_document with federation_token credential_type",
    ]);
    // No ARN form is checked in role_arns or policy_arns (path_roles.go validate() checks none).
    expect(problems({ credential_types: ["assumed_role"], role_arns: ["arn:aws:iam::123456789012:policy/x"], policy_arns: ["nope"] })).toEqual([]);
    expect(problems({ credential_types: ["iam_user"], policy_arns: [POLICY_ARN], user_path: "/" })).toEqual([]);
  });

  it("refuses unreadable values: policy documents, tag pairs, durations", () => {
    expect(applyRoleWrite(undefined, { credential_type: "iam_user", policy_document: '{not "json"\n' })).toEqual({
      status: 400,
      error: 'cannot parse policy document: "{not \\"json\\"\\n"',
    });
    expect(applyRoleWrite(undefined, { credential_type: "iam_user", policy_arns: POLICY_ARN, iam_tags: ["novalue"] })).toEqual({
      status: 400,
      error: 'Field validation failed: error converting input [novalue] for field "iam_tags": invalid key pair "novalue"',
    });
    expect(applyRoleWrite(undefined, { credential_type: "iam_user", policy_arns: POLICY_ARN, iam_tags: "=x" })).toEqual({
      status: 400,
      error: 'Field validation failed: error converting input =x for field "iam_tags": invalid key pair "=x"',
    });
    // Values are read before anything else is checked (the durations before the handler, by the
    // framework fields: test/secrets/framework-fields.test.ts); the first one that cannot be read is refused.
    expect(applyRoleWrite(undefined, { policy: "{}", arn: ROLE_ARN, policy_document: "{", iam_tags: "y" })).toEqual({
      status: 400,
      error: 'Field validation failed: error converting input y for field "iam_tags": invalid key pair "y"',
    });
  });

  it("keeps the legacy parameters apart and upgrades them, with a warning", () => {
    // Both together: legacyRoleData's plain error (a 500).
    expect(applyRoleWrite(undefined, { policy: "{}", arn: ROLE_ARN, credential_type: "iam_user" })).toEqual({ status: 500, error: "only one of policy or arn should be provided" });
    expect(applyRoleWrite(undefined, { arn: ROLE_ARN, credential_type: "assumed_role" })).toEqual({
      status: 400,
      error: "cannot supply deprecated role or policy parameters with an explicit credential_type",
    });
    // The first parameter sent, in the handler's order.
    expect(applyRoleWrite(undefined, { arn: ROLE_ARN, user_path: "/x/", role_arns: ROLE_ARN })).toEqual({
      status: 400,
      error: "cannot supply deprecated role or policy parameters with role_arns",
    });
    expect(applyRoleWrite(undefined, { policy: "{}", iam_tags: { a: "b" } })).toEqual({ status: 400, error: "cannot supply deprecated role or policy parameters with iam_tags" });
    expect(applyRoleWrite(undefined, { arn: "arn:aws:s3:::bucket" })).toEqual({ status: 400, error: 'unable to parse supplied data: "arn:aws:s3:::bucket"' });
    expect(applyRoleWrite(undefined, { policy: "nope\t" })).toEqual({ status: 400, error: 'unable to parse supplied data: "nope\\t"' });
    expect(applyRoleWrite(undefined, { arn: ROLE_ARN })).toEqual({
      role: { ...emptyRole(), credential_types: ["assumed_role"], role_arns: [ROLE_ARN], prohibit_flexible_cred_path: true, version: 1 },
      warnings: [LEGACY_WARNING],
    });
    const existing = written(undefined, { credential_type: "iam_user", policy_arns: POLICY_ARN, iam_groups: "developers" });
    const fromPolicy = written(existing, { policy: '{"Statement": []}' });
    expect(fromPolicy).toMatchObject({ credential_types: ["iam_user", "federation_token"], policy_document: '{"Statement":[]}', iam_groups: [] });
    // A later write with the current parameters makes it an ordinary role again.
    expect(written(fromPolicy, { credential_type: "federation_token" }).prohibit_flexible_cred_path).toBeUndefined();
  });

  it("upgrades entries stored by earlier versions, keeping what cannot be read in invalid_data", () => {
    expect(upgradeLegacyEntry("arn:aws:iam::123456789012:policy/deploy-tools")).toMatchObject({ credential_types: ["iam_user"], policy_arns: ["arn:aws:iam::123456789012:policy/deploy-tools"] });
    expect(upgradeLegacyEntry(ROLE_ARN)).toMatchObject({ credential_types: ["assumed_role"], role_arns: [ROLE_ARN] });
    expect(upgradeLegacyEntry('{"Version": "2012-10-17"}')).toMatchObject({ credential_types: ["iam_user", "federation_token"], policy_document: '{"Version":"2012-10-17"}' });
    expect(upgradeLegacyEntry("arn:aws:s3:::bucket")).toMatchObject({ credential_types: [], invalid_data: "arn:aws:s3:::bucket" });
    expect(upgradeLegacyEntry("arn:broken")).toMatchObject({ invalid_data: "arn:broken" });
    expect(upgradeLegacyEntry("not json")).toMatchObject({ invalid_data: "not json" });
    const invalid = upgradeLegacyEntry("not json");
    expect(roleResponse(invalid)).toMatchObject({ credential_type: "", credential_types: [], invalid_data: "not json" });
    const rewritten = applyRoleWrite(invalid, { credential_type: "federation_token", policy_arns: POLICY_ARN });
    expect(rewritten).toMatchObject({ warnings: ['Invalid data of "not json" cleared out of role'] });
    expect((rewritten as { role: RoleEntry }).role.invalid_data).toBeUndefined();
  });

  it("reads whatever an earlier version stored as a role", () => {
    expect(normalizeStoredRole("garbage")).toEqual({ ...emptyRole(), version: 0 });
    expect(normalizeStoredRole({ credential_types: ["iam_user", 3], policy_arns: null, iam_tags: { a: "b", c: 1 }, default_sts_ttl: -5, invalid_data: "x" })).toMatchObject({
      credential_types: ["iam_user"],
      policy_arns: [],
      iam_tags: { a: "b" },
      default_sts_ttl: 0,
      invalid_data: "x",
    });
  });

  it("shows credential_type as a comma string and credential_types as a list", () => {
    expect(roleResponse(upgradeLegacyEntry("{}"))).toMatchObject({ credential_type: "iam_user,federation_token", credential_types: ["iam_user", "federation_token"] });
    expect(roleResponse(emptyRole())).not.toHaveProperty("invalid_data");
  });

  it("parses list and pair parameters", () => {
    // parseutil.ParseCommaStringSlice: split text at commas, trim; empty entries stay.
    expect(commaStringSlice(" a, b ,,c ")).toEqual(["a", "b", "", "c"]);
    expect(commaStringSlice(["a ", " b", ""])).toEqual(["a", "b", ""]);
    expect(commaStringSlice("")).toEqual([]);
    expect(keyValuePairs("k=v")).toEqual({ value: { k: "v" } });
  });
});

describe("which credentials a request gives", () => {
  const role = (types: string[], legacy = false): RoleEntry => ({ ...emptyRole(), credential_types: types, ...(legacy ? { prohibit_flexible_cred_path: true } : {}) });

  it("uses the role's type through either path, unless the role is a legacy one", () => {
    for (const type of ["iam_user", "assumed_role", "federation_token"]) {
      expect(credentialTypeFor(role([type]), "creds")).toEqual({ type });
      expect(credentialTypeFor(role([type]), "sts")).toEqual({ type });
    }
    expect(credentialTypeFor(role(["iam_user", "federation_token"], true), "creds")).toEqual({ type: "iam_user" });
    expect(credentialTypeFor(role(["iam_user", "federation_token"], true), "sts")).toEqual({ type: "federation_token" });
    expect(credentialTypeFor(role(["iam_user"], true), "sts")).toEqual({
      error: "attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles",
    });
    expect(credentialTypeFor(role(["assumed_role"], true), "creds")).toEqual({
      error: "attempted to retrieve assumed_role credentials through the creds path; this is not allowed for legacy roles",
    });
    expect(credentialTypeFor(role([]), "creds")).toEqual({ error: 'unknown credential_type: ""' });
    // The list printed with Go's %#v (path_user.go, pathCredsRead).
    expect(credentialTypeFor(role(["assumed_role", "iam_user"]), "sts")).toEqual({
      error: 'requested credential type "federation_token" not in allowed credential types []string{"assumed_role", "iam_user"}',
    });
    expect(credentialTypeFor(role(["bad\u007f"]), "creds")).toEqual({ error: 'unknown credential_type: "bad\\x7f"' });
  });

  it("picks the role ARN: the only one, or one the role lists", () => {
    const one = { ...emptyRole(), role_arns: [ROLE_ARN] };
    const two = { ...emptyRole(), role_arns: [ROLE_ARN, "arn:aws:iam::123456789012:role/readonly"] };
    expect(chooseRoleArn(one, "r", undefined)).toEqual({ arn: ROLE_ARN });
    expect(chooseRoleArn(two, "r", undefined)).toEqual({ error: "did not supply a role_arn parameter and unable to determine one" });
    expect(chooseRoleArn(two, "r", "arn:aws:iam::123456789012:role/readonly")).toEqual({ arn: "arn:aws:iam::123456789012:role/readonly" });
    expect(chooseRoleArn(one, "r", "arn:aws:iam::123456789012:role/admin")).toEqual({
      error: 'role_arn "arn:aws:iam::123456789012:role/admin" not in allowed role arns for role "r"',
    });
  });
});

describe("names", () => {
  const source = { unixTime: 1_700_000_000, random: (n: number) => "R".repeat(n) };

  it("names IAM users secrets-<display>-<role>-<time>-<random>, at most 64 characters", () => {
    expect(iamUserName("root", "s3-reader", source)).toBe(`secrets-root-s3-reader-1700000000-${"R".repeat(20)}`);
    const long = iamUserName("token-with-a-really-long-display-name", "and-a-long-role-name-too", source);
    expect(long).toHaveLength(64);
    expect(long).toBe(`secrets-${"token-with-a-really-long-display-name-and-a-long-role-name-too".slice(0, 42)}-1700000000-${"R".repeat(20)}`.slice(0, 64));
    expect(iamUserName("my display", "r", source)).toMatch(/^secrets-my_display-r-/);
  });

  it("names federated users within the provider's 32 characters", () => {
    expect(federatedUserName(source)).toBe(`secrets-1700000000-${"R".repeat(13)}`);
    expect(federatedUserName(source)).toHaveLength(32);
  });

  it("cleans and cuts a requested session name to 64 characters, or generates one", () => {
    expect(roleSessionName("ci pipeline/run#1", "root", "deploy", source)).toBe("ci_pipeline_run_1");
    expect(roleSessionName("x".repeat(80), "root", "deploy", source)).toBe("x".repeat(64));
    expect(roleSessionName(undefined, "root", "deploy", source)).toBe(`secrets-root-deploy-1700000000-${"R".repeat(20)}`);
    expect(normalizeName("a+b=c,d.e@f_g-h i")).toBe("a+b=c,d.e@f_g-h_i");
  });
});

describe("the root credential chain", () => {
  const files: Record<string, string> = {
    "/home/op/.aws/credentials": "[default]\naws_access_key_id = AKIAFILEDEFAULT00001\naws_secret_access_key = file-secret\n\n[ci]\naws_access_key_id=AKIAFILECI0000000001\naws_secret_access_key=ci-secret\naws_session_token = tok\n[empty]\n",
    "/etc/creds": "# comment\n; other\n[default]\nAWS_ACCESS_KEY_ID = AKIAOTHERFILE0000001\naws_secret_access_key = other\n",
  };
  const chain = (env: Record<string, string>, homeDir = "/home/op"): ChainEnvironment => ({ env, homeDir, readFile: (file) => files[file] });
  const config = (access_key: string, secret_key: string) => ({ access_key, secret_key });

  it("takes static keys first, then the environment, then the shared file", () => {
    const env = { AWS_ACCESS_KEY_ID: "AKIAENV0000000000001", AWS_SECRET_ACCESS_KEY: "env-secret" };
    expect(localCredentials(config("AKIASTATIC0000000001", "s"), chain(env))).toMatchObject({ source: "static", credentials: { accessKeyId: "AKIASTATIC0000000001" } });
    expect(localCredentials(config("", ""), chain(env))).toMatchObject({ source: "environment", credentials: { accessKeyId: "AKIAENV0000000000001", secretAccessKey: "env-secret" } });
    expect(localCredentials(undefined, chain({ AWS_ACCESS_KEY: "AKIAENV0000000000002", AWS_SECRET_KEY: "s", AWS_SESSION_TOKEN: "t" }))).toMatchObject({
      source: "environment",
      credentials: { accessKeyId: "AKIAENV0000000000002", sessionToken: "t" },
    });
    expect(localCredentials(undefined, chain({}))).toMatchObject({
      source: "shared-credentials-file",
      credentials: { accessKeyId: "AKIAFILEDEFAULT00001" },
      detail: "/home/op/.aws/credentials [default]",
    });
    expect(localCredentials(undefined, chain({ AWS_PROFILE: "ci" }))).toMatchObject({ credentials: { accessKeyId: "AKIAFILECI0000000001", sessionToken: "tok" } });
    expect(localCredentials(undefined, chain({ AWS_SHARED_CREDENTIALS_FILE: "/etc/creds" }))).toMatchObject({ credentials: { accessKeyId: "AKIAOTHERFILE0000001" } });
  });

  it("stops at half-configured static keys, and says why each other source was skipped", () => {
    expect(localCredentials(config("AKIASTATIC0000000001", ""), chain({}))).toEqual({
      error: "static cloud client credentials haven't been properly configured (the access key or secret key were provided but not both)",
    });
    expect(localCredentials(undefined, chain({ AWS_ACCESS_KEY_ID: "AKIAENV0000000000001" }, "/nowhere"))).toEqual({
      next: [
        "EnvSecretNotFound: AWS_SECRET_ACCESS_KEY or AWS_SECRET_KEY not found in environment",
        "SharedCredsLoad: failed to load shared credentials file /nowhere/.aws/credentials",
      ],
    });
    expect(localCredentials(undefined, chain({ AWS_PROFILE: "missing" }))).toMatchObject({ next: [expect.any(String), "SharedCredsLoad: failed to get profile missing in /home/op/.aws/credentials"] });
    expect(localCredentials(undefined, chain({ AWS_PROFILE: "empty" }))).toMatchObject({
      next: [expect.any(String), "SharedCredsAccessKey: shared credentials empty in /home/op/.aws/credentials did not contain aws_access_key_id"],
    });
    expect(localCredentials(undefined, { env: {}, homeDir: undefined, readFile: () => undefined })).toMatchObject({ next: [expect.any(String), expect.stringMatching(/no home directory/)] });
  });

  it("falls back for the region: configured, AWS_REGION, AWS_DEFAULT_REGION, us-east-1", () => {
    expect(regionOf("eu-west-1", { AWS_REGION: "us-west-2" })).toBe("eu-west-1");
    expect(regionOf("", { AWS_REGION: "us-west-2", AWS_DEFAULT_REGION: "ap-south-1" })).toBe("us-west-2");
    expect(regionOf(undefined, { AWS_DEFAULT_REGION: "ap-south-1" })).toBe("ap-south-1");
    expect(regionOf("", {})).toBe("us-east-1");
  });

  it("reads shared credentials files", () => {
    expect(parseSharedCredentials("[ a ]\nk = v = w\n  ; c\nnot a pair\n[b]\nK=1")).toEqual({ a: { k: "v = w" }, b: { k: "1" } });
  });
});

describe("ARNs and policy documents", () => {
  it("tells policy ARNs apart: strictly for the world file, as the real engine does for a permissions boundary", () => {
    expect(managedPolicyArnProblem(POLICY_ARN)).toBeUndefined();
    expect(managedPolicyArnProblem("arn:aws:iam::x:policy/")).toBeUndefined();
    expect(managedPolicyArnProblem("arn:aws:iam::123456789012")).toBe("arn: not enough sections");
    expect(managedPolicyArnProblem("policy/x")).toBe("arn: invalid prefix");
    expect(managedPolicyArnProblem("arn:aws:s3:::bucket")).toBe("expected a service of iam but got s3");
    expect(managedPolicyArnProblem("arn:aws:iam::123456789012:role/x")).toBe("expected a resource type of policy but got role/x");
    expect(policyArnProblem(POLICY_ARN)).toBeUndefined();
    expect(policyArnProblem("arn:aws:iam::aws:policy/job-function/ViewOnlyAccess")).toBeUndefined();
    expect(policyArnProblem("arn:aws:iam::123456789012:user/x")).toBe("expected a resource type of policy but got user/x");
  });

  it("compacts JSON like Go, keeping key order and numbers", () => {
    expect(compactJson('{ "b": 1.0, "a": [ 1, 2 ], "s": "a b\\" c" }')).toBe('{"b":1.0,"a":[1,2],"s":"a b\\" c"}');
    expect(compactJson('{"2":1,"1":2}')).toBe('{"2":1,"1":2}');
    expect(compactJson("{nope")).toBeUndefined();
  });

  it("combines policy documents statement by statement", () => {
    expect(JSON.parse(combinePolicyDocuments(['{"Statement":{"Effect":"Allow","Action":"a","Resource":"*"}}', "", '{"Version":"2012-10-17","Statement":[{"Sid":"b"},{"Sid":"c"}]}']))).toEqual({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Action: "a", Resource: "*" }, { Sid: "b" }, { Sid: "c" }],
    });
  });
});

describe("the world file's cloud section", () => {
  it("has a default account with a root user, groups, roles and policies", () => {
    expect(DEFAULT_CLOUD_WORLD.users[0]).toMatchObject({ name: "secrets-root", access_keys: [{ access_key: "AKIAIOSFODNN7EXAMPLE" }] });
    expect(parseCloudWorld(DEFAULT_CLOUD_WORLD)).toEqual(DEFAULT_CLOUD_WORLD);
  });

  it("is read from the world file, with defaults filled in", () => {
    const world = parseWorld({
      cloud: {
        users: [{ name: "root", access_keys: [{ access_key: "AKIAWORLD00000000001", secret_key: "s".repeat(40) }] }],
        groups: [{ name: "g", policy_arns: [POLICY_ARN, "arn:aws:iam::210987654321:policy/p"], policies: { inline: { Version: "2012-10-17", Statement: [] } } }],
        roles: [{ name: "r", max_session_duration: 7200 }],
        policies: [{ name: "p" }],
        account_id: "210987654321",
        assigned_role: "r",
        endpoints: ["https://iam.example.internal"],
      },
    });
    expect(world.cloud).toMatchObject({
      account_id: "210987654321",
      users: [{ name: "root", path: "/" }],
      groups: [{ name: "g", policies: { inline: '{"Version":"2012-10-17","Statement":[]}' } }],
      roles: [{ name: "r", path: "/", max_session_duration: 7200 }],
      assigned_role: "r",
    });
  });

  it("refuses a bad section, naming the entry", () => {
    const bad = (cloud: unknown) => () => parseWorld({ cloud });
    expect(bad({ users: [{ name: "x", access_keys: [{ access_key: "AKIA123", secret_key: "s".repeat(40) }] }] })).toThrow(/world: cloud\.users\[0\]\.access_keys\[0\]\.access_key: "AKIA123" is not an access key id/);
    const key = (n: number) => ({ access_key: `AKIAWORLD0000000000${n}`, secret_key: "s".repeat(40) });
    expect(bad({ users: [{ name: "x", access_keys: [key(1), key(2), key(3)] }] })).toThrow(/a user has at most 2 access keys/);
    expect(bad({ groups: [{ name: "g", policy_arns: ["arn:aws:iam::aws:policy/Nope"] }] })).toThrow(/cloud\.groups\[0\]\.policy_arns\[0\]: no managed policy/);
    expect(bad({ roles: [{ name: "r", max_session_duration: 100 }] })).toThrow(/from 3600 to 43200/);
    expect(bad({ assigned_role: "ghost" })).toThrow(/no role "ghost"/);
    expect(bad({ users: [{ name: "a" }, { name: "A" }] })).toThrow(/"A" is declared twice/);
    expect(bad({ wat: 1 })).toThrow(/unknown keys "wat"/);
    expect(bad({ endpoints: ["not a url"] })).toThrow(/is not a URL/);
    expect(bad({ account_id: "12" })).toThrow(/12-digit/);
    expect(bad([])).toThrow(/must be a map/);
  });
});
