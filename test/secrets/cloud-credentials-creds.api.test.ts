// Credentials of every type through the generated client, with the provider's limits: IAM users
// (what is created in the provider, and that a failure leaves nothing behind), assumed roles and
// federation tokens (TTLs, role ARNs, session names), /creds and /sts, leases, secrets.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, ROOT_SECRET_KEY, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";

const NOW = Date.parse("2025-06-01T12:00:00Z");
const UNIX = NOW / 1000;
const DEPLOY = "arn:aws:iam::123456789012:role/deploy";
const READONLY_ROLE = "arn:aws:iam::123456789012:role/readonly";
const LONG = "arn:aws:iam::123456789012:role/long-sessions";
const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const DOC = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}';

let server: CloudTestServer;
const consoleOutput: string[] = [];
beforeAll(async () => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleOutput.push(args.map(String).join(" ")));
  }
  const world = parseWorld({
    policies: { ci: { path: { "aws/creds/*": { capabilities: ["read"] }, "aws/sts/*": { capabilities: ["update"] } } } },
    tokens: [{ id: "ci-token", policies: ["ci"], display_name: "ci" }],
  });
  server = await startCloudSecrets({
    world,
    now: () => NOW,
    cloud: {
      policies: [{ name: "secrets-boundary" }, { name: "deploy-tools" }, ...Array.from({ length: 10 }, (_, i) => ({ name: `extra-${i}` }))],
      groups: [
        { name: "developers", policy_arns: [READONLY], policies: { "developers-s3": DOC } },
        { name: "operators", policy_arns: ["arn:aws:iam::aws:policy/PowerUserAccess"] },
        { name: "many-policies", policy_arns: Array.from({ length: 10 }, (_, i) => `arn:aws:iam::123456789012:policy/extra-${i}`) },
      ],
    },
  });
  await server.client.POST("/aws/config/root", { body: { ...STATIC_ROOT, region: "eu-west-1" } });
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const body of server.bodies) expect(body).not.toContain(ROOT_SECRET_KEY);
  for (const line of consoleOutput) expect(line).not.toContain(ROOT_SECRET_KEY);
  await server.close();
});

const role = (name: string, body: Record<string, unknown>) => server.client.POST("/aws/roles/{name}", { params: { path: { name } }, body });
const creds = (name: string, query: { role_arn?: string; role_session_name?: string; ttl?: string } = {}, client = server.client) =>
  client.GET("/aws/creds/{name}", { params: { path: { name }, query } });
const sts = (name: string, body: { role_arn?: string; role_session_name?: string; ttl?: string | number } = {}) =>
  server.client.PUT("/aws/sts/{name}", { params: { path: { name } }, body });
const users = () => server.cloud.userNames();

