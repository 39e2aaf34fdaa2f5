// The simulated cloud provider enforces the provider's rules: authentication of long-term and
// temporary keys, IAM user limits, AssumeRole and GetFederationToken limits, custom endpoints.
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_CLOUD_WORLD, parseCloudWorld } from "../../server/secrets/engines/cloud-credentials/cloud-world.ts";
import { CloudProviderError, type ProviderClient } from "../../server/secrets/engines/cloud-credentials/provider.ts";
import { policyDocumentProblem, SimulatedCloud } from "../../server/secrets/engines/cloud-credentials/simulation.ts";

const ROOT = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const DOC = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}';
const DEPLOY = "arn:aws:iam::123456789012:role/deploy";

let now: number;
let cloud: SimulatedCloud;
const client = (credentials: ProviderClient["credentials"] = ROOT, endpoint = ""): ProviderClient => ({ credentials, region: "us-east-1", endpoint, maxRetries: -1 });

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(CloudProviderError);
    return String(error);
  }
  throw new Error("the call was not refused");
}

beforeEach(() => {
  now = Date.parse("2025-01-01T00:00:00Z");
  cloud = new SimulatedCloud({ now: () => now });
});

describe("authentication", () => {
  it("accepts an IAM user's key with its secret, and refuses unknown keys and wrong secrets", async () => {
    expect(await cloud.getUser(client())).toMatchObject({ userName: "secrets-root", arn: "arn:aws:iam::123456789012:user/secrets-root" });
    expect(await refusal(cloud.getUser(client({ accessKeyId: "AKIAAAAAAAAAAAAAAAAA", secretAccessKey: "x" })))).toBe(
      "InvalidClientTokenId: The security token included in the request is invalid.",
    );
    expect(await refusal(cloud.getUser(client({ ...ROOT, secretAccessKey: "wrong" })))).toMatch(/^SignatureDoesNotMatch: /);
    expect(await refusal(cloud.getUser(client({ accessKeyId: "nonsense", secretAccessKey: "x" })))).toMatch(/^InvalidClientTokenId/);
  });

  it("accepts temporary keys only with their session token and until they expire", async () => {
    const { credentials } = await cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900 });
    const session = { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken };
    expect(await cloud.listAccessKeys(client(session), "secrets-root")).toEqual([ROOT.accessKeyId]);
    expect(await refusal(cloud.listAccessKeys(client({ ...session, sessionToken: "forged" }), "secrets-root"))).toMatch(/^InvalidClientTokenId/);
    now += 901_000;
    expect(await refusal(cloud.listAccessKeys(client(session), "secrets-root"))).toBe("ExpiredToken: The security token included in the request is expired");
  });

  it("answers at its default endpoints and the custom ones it knows, and nowhere else", async () => {
    const custom = new SimulatedCloud({ world: parseCloudWorld({ ...DEFAULT_CLOUD_WORLD, endpoints: ["https://iam.example.internal"] }) });
    expect(await custom.getUser(client(ROOT, "https://iam.example.internal/"))).toMatchObject({ userName: "secrets-root" });
    expect(await refusal(custom.getUser(client(ROOT, "https://elsewhere.example")))).toBe(
      'RequestError: send request failed caused by: Post "https://elsewhere.example": dial tcp: lookup elsewhere.example: no such host',
    );
    expect(custom.calls.map((call) => [call.action, call.endpoint, call.error ?? "ok"])).toEqual([
      ["GetUser", "https://iam.example.internal/", "ok"],
      ["GetUser", "https://elsewhere.example", "RequestError"],
    ]);
  });

  it("never logs a secret", async () => {
    await cloud.createAccessKey(client());
    await refusal(cloud.getUser(client({ ...ROOT, secretAccessKey: "wrong-secret" })));
    const log = JSON.stringify(cloud.calls);
    expect(log).not.toContain(ROOT.secretAccessKey);
    expect(log).not.toContain("wrong-secret");
  });
});

