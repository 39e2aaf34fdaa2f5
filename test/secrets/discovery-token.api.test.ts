// The discovery-token engine through the generated client, against a real mesh reference server on
// loopback: access configuration (stored without a call to the backend), roles (checked without any
// backend version, as builtin/logical/consul/path_roles.go does), LIST, and tokens issued by the
// mesh's ACL API, which refuses what its version does not have and honours the tokens on
// discovery-chain reads. Every answer and every log line is recorded, and the mesh's
// management token must appear in none of them.
import { compareVersions } from "../../server/mesh/domain/version.ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseWorld } from "../../server/secrets/world.ts";
import { startMesh, type MeshClient, type RunningMesh } from "../helpers/mesh.ts";
import { rawRequest } from "../helpers/raw-get.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";
import { expectEmptyList, recordOutput, startDiscoverySecrets, type DiscoverySecrets } from "./discovery-token.helpers.ts";

const MANAGEMENT = "mesh-management-token-7f3c9a";
const POLICY = (rules: string) => Buffer.from(rules).toString("base64");
const WEB_READ = 'service "web" { policy = "read" }';
const CLIENT_NEEDS = "Use either a policy document, a list of policies, or a list of roles, depending on your Consul version";

const world = parseWorld({
  policies: {
    "dt-admin": { path: { "consul/*": { capabilities: ["create", "read", "update", "delete", "list"] } } },
    "dt-creds": { path: { "consul/creds/*": { capabilities: ["read"] } } },
  },
  tokens: [
    { id: "dt-admin", policies: ["dt-admin"] },
    { id: "dt-creds", policies: ["dt-creds"] },
    { id: "nothing", policies: [] },
  ],
});

let output: ReturnType<typeof recordOutput>;
let secrets: DiscoverySecrets;
const meshes: RunningMesh[] = [];

async function mesh(version?: string): Promise<RunningMesh> {
  const started = await startMesh({ managementToken: MANAGEMENT, ...(version ? { version } : {}) });
  meshes.push(started);
  const root = started.clientWithToken(MANAGEMENT);
  // Backends before 1.4 have no policies (only legacy tokens with their own rules).
  if (version && compareVersions(version, "1.4.0") < 0) return started;
  for (const [Name, Rules] of [
    ["web-reader", WEB_READ],
    ["api-reader", 'service "api" { policy = "read" }'],
  ]) {
    expect((await root.PUT("/acl/policy", { body: { Name: Name!, Rules } })).response.status).toBe(200);
  }
  return started;
}

const address = (m: RunningMesh) => new URL(m.baseUrl).host;

async function configure(m: RunningMesh, s: DiscoverySecrets = secrets) {
  const { response, error } = await s.root.POST("/consul/config/access", { body: { address: address(m), token: MANAGEMENT } });
  expect(response.status, JSON.stringify(error)).toBe(204);
}

async function writeRole(name: string, body: Record<string, unknown>, s: DiscoverySecrets = secrets) {
  return s.root.POST("/consul/roles/{name}", { params: { path: { name } }, body: body as never });
}

async function creds(name: string, s: DiscoverySecrets = secrets) {
  return s.root.GET("/consul/creds/{name}", { params: { path: { name } } });
}

const readChain = (client: MeshClient, service: string, ns?: string) =>
  client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: service }, ...(ns ? { query: { ns } } : {}) } });

beforeAll(async () => {
  output = recordOutput();
  secrets = await startDiscoverySecrets({ world });
});

afterAll(async () => {
  await secrets.close();
  await Promise.all(meshes.map((m) => m.close()));
  output.restore();
  // The management token was given to the engine in every test; it never came back or got logged.
  expect(secrets.answers.length).toBeGreaterThan(40);
  expect(secrets.answers.join("\n")).not.toContain(MANAGEMENT);
  expect(output.logs.join("\n")).not.toContain(MANAGEMENT);
});