describe("IAM users", () => {
  beforeEach(async () => {
    await server.client.DELETE("/aws/roles/{name}", { params: { path: { name: "app" } } });
  });

  it("creates a user with the role's path, boundary, policies, groups and tags, and an access key", async () => {
    await role("app", {
      credential_type: "iam_user",
      policy_arns: [READONLY, "arn:aws:iam::123456789012:policy/deploy-tools"],
      policy_document: DOC,
      iam_groups: "developers,operators",
      iam_tags: { team: "platform", env: "dev" },
      user_path: "/apps/",
      permissions_boundary_arn: "arn:aws:iam::123456789012:policy/secrets-boundary",
    });
    const issued = ok(await creds("app"));
    expect(issued.lease_id).toMatch(/^aws\/creds\/app\/[A-Za-z0-9]{24}$/);
    expect(issued.renewable).toBe(true);
    expect(issued.lease_duration).toBe(768 * 3600);
    const { access_key, secret_key, security_token, arn } = issued.data;
    expect(access_key).toMatch(/^AKIA[A-Z0-9]{16}$/);
    expect(secret_key).toHaveLength(40);
    expect(security_token).toBeNull();
    const userName = arn.split("/").pop()!;
    expect(userName).toMatch(new RegExp(`^secrets-root-app-${UNIX}-[A-Za-z0-9]{20}$`));
    expect(arn).toBe(`arn:aws:iam::123456789012:user/apps/${userName}`);
    expect(server.cloud.user(userName)).toEqual({
      name: userName,
      path: "/apps/",
      arn,
      permissionsBoundary: "arn:aws:iam::123456789012:policy/secrets-boundary",
      tags: { team: "platform", env: "dev" },
      groups: ["developers", "operators"],
      inlinePolicies: { app: DOC },
      attachedPolicies: [READONLY, "arn:aws:iam::123456789012:policy/deploy-tools"],
      accessKeys: [access_key],
    });
    // The credentials are real for the provider.
    expect(await server.cloud.getUser({ credentials: { accessKeyId: access_key, secretAccessKey: secret_key }, region: "us-east-1", endpoint: "", maxRetries: -1 })).toMatchObject({ userName });
  });

  it("names users after the token's display name, and issues the same through /sts for a non-legacy role", async () => {
    await role("app", { credential_type: "iam_user", policy_arns: READONLY });
    const viaCi = ok(await creds("app", {}, server.clientWithToken("ci-token")));
    expect(viaCi.data.arn).toMatch(new RegExp(`:user/secrets-ci-app-${UNIX}-`));
    const viaSts = ok(await sts("app", { ttl: 900 }));
    expect(viaSts.data).toMatchObject({ access_key: expect.stringMatching(/^AKIA/), security_token: null });
    expect(viaSts.lease_id).toMatch(/^aws\/sts\/app\//);
    expect(viaSts.renewable).toBe(true);
  });

  it("deletes a user whose setup failed half-way, so that a refused request leaves nothing behind", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ iam_groups: "developers,nope" }, "Error adding user to group: NoSuchEntity: The group with name nope cannot be found."],
      [{ policy_arns: "arn:aws:iam::123456789012:policy/missing" }, "Error attaching user policy: NoSuchEntity: Policy arn:aws:iam::123456789012:policy/missing does not exist or is not attachable."],
      [{ policy_document: '{"Statement":[{"Effect":"Allow","Action":"s3:*"}]}' }, "Error putting user policy: MalformedPolicyDocument: Missing required field Resource"],
      [{ iam_tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) }, "Error adding tags to user: LimitExceeded: The number of tags has reached the maximum limit of 50."],
      [{ iam_tags: ["aws:owner=me"] }, "Error adding tags to user: InvalidInput: User tag keys beginning with 'aws:' are reserved for system use."],
      [{ permissions_boundary_arn: "arn:aws:iam::aws:policy/NoSuchBoundary" }, "Error creating IAM user: NoSuchEntity: Policy arn:aws:iam::aws:policy/NoSuchBoundary does not exist or is not attachable."],
      [
        { policy_arns: [READONLY, ...Array.from({ length: 10 }, (_, i) => `arn:aws:iam::123456789012:policy/extra-${i}`)] },
        "Error attaching user policy: LimitExceeded: Cannot exceed quota for PoliciesPerUser: 10",
      ],
      [{ policy_document: JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "s3:*", Resource: "r".repeat(2100) }] }) }, "Error putting user policy: LimitExceeded: Maximum policy size of 2048 bytes exceeded for user"],
    ];
    for (const [extra, message] of cases) {
      await server.client.DELETE("/aws/roles/{name}", { params: { path: { name: "app" } } });
      expect((await role("app", { credential_type: "iam_user", policy_arns: READONLY, ...extra })).response.status, JSON.stringify(extra).slice(0, 80)).toBe(204);
      const before = users();
      const { response, error } = await creds("app");
      expect(response.status, message).toBe(400);
      expect((error as { errors: string[] }).errors[0]!.startsWith(message), (error as { errors: string[] }).errors[0]).toBe(true);
      expect(users()).toEqual(before);
    }
  });
});

