// The discovery-token engine through the generated client, against a real mesh reference server on
// loopback: access configuration (the backend's version learned from GET /v1/agent/self), roles
// checked against that version, LIST, and tokens issued by the mesh's ACL API that the mesh then
// honours on discovery-chain reads. Every answer and every log line is recorded, and the mesh's
// management token must appear in none of them.
import { compareVersions } from "../../server/mesh/domain/version.ts";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseWorld } from "../../server/secrets/world.ts";
import { startMesh, type MeshClient, type RunningMesh } from "../helpers/mesh.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";
import { recordOutput, startDiscoverySecrets, type DiscoverySecrets } from "./discovery-token.helpers.ts";

const MANAGEMENT = "mesh-management-token-7f3c9a";
const POLICY = (rules: string) => Buffer.from(rules).toString("base64");
const WEB_READ = 'service "web" { policy = "read" }';

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

  it("is stored when the backend answers with its version (204, no body)", async () => {
    const { response, data } = await secrets.root.POST("/consul/config/access", { body: { address: address(current), scheme: "http", token: MANAGEMENT } });
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
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

  it("refuses settings the backend does not answer to, naming the cause and not the token", async () => {
    const closed = await startMesh({ managementToken: MANAGEMENT });
    const gone = address(closed);
    await closed.close();
    const unreachable = await secrets.root.POST("/consul/config/access", { body: { address: gone, token: MANAGEMENT } });
    expect(unreachable.response.status).toBe(400);
    expect(unreachable.error!.errors[0]).toMatch(new RegExp(`^could not read the version of the discovery backend at http://${gone} \\(GET /v1/agent/self\\): .*ECONNREFUSED`));
    const wrongToken = await secrets.root.POST("/consul/config/access", { body: { address: address(current), token: "not-a-mesh-token" } });
    expect(wrongToken.error).toEqual({ errors: [`could not read the version of the discovery backend at http://${address(current)} (GET /v1/agent/self): 403 ACL not found`] });
    // Nothing was stored: the engine still talks to the working backend.
    expect((await writeRole("after-refusals", { policies: "web-reader" })).response.status).toBe(204);
    const issued = await creds("after-refusals");
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
    expect(read.data).toMatchObject({
      lease_id: "",
      renewable: false,
      lease_duration: 0,
      data: { token_type: "client", policies: ["web-reader"], catalog_roles: [], local: false, ttl: 3600, max_ttl: 86400, lease: "1h0m0s", catalog_namespace: "", partition: "" },
    });
    expect(read.data!.data).not.toHaveProperty("policy");
    // A write replaces the role: what is left out takes its default.
    expect((await writeRole("web", { policies: "web-reader, api-reader", catalog_roles: "readers", local: true, catalog_namespace: "team-a" })).response.status).toBe(204);
    const replaced = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web" } } });
    expect(replaced.data!.data).toMatchObject({ policies: ["web-reader", "api-reader"], catalog_roles: ["readers"], local: true, ttl: 0, max_ttl: 0, lease: "0s", catalog_namespace: "team-a" });
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
    expect(client.error).toEqual({ errors: ["a client token needs policies or catalog_roles (backend version 1.16.0); only token_type management needs none"] });
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "empty" } } })).response.status).toBe(404);
  });

  it("refuses what the backend's version does not have, and a refused write changes nothing", async () => {
    expect((await writeRole("kept", { policies: ["web-reader"], ttl: 600 })).response.status).toBe(204);
    const refused = await writeRole("kept", { policy: POLICY(WEB_READ), lease: "1h", ttl: "2h", max_ttl: "1h" });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({
      errors: [
        "policy was removed in backend version 1.11 (the backend runs 1.16.0): use policies or catalog_roles",
        "lease is for backend versions below 1.4 (the backend runs 1.16.0): use ttl",
        "lease is the old name of ttl: send one of them",
        "ttl (2h0m0s) is greater than max_ttl (1h0m0s)",
        "a client token needs policies or catalog_roles (backend version 1.16.0); only token_type management needs none",
      ],
    });
    const kept = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "kept" } } });
    expect(kept.data!.data).toMatchObject({ policies: ["web-reader"], ttl: 600 });
  });

  it("refuses bodies that break the schema and names that are not names, with 400", async () => {
    const typed = await writeRole("typed", { local: "yes", token_type: "root", policies: 5 });
    expect(typed.response.status).toBe(400);
    expect(typed.error!.errors).toEqual(expect.arrayContaining(["local: must be boolean", expect.stringMatching(/^token_type: must be equal to one of the allowed values/)]));
    const badName = await writeRole("bad name!", { policies: "web-reader" });
    expect(badName.response.status).toBe(400);
    expect(badName.error!.errors[0]).toMatch(/^path parameter "name": must match pattern/);
  });

  it("lists roles sorted, through the client and with a real LIST on the wire", async () => {
    const { data } = await secrets.root.GET("/consul/roles", { params: { query: { list: "true" } } });
    expect(data!.data.keys).toEqual([...data!.data.keys].sort());
    expect(data!.data.keys).toEqual(expect.arrayContaining(["admin", "kept"]));
    const wire = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${secrets.baseUrl}/consul/roles`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(wire.status).toBe(200);
    expect(JSON.parse(wire.body).data.keys).toEqual(data!.data.keys);
  });

  it("answers an empty list with 404 and no message, as the real system does", async () => {
    const fresh = await startDiscoverySecrets();
    try {
      const { response, error } = await fresh.root.GET("/consul/roles", { params: { query: { list: "true" } } });
      expect(response.status).toBe(404);
      expect(error).toEqual({ errors: [] });
      const unconfigured = await writeRole("web", { policies: "web-reader" }, fresh);
      expect(unconfigured.response.status).toBe(400);
      expect(unconfigured.error).toEqual({ errors: ["the access to the discovery backend is not configured: write consul/config/access first"] });
    } finally {
      await fresh.close();
    }
  });

  it("keeps each mount's configuration and roles apart", async () => {
    const other = await mesh("1.4.2");
    const post = (path: string, body: unknown) =>
      fetch(`${secrets.baseUrl}/team-a/consul/${path}`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: JSON.stringify(body) });
    expect((await post("config/access", { address: address(other), token: MANAGEMENT })).status).toBe(204);
    // team-a/consul talks to a 1.4.2 backend: no catalog_roles there, while consul (1.16.0) has them.
    const refused = await post("roles/readers", { catalog_roles: "readers" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: ["catalog_roles needs backend version 1.5 or later (the backend runs 1.4.2)", "a client token needs policy or policies (backend version 1.4.2); only token_type management needs none"] });
    expect((await writeRole("readers", { catalog_roles: "readers" })).response.status).toBe(204);
    expect((await post("roles/only-here", { policies: "web-reader" })).status).toBe(204);
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "only-here" } } })).response.status).toBe(404);
    const listed = await fetch(`${secrets.baseUrl}/team-a/consul/roles?list=true`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect((await listed.json()).data.keys).toEqual(["only-here"]);
  });
});

describe("the backend's version decides what a role may hold", () => {
  const cases: { version: string; accepted: Record<string, unknown>[]; refused: [Record<string, unknown>, string][] }[] = [
    {
      version: "1.3.0",
      accepted: [{ policy: POLICY(WEB_READ), lease: "30m" }, { token_type: "management" }, { token_type: "client", policy: POLICY(WEB_READ), ttl: "1h" }],
      refused: [
        [{ policy: POLICY(WEB_READ), policies: "web-reader" }, "policies needs backend version 1.4 or later (the backend runs 1.3.0)"],
        [{ policy: POLICY(WEB_READ), local: true }, "local needs backend version 1.4 or later (the backend runs 1.3.0)"],
        [{ policies: "web-reader" }, "a client token needs policy (backend version 1.3.0); only token_type management needs none"],
      ],
    },
    {
      version: "1.4.0",
      accepted: [{ policies: "web-reader", local: true }, { policy: POLICY(WEB_READ) }],
      refused: [
        [{ policies: "web-reader", lease: "1h" }, "lease is for backend versions below 1.4 (the backend runs 1.4.0): use ttl"],
        [{ policies: "web-reader", catalog_roles: "readers" }, "catalog_roles needs backend version 1.5 or later (the backend runs 1.4.0)"],
      ],
    },
    {
      version: "1.6.3",
      accepted: [{ catalog_roles: ["readers"] }],
      refused: [[{ policies: "web-reader", catalog_namespace: "team-a" }, "catalog_namespace needs backend version 1.7 or later (the backend runs 1.6.3)"]],
    },
    {
      version: "1.10.12",
      accepted: [{ policies: "web-reader", catalog_namespace: "team-a" }, { policy: POLICY(WEB_READ) }],
      refused: [[{ policies: "web-reader", partition: "part-1" }, "partition needs backend version 1.11 or later (the backend runs 1.10.12)"]],
    },
    {
      version: "1.11.0",
      accepted: [{ policies: "web-reader", partition: "part-1", catalog_namespace: "team-a" }],
      refused: [[{ policy: POLICY(WEB_READ) }, "policy was removed in backend version 1.11 (the backend runs 1.11.0): use policies or catalog_roles"]],
    },
  ];
  for (const { version, accepted, refused } of cases) {
    it(`applies the rules of backend ${version}`, async () => {
      await configure(await mesh(version));
      for (const [i, body] of accepted.entries()) {
        const { response, error } = await writeRole(`ok-${i}`, body);
        expect(response.status, `${JSON.stringify(body)}: ${JSON.stringify(error)}`).toBe(204);
      }
      for (const [body, message] of refused) {
        const { response, error } = await writeRole("refused", body);
        expect(response.status).toBe(400);
        expect(error!.errors, JSON.stringify(body)).toContain(message);
      }
      expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "refused" } } })).response.status).toBe(404);
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
      // A role cannot be written before the configuration, so this one comes from another mount's storage.
      const key = (await import("../../server/secrets/engines/mount-storage.ts")).mountStoragePrefix("discovery-token", "consul");
      fresh.secrets.cluster.storage.put(`${key}roles/orphan`, { token_type: "management", policy: "", policies: [], catalog_roles: [], local: false, ttl: 0, max_ttl: 0, catalog_namespace: "", partition: "" });
      const unconfigured = await creds("orphan", fresh);
      expect(unconfigured.response.status).toBe(400);
      expect(unconfigured.error).toEqual({
        errors: ["access credentials for the backend itself haven't been configured; please configure them at the '/config/access' endpoint"],
      });
    } finally {
      await fresh.close();
    }
  });

  it("answers backend refusals and an unreachable backend with 502 and the backend's words, and keeps serving", async () => {
    expect((await writeRole("ghost", { policies: "no-such-policy" })).response.status).toBe(204);
    const refused = await creds("ghost");
    expect(refused.response.status).toBe(502);
    expect(refused.error).toEqual({
      errors: [`the discovery backend at http://${address(current)} refused to create the token (PUT /v1/acl/token): 500 No such ACL policy with name "no-such-policy"`],
    });
    expect((await writeRole("web-reader", { policies: "web-reader" })).response.status).toBe(204);
    await current.close();
    const unreachable = await creds("web-reader");
    expect(unreachable.response.status).toBe(502);
    expect(unreachable.error!.errors[0]).toMatch(new RegExp(`^could not reach the discovery backend at http://${address(current)} \\(PUT /v1/acl/token\\): .*ECONNREFUSED`));
    // The role and configuration are untouched, and the server goes on answering.
    expect((await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "web-reader" } } })).response.status).toBe(200);
  });

  it("leaves the default partition out, and relays the backend's refusal of a partition it does not have", async () => {
    expect((await writeRole("default-partition", { policies: "web-reader", partition: "default" })).response.status).toBe(204);
    expect((await creds("default-partition")).response.status).toBe(200);
    expect((await writeRole("partitioned", { policies: "web-reader", partition: "part-1" })).response.status).toBe(204);
    const refused = await creds("partitioned");
    expect(refused.response.status).toBe(502);
    expect(refused.error!.errors[0]).toMatch(/refused to create the token \(PUT \/v1\/acl\/token\): 400 /);
  });
});