describe("IAM users", () => {
  it("creates users with path, boundary, policies, groups and tags", async () => {
    await cloud.createUser(client(), { userName: "u1", path: "/team/", permissionsBoundary: "arn:aws:iam::123456789012:policy/secrets-boundary" });
    await cloud.attachUserPolicy(client(), "u1", "arn:aws:iam::aws:policy/ReadOnlyAccess");
    await cloud.putUserPolicy(client(), "u1", "inline", DOC);
    await cloud.addUserToGroup(client(), "u1", "developers");
    await cloud.tagUser(client(), "u1", { team: "platform" });
    const key = await cloud.createAccessKey(client(), "u1");
    expect(key.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(key.secretAccessKey).toHaveLength(40);
    expect(cloud.user("u1")).toEqual({
      name: "u1",
      path: "/team/",
      arn: "arn:aws:iam::123456789012:user/team/u1",
      permissionsBoundary: "arn:aws:iam::123456789012:policy/secrets-boundary",
      tags: { team: "platform" },
      groups: ["developers"],
      inlinePolicies: { inline: DOC },
      attachedPolicies: ["arn:aws:iam::aws:policy/ReadOnlyAccess"],
      accessKeys: [key.accessKeyId],
    });
    // The new key works at once.
    expect(await cloud.getUser(client({ accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey }))).toMatchObject({ userName: "u1" });
  });

  it("enforces names, paths, existing policies, groups and boundaries", async () => {
    expect(await refusal(cloud.createUser(client(), { userName: "x".repeat(65), path: "/" }))).toMatch(/Member must have length less than or equal to 64/);
    expect(await refusal(cloud.createUser(client(), { userName: "bad name", path: "/" }))).toMatch(/^ValidationError: The specified value for userName is invalid/);
    expect(await refusal(cloud.createUser(client(), { userName: "u", path: "nope" }))).toMatch(/^ValidationError: The specified value for path is invalid/);
    expect(await refusal(cloud.createUser(client(), { userName: "SECRETS-ROOT", path: "/" }))).toBe("EntityAlreadyExists: User with name SECRETS-ROOT already exists.");
    expect(await refusal(cloud.createUser(client(), { userName: "u", path: "/", permissionsBoundary: "arn:aws:iam::aws:policy/Nope" }))).toBe(
      "NoSuchEntity: Policy arn:aws:iam::aws:policy/Nope does not exist or is not attachable.",
    );
    await cloud.createUser(client(), { userName: "u", path: "/" });
    expect(await refusal(cloud.attachUserPolicy(client(), "u", "arn:aws:iam::123456789012:policy/missing"))).toMatch(/^NoSuchEntity: Policy .* does not exist/);
    // The ARN's length is the request's own constraint, checked first (20 to 2048 characters).
    expect(await refusal(cloud.attachUserPolicy(client(), "u", ""))).toBe(
      "ValidationError: 1 validation error detected: Value '' at 'policyArn' failed to satisfy constraint: Member must have length greater than or equal to 20",
    );
    expect(await refusal(cloud.addUserToGroup(client(), "u", "nope"))).toBe("NoSuchEntity: The group with name nope cannot be found.");
    expect(await refusal(cloud.addUserToGroup(client(), "ghost", "developers"))).toBe("NoSuchEntity: The user with name ghost cannot be found.");
  });

  it("enforces the per-user quotas: 2 access keys, 10 managed policies, 10 groups, 50 tags, 2048 characters of inline policy", async () => {
    await cloud.createUser(client(), { userName: "u", path: "/" });
    await cloud.createAccessKey(client(), "u");
    await cloud.createAccessKey(client(), "u");
    expect(await refusal(cloud.createAccessKey(client(), "u"))).toBe("LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2");

    const many = new SimulatedCloud({
      world: parseCloudWorld({
        ...DEFAULT_CLOUD_WORLD,
        policies: Array.from({ length: 11 }, (_, i) => ({ name: `p${i}` })),
        groups: Array.from({ length: 11 }, (_, i) => ({ name: `g${i}` })),
      }),
    });
    await many.createUser(client(), { userName: "u", path: "/" });
    for (let i = 0; i < 10; i++) await many.attachUserPolicy(client(), "u", `arn:aws:iam::123456789012:policy/p${i}`);
    expect(await refusal(many.attachUserPolicy(client(), "u", "arn:aws:iam::123456789012:policy/p10"))).toBe("LimitExceeded: Cannot exceed quota for PoliciesPerUser: 10");
    for (let i = 0; i < 10; i++) await many.addUserToGroup(client(), "u", `g${i}`);
    expect(await refusal(many.addUserToGroup(client(), "u", "g10"))).toBe("LimitExceeded: Cannot exceed quota for GroupsPerUser: 10");

    await cloud.tagUser(client(), "u", Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"])));
    expect(await refusal(cloud.tagUser(client(), "u", { one: "more" }))).toBe("LimitExceeded: The number of tags has reached the maximum limit of 50.");
    expect(await refusal(cloud.tagUser(client(), "u", { "aws:reserved": "x" }))).toMatch(/^InvalidInput: User tag keys beginning with 'aws:'/);
    expect(await refusal(cloud.tagUser(client(), "u", { ["k".repeat(129)]: "x" }))).toMatch(/Member must have length less than or equal to 128/);
    expect(await refusal(cloud.tagUser(client(), "u", { k0: "v".repeat(257) }))).toMatch(/Member must have length less than or equal to 256/);

    const big = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: `arn:aws:s3:::${"b".repeat(1900)}` }] });
    await cloud.putUserPolicy(client(), "u", "one", big);
    await cloud.putUserPolicy(client(), "u", "one", big); // replacing a policy does not count it twice
    expect(await refusal(cloud.putUserPolicy(client(), "u", "two", DOC))).toBe("LimitExceeded: Maximum policy size of 2048 bytes exceeded for user u");
  });

  it("checks policy documents as the provider's policy grammar", async () => {
    expect(policyDocumentProblem(DOC)).toBeUndefined();
    expect(policyDocumentProblem('{"Statement":{"Effect":"Deny","NotAction":"iam:*","NotResource":["*"]}}')).toBeUndefined();
    expect(policyDocumentProblem("{")).toBe("Syntax errors in policy.");
    expect(policyDocumentProblem("[]")).toBe("Syntax errors in policy.");
    expect(policyDocumentProblem('{"Version":"2012-10-17"}')).toBe("Syntax errors in policy.");
    expect(policyDocumentProblem('{"Version":"2020-01-01","Statement":[]}')).toBe("The policy failed legacy parsing");
    expect(policyDocumentProblem('{"Statement":[{"Action":"a","Resource":"*"}]}')).toBe("Missing required field Effect");
    expect(policyDocumentProblem('{"Statement":[{"Effect":"Allow","Resource":"*"}]}')).toBe("Missing required field Action");
    expect(policyDocumentProblem('{"Statement":[{"Effect":"Allow","Action":"a"}]}')).toBe("Missing required field Resource");
    expect(policyDocumentProblem('{"Statement":[{"Effect":"Allow","Action":"a","Resource":"*","Principal":"*"}]}')).toBe("Policy document should not specify a principal.");
    expect(policyDocumentProblem('{"Statement":[{"Effect":"Maybe","Action":"a","Resource":"*"}]}')).toBe("Syntax errors in policy.");
    expect(policyDocumentProblem('{"Statement":[],"Extra":1}')).toBe("Syntax errors in policy. Unknown field Extra");
    await cloud.createUser(client(), { userName: "u", path: "/" });
    expect(await refusal(cloud.putUserPolicy(client(), "u", "p", "{}"))).toBe("MalformedPolicyDocument: Syntax errors in policy.");
  });

  it("deletes a user only once its keys, policies and groups are gone", async () => {
    await cloud.createUser(client(), { userName: "u", path: "/" });
    await cloud.addUserToGroup(client(), "u", "developers");
    const key = await cloud.createAccessKey(client(), "u");
    expect(await refusal(cloud.deleteUser(client(), "u"))).toBe("DeleteConflict: Cannot delete entity, must delete access keys first.");
    await cloud.deleteAccessKey(client(), key.accessKeyId, "u");
    expect(await refusal(cloud.deleteUser(client(), "u"))).toBe("DeleteConflict: Cannot delete entity, must remove users from group first.");
    await cloud.removeUserFromGroup(client(), "u", "developers");
    await cloud.deleteUser(client(), "u");
    expect(cloud.user("u")).toBeUndefined();
    expect(await refusal(cloud.deleteAccessKey(client(), "AKIAAAAAAAAAAAAAAAAA", "secrets-root"))).toBe("NoSuchEntity: The Access Key with id AKIAAAAAAAAAAAAAAAAA cannot be found.");
  });

  it("knows the caller's own user only for IAM-user credentials", async () => {
    const { credentials } = await cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900 });
    expect(await refusal(cloud.getUser(client(credentials)))).toBe("ValidationError: Must specify userName when calling with non-User credentials");
    expect(await refusal(cloud.createAccessKey(client(credentials)))).toBe("ValidationError: Must specify userName when calling with non-User credentials");
  });
});

