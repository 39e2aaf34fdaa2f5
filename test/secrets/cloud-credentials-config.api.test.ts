// The cloud credentials engine's configuration through the generated client: config/root (stored
// without ever showing the secret, the root credential chain and the region fall-back, custom
// endpoints), rotate-root, config/lease; permissions; secrets never in answers or logs.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { cloudCredentialsEngine } from "../../server/secrets/engines/cloud-credentials/engine.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, ROOT_ACCESS_KEY, ROOT_SECRET_KEY, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { startSecrets } from "../helpers/secrets.ts";

const ENV_KEY = { access_key: "AKIAENVUSER000000001", secret_key: "E".repeat(40) };
const FILE_KEY = { access_key: "AKIAFILEUSER00000001", secret_key: "F".repeat(40) };
const PROFILE_KEY = { access_key: "AKIAPROFILEUSER00001", secret_key: "P".repeat(40) };
const cloudWorld = {
  users: [
    { name: "secrets-root", access_keys: [STATIC_ROOT] },
    { name: "env-user", access_keys: [ENV_KEY] },
    { name: "file-user", access_keys: [FILE_KEY] },
    { name: "profile-user", access_keys: [PROFILE_KEY] },
  ],
};
const role = { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] };

let server: CloudTestServer;
let consoleOutput: string[];
let home: string;

const world = parseWorld({
  policies: { "cloud-reader": { path: { "aws/config/*": { capabilities: ["read"] }, "aws/roles/*": { capabilities: ["read"] } } } },
  tokens: [{ id: "reader", policies: ["cloud-reader"] }],
});

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), "cloud-credentials-"));
  server = await startCloudSecrets({
    world,
    cloud: cloudWorld,
    homeDir: home,
    mounts: [{ path: "aws", engine: "cloud-credentials" }, { path: "team-a/cloud", engine: "cloud-credentials" }],
  });
});
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await server.close();
});

beforeEach(() => {
  server.reset();
  consoleOutput = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleOutput.push(args.map(String).join(" ")));
  }
});
afterEach(() => {
  // Nothing any test did may show the root secret, in an answer or on the console.
  for (const body of server.bodies) expect(body).not.toContain(ROOT_SECRET_KEY);
  for (const line of consoleOutput) expect(line).not.toContain(ROOT_SECRET_KEY);
  vi.restoreAllMocks();
});

const writeRoot = (body: Record<string, unknown>) => server.client.POST("/aws/config/root", { body });
const readRoot = () => server.client.GET("/aws/config/root");
const writeRole = (name = "r", body: Record<string, unknown> = role) => server.client.POST("/aws/roles/{name}", { params: { path: { name } }, body });
const creds = (name = "r") => server.client.GET("/aws/creds/{name}", { params: { path: { name }, query: {} } });
const lastCaller = () => server.cloud.calls.at(-1)!.caller;