describe("config/access", () => {
  let current: RunningMesh;
  beforeAll(async () => {
    current = await mesh();
  });

  it("is stored (204, no body), and read back as address and scheme only", async () => {
    const fresh = await startDiscoverySecrets();
    try {
      // Before any write: 400 with the engine's words (path_config.go, pathConfigAccessRead).
      const before = await fresh.root.GET("/consul/config/access");
      expect(before.response.status).toBe(400);
      expect(before.error).toEqual({ errors: ["access credentials for the backend itself haven't been configured; please configure them at the '/config/access' endpoint"] });
    } finally {
      await fresh.close();
    }
    const { response, data } = await secrets.root.POST("/consul/config/access", { body: { address: address(current), scheme: "http", token: MANAGEMENT } });
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    const read = await secrets.root.GET("/consul/config/access");
    expect(read.response.status).toBe(200);
    expect(read.data).toMatchObject({ lease_id: "", renewable: false, lease_duration: 0 });
    expect(read.data!.data).toEqual({ address: address(current), scheme: "http" });
  });

  it("refuses bad settings with every problem, changing nothing", async () => {
    const { response, error } = await secrets.root.POST("/consul/config/access", {
      body: { address: "mesh.example", token: "", client_cert: "-----BEGIN CERTIFICATE-----" },
    });
    expect(response.status).toBe(400);
    expect(error).toEqual({
      errors: [
        'address must be host:port (e.g. 127.0.0.1:8500), not "mesh.example"',
        "token is required: a management token of the backend",
        "ca_cert, client_cert and client_key need scheme https",
        "client_cert and client_key must be given together",
      ],
    });
    const schema = await secrets.root.POST("/consul/config/access", { body: { token: MANAGEMENT, scheme: "ftp" } as never });
    expect(schema.response.status).toBe(400);
    expect(schema.error!.errors).toEqual(expect.arrayContaining(["'address' must be specified in request body as JSON", expect.stringMatching(/^scheme: must be equal to one of the allowed values/)]));
    // The earlier configuration still works.
    expect((await writeRole("still-configured", { policies: "web-reader" })).response.status).toBe(204);
  });

  // The real engine stores the fields without a call (builtin/logical/consul/path_config.go,
  // pathConfigAccessWrite); a backend that does not answer shows when a token is made (path_token.go,
  // pathTokenRead: 400 with the Go client's error text).
  it("stores settings without calling the backend; creds then answer the backend client's words, never the token", async () => {
    const closed = await startMesh({ managementToken: MANAGEMENT });
    const gone = address(closed);
    await closed.close();
    expect((await secrets.root.POST("/consul/config/access", { body: { address: gone, token: MANAGEMENT } })).response.status).toBe(204);
    expect((await writeRole("after-config", { policies: "web-reader" })).response.status).toBe(204);
    expect((await writeRole("admin-after-config", { token_type: "management" })).response.status).toBe(204);
    const unreachable = await creds("after-config");
    expect(unreachable.response.status).toBe(400);
    expect(unreachable.error).toEqual({ errors: [`Put "http://${gone}/v1/acl/token": dial tcp ${gone}: connect: connection refused`] });
    // A management role asks the backend's version first; the answer names the call the real engine makes.
    const admin = await creds("admin-after-config");
    expect(admin.error).toEqual({ errors: [`Put "http://${gone}/v1/acl/create": dial tcp ${gone}: connect: connection refused`] });

    expect((await secrets.root.POST("/consul/config/access", { body: { address: address(current), token: "not-a-mesh-token" } })).response.status).toBe(204);
    const wrongToken = await creds("after-config");
    expect(wrongToken.response.status).toBe(400);
    expect(wrongToken.error).toEqual({ errors: ["Unexpected response code: 403 (ACL not found)"] });

    // Written again with the right token, the same roles issue tokens that work.
    await configure(current);
    const issued = await creds("after-config");
    expect(issued.response.status).toBe(200);
    expect((await readChain(current.clientWithToken(issued.data!.data.token), "web")).response.status).toBe(200);
  });

  it("answers bad JSON and wrong types with 400, never 500", async () => {
    const raw = await fetch(`${secrets.baseUrl}/consul/config/access`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "{" });
    expect(raw.status).toBe(400);
    const typed = await secrets.root.POST("/consul/config/access", { body: { address: 8500, token: ["x"] } as never });
    expect(typed.response.status).toBe(400);
    expect(typed.error!.errors).toEqual(expect.arrayContaining(["address: must be string", "token: must be string"]));
  });
});

