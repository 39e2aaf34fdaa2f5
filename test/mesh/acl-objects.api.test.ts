// ACL policies, roles and tokens through the generated client: what credential engines call, and
// that the tokens they create are honoured by the discovery-chain endpoint.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { components } from "../../generated/mesh/schema.ts";
import { ANONYMOUS_ACCESSOR, denied, readChain, startMesh, type MeshClient, type RunningMesh } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
let mesh: RunningMesh;
let root: MeshClient;

afterEach(() => mesh.close());

async function policy(Name: string, Rules: string) {
  const { data, response, error } = await root.PUT("/acl/policy", { body: { Name, Rules } });
  expect(response.status, String(error)).toBe(200);
  return data!;
}

async function token(body: components["schemas"]["AclTokenInput"]) {
  const { data, response, error } = await root.PUT("/acl/token", { body });
  expect(response.status, String(error)).toBe(200);
  return data!;
}

describe("ACLs off", () => {
  it("answers every ACL endpoint with 401 ACL support disabled", async () => {
    mesh = await startMesh();
    const { response, error } = await mesh.client.PUT("/acl/policy", { body: { Name: "p", Rules: "" } });
    expect(response.status).toBe(401);
    expect(error).toBe("ACL support disabled");
  });
});

describe("ACLs on", () => {
  beforeEach(async () => {
    mesh = await startMesh({
      managementToken: MANAGEMENT,
      tokens: [{ AccessorID: "a4", SecretID: "reader", Rules: 'service_prefix "" { policy = "read" }' }],
    });
    root = mesh.clientWithToken(MANAGEMENT);
  });

  it("creates and reads a policy", async () => {
    const created = await policy("web-reader", 'service "web" { policy = "read" }');
    expect(created).toMatchObject({ Name: "web-reader", Description: "", Rules: 'service "web" { policy = "read" }' });
    const { data } = await root.GET("/acl/policy/{id}", { params: { path: { id: created.ID } } });
    expect(data).toEqual(created);
  });

  it("refuses bad policies: a name the schema forbids with 400, what the RPC layer refuses with 500", async () => {
    await policy("taken", "");
    const bad = await root.PUT("/acl/policy", { body: { Name: "bad name", Rules: "" } });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatch(/Name must match pattern/);
    // agent/consul/acl_endpoint.go PolicySet returns these with fmt.Errorf; agent/http.go answers 500.
    for (const [body, message] of [
      [{ Name: "taken", Rules: "" }, 'Invalid Policy: A Policy with Name "taken" already exists'],
      [{ Name: "p1", Rules: 'service "web" { policy = "admin" }' }, 'Failed to parse ACL rules: invalid policy "admin" for service'],
      [{ Name: "p2", Rules: 'planet "earth" { policy = "read" }' }, 'Failed to parse ACL rules: unknown resource "planet" with a label'],
      [{ Name: "p3", Rules: "service {" }, /Failed to parse ACL rules: line 1/],
    ] as const) {
      const { response, error } = await root.PUT("/acl/policy", { body });
      expect(response.status).toBe(500);
      expect(error).toMatch(message);
    }
    const list = await root.GET("/acl/policies");
    expect(list.data!.map((p) => p.Name).sort()).toEqual(["global-management", "taken"]);
  });

  it("needs acl:write to write and acl:read to read", async () => {
    const reader = mesh.clientWithToken("reader");
    const write = await reader.PUT("/acl/policy", { body: { Name: "p", Rules: "" } });
    expect(write.response.status).toBe(403);
    expect(write.error).toBe(denied("a4", "acl:write"));
    const anonymous = await mesh.client.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: "x" } } });
    expect(anonymous.response.status).toBe(403);
  });

  it("issues a token whose policy grants service:read on one service", async () => {
    await policy("web-reader", 'service "web" { policy = "read" }');
    const issued = await token({ Description: "from the secrets service", Policies: [{ Name: "web-reader" }] });
    expect(issued.Policies).toEqual([{ ID: expect.any(String), Name: "web-reader" }]);
    const client = mesh.clientWithToken(issued.SecretID);
    expect((await readChain(client, "web")).response.status).toBe(200);
    const refused = await readChain(client, "api");
    expect(refused.response.status).toBe(403);
    expect(refused.error).toBe(denied(issued.AccessorID, "service:read", "api"));
  });

  it("grants through roles, and deny wins over a broader grant", async () => {
    const everything = await policy("read-all", 'service_prefix "" { policy = "read" }');
    await policy("no-api", JSON.stringify({ service: { api: { policy: "deny" } } }));
    const { data: role } = await root.PUT("/acl/role", { body: { Name: "readers", Policies: [{ ID: everything.ID }] } });
    expect(role).toMatchObject({ Name: "readers", Policies: [{ ID: everything.ID, Name: "read-all" }] });
    const issued = await token({ Roles: [{ Name: "readers" }], Policies: [{ Name: "no-api" }] });
    const client = mesh.clientWithToken(issued.SecretID);
    expect((await readChain(client, "web")).response.status).toBe(200);
    expect((await readChain(client, "api")).response.status).toBe(403);
  });

  it("makes a token linked to global-management a management token", async () => {
    const issued = await token({ Policies: [{ Name: "global-management" }] });
    const created = await mesh.clientWithToken(issued.SecretID).PUT("/acl/policy", { body: { Name: "p", Rules: "" } });
    expect(created.response.status).toBe(200);
  });

  it("reads and deletes a token; a deleted token stops working", async () => {
    await policy("web-reader", 'service "web" { policy = "read" }');
    const issued = await token({ Policies: [{ Name: "web-reader" }], Namespace: "team-a" });
    const read = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } } });
    expect(read.data).toEqual(issued);
    expect(issued.Namespace).toBe("team-a");
    const deleted = await root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } } });
    expect(deleted.data).toBe(true);
    const gone = await readChain(mesh.clientWithToken(issued.SecretID), "web");
    expect(gone.response.status).toBe(403);
    expect(gone.error).toBe("ACL not found");
    // acl.ErrNotFound, which agent/http.go answers with 403.
    const again = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } } });
    expect(again.response.status).toBe(403);
    expect(again.error).toBe("ACL not found");
  });

  it("takes the permission away when the policy is deleted", async () => {
    const created = await policy("web-reader", 'service "web" { policy = "read" }');
    const issued = await token({ Policies: [{ ID: created.ID }] });
    // Read twice before (an answer is kept the second time): an answer sent before the change is not sent again after it.
    for (let n = 0; n < 2; n++) expect((await readChain(mesh.clientWithToken(issued.SecretID), "web")).response.status).toBe(200);
    await root.DELETE("/acl/policy/{id}", { params: { path: { id: created.ID } } });
    const refused = await readChain(mesh.clientWithToken(issued.SecretID), "web");
    expect(refused.response.status).toBe(403);
    expect(refused.error).toBe(denied(issued.AccessorID, "service:read", "web"));
    const read = await root.GET("/acl/policy/{id}", { params: { path: { id: created.ID } } });
    expect(read.response.status).toBe(403);
    expect(read.error).toBe("ACL not found");
  });

  it("refuses unknown links, bad TTLs and protected deletes", async () => {
    // agent/consul/acl_endpoint.go tokenSetInternal, PolicyDelete, TokenDelete: RPC errors, 500.
    const unknown = await root.PUT("/acl/token", { body: { Policies: [{ Name: "nope" }] } });
    expect([unknown.response.status, unknown.error]).toEqual([500, 'No such ACL policy with name "nope"']);
    const short = await root.PUT("/acl/token", { body: { ExpirationTTL: "30s" } });
    expect([short.response.status, short.error]).toEqual([500, "ExpirationTime cannot be less than 1m0s in the future (was 30s)"]);
    const long = await root.PUT("/acl/token", { body: { ExpirationTTL: "25h" } });
    expect([long.response.status, long.error]).toEqual([500, "ExpirationTime cannot be more than 24h0m0s in the future (was 25h0m0s)"]);
    const negative = await root.PUT("/acl/token", { body: { ExpirationTTL: "-5m" } });
    expect([negative.response.status, negative.error]).toEqual([500, "Token Expiration TTL '-5m0s' should be > 0"]);
    // The token's JSON decoder parses the TTL (structs.ACLToken UnmarshalJSON): a decoding error, 400.
    const bad = await root.PUT("/acl/token", { body: { ExpirationTTL: "soon" } });
    expect([bad.response.status, bad.error]).toEqual([400, 'Token decoding failed: time: invalid duration "soon"']);
    const builtin = await root.DELETE("/acl/policy/{id}", { params: { path: { id: "00000000-0000-0000-0000-000000000001" } } });
    expect([builtin.response.status, builtin.error]).toEqual([500, "Delete operation not permitted on the builtin global-management policy"]);
    const anonymous = await root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: "00000000-0000-0000-0000-000000000002" } } });
    expect([anonymous.response.status, anonymous.error]).toEqual([500, "Delete operation not permitted on the anonymous token"]);
    const self = (await root.GET("/acl/token/self")).data!;
    const own = await root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: self.AccessorID } } });
    expect([own.response.status, own.error]).toEqual([500, "Deletion of the request's authorization token is not permitted"]);
    const notUuid = await root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: "nope" } } });
    expect([notUuid.response.status, notUuid.error]).toEqual([500, "Accessor ID is missing or an invalid UUID"]);
    // Deleting what does not exist succeeds (PolicyDelete, RoleDelete, TokenDelete return nil).
    const missingRole = await root.DELETE("/acl/role/{id}", { params: { path: { id: "nope" } } });
    expect([missingRole.response.status, missingRole.data]).toEqual([200, true]);
  });

  it("expires a token after its TTL", async () => {
    const issued = await token({ ExpirationTTL: "1m", Policies: [{ Name: "global-management" }] });
    expect(Date.parse(issued.ExpirationTime!) - Date.parse(issued.CreateTime)).toBe(60_000);
    // Read twice: the answer is kept (the second time its request comes).
    for (let n = 0; n < 2; n++) expect((await readChain(mesh.clientWithToken(issued.SecretID), "web")).response.status).toBe(200);
    // A minute and a moment later the same read is refused, though nothing was written since.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse(issued.ExpirationTime!) + 1 });
    try {
      const expired = await readChain(mesh.clientWithToken(issued.SecretID), "web");
      expect(expired.response.status).toBe(403);
      expect(expired.error).toBe("ACL not found");
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads and deletes roles", async () => {
    const { data: role } = await root.PUT("/acl/role", { body: { Name: "empty" } });
    const read = await root.GET("/acl/role/{id}", { params: { path: { id: role!.ID } } });
    expect(read.data).toEqual(role);
    expect((await root.DELETE("/acl/role/{id}", { params: { path: { id: role!.ID } } })).data).toBe(true);
    expect((await root.GET("/acl/role/{id}", { params: { path: { id: role!.ID } } })).response.status).toBe(404);
  });
});