describe("config/root", () => {
  it("answers 404 with no message before it is configured", async () => {
    const { response, error } = await readRoot();
    expect(response.status).toBe(404);
    expect(error).toEqual({ errors: [] });
  });

  it("stores the configuration and shows it without the secret key", async () => {
    const written = await writeRoot({ ...STATIC_ROOT, region: "eu-west-1", iam_endpoint: "https://iam.example.internal", sts_endpoint: "https://sts.example.internal", max_retries: 5 });
    expect(written.response.status).toBe(204);
    const data = ok(await readRoot());
    expect(data.data).toEqual({ access_key: ROOT_ACCESS_KEY, region: "eu-west-1", iam_endpoint: "https://iam.example.internal", sts_endpoint: "https://sts.example.internal", max_retries: 5 });
    expect(JSON.stringify(data)).not.toContain("secret_key");
  });

  it("replaces the whole configuration on each write (left-out fields empty, max_retries -1)", async () => {
    await writeRoot({ ...STATIC_ROOT, region: "eu-west-1", max_retries: 3 });
    await writeRoot({ region: "us-west-2" });
    expect(ok(await readRoot()).data).toEqual({ access_key: "", region: "us-west-2", iam_endpoint: "", sts_endpoint: "", max_retries: -1 });
  });

  it("reads max_retries as the framework reads an int: text in Go's integer syntax, booleans; null is 0", async () => {
    for (const [sent, stored] of [["5", 5], ["0x10", 16], ["017", 15], ["0b11", 3], ["1_000", 1000], ["-5", -5], [-5, -5], ["", 0], [true, 1], [false, 0], [null, 0]] as const) {
      expect((await writeRoot({ max_retries: sent })).response.status, String(sent)).toBe(204);
      expect(ok(await readRoot()).data.max_retries, String(sent)).toBe(stored);
    }
    const index = server.secrets.cluster.storage.index();
    for (const [sent, problem] of [
      ["three", `error converting input three for field "max_retries": cannot parse '' as int: strconv.ParseInt: parsing "three": invalid syntax`],
      [1.5, `error converting input 1.5 for field "max_retries": cannot parse '' as int: strconv.ParseInt: parsing "1.5": invalid syntax`],
      ["9223372036854775808", `error converting input 9223372036854775808 for field "max_retries": cannot parse '' as int: strconv.ParseInt: parsing "9223372036854775808": value out of range`],
    ] as const) {
      const { response, error } = await writeRoot({ region: "eu-west-1", max_retries: sent });
      expect(response.status, String(sent)).toBe(400);
      expect(error).toEqual({ errors: [`Field validation failed: ${problem}`] });
    }
    expect(server.secrets.cluster.storage.index()).toBe(index);
  });

  it("refuses a body that does not follow the schema, with 400 and nothing changed", async () => {
    await writeRoot({ ...STATIC_ROOT, region: "eu-west-1" });
    const index = server.secrets.cluster.storage.index();
    for (const body of [{ max_retries: "three" }, { max_retries: 1.5 }, { max_retries: [3] }, { region: 5 }, { access_key: ["a"] }]) {
      const { response, error } = await writeRoot(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((error as { errors: string[] }).errors.length).toBeGreaterThan(0);
    }
    const raw = await fetch(`${server.baseUrl}/aws/config/root`, { method: "POST", headers: { "X-Secrets-Token": "root-token-for-tests" }, body: "{not json" });
    expect(raw.status).toBe(400);
    expect(server.secrets.cluster.storage.index()).toBe(index);
    expect(ok(await readRoot()).data.region).toBe("eu-west-1");
  });

  it("does not check the credentials when they are written; their use does", async () => {
    expect((await writeRoot({ access_key: "AKIAUNKNOWN000000001", secret_key: "x".repeat(40) })).response.status).toBe(204);
    await writeRole();
    const { response, error } = await creds();
    expect(response.status).toBe(400);
    expect(error).toEqual({ errors: ["Error creating IAM user: InvalidClientTokenId: The security token included in the request is invalid."] });
  });

  it("keeps the configuration of each mount apart", async () => {
    const headers = { "X-Secrets-Token": "root-token-for-tests" };
    await server.client.POST("/aws/config/root", { body: { region: "eu-west-1" } });
    expect((await fetch(`${server.baseUrl}/team-a/cloud/config/root`, { headers })).status).toBe(404);
    await fetch(`${server.baseUrl}/team-a/cloud/config/root`, { method: "PUT", headers, body: JSON.stringify({ region: "ap-south-1" }) });
    const read = await fetch(`${server.baseUrl}/team-a/cloud/config/root`, { headers });
    expect(((await read.json()) as { data: { region: string } }).data.region).toBe("ap-south-1");
    expect(ok(await server.client.GET("/aws/config/root")).data.region).toBe("eu-west-1");
  });
});

describe("where the root credentials come from", () => {
  beforeEach(() => writeRole());

  it("uses the static keys of the configuration first", async () => {
    Object.assign(server.env, { AWS_ACCESS_KEY_ID: ENV_KEY.access_key, AWS_SECRET_ACCESS_KEY: ENV_KEY.secret_key });
    await writeRoot(STATIC_ROOT);
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/secrets-root");
    expect(await server.engine.at("aws").rootCredentialSource()).toBe("static");
  });

  it("then the environment (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, or AWS_ACCESS_KEY / AWS_SECRET_KEY)", async () => {
    await writeRoot({ region: "eu-west-1" });
    Object.assign(server.env, { AWS_ACCESS_KEY_ID: ENV_KEY.access_key, AWS_SECRET_ACCESS_KEY: ENV_KEY.secret_key });
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/env-user");
    delete server.env.AWS_ACCESS_KEY_ID;
    delete server.env.AWS_SECRET_ACCESS_KEY;
    Object.assign(server.env, { AWS_ACCESS_KEY: ENV_KEY.access_key, AWS_SECRET_KEY: ENV_KEY.secret_key });
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/env-user");
    // The configuration shows only what it stores.
    expect(ok(await readRoot()).data.access_key).toBe("");
  });

  it("then the shared credentials file, read from disk at each use ($HOME/.aws/credentials, AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE)", async () => {
    await writeRoot({});
    const { response, error } = await creds();
    expect(response.status).toBe(400);
    expect((error as { errors: string[] }).errors[0]).toBe("NoCredentialProviders: no valid providers in chain");

    mkdirSync(path.join(home, ".aws"), { recursive: true });
    writeFileSync(path.join(home, ".aws", "credentials"), `[default]\naws_access_key_id = ${FILE_KEY.access_key}\naws_secret_access_key = ${FILE_KEY.secret_key}\n`);
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/file-user");
    expect(await server.engine.at("aws").rootCredentialSource()).toBe("shared-credentials-file");

    const other = path.join(home, "other-credentials");
    writeFileSync(other, `[default]\naws_access_key_id=${FILE_KEY.access_key}\naws_secret_access_key=${FILE_KEY.secret_key}\n[ops]\naws_access_key_id=${PROFILE_KEY.access_key}\naws_secret_access_key=${PROFILE_KEY.secret_key}\n`);
    Object.assign(server.env, { AWS_SHARED_CREDENTIALS_FILE: other, AWS_PROFILE: "ops" });
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/profile-user");

    // Read for real at each use: a changed file is seen at once.
    writeFileSync(other, `[ops]\naws_access_key_id=${FILE_KEY.access_key}\naws_secret_access_key=${FILE_KEY.secret_key}\n`);
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/file-user");
    rmSync(path.join(home, ".aws"), { recursive: true, force: true });
  });

  it("then the role assigned to the machine, which can issue IAM users and assume roles but not federation tokens", async () => {
    server.reset({ cloud: { ...cloudWorld, assigned_role: "deploy" } });
    const assigned = server;
    const c = assigned.client;
    await c.POST("/aws/roles/{name}", { params: { path: { name: "r" } }, body: role });
    expect(ok(await c.GET("/aws/creds/{name}", { params: { path: { name: "r" }, query: {} } })).data.access_key).toMatch(/^AKIA/);
    expect(assigned.cloud.calls.at(-1)!.caller).toMatch(/^arn:aws:sts::123456789012:assumed-role\/deploy\//);
    expect(await assigned.engine.at("aws").rootCredentialSource()).toBe("assigned-role");
    await c.POST("/aws/roles/{name}", { params: { path: { name: "fed" } }, body: { credential_type: "federation_token", policy_arns: role.policy_arns } });
    expect((await c.PUT("/aws/sts/{name}", { params: { path: { name: "fed" } }, body: {} })).error).toEqual({
      errors: ["Error generating STS keys: AccessDenied: Cannot call GetFederationToken with session credentials"],
    });
    // A session of a role may assume another role for one hour at most (role chaining).
    await c.POST("/aws/roles/{name}", { params: { path: { name: "long" } }, body: { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/long-sessions" } });
    expect(ok(await c.PUT("/aws/sts/{name}", { params: { path: { name: "long" } }, body: { ttl: "1h" } })).lease_duration).toBe(3600);
    expect((await c.PUT("/aws/sts/{name}", { params: { path: { name: "long" } }, body: { ttl: "2h" } })).error).toEqual({
      errors: ["Error assuming role: ValidationError: The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining."],
    });
  });

  it("says why no source applied when none does, and refuses half-configured static keys", async () => {
    await writeRoot({});
    Object.assign(server.env, { AWS_ACCESS_KEY_ID: ENV_KEY.access_key });
    expect((await creds()).error).toEqual({
      errors: [
        "NoCredentialProviders: no valid providers in chain",
        "EnvSecretNotFound: AWS_SECRET_ACCESS_KEY or AWS_SECRET_KEY not found in environment",
        `SharedCredsLoad: failed to load shared credentials file ${path.join(home, ".aws", "credentials")}`,
        "no role is assigned to the machine or container the service runs on",
      ],
    });
    await writeRoot({ access_key: ROOT_ACCESS_KEY });
    expect((await creds()).error).toEqual({
      errors: ["static cloud client credentials haven't been properly configured (the access key or secret key were provided but not both)"],
    });
  });

  it("reads the region from the configuration, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1", async () => {
    const regionOfLastCall = async () => {
      ok(await creds());
      return server.cloud.calls.at(-1)!.region;
    };
    await writeRoot({ ...STATIC_ROOT, region: "eu-west-1" });
    Object.assign(server.env, { AWS_REGION: "us-west-2", AWS_DEFAULT_REGION: "ap-south-1" });
    expect(await regionOfLastCall()).toBe("eu-west-1");
    await writeRoot(STATIC_ROOT);
    expect(await regionOfLastCall()).toBe("us-west-2");
    delete server.env.AWS_REGION;
    expect(await regionOfLastCall()).toBe("ap-south-1");
    delete server.env.AWS_DEFAULT_REGION;
    expect(await regionOfLastCall()).toBe("us-east-1");
  });

  it("calls custom endpoints: iam_endpoint for the identity service, sts_endpoint for tokens", async () => {
    server.reset({ cloud: { ...cloudWorld, endpoints: ["https://iam.example.internal", "https://sts.example.internal"] } });
    const custom = server;
    const c = custom.client;
    await c.POST("/aws/config/root", { body: { ...STATIC_ROOT, iam_endpoint: "https://iam.example.internal", sts_endpoint: "https://sts.example.internal" } });
    await c.POST("/aws/roles/{name}", { params: { path: { name: "r" } }, body: role });
    await c.POST("/aws/roles/{name}", { params: { path: { name: "d" } }, body: { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:role/deploy" } });
    ok(await c.GET("/aws/creds/{name}", { params: { path: { name: "r" }, query: {} } }));
    ok(await c.GET("/aws/creds/{name}", { params: { path: { name: "d" }, query: {} } }));
    const endpoints = new Set(custom.cloud.calls.map((call) => `${call.service} ${call.endpoint}`));
    expect([...endpoints].sort()).toEqual(["iam https://iam.example.internal", "sts https://sts.example.internal"]);

    await c.POST("/aws/config/root", { body: { ...STATIC_ROOT, sts_endpoint: "https://sts.nowhere.example" } });
    ok(await c.GET("/aws/creds/{name}", { params: { path: { name: "r" }, query: {} } }));
    expect((await c.GET("/aws/creds/{name}", { params: { path: { name: "d" }, query: {} } })).error).toEqual({
      errors: ['Error assuming role: RequestError: send request failed caused by: Post "https://sts.nowhere.example": dial tcp: lookup sts.nowhere.example: no such host'],
    });
  });

  it("reads the machine's environment and shared credentials file for real when none is given", async () => {
    const plain = await startSecrets();
    const saved = { ...process.env };
    try {
      const file = path.join(home, "process-credentials");
      writeFileSync(file, `[default]\naws_access_key_id = ${ROOT_ACCESS_KEY}\naws_secret_access_key = ${ROOT_SECRET_KEY}\n`);
      for (const name of ["AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"]) delete process.env[name];
      process.env.AWS_SHARED_CREDENTIALS_FILE = file;
      process.env.AWS_DEFAULT_REGION = "eu-central-1";
      await plain.client.POST("/aws/roles/{name}", { params: { path: { name: "r" } }, body: role });
      expect(ok(await plain.client.GET("/aws/creds/{name}", { params: { path: { name: "r" }, query: {} } })).data.access_key).toMatch(/^AKIA/);
      const engine = cloudCredentialsEngine(plain.secrets.cluster);
      expect(await engine.at("aws").rootCredentialSource()).toBe("shared-credentials-file");
    } finally {
      process.env = saved;
      await plain.close();
    }
  });
});

describe("rotate-root", () => {
  it("creates a new key for the configured user, stores it, deletes the old one, and returns only the new key id", async () => {
    await writeRoot({ ...STATIC_ROOT, region: "eu-west-1" });
    const rotated = ok(await server.client.POST("/aws/config/rotate-root"));
    const newKey = rotated.data.access_key;
    expect(newKey).toMatch(/^AKIA[A-Z0-9]{16}$/);
    expect(newKey).not.toBe(ROOT_ACCESS_KEY);
    expect(Object.keys(rotated.data)).toEqual(["access_key"]);
    expect(server.cloud.user("secrets-root")!.accessKeys).toEqual([newKey]);
    expect(ok(await readRoot()).data).toEqual({ access_key: newKey, region: "eu-west-1", iam_endpoint: "", sts_endpoint: "", max_retries: -1 });
    // The stored secret is the new one: credentials can still be issued, and rotation can go on.
    await writeRole();
    ok(await creds());
    expect(lastCaller()).toBe("arn:aws:iam::123456789012:user/secrets-root");
    const again = ok(await server.client.POST("/aws/config/rotate-root")).data.access_key;
    expect(server.cloud.user("secrets-root")!.accessKeys).toEqual([again]);
    // The new secret never left the server.
    const secretOfNewKey = (server.secrets.cluster.storage.list("logical/").map((key) => server.secrets.cluster.storage.get<Record<string, string>>(key)).find((v) => v && v.access_key === again) ?? {}).secret_key;
    expect(secretOfNewKey).toHaveLength(40);
    for (const body of server.bodies) expect(body).not.toContain(secretOfNewKey);
  });

  // The real handler (builtin/logical/aws/path_config_rotate_root.go, pathConfigRotateRootUpdate)
  // returns its failures as plain errors, which the server answers with 500 and the text of the
  // go-multierror that wraps them (vault/request_handling.go; sdk/logical/response_util.go
  // RespondErrorCommon): only the check for static keys is an ErrorResponse (400).
  const internal = (text: string) => ({ errors: [`1 error occurred:\n\t* ${text}\n\n`] });

  it("fails with 500 when the user has another access key, and changes nothing", async () => {
    await writeRoot(STATIC_ROOT);
    const other = server.cloud.addAccessKey("secrets-root");
    const index = server.secrets.cluster.storage.index();
    const { response, error } = await server.client.POST("/aws/config/rotate-root");
    expect(response.status).toBe(500);
    expect(error).toEqual(internal("error calling CreateAccessKey: LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2"));
    expect(server.secrets.cluster.storage.index()).toBe(index);
    expect(server.cloud.user("secrets-root")!.accessKeys.sort()).toEqual([ROOT_ACCESS_KEY, other.accessKeyId].sort());
    expect(ok(await readRoot()).data.access_key).toBe(ROOT_ACCESS_KEY);
  });

  it("works only with static credentials in the configuration: 400 without keys, 500 for the rest", async () => {
    const refusal = async () => {
      const { response, error } = await server.client.POST("/aws/config/rotate-root");
      return { status: response.status, ...error };
    };
    expect(await refusal()).toEqual({ status: 500, ...internal("no configuration found for config/root") });
    Object.assign(server.env, { AWS_ACCESS_KEY_ID: ENV_KEY.access_key, AWS_SECRET_ACCESS_KEY: ENV_KEY.secret_key });
    // Credentials from elsewhere (here the environment) are not rotated.
    expect(await refusal()).toEqual({ status: 500, ...internal("no configuration found for config/root") });
    await writeRoot({ region: "eu-west-1" });
    expect(await refusal()).toEqual({ status: 400, errors: ["Cannot call config/rotate-root when either access_key or secret_key is empty"] });
    // One key without the other: the client is made first, and that fails.
    await writeRoot({ access_key: ROOT_ACCESS_KEY });
    expect(await refusal()).toEqual({
      status: 500,
      ...internal("static cloud client credentials haven't been properly configured (the access key or secret key were provided but not both)"),
    });
    await writeRoot({ access_key: "AKIAUNKNOWN000000001", secret_key: "x".repeat(40) });
    expect(await refusal()).toEqual({ status: 500, ...internal("error calling GetUser: InvalidClientTokenId: The security token included in the request is invalid.") });
    expect(server.cloud.user("env-user")!.accessKeys).toEqual([ENV_KEY.access_key]);
  });
});

describe("config/lease", () => {
  const writeLease = (body: Record<string, unknown>) => server.client.POST("/aws/config/lease", { body: body as never });
  const readLease = () => server.client.GET("/aws/config/lease");

  it("answers 404 with no message before it is configured; IAM users then get 768h", async () => {
    expect((await readLease()).response.status).toBe(404);
    expect((await readLease()).error).toEqual({ errors: [] });
    await writeRoot(STATIC_ROOT);
    await writeRole();
    expect(ok(await creds()).lease_duration).toBe(768 * 3600);
  });

  it("stores the lease and reads it back in long form; IAM users get it", async () => {
    for (const [lease, max, longLease, longMax] of [
      ["30m", "12h", "30m0s", "12h0m0s"],
      ["90s", "1h30m", "1m30s", "1h30m0s"],
      ["1.5h", "720h", "1h30m0s", "720h0m0s"],
    ]) {
      expect((await writeLease({ lease, lease_max: max })).response.status).toBe(204);
      expect(ok(await readLease()).data).toEqual({ lease: longLease, lease_max: longMax });
    }
    await writeLease({ lease: "30m", lease_max: "12h" });
    await writeRoot(STATIC_ROOT);
    await writeRole();
    const issued = ok(await creds());
    expect(issued.lease_duration).toBe(1800);
    expect(issued.renewable).toBe(true);
  });

  it("takes a negative lease, as Go's ParseDuration does, and gives IAM users the mount's default then", async () => {
    expect((await writeLease({ lease: "-1h", lease_max: "-2h" })).response.status).toBe(204);
    expect(ok(await readLease()).data).toEqual({ lease: "-1h0m0s", lease_max: "-2h0m0s" });
    await writeRoot(STATIC_ROOT);
    await writeRole();
    expect(ok(await creds()).lease_duration).toBe(768 * 3600);
  });

  it("refuses missing, empty, unit-less and unknown-unit durations with the handler's first refusal, changing nothing", async () => {
    await writeLease({ lease: "1h", lease_max: "24h" });
    const index = server.secrets.cluster.storage.index();
    // path_config_lease.go pathLeaseWrite: an empty lease, an empty lease_max, then each parsed; one message.
    const cases: [Record<string, unknown>, string[]][] = [
      [{ lease: "3600", lease_max: "24h" }, ['Invalid lease: time: missing unit in duration "3600"']],
      [{ lease: "1d", lease_max: "24h" }, ['Invalid lease: time: unknown unit "d" in duration "1d"']],
      [{ lease: "1h", lease_max: "soon" }, ['Invalid lease_max: time: invalid duration "soon"']],
      [{ lease: "soon", lease_max: "later" }, ['Invalid lease: time: invalid duration "soon"']],
      [{ lease: "", lease_max: "" }, ["'lease' is a required parameter"]],
      [{ lease: "soon", lease_max: "" }, ["'lease_max' is a required parameter"]],
      // A member left out reads as "".
      [{ lease: "1h" }, ["'lease_max' is a required parameter"]],
      [{ lease_max: "1h" }, ["'lease' is a required parameter"]],
      [{}, ["'lease' is a required parameter"]],
    ];
    for (const [body, errors] of cases) {
      const { response, error } = await writeLease(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error, JSON.stringify(body)).toEqual({ errors });
    }
    expect((await writeLease({ lease: 3600, lease_max: "1h" })).response.status).toBe(400);
    expect(server.secrets.cluster.storage.index()).toBe(index);
    expect(ok(await readLease()).data).toEqual({ lease: "1h0m0s", lease_max: "24h0m0s" });
  });
});

describe("permissions", () => {
  it("refuses every operation without a token, with an unknown one, or without the capability", async () => {
    const guarded = server;
    const name = { params: { path: { name: "r" } } };
    for (const token of [undefined, "who-is-this", "reader"]) {
      const c = guarded.clientWithToken(token);
      const answers = await Promise.all([
        c.POST("/aws/config/root", { body: STATIC_ROOT }),
        ...(token === "reader" ? [] : [c.GET("/aws/config/root"), c.GET("/aws/config/lease"), c.GET("/aws/roles/{name}", name)]),
        c.POST("/aws/config/rotate-root"),
        c.POST("/aws/config/lease", { body: { lease: "1h", lease_max: "2h" } }),
        c.GET("/aws/roles", { params: { query: { list: "true" } } }),
        c.POST("/aws/roles/{name}", { ...name, body: role }),
        c.DELETE("/aws/roles/{name}", name),
        c.GET("/aws/creds/{name}", { params: { path: { name: "r" }, query: {} } }),
        c.POST("/aws/creds/{name}", { ...name, body: {} }),
        c.PUT("/aws/sts/{name}", { ...name, body: {} }),
        c.GET("/aws/sts/{name}", { params: { path: { name: "r" }, query: {} } }),
      ]);
      for (const answer of answers) {
        expect(answer.response.status, `${token} ${answer.response.url}`).toBe(403);
        expect(answer.error).toEqual({ errors: ["permission denied"] });
      }
    }
    const reader = guarded.clientWithToken("reader");
    expect((await reader.GET("/aws/config/root")).response.status).toBe(404);
    expect((await reader.GET("/aws/roles/{name}", { params: { path: { name: "r" } } })).response.status).toBe(404);
    expect(guarded.secrets.cluster.storage.list("logical/")).toEqual([]);
  });
});