describe("AssumeRole", () => {
  it("gives ASIA keys and a session token for a role of the account, lasting the duration asked", async () => {
    const result = await cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "ci", durationSeconds: 1200, policy: DOC, policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
    expect(result.credentials.accessKeyId).toMatch(/^ASIA[A-Z2-7]{16}$/);
    expect(result.credentials.secretAccessKey).toHaveLength(40);
    expect(result.credentials.sessionToken.length).toBeGreaterThan(100);
    expect(result.credentials.expiration.getTime()).toBe(now + 1_200_000);
    expect(result.assumedRoleUser.arn).toBe("arn:aws:sts::123456789012:assumed-role/deploy/ci");
    expect(result.assumedRoleUser.assumedRoleId).toMatch(/^AROA[A-Z2-7]{17}:ci$/);
  });

  it("refuses roles it does not have, and durations outside 900 seconds to the role's maximum", async () => {
    const assume = (input: Partial<Parameters<SimulatedCloud["assumeRole"]>[1]>) =>
      refusal(cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 3600, ...input }));
    expect(await assume({ roleArn: "arn:aws:iam::123456789012:role/admin" })).toBe(
      "AccessDenied: User: arn:aws:iam::123456789012:user/secrets-root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/admin",
    );
    expect(await assume({ roleArn: "arn:aws:iam::999999999999:role/deploy" })).toMatch(/^AccessDenied/);
    expect(await assume({ durationSeconds: 899 })).toBe(
      "ValidationError: 1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900",
    );
    expect(await assume({ durationSeconds: 3601 })).toBe("ValidationError: The requested DurationSeconds exceeds the MaxSessionDuration set for this role.");
    expect(await assume({ durationSeconds: 43201 })).toMatch(/Member must have value less than or equal to 43200/);
    await cloud.assumeRole(client(), { roleArn: "arn:aws:iam::123456789012:role/long-sessions", roleSessionName: "s1", durationSeconds: 43200 });
    expect(await assume({ roleSessionName: "s".repeat(65) })).toMatch(/'roleSessionName' failed to satisfy constraint: Member must have length less than or equal to 64/);
    expect(await assume({ roleSessionName: "x" })).toMatch(/Member must have length greater than or equal to 2/);
    expect(await assume({ roleSessionName: "has space" })).toMatch(/regular expression pattern/);
  });

  it("limits sessions of role sessions (role chaining) to one hour", async () => {
    const { credentials } = await cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900 });
    const chained = { roleArn: "arn:aws:iam::123456789012:role/long-sessions", roleSessionName: "t1" };
    expect(await refusal(cloud.assumeRole(client(credentials), { ...chained, durationSeconds: 3601 }))).toBe(
      "ValidationError: The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.",
    );
    expect((await cloud.assumeRole(client(credentials), { ...chained, durationSeconds: 3600 })).assumedRoleUser.arn).toBe(
      "arn:aws:sts::123456789012:assumed-role/long-sessions/t1",
    );
  });

  it("checks session policies: valid, at most 2048 characters, at most 10 managed ones that exist", async () => {
    const assume = (policy?: string, policyArns?: string[]) =>
      refusal(cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900, ...(policy ? { policy } : {}), ...(policyArns ? { policyArns } : {}) }));
    expect(await assume('{"Statement":[]}')).toBe("MalformedPolicyDocument: Syntax errors in policy.");
    expect(await assume(`{"Statement":[{"Effect":"Allow","Action":"a","Resource":"${"r".repeat(2048)}"}]}`)).toMatch(/at 'policy' failed to satisfy constraint: Member must have length less than or equal to 2048/);
    expect(await assume(undefined, Array(11).fill("arn:aws:iam::aws:policy/ReadOnlyAccess"))).toMatch(/'policyArns' failed to satisfy constraint/);
    expect(await assume(undefined, ["arn:aws:iam::aws:policy/Nope"])).toBe("InvalidParameterValue: Policy arn:aws:iam::aws:policy/Nope does not exist or is not attachable.");
  });
});