describe("creds from backends with the legacy token API", () => {
  it("issues legacy tokens below 1.4 that the backend honours", async () => {
    const old = await mesh("1.3.0");
    await configure(old);
    expect((await writeRole("legacy", { policy: POLICY(WEB_READ), lease: "30m" })).response.status).toBe(204);
    const read = await secrets.root.GET("/consul/roles/{name}", { params: { path: { name: "legacy" } } });
    expect(read.data!.data).toMatchObject({ policy: POLICY(WEB_READ), ttl: 1800, lease: "30m0s" });
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

  it("uses the legacy API for legacy roles up to 1.10, and refuses them once the backend is 1.11", async () => {
    const v110 = await mesh("1.10.12");
    await configure(v110);
    expect((await writeRole("legacy", { policy: POLICY(WEB_READ) })).response.status).toBe(204);
    const issued = await creds("legacy");
    expect(issued.data!.data).toEqual({ token: expect.any(String) });
    expect((await readChain(v110.clientWithToken(issued.data!.data.token), "web")).response.status).toBe(200);

    // The backend is upgraded: writing the configuration again learns the new version.
    await configure(await mesh("1.11.0"));
    const refused = await creds("legacy");
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: ['role "legacy" has a legacy policy, which the backend (1.11.0) no longer accepts: write the role again with policies or catalog_roles'] });
  });
});

describe("permissions", () => {
  it("refuses no token, an unknown token and a token without the capability, on every operation", async () => {
    for (const token of [undefined, "who-is-this", "nothing"]) {
      const c = secrets.as(token);
      const answers = await Promise.all([
        c.POST("/consul/config/access", { body: { address: "127.0.0.1:1", token: MANAGEMENT } }),
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