describe("assumed roles", () => {
  beforeAll(async () => {
    await role("one", { credential_type: "assumed_role", role_arns: DEPLOY });
    await role("two", { credential_type: "assumed_role", role_arns: [DEPLOY, READONLY_ROLE, LONG], policy_document: DOC, policy_arns: READONLY });
  });

  it("gives ASIA keys with a session token for the role's only ARN, for 3600 seconds by default, not renewable", async () => {
    const issued = ok(await creds("one", { role_session_name: "ci-run" }));
    expect(issued.data.access_key).toMatch(/^ASIA[A-Z0-9]{16}$/);
    expect(issued.data.secret_key).toHaveLength(40);
    expect(issued.data.security_token).toMatch(/^IQoJb3JpZ2luX2Vj/);
    expect(issued.data.arn).toBe("arn:aws:sts::123456789012:assumed-role/deploy/ci-run");
    expect(issued.lease_duration).toBe(3600);
    expect(issued.renewable).toBe(false);
    expect(issued.lease_id).toMatch(/^aws\/creds\/one\/[A-Za-z0-9]{24}$/);
  });

  it("needs role_arn when the role allows several, and only one of them", async () => {
    expect((await creds("two")).error).toEqual({ errors: ["did not supply a role_arn parameter and unable to determine one"] });
    expect((await creds("two", { role_arn: "arn:aws:iam::123456789012:role/admin" })).error).toEqual({
      errors: ['role_arn "arn:aws:iam::123456789012:role/admin" not in allowed role arns for role "two"'],
    });
    expect((await creds("one", { role_arn: READONLY_ROLE })).error).toEqual({ errors: [`role_arn "${READONLY_ROLE}" not in allowed role arns for role "one"`] });
    expect(ok(await creds("two", { role_arn: READONLY_ROLE, role_session_name: "rs" })).data.arn).toBe("arn:aws:sts::123456789012:assumed-role/readonly/rs");
  });

  it("refuses query parameters given twice (400, naming each) and issues nothing", async () => {
    const before = leasesOf(server.secrets.cluster).list("aws/creds/");
    const twice = await fetch(`${server.baseUrl}/aws/creds/two?ttl=1h&ttl=2h&role_arn=${DEPLOY}&role_arn=${READONLY_ROLE}`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({ errors: ['query parameter "role_arn": must be string', 'query parameter "ttl": must be string'] });
    expect(leasesOf(server.secrets.cluster).list("aws/creds/")).toEqual(before);
  });

  it("refuses a role ARN the provider does not have", async () => {
    await role("ghost", { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/ghost" });
    expect((await creds("ghost")).error).toEqual({
      errors: ["Error assuming role: AccessDenied: User: arn:aws:iam::123456789012:user/secrets-root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/ghost"],
    });
  });

  it("cleans and cuts role_session_name to 64 characters, or generates one", async () => {
    const long = ok(await creds("one", { role_session_name: `${"a".repeat(60)} b/c:d` }));
    expect(long.data.arn).toBe(`arn:aws:sts::123456789012:assumed-role/deploy/${"a".repeat(60)}_b_c`);
    const generated = ok(await creds("one"));
    expect(generated.data.arn).toMatch(new RegExp(`^arn:aws:sts::123456789012:assumed-role/deploy/secrets-root-one-${UNIX}-[A-Za-z0-9]{20}$`));
    expect((await sts("one", { role_session_name: "x" })).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value 'x' at 'roleSessionName' failed to satisfy constraint: Member must have length greater than or equal to 2"],
    });
  });

  it("takes ttl from the request, else default_sts_ttl, capped by max_sts_ttl, within the provider's 900s to the role's maximum session", async () => {
    expect(ok(await creds("one", { ttl: "15m", role_session_name: "t1" })).lease_duration).toBe(900);
    expect(ok(await sts("one", { ttl: 1200, role_session_name: "t2" })).lease_duration).toBe(1200);
    expect((await creds("one", { ttl: "2h" })).error).toEqual({ errors: ["Error assuming role: ValidationError: The requested DurationSeconds exceeds the MaxSessionDuration set for this role."] });
    expect((await creds("one", { ttl: "600" })).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value '600' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"],
    });
    expect((await creds("one", { ttl: "soon" })).error).toEqual({ errors: ['Field validation failed: error converting input soon for field "ttl": time: invalid duration "soon"'] });
    // Read before the role is looked for, as the framework reads it; days are taken.
    expect((await creds("no-such-role", { ttl: "-1h" })).error).toEqual({ errors: [`Field validation failed: error converting input -1h for field "ttl": cannot provide negative value '-3600'`] });

    await role("ttls", { credential_type: "assumed_role", role_arns: LONG, default_sts_ttl: "2h", max_sts_ttl: "6h" });
    expect(ok(await creds("ttls")).lease_duration).toBe(7200);
    expect(ok(await creds("ttls", { ttl: "12h" })).lease_duration).toBe(6 * 3600);
    await role("ttls", { max_sts_ttl: 0, default_sts_ttl: 0 });
    expect(ok(await creds("ttls", { ttl: "12h" })).lease_duration).toBe(12 * 3600);
    expect((await creds("ttls", { ttl: "13h" })).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value '46800' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 43200"],
    });
    await role("ttls", { max_sts_ttl: 600 });
    expect((await creds("ttls")).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value '600' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"],
    });
  });

  it("adds the groups' managed policies to the session policies, within the provider's 10", async () => {
    await role("grouped", { credential_type: "assumed_role", role_arns: DEPLOY, iam_groups: "developers" });
    ok(await creds("grouped"));
    await role("grouped", { iam_groups: ["many-policies"], policy_arns: READONLY });
    expect((await creds("grouped")).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value at 'policyArns' failed to satisfy constraint: Member must have length less than or equal to 10"],
    });
    await role("grouped", { iam_groups: ["nope"], policy_arns: [] });
    expect((await creds("grouped")).error).toEqual({ errors: ["NoSuchEntity: The group with name nope cannot be found."] });
  });
});