describe("the legacy token API", () => {
  it("exists on a server before 1.11: create, info, destroy, and the token works", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT, version: "1.10.12" });
    root = mesh.clientWithToken(MANAGEMENT);
    const created = await root.PUT("/acl/create", { body: { Name: "web reader", Type: "client", Rules: 'service "web" { policy = "read" }' } });
    expect(created.response.status).toBe(200);
    const secret = created.data!.ID;
    const client = mesh.clientWithToken(secret);
    expect((await readChain(client, "web")).response.status).toBe(200);
    expect((await readChain(client, "api")).response.status).toBe(403);
    const info = await root.GET("/acl/info/{id}", { params: { path: { id: secret } } });
    expect(info.data).toEqual([expect.objectContaining({ ID: secret, Name: "web reader", Type: "client" })]);
    expect((await root.PUT("/acl/destroy/{id}", { params: { path: { id: secret } } })).data).toBe(true);
    expect((await readChain(client, "web")).error).toBe("ACL not found");
    expect((await root.GET("/acl/info/{id}", { params: { path: { id: secret } } })).data).toEqual([]);
  });

  it("makes a management token of Type management, and refuses bad rules", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT, version: "1.3.0" });
    root = mesh.clientWithToken(MANAGEMENT);
    const created = await root.PUT("/acl/create", { body: { Type: "management" } });
    const asManager = await mesh.clientWithToken(created.data!.ID).PUT("/acl/create", { body: { Type: "client", Rules: "" } });
    expect(asManager.response.status).toBe(200);
    const bad = await root.PUT("/acl/create", { body: { Type: "client", Rules: "service {" } });
    expect(bad.response.status).toBe(500);
    expect(bad.error).toMatch(/^ACL rule compilation failed: Failed to parse ACL rules: line 1/);
  });

  it("is gone from 1.11 on", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT });
    const { response, error } = await mesh.clientWithToken(MANAGEMENT).PUT("/acl/create", { body: { Type: "client" } });
    expect(response.status).toBe(404);
    expect(error).toMatch(/removed in 1\.11/);
  });
});