describe("roles", () => {
  beforeAll(async () => {
    await configure(await mesh());
  });

  it("creates, reads, replaces and deletes a role", async () => {
    expect((await writeRole("web", { policies: ["web-reader"], ttl: "1h", max_ttl: 86400 })).response.status).toBe(204);
    const read = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } });
    expect(read.response.status).toBe(200);
    expect(read.data).toMatchObject({ lease_id: "", renewable: false, lease_duration: 0 });
    // path_roles.go, pathRolesRead: lease is int64 seconds; empty policy, policies and roles are left out.
    expect(read.data!.data).toEqual({ token_type: "client", policies: ["web-reader"], local: false, ttl: 3600, max_ttl: 86400, lease: 3600, catalog_namespace: "", partition: "" });
    // A write replaces the role: what is left out takes its default.
    expect((await writeRole("web", { policies: "web-reader, api-reader", catalog_roles: "readers", local: true, catalog_namespace: "team-a" })).response.status).toBe(204);
    const replaced = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } });
    expect(replaced.data!.data).toMatchObject({ policies: ["web-reader", "api-reader"], catalog_roles: ["readers"], local: true, ttl: 0, max_ttl: 0, lease: 0, catalog_namespace: "team-a" });
    expect((await secrets.root.DELETE("/consul/roles/{name}", { params: { path: { name: "web" } } })).response.status).toBe(204);
    const gone = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } });
    expect(gone.response.status).toBe(404);
    expect(gone.error).toEqual({ errors: [] });
  });

  it("deletes a role that does not exist with success", async () => {
    const { response } = await secrets.root.DELETE("/consul/roles/{name}", { params: { path: { name: "never-was" } } });
    expect(response.status).toBe(204);
  });

  it("accepts a management role without policies, and refuses a client role without them", async () => {
    expect((await writeRole("admin", { token_type: "management" })).response.status).toBe(204);
    const client = await writeRole("empty", {});
    expect(client.response.status).toBe(400);
    // pathRolesWrite's words (path_roles.go).
    expect(client.error).toEqual({ errors: [CLIENT_NEEDS] });
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "empty" } } })).response.status).toBe(404);
  });

  // pathRolesWrite checks no backend version; Vault's own tests send lease to modern backends
  // (backend_test.go), and ttl wins when both are sent (path_roles.go).
  it("accepts what the real engine accepts, whatever the backend's version, and ttl wins over lease", async () => {
    expect((await writeRole("kept", { policies: ["web-reader"], ttl: 600 })).response.status).toBe(204);
    const mixed = await writeRole("mixed", { policy: POLICY(WEB_READ), policies: "web-reader", lease: "1h", ttl: "2h", max_ttl: "1h", partition: "part-1", catalog_roles: "readers" });
    expect(mixed.response.status).toBe(204);
    const read = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "mixed" } } });
    expect(read.data!.data).toMatchObject({ policy: POLICY(WEB_READ), policies: ["web-reader"], catalog_roles: ["readers"], ttl: 7200, lease: 7200, max_ttl: 3600, partition: "part-1" });
    // JSON null members read as their zero values; "" is a zero duration (parseutil.ParseDurationSecond).
    const written = await writeRole("nulls", { policies: "web-reader", policy: null, catalog_roles: null, local: null, lease: "5m", max_ttl: null });
    expect(written.response.status, JSON.stringify(written.error)).toBe(204);
    const nulls = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "nulls" } } });
    expect(nulls.data!.data).toEqual({ token_type: "client", policies: ["web-reader"], local: false, ttl: 300, lease: 300, max_ttl: 0, catalog_namespace: "", partition: "" });
    // A null duration is one not sent (the framework's getPrimitive: `case nil`): lease is read.
    expect((await writeRole("nulls", { policies: "web-reader", ttl: null, lease: "5m" })).response.status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "nulls" } } })).data!.data).toMatchObject({ ttl: 300, lease: 300 });
    // An empty ttl is a ttl that was sent: it wins over lease (path_roles.go reads lease only without ttl).
    expect((await writeRole("nulls", { policies: "web-reader", ttl: "", lease: "5m" })).response.status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "nulls" } } })).data!.data).toMatchObject({ ttl: 0, lease: 0 });
  });

  it("answers one message, the first problem, and a refused write changes nothing", async () => {
    const refused = await writeRole("kept", { token_type: "root", policy: "not base64!", ttl: 60 });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: ['token_type must be "client" or "management"'] });
    const base64 = await writeRole("kept", { policy: "not base64!" });
    expect(base64.error).toEqual({ errors: ["Error decoding policy base64: illegal base64 data at input byte 3"] });
    const duration = await writeRole("kept", { policies: "web-reader", ttl: "soon" });
    expect(duration.error).toEqual({ errors: ['Field validation failed: error converting input soon for field "ttl": time: invalid duration "soon"'] });
    // The framework reads each duration before the handler: a negative one, days, a JSON number with a fraction.
    expect((await writeRole("kept", { policies: "web-reader", ttl: "-5m" })).error).toEqual({ errors: [`Field validation failed: error converting input -5m for field "ttl": cannot provide negative value '-300'`] });
    expect((await writeRole("kept", { policies: "web-reader", max_ttl: 1.5 })).error).toEqual({ errors: ['Field validation failed: error converting input 1.5 for field "max_ttl": time: missing unit in duration "1.5"'] });
    expect((await writeRole("kept", { policies: "web-reader", lease: true as never })).error).toEqual({ errors: ['Field validation failed: error converting input true for field "lease": could not parse duration from input'] });
    const kept = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "kept" } } });
    expect(kept.data!.data).toMatchObject({ policies: ["web-reader"], ttl: 600 });
  });

  it("refuses bodies that break the schema and names that are not names, with 400", async () => {
    const typed = await writeRole("typed", { local: [true], token_type: 7, policies: 5 });
    expect(typed.response.status).toBe(400);
    expect(typed.error!.errors).toEqual(expect.arrayContaining(["token_type: must be string"]));
    expect(typed.error!.errors.some((e) => e.startsWith("local: "))).toBe(true);
    // local is read as the framework reads a bool (mapstructure.WeakDecode): "true" is true, "yes" is refused.
    expect((await writeRole("typed", { policies: "web-reader", local: "true" })).response.status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "typed" } } })).data!.data.local).toBe(true);
    const yes = await writeRole("typed", { policies: "web-reader", local: "yes" });
    expect(yes.response.status).toBe(400);
    expect(yes.error).toEqual({ errors: [`Field validation failed: error converting input yes for field "local": cannot parse '' as bool: strconv.ParseBool: parsing "yes": invalid syntax`] });
    // A JSON number reaches the framework as its text (json.Number): 1 and 0 are booleans, 2 is not.
    expect((await writeRole("typed", { policies: "web-reader", local: 0 })).response.status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "typed" } } })).data!.data.local).toBe(false);
    const two = await writeRole("typed", { policies: "web-reader", local: 2 });
    expect(two.error).toEqual({ errors: [`Field validation failed: error converting input 2 for field "local": cannot parse '' as bool: strconv.ParseBool: parsing "2": invalid syntax`] });
    const badName = await writeRole("bad name!", { policies: "web-reader" });
    expect(badName.response.status).toBe(400);
    expect(badName.error!.errors[0]).toMatch(/^path parameter "name": must match pattern/);
  });

  it("lists roles sorted, through the client and with a real LIST on the wire", async () => {
    const { data } = await secrets.root.GET("/consul/roles", { params: { query: { list: "true" } } });
    expect(data!.data.keys).toEqual([...data!.data.keys].sort());
    expect(data!.data.keys).toEqual(expect.arrayContaining(["admin", "kept"]));
    const wire = await rawRequest(`${secrets.baseUrl}/consul/roles`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(wire.status).toBe(200);
    expect(JSON.parse(wire.text).data.keys).toEqual(data!.data.keys);
  });

  // Roles need no access configuration: the real engine's TestBackend_crud (backend_test.go) writes,
  // reads, lists and deletes roles on a mount that was never configured.
  it("answers an empty list with 404 and no message, and keeps roles before any configuration", async () => {
    const fresh = await startDiscoverySecrets();
    try {
      await expectEmptyList(fresh, "/consul/roles");
      expect((await writeRole("web", { policies: "web-reader", ttl: "1h" }, fresh)).response.status).toBe(204);
      const read = await fresh.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } });
      expect(read.data!.data).toMatchObject({ policies: ["web-reader"], ttl: 3600 });
      expect((await fresh.root.GET("/consul/roles", { params: { query: { list: "true" } } })).data!.data.keys).toEqual(["web"]);
      expect((await fresh.root.DELETE("/consul/roles/{name}", { params: { path: { name: "web" } } })).response.status).toBe(204);
      expect((await fresh.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } })).response.status).toBe(404);
    } finally {
      await fresh.close();
    }
  });

  it("keeps each mount's configuration and roles apart", async () => {
    const other = await mesh("1.4.2");
    const post = (path: string, body: unknown) =>
      fetch(`${secrets.baseUrl}/team-a/consul/${path}`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: JSON.stringify(body) });
    expect((await post("config/access", { address: address(other), token: MANAGEMENT })).status).toBe(204);
    // team-a/consul talks to a 1.4.2 backend, consul to a 1.16.0 one: each issues from its own.
    expect((await post("roles/web", { policies: "web-reader" })).status).toBe(204);
    const teamA = await fetch(`${secrets.baseUrl}/team-a/consul/creds/web`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    const accessor = (await teamA.json()).data.accessor as string;
    const atOther = await other.clientWithToken(MANAGEMENT).GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: accessor } } });
    expect(atOther.data).toMatchObject({ Policies: [{ Name: "web-reader" }] });
    expect((await writeRole("readers", { catalog_roles: "readers" })).response.status).toBe(204);
    expect((await post("roles/only-here", { policies: "web-reader" })).status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "only-here" } } })).response.status).toBe(404);
    const listed = await fetch(`${secrets.baseUrl}/team-a/consul/roles?list=true`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect((await listed.json()).data.keys).toEqual(["only-here", "web"]);
  });
});