describe("GetFederationToken", () => {
  it("gives a federated user's temporary keys, 900 to 129600 seconds", async () => {
    const result = await cloud.getFederationToken(client(), { name: "fed-user", durationSeconds: 129600, policy: DOC });
    expect(result.federatedUser).toEqual({ arn: "arn:aws:sts::123456789012:federated-user/fed-user", federatedUserId: "123456789012:fed-user" });
    expect(result.credentials.accessKeyId).toMatch(/^ASIA/);
    expect(result.credentials.expiration.getTime()).toBe(now + 129_600_000);
    expect(await refusal(cloud.getFederationToken(client(), { name: "f", durationSeconds: 900 }))).toMatch(/'name' failed to satisfy constraint: Member must have length greater than or equal to 2/);
    expect(await refusal(cloud.getFederationToken(client(), { name: "x".repeat(33), durationSeconds: 900 }))).toMatch(/Member must have length less than or equal to 32/);
    expect(await refusal(cloud.getFederationToken(client(), { name: "ff", durationSeconds: 899 }))).toMatch(/greater than or equal to 900/);
    expect(await refusal(cloud.getFederationToken(client(), { name: "ff", durationSeconds: 129601 }))).toMatch(/less than or equal to 129600/);
  });

  it("needs an IAM user's long-term keys, and its sessions cannot call IAM", async () => {
    const role = await cloud.assumeRole(client(), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900 });
    expect(await refusal(cloud.getFederationToken(client(role.credentials), { name: "ff", durationSeconds: 900 }))).toBe(
      "AccessDenied: Cannot call GetFederationToken with session credentials",
    );
    const fed = await cloud.getFederationToken(client(), { name: "ff", durationSeconds: 900, policy: DOC });
    expect(await refusal(cloud.listAccessKeys(client(fed.credentials), "secrets-root"))).toBe(
      "AccessDenied: User: arn:aws:sts::123456789012:federated-user/ff is not authorized to perform: iam:ListAccessKeys",
    );
    expect(await refusal(cloud.assumeRole(client(fed.credentials), { roleArn: DEPLOY, roleSessionName: "s1", durationSeconds: 900 }))).toMatch(/^AccessDenied/);
  });
});

describe("the assigned role", () => {
  it("has none by default, and gives role-session credentials when the world assigns one", async () => {
    expect(await cloud.assignedRoleCredentials()).toBeUndefined();
    const assigned = new SimulatedCloud({ world: parseCloudWorld({ ...DEFAULT_CLOUD_WORLD, assigned_role: "deploy" }), now: () => now });
    const credentials = (await assigned.assignedRoleCredentials())!;
    expect(credentials.accessKeyId).toMatch(/^ASIA/);
    expect(await assigned.assignedRoleCredentials()).toEqual(credentials);
    expect(await assigned.listAccessKeys(client(credentials), "secrets-root")).toEqual([ROOT.accessKeyId]);
    expect(assigned.calls.at(-1)!.caller).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deploy\/i-/);
    now += 6 * 3600_000;
    expect((await assigned.assignedRoleCredentials())!.accessKeyId).not.toBe(credentials.accessKeyId);
  });
});