describe("GET /agent/self", () => {
  it("reports the server's version and datacenter", async () => {
    mesh = await startMesh({ version: "1.12.3", datacenter: "eu1" });
    const { data } = await mesh.client.GET("/agent/self");
    expect(data?.Config).toMatchObject({ Version: "1.12.3", Datacenter: "eu1", NodeName: "mesh-server-1", Server: true });
  });

  it("needs agent:read on the node when ACLs are on", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT, tokens: [{ SecretID: "agent-reader", Rules: 'agent_prefix "mesh-" { policy = "read" }' }] });
    expect((await mesh.client.GET("/agent/self")).error).toBe(denied(ANONYMOUS_ACCESSOR, "agent:read", "mesh-server-1"));
    expect((await mesh.clientWithToken("agent-reader").GET("/agent/self")).response.status).toBe(200);
  });
});

describe("versions and partitions", () => {
  it("has no policy, role or token API before 1.4", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT, version: "1.3.0" });
    const { response, error } = await mesh.clientWithToken(MANAGEMENT).PUT("/acl/token", { body: {} });
    expect(response.status).toBe(404);
    expect(error).toMatch(/exists from 1\.4/);
  });

  it("accepts the default partition and refuses any other", async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT });
    root = mesh.clientWithToken(MANAGEMENT);
    expect((await root.PUT("/acl/token", { body: { Partition: "default" } })).response.status).toBe(200);
    const other = await root.PUT("/acl/token", { body: { Partition: "finance" } });
    expect(other.response.status).toBe(400);
    expect(other.error).toBe('Invalid Token: partition "finance" does not exist');
  });
});