// The real engine writes every role whatever the backend runs (path_roles.go, pathRolesWrite); the
// backend refuses what its version does not have when the token is made (path_token.go relays it).
describe("the backend's version decides at token creation", () => {
  const cases: { version: string; issued: Record<string, unknown>[]; refused: [Record<string, unknown>, string][] }[] = [
    {
      version: "1.3.0",
      issued: [{ policy: POLICY(WEB_READ), lease: "30m" }, { token_type: "management" }],
      refused: [[{ policies: "web-reader" }, "Unexpected response code: 404 (The ACL policy, role and token API exists from 1.4: use /v1/acl/create)"]],
    },
    {
      version: "1.4.0",
      issued: [{ policies: "web-reader", local: true }, { policy: POLICY(WEB_READ) }, { policies: "web-reader", lease: "1h" }],
      refused: [],
    },
    {
      version: "1.6.3",
      issued: [{ policies: "web-reader", local: true }],
      refused: [[{ catalog_roles: "no-such-role" }, 'Unexpected response code: 500 (No such ACL role with name "no-such-role")']],
    },
    {
      version: "1.10.12",
      issued: [{ policies: "web-reader", catalog_namespace: "team-a" }, { policy: POLICY(WEB_READ) }],
      refused: [[{ policies: "web-reader", partition: "part-1" }, 'Unexpected response code: 400 (Invalid Token: partition "part-1" does not exist)']],
    },
    {
      version: "1.11.0",
      issued: [{ policies: "web-reader", catalog_namespace: "team-a" }],
      refused: [[{ policy: POLICY(WEB_READ) }, "Unexpected response code: 404 (The legacy ACL token API was removed in 1.11: use /v1/acl/token)"]],
    },
  ];
  for (const { version, issued, refused } of cases) {
    it(`lets backend ${version} issue or refuse`, async () => {
      await configure(await mesh(version));
      for (const [i, body] of issued.entries()) {
        expect((await writeRole(`ok-${i}`, body)).response.status, JSON.stringify(body)).toBe(204);
        const answer = await creds(`ok-${i}`);
        expect(answer.response.status, `${JSON.stringify(body)}: ${JSON.stringify(answer.error)}`).toBe(200);
      }
      for (const [i, [body, message]] of refused.entries()) {
        expect((await writeRole(`refused-${i}`, body)).response.status, JSON.stringify(body)).toBe(204);
        const answer = await creds(`refused-${i}`);
        expect(answer.response.status).toBe(400);
        expect(answer.error, JSON.stringify(body)).toEqual({ errors: [message] });
      }
    });
  }
});