describe("federation tokens", () => {
  beforeAll(async () => {
    await role("fed", { credential_type: "federation_token", policy_arns: READONLY, policy_document: DOC });
  });

  it("gives a federated user's ASIA keys and session token, 3600 seconds by default", async () => {
    const issued = ok(await sts("fed"));
    expect(issued.data.access_key).toMatch(/^ASIA[A-Z0-9]{16}$/);
    expect(issued.data.security_token).toMatch(/^IQoJb3JpZ2luX2Vj/);
    const name = issued.data.arn.split("/").pop()!;
    expect(name).toMatch(new RegExp(`^secrets-${UNIX}-[A-Za-z0-9]{13}$`));
    expect(name).toHaveLength(32);
    expect(issued.data.arn).toBe(`arn:aws:sts::123456789012:federated-user/${name}`);
    expect(issued.lease_duration).toBe(3600);
    expect(issued.renewable).toBe(false);
    expect(ok(await creds("fed", { ttl: "900" })).lease_duration).toBe(900);
  });

  it("lasts up to the provider's 36 hours, capped by max_sts_ttl", async () => {
    expect(ok(await sts("fed", { ttl: "36h" })).lease_duration).toBe(129600);
    expect((await sts("fed", { ttl: "37h" })).error).toEqual({
      errors: ["Error generating STS keys: ValidationError: 1 validation error detected: Value '133200' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 129600"],
    });
    expect((await sts("fed", { ttl: "10m" })).error).toEqual({
      errors: ["Error generating STS keys: ValidationError: 1 validation error detected: Value '600' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"],
    });
    await role("fed-capped", { credential_type: "federation_token", policy_arns: READONLY, max_sts_ttl: "2h" });
    expect(ok(await sts("fed-capped", { ttl: "36h" })).lease_duration).toBe(7200);
  });

  it("combines the groups' inline policies into the session policy", async () => {
    await role("fed-groups", { credential_type: "federation_token", policy_document: DOC, iam_groups: "developers" });
    ok(await sts("fed-groups"));
    const actions = server.cloud.calls.slice(-4).map((call) => call.action);
    expect(actions).toEqual(["ListAttachedGroupPolicies", "ListGroupPolicies", "GetGroupPolicy", "GetFederationToken"]);
  });
});