describe("creds: tokens from the backend", () => {
  let current: RunningMesh;
  beforeEach(async () => {
    current = await mesh();
    await configure(current);
  });

  it("issues a token that reads a discovery chain its policy grants, and is refused one it does not", async () => {
    expect((await writeRole("web-reader", { policies: "web-reader", ttl: "1h" })).response.status).toBe(204);
    const { response, data } = await creds("web-reader");
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ renewable: true, lease_duration: 3600, wrap_info: null, auth: null });
    expect(data!.lease_id).toMatch(/^consul\/creds\/web-reader\/[0-9A-Za-z]{24}$/);
    expect(data!.data).toEqual({ token: expect.any(String), accessor: expect.any(String), local: false, catalog_namespace: "default", partition: "" });

    const issued = current.clientWithToken(data!.data.token);
    expect((await readChain(issued, "web")).response.status).toBe(200);
    const refused = await readChain(issued, "api");
    expect(refused.response.status).toBe(403);
    expect(refused.error).toBe(`Permission denied: token with AccessorID '${data!.data.accessor}' lacks permission 'service:read' on "api"`);

    // The backend holds the token with the role's policy and a description naming role and requester.
    const stored = await current.clientWithToken(MANAGEMENT).GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: data!.data.accessor! } } });
    expect(stored.data).toMatchObject({ SecretID: data!.data.token, Policies: [{ Name: "web-reader" }], Local: false, Namespace: "default" });
    expect(stored.data!.Description).toMatch(/^secrets-service web-reader root \d+$/);

    // Each call issues a new token.
    const again = await creds("web-reader");
    expect(again.data!.data.token).not.toBe(data!.data.token);
    expect(again.data!.lease_id).not.toBe(data!.lease_id);
  });

  it("keeps a comma list as written (a trailing comma is a name \"\"), which the backend then refuses", async () => {
    expect((await writeRole("trailing", { policies: "web-reader, web-reader," })).response.status).toBe(204);
    const read = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "trailing" } } });
    expect(read.data!.data).toMatchObject({ policies: ["web-reader", "web-reader", ""] });
    const refused = await creds("trailing");
    // The backend's token write refuses the policy link without a name (acl_endpoint.go, aclTokenSetInternal).
    expect({ status: refused.response.status, error: refused.error }).toEqual({ status: 400, error: { errors: ['Unexpected response code: 500 (No such ACL policy with name "")'] } });
  });

  it("links backend roles, and honours local and catalog_namespace", async () => {
    const root = current.clientWithToken(MANAGEMENT);
    expect((await root.PUT("/acl/role", { body: { Name: "readers", Policies: [{ Name: "web-reader" }] } })).response.status).toBe(200);
    expect((await writeRole("by-role", { catalog_roles: ["readers"], local: true, catalog_namespace: "team-a" })).response.status).toBe(204);
    const { data } = await creds("by-role");
    expect(data!.data).toMatchObject({ local: true, catalog_namespace: "team-a" });
    const issued = current.clientWithToken(data!.data.token);
    // The token's rules apply in its namespace (the default one for its requests) only.
    expect((await readChain(issued, "web")).response.status).toBe(200);
    expect((await readChain(issued, "web", "team-a")).response.status).toBe(200);
    expect((await readChain(issued, "web", "default")).response.status).toBe(403);
    expect((await readChain(issued, "api", "team-a")).response.status).toBe(403);
    const stored = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: data!.data.accessor! } } });
    expect(stored.data).toMatchObject({ Roles: [{ Name: "readers" }], Local: true, Namespace: "team-a" });
  });

  it("issues a management token from a management role, with the mount's default lease", async () => {
    expect((await writeRole("admin", { token_type: "management" })).response.status).toBe(204);
    const { data } = await creds("admin");
    expect(data!.lease_duration).toBe(768 * 3600);
    const created = await current.clientWithToken(data!.data.token).PUT("/acl/policy", { body: { Name: "made-by-issued-token", Rules: "" } });
    expect(created.response.status).toBe(200);
  });

  it("caps the lease at max_ttl", async () => {
    expect((await writeRole("short", { policies: "web-reader", max_ttl: "10m" })).response.status).toBe(204);
    expect((await creds("short")).data!.lease_duration).toBe(600);
  });

  // Both as the real engine answers them (builtin/logical/consul/path_token.go and client.go, Vault 1.14).
  it("answers an unknown role and a missing configuration with 400 and the real engine's words", async () => {
    const unknown = await creds("nobody");
    expect(unknown.response.status).toBe(400);
    expect(unknown.error).toEqual({ errors: ['role "nobody" not found'] });
    const fresh = await startDiscoverySecrets();
    try {
      // A role can be written before the configuration (path_roles.go never reads it); creds cannot.
      expect((await writeRole("orphan", { token_type: "management" }, fresh)).response.status).toBe(204);
      const unconfigured = await creds("orphan", fresh);
      expect(unconfigured.response.status).toBe(400);
      expect(unconfigured.error).toEqual({
        errors: ["access credentials for the backend itself haven't been configured; please configure them at the '/config/access' endpoint"],
      });
    } finally {
      await fresh.close();
    }
  });

  // The real engine relays the backend client's error with 400 (path_token.go, pathTokenRead:
  // logical.ErrorResponse(err.Error())); the client words a status as api/api.go's requireOK does.
  it("answers backend refusals and an unreachable backend with 400 and the backend client's words, and keeps serving", async () => {
    expect((await writeRole("ghost", { policies: "no-such-policy" })).response.status).toBe(204);
    const refused = await creds("ghost");
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: ['Unexpected response code: 500 (No such ACL policy with name "no-such-policy")'] });
    expect((await writeRole("web-reader", { policies: "web-reader" })).response.status).toBe(204);
    await current.close();
    const unreachable = await creds("web-reader");
    expect(unreachable.response.status).toBe(400);
    expect(unreachable.error).toEqual({ errors: [`Put "http://${address(current)}/v1/acl/token": dial tcp ${address(current)}: connect: connection refused`] });
    // The role and configuration are untouched, and the server goes on answering.
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web-reader" } } })).response.status).toBe(200);
  });

  it("leaves the default partition out, and relays the backend's refusal of a partition it does not have", async () => {
    expect((await writeRole("default-partition", { policies: "web-reader", partition: "default" })).response.status).toBe(204);
    expect((await creds("default-partition")).response.status).toBe(200);
    expect((await writeRole("partitioned", { policies: "web-reader", partition: "part-1" })).response.status).toBe(204);
    const refused = await creds("partitioned");
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: ['Unexpected response code: 400 (Invalid Token: partition "part-1" does not exist)'] });
  });
});

describe("creds from backends with the legacy token API", () => {
  it("issues legacy tokens below 1.4 that the backend honours", async () => {
    const old = await mesh("1.3.0");
    await configure(old);
    expect((await writeRole("legacy", { policy: POLICY(WEB_READ), lease: "30m" })).response.status).toBe(204);
    const read = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "legacy" } } });
    expect(read.data!.data).toMatchObject({ policy: POLICY(WEB_READ), ttl: 1800, lease: 1800 });
    const { response, data } = await creds("legacy");
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({ token: expect.any(String) });
    expect(data!.lease_duration).toBe(1800);
    const issued = old.clientWithToken(data!.data.token);
    expect((await readChain(issued, "web")).response.status).toBe(200);
    expect((await readChain(issued, "api")).response.status).toBe(403);
    const info = await old.clientWithToken(MANAGEMENT).GET("/acl/info/{id}", { params: { path: { id: data!.data.token } } });
    expect(info.data).toEqual([expect.objectContaining({ Type: "client", Rules: WEB_READ })]);
    // Revoking the lease destroys the legacy token (PUT /v1/acl/destroy/<id>, secret_token.go): it stops working.
    expect((await secrets.root.PUT("/sys/leases/revoke", { body: { lease_id: data!.lease_id } })).response.status).toBe(204);
    expect((await readChain(issued, "web")).response.status).toBe(403);

    expect((await writeRole("legacy-admin", { token_type: "management" })).response.status).toBe(204);
    const admin = await creds("legacy-admin");
    const asAdmin = await old.clientWithToken(admin.data!.data.token).PUT("/acl/create", { body: { Type: "client", Rules: "" } });
    expect(asAdmin.response.status).toBe(200);
  });

  it("uses the legacy API for legacy roles up to 1.10, and relays the refusal once the backend is 1.11", async () => {
    const v110 = await mesh("1.10.12");
    await configure(v110);
    expect((await writeRole("legacy", { policy: POLICY(WEB_READ) })).response.status).toBe(204);
    const issued = await creds("legacy");
    expect(issued.data!.data).toEqual({ token: expect.any(String) });
    expect((await readChain(v110.clientWithToken(issued.data!.data.token), "web")).response.status).toBe(200);

    // The backend is replaced by a 1.11 one, which no longer has the legacy API: it refuses.
    await configure(await mesh("1.11.0"));
    const refused = await creds("legacy");
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: ["Unexpected response code: 404 (The legacy ACL token API was removed in 1.11: use /v1/acl/token)"] });
  });
});