describe("/creds and /sts", () => {
  it("keeps legacy roles to their path: IAM users through /creds, STS credentials through /sts", async () => {
    await role("legacy-doc", { policy: DOC });
    expect(ok(await creds("legacy-doc")).data.security_token).toBeNull();
    expect(ok(await sts("legacy-doc")).data.arn).toMatch(/:federated-user\//);
    await role("legacy-role", { arn: DEPLOY });
    expect(ok(await sts("legacy-role")).data.arn).toMatch(/:assumed-role\/deploy\//);
    expect((await creds("legacy-role")).error).toEqual({ errors: ["attempted to retrieve assumed_role credentials through the creds path; this is not allowed for legacy roles"] });
    await role("legacy-managed", { arn: READONLY });
    expect(ok(await creds("legacy-managed")).data.access_key).toMatch(/^AKIA/);
    expect((await sts("legacy-managed")).error).toEqual({ errors: ["attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles"] });
  });

  it("refuses a role that does not exist with 400, through every method", async () => {
    const missing = { errors: ["Role 'nope' not found"] };
    const name = { params: { path: { name: "nope" } } };
    expect((await creds("nope")).error).toEqual(missing);
    expect((await sts("nope")).error).toEqual(missing);
    expect((await server.client.GET("/aws/sts/{name}", name)).error).toEqual(missing);
    expect((await server.client.POST("/aws/creds/{name}", { ...name, body: {} })).error).toEqual(missing);
  });

  // The real engine registers reads and writes of (creds|sts)/<name> on one handler
  // (builtin/logical/aws/path_user.go, pathUser: ReadOperation and UpdateOperation both call
  // pathCredsRead), so a GET of /sts takes the parameters from the query and a POST or PUT of
  // /creds from the body; only the path (legacy roles) and the capability differ.
  it("issues STS credentials through GET /sts with the parameters in the query", async () => {
    const issued = ok(await server.client.GET("/aws/sts/{name}", { params: { path: { name: "one" }, query: { ttl: "20m", role_session_name: "via-get" } } }));
    expect(issued.data.arn).toBe("arn:aws:sts::123456789012:assumed-role/deploy/via-get");
    expect(issued.lease_duration).toBe(1200);
    expect(issued.lease_id).toMatch(/^aws\/sts\/one\/[A-Za-z0-9]{24}$/);
    expect((await server.client.GET("/aws/sts/{name}", { params: { path: { name: "two" }, query: { role_arn: "arn:aws:iam::123456789012:role/admin" } } })).error).toEqual({
      errors: ['role_arn "arn:aws:iam::123456789012:role/admin" not in allowed role arns for role "two"'],
    });
    // Legacy roles keep to their path whatever the method.
    await role("legacy-managed-get", { arn: READONLY });
    expect((await server.client.GET("/aws/sts/{name}", { params: { path: { name: "legacy-managed-get" } } })).error).toEqual({
      errors: ["attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles"],
    });
    await role("legacy-doc-get", { policy: DOC });
    expect(ok(await server.client.GET("/aws/sts/{name}", { params: { path: { name: "legacy-doc-get" } } })).data.arn).toMatch(/:federated-user\//);
  });

  it("issues credentials through POST and PUT /creds with the parameters in the body", async () => {
    const name = { params: { path: { name: "two" } } };
    const posted = ok(await server.client.POST("/aws/creds/{name}", { ...name, body: { role_arn: READONLY_ROLE, role_session_name: "via-post", ttl: 1000 } }));
    expect(posted.data.arn).toBe("arn:aws:sts::123456789012:assumed-role/readonly/via-post");
    expect(posted.lease_duration).toBe(1000);
    expect(posted.lease_id).toMatch(/^aws\/creds\/two\/[A-Za-z0-9]{24}$/);
    const put = await fetch(`${server.baseUrl}/aws/creds/two`, { method: "PUT", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: JSON.stringify({ role_arn: LONG, role_session_name: "via-put" }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: { arn: string } }).data.arn).toBe("arn:aws:sts::123456789012:assumed-role/long-sessions/via-put");
    expect((await server.client.POST("/aws/creds/{name}", { ...name, body: {} })).error).toEqual({ errors: ["did not supply a role_arn parameter and unable to determine one"] });
    expect((await server.client.POST("/aws/creds/{name}", { ...name, body: { role_arn: DEPLOY, ttl: "soon" } })).error).toEqual({
      errors: ['Field validation failed: error converting input soon for field "ttl": time: invalid duration "soon"'],
    });
    // Days are read as seconds: a day is more than the provider's longest session, which it refuses.
    expect((await server.client.POST("/aws/creds/{name}", { ...name, body: { role_arn: DEPLOY, ttl: "1d" } })).error).toEqual({
      errors: ["Error assuming role: ValidationError: 1 validation error detected: Value '86400' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to 43200"],
    });
    // Legacy roles keep to their path whatever the method.
    await role("legacy-role-post", { arn: DEPLOY });
    expect((await server.client.POST("/aws/creds/{name}", { params: { path: { name: "legacy-role-post" } }, body: {} })).error).toEqual({
      errors: ["attempted to retrieve assumed_role credentials through the creds path; this is not allowed for legacy roles"],
    });
    // POST is the same as PUT on /sts too.
    expect((await fetch(`${server.baseUrl}/aws/sts/fed`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "{}" })).status).toBe(200);
  });

  it("lets a token with read on creds/* and update on sts/* issue credentials, and nothing else", async () => {
    const ci = server.clientWithToken("ci-token");
    expect(ok(await ci.PUT("/aws/sts/{name}", { params: { path: { name: "fed" } }, body: {} })).data.access_key).toMatch(/^ASIA/);
    expect((await ci.GET("/aws/roles/{name}", { params: { path: { name: "fed" } } })).response.status).toBe(403);
    expect((await ci.POST("/aws/config/rotate-root")).response.status).toBe(403);
    // GET needs read and POST/PUT need update, on /sts as on /creds.
    expect((await ci.GET("/aws/sts/{name}", { params: { path: { name: "fed" } } })).response.status).toBe(403);
    expect((await ci.POST("/aws/creds/{name}", { params: { path: { name: "fed" } }, body: {} })).response.status).toBe(403);
  });
});