describe("permissions", () => {
  it("refuses no token, an unknown token and a token without the capability, on every operation", async () => {
    for (const token of [undefined, "who-is-this", "nothing"]) {
      const c = secrets.as(token);
      const answers = await Promise.all([
        c.POST("/consul/config/access", { body: { address: "127.0.0.1:1", token: MANAGEMENT } }),
        c.GET("/consul/config/access"),
        c.POST("/consul/roles/{name}", { params: { path: { name: "x" } }, body: { token_type: "management" } }),
        c.GET("/consul/roles/{name}", { params: { path: { name: "x" } } }),
        c.GET("/consul/roles", { params: { query: { list: "true" } } }),
        c.DELETE("/consul/roles/{name}", { params: { path: { name: "x" } } }),
        c.GET("/consul/creds/{name}", { params: { path: { name: "x" } } }),
      ]);
      for (const answer of answers) {
        expect(answer.response.status).toBe(403);
        expect(answer.error).toEqual({ errors: ["permission denied"] });
      }
    }
  });

  it("lets a token with read on creds issue tokens and nothing else", async () => {
    await configure(await mesh());
    expect((await writeRole("web-reader", { policies: "web-reader" })).response.status).toBe(204);
    const c = secrets.as("dt-creds");
    expect((await c.GET("/consul/creds/{name}", { params: { path: { name: "web-reader" } } })).response.status).toBe(200);
    expect((await c.GET("/consul/roles/{name}", { params: { path: { name: "web-reader" } } })).response.status).toBe(403);
    expect((await c.POST("/consul/roles/{name}", { params: { path: { name: "web-reader" } }, body: { token_type: "management" } })).response.status).toBe(403);
    const admin = secrets.as("dt-admin");
    expect((await admin.GET("/consul/roles", { params: { query: { list: "true" } } })).response.status).toBe(200);
    const issued = await admin.GET("/consul/creds/{name}", { params: { path: { name: "web-reader" } } });
    expect(issued.response.status).toBe(200);
  });
});
