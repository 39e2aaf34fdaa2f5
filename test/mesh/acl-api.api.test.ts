// The rest of the real ACL API (issue 24), through the generated client: the request's own token,
// lists, updates, clones, reads by name, identities, the anonymous token and the legacy update,
// clone and list. Each case names the real source whose answer it checks: agent/acl_endpoint.go (the
// HTTP layer: 400 BadRequestError, 401), agent/consul/acl_endpoint.go (the RPC layer: fmt.Errorf,
// which agent/http.go answers with 500; acl.ErrNotFound, answered with 403), and their _legacy files.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ANONYMOUS_ACCESSOR, denied, readChain, startMesh, type MeshClient, type RunningMesh } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
const READER = "5a0e6c1b-7d2f-4e3a-9b8c-1d2e3f4a5b6c";
const MISSING = "6d5b1c40-0000-4000-8000-00000000dead";
const READER_ACCESSOR = "0c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5";
let mesh: RunningMesh;
let root: MeshClient;

afterEach(() => mesh.close());

async function start(options: Parameters<typeof startMesh>[0] = {}) {
  mesh = await startMesh({ managementToken: MANAGEMENT, tokens: [{ AccessorID: READER_ACCESSOR, SecretID: READER, Rules: 'acl = "read"' }], ...options });
  root = mesh.clientWithToken(MANAGEMENT);
}

async function policy(Name: string, Rules = "") {
  const { data, response, error } = await root.PUT("/acl/policy", { body: { Name, Rules } });
  expect(response.status, String(error)).toBe(200);
  return data!;
}

describe("the request's own token (GET /acl/token/self)", () => {
  beforeEach(() => start());

  it("answers the token of the secret presented, with its secret, and needs no permission", async () => {
    const { data: self } = await root.GET("/acl/token/self");
    expect(self).toMatchObject({ SecretID: MANAGEMENT, Description: "Initial Management Token", Policies: [{ Name: "global-management" }] });
    const { data: reader } = await mesh.clientWithToken(READER).GET("/acl/token/self");
    expect(reader?.SecretID).toBe(READER);
  });

  it("is not taken for an accessor ID, and a request without a token is 403 ACL not found", async () => {
    const { response, error } = await mesh.client.GET("/acl/token/self");
    expect([response.status, error]).toEqual([403, "ACL not found"]);
  });

  it("with a trailing slash is the accessor `self/`, as the agent's prefix handler reads it: 403 ACL not found", async () => {
    // ACLTokenCRUD takes the rest of the path as the ID ("self/"); ACLTokenGet finds no such accessor.
    const send = (path: string) => fetch(`${mesh.baseUrl}${path}`, { headers: { "X-Mesh-Token": MANAGEMENT } });
    const self = await send("/acl/token/self/");
    expect([self.status, await self.text()]).toEqual([403, "ACL not found"]);
    // So is any ID or name of the ACL API with a trailing slash: it is part of the ID.
    const reader = await send(`/acl/token/${READER_ACCESSOR}/`);
    expect([reader.status, await reader.text()]).toEqual([403, "ACL not found"]);
    expect((await send(`/acl/token/${READER_ACCESSOR}`)).status).toBe(200);
    const byName = await send("/acl/policy/name/global-management/");
    expect([byName.status, await byName.text()]).toEqual([403, "ACL not found"]);
    expect((await send("/acl/policy/name/global-management")).status).toBe(200);
  });

  it("is 401 with ACLs off and 404 before 1.4", async () => {
    await mesh.close();
    mesh = await startMesh();
    expect((await mesh.client.GET("/acl/token/self")).response.status).toBe(401);
    await mesh.close();
    mesh = await startMesh({ managementToken: MANAGEMENT, version: "1.3.0" });
    expect((await mesh.clientWithToken(MANAGEMENT).GET("/acl/token/self")).response.status).toBe(404);
  });
});

describe("lists", () => {
  beforeEach(() => start());

  it("lists tokens sorted by accessor, the anonymous and management tokens included, and filters by policy or role", async () => {
    const reader = await policy("reader", 'service "web" { policy = "read" }');
    const { data: role } = await root.PUT("/acl/role", { body: { Name: "readers", Policies: [{ ID: reader.ID }] } });
    const direct = (await root.PUT("/acl/token", { body: { Description: "direct", Policies: [{ ID: reader.ID }] } })).data!;
    const viaRole = (await root.PUT("/acl/token", { body: { Description: "via role", Roles: [{ ID: role!.ID }] } })).data!;
    const { data: all } = await root.GET("/acl/tokens");
    const accessors = all!.map((t) => t.AccessorID);
    expect(accessors).toEqual([...accessors].sort());
    expect(all!.map((t) => t.Description)).toEqual(expect.arrayContaining(["Anonymous Token", "Initial Management Token", "direct", "via role"]));
    expect(all!.find((t) => t.AccessorID === "00000000-0000-0000-0000-000000000002")?.SecretID).toBe("anonymous");
    const byPolicy = await root.GET("/acl/tokens", { params: { query: { policy: reader.ID } } });
    expect(byPolicy.data!.map((t) => t.AccessorID)).toEqual([direct.AccessorID]);
    const byRole = await root.GET("/acl/tokens", { params: { query: { role: role!.ID } } });
    expect(byRole.data!.map((t) => t.AccessorID)).toEqual([viaRole.AccessorID]);
    const empty = await root.GET("/acl/tokens", { params: { query: { policy: "" } } });
    expect(empty.data).toHaveLength(all!.length);
    const both = await root.GET("/acl/tokens", { params: { query: { policy: reader.ID, role: role!.ID } } });
    expect([both.response.status, both.error]).toEqual([500, "can only filter by one of policy, role, or authmethod at once"]);
  });

  it("hides every secret from a caller with acl:read only, and refuses one without it", async () => {
    const { data } = await mesh.clientWithToken(READER).GET("/acl/tokens");
    expect(new Set(data!.map((t) => t.SecretID))).toEqual(new Set(["<hidden>"]));
    const self = (await root.GET("/acl/token/self")).data!;
    const read = await mesh.clientWithToken(READER).GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: self.AccessorID } } });
    expect(read.data?.SecretID).toBe("<hidden>");
    const anonymous = await mesh.client.GET("/acl/tokens");
    expect([anonymous.response.status, anonymous.error]).toEqual([403, denied(ANONYMOUS_ACCESSOR, "acl:read")]);
  });

  it("lists policies without their rules, and roles, filtered by policy", async () => {
    const reader = await policy("reader", 'service "web" { policy = "read" }');
    const other = await policy("other");
    await root.PUT("/acl/role", { body: { Name: "a", Policies: [{ ID: reader.ID }] } });
    await root.PUT("/acl/role", { body: { Name: "b", Policies: [{ ID: other.ID }] } });
    const { data: policies } = await root.GET("/acl/policies");
    expect(policies!.map((p) => p.Name).sort()).toEqual(["global-management", "other", "reader"]);
    expect(policies!.every((p) => !("Rules" in p))).toBe(true);
    expect((await root.GET("/acl/roles")).data!.map((r) => r.Name).sort()).toEqual(["a", "b"]);
    expect((await root.GET("/acl/roles", { params: { query: { policy: other.ID } } })).data!.map((r) => r.Name)).toEqual(["b"]);
    expect((await mesh.client.GET("/acl/policies")).response.status).toBe(403);
  });
});

describe("token secrets: shown to acl:write only (agent/consul/acl_endpoint.go, TokenRead and TokenList redact without it)", () => {
  beforeEach(() => start());

  /** A token holding one policy of these rules. */
  async function tokenWith(name: string, rules: string) {
    const { data } = await root.PUT("/acl/token", { body: { Description: name, Policies: [{ ID: (await policy(name, rules)).ID }] } });
    return data!;
  }

  it("shows them to a caller with acl:write that is no management token, in lists and in reads", async () => {
    const writer = mesh.clientWithToken((await tokenWith("acl-writer", 'acl = "write"')).SecretID);
    const listed = (await writer.GET("/acl/tokens")).data!;
    expect(listed.find((t) => t.AccessorID === READER_ACCESSOR)?.SecretID).toBe(READER);
    expect(listed.filter((t) => t.SecretID === "<hidden>")).toEqual([]);
    const read = await writer.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: READER_ACCESSOR } } });
    expect(read.data?.SecretID).toBe(READER);
  });

  it("hides them from a caller with acl:read, whatever else it may write, but its own token read as itself", async () => {
    const rules = 'acl = "read"\noperator = "write"\nservice_prefix "" { policy = "write" }\nkey_prefix "" { policy = "write" }\nnode_prefix "" { policy = "write" }';
    const busy = await tokenWith("all-but-acl", rules);
    const client = mesh.clientWithToken(busy.SecretID);
    expect(new Set((await client.GET("/acl/tokens")).data!.map((t) => t.SecretID))).toEqual(new Set(["<hidden>"]));
    expect((await client.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: READER_ACCESSOR } } })).data?.SecretID).toBe("<hidden>");
    expect((await client.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: busy.AccessorID } } })).data?.SecretID).toBe("<hidden>");
    expect((await client.GET("/acl/token/self")).data?.SecretID).toBe(busy.SecretID);
  });

  it("shows a namespace's ACL writer the secrets of that namespace's tokens only: its rules apply where it lives", async () => {
    const writes = await policy("namespace-acl-writer", 'acl = "write"');
    const admin = (await root.PUT("/acl/token", { body: { Description: "team-a admin", Namespace: "team-a", Policies: [{ ID: writes.ID }] } })).data!;
    const member = (await root.PUT("/acl/token", { body: { Description: "team-a member", Namespace: "team-a" } })).data!;
    const client = mesh.clientWithToken(admin.SecretID);
    const listed = (await client.GET("/acl/tokens")).data!;
    expect(listed.find((t) => t.AccessorID === member.AccessorID)?.SecretID).toBe(member.SecretID);
    expect(listed.filter((t) => t.Namespace !== "team-a").map((t) => t.SecretID)).toEqual(listed.filter((t) => t.Namespace !== "team-a").map(() => "<hidden>"));
    expect(listed.find((t) => t.Description === "Initial Management Token")?.SecretID).toBe("<hidden>");
    const read = (accessor: string) => client.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: accessor } } });
    expect((await read(member.AccessorID)).data?.SecretID).toBe(member.SecretID);
    expect((await read(READER_ACCESSOR)).data?.SecretID).toBe("<hidden>");
  });

  it("a missing or expired token is 403 ACL not found when read, and left out of lists", async () => {
    const missing = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: MISSING } } });
    expect([missing.response.status, missing.error]).toEqual([403, "ACL not found"]);
    const issued = (await root.PUT("/acl/token", { body: { Description: "short-lived", ExpirationTTL: "1m" } })).data!;
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse(issued.ExpirationTime!) + 1 });
    try {
      const read = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } } });
      expect([read.response.status, read.error]).toEqual([403, "ACL not found"]);
      expect((await root.GET("/acl/tokens")).data!.map((t) => t.AccessorID)).not.toContain(issued.AccessorID);
    } finally {
      vi.useRealTimers();
    }
  });

  it("filters by role: the tokens that hold that role, not those of another", async () => {
    const { data: first } = await root.PUT("/acl/role", { body: { Name: "first" } });
    const { data: second } = await root.PUT("/acl/role", { body: { Name: "second" } });
    const inFirst = (await root.PUT("/acl/token", { body: { Description: "in first", Roles: [{ ID: first!.ID }] } })).data!;
    await root.PUT("/acl/token", { body: { Description: "in second", Roles: [{ ID: second!.ID }] } });
    const byRole = await root.GET("/acl/tokens", { params: { query: { role: first!.ID } } });
    expect(byRole.data!.map((t) => t.AccessorID)).toEqual([inFirst.AccessorID]);
  });
});

describe("reads by name", () => {
  beforeEach(() => start());

  it("reads a policy and a role by name; a missing policy is 403 ACL not found, a missing role 404 with no body", async () => {
    const created = await policy("web-reader", 'service "web" { policy = "read" }');
    expect((await root.GET("/acl/policy/name/{name}", { params: { path: { name: "web-reader" } } })).data).toEqual(created);
    const missingPolicy = await root.GET("/acl/policy/name/{name}", { params: { path: { name: "nope" } } });
    expect([missingPolicy.response.status, missingPolicy.error]).toEqual([403, "ACL not found"]);
    const { data: role } = await root.PUT("/acl/role", { body: { Name: "readers" } });
    expect((await root.GET("/acl/role/name/{name}", { params: { path: { name: "readers" } } })).data).toEqual(role);
    const missingRole = await fetch(`${mesh.baseUrl}/acl/role/name/nope`, { headers: { "X-Mesh-Token": MANAGEMENT } });
    expect(missingRole.status).toBe(404);
    expect(await missingRole.text()).toBe("");
    expect(missingRole.headers.get("content-type")).toBeNull();
  });
});

describe("updates", () => {
  beforeEach(() => start());

  it("updates a policy: tokens that link it get its new rules at once", async () => {
    const created = await policy("web", 'service "web" { policy = "read" }');
    const issued = (await root.PUT("/acl/token", { body: { Policies: [{ ID: created.ID }] } })).data!;
    expect((await readChain(mesh.clientWithToken(issued.SecretID), "api")).response.status).toBe(403);
    const { data } = await root.PUT("/acl/policy/{id}", { params: { path: { id: created.ID } }, body: { Name: "web-and-api", Rules: 'service_prefix "" { policy = "read" }' } });
    expect(data).toMatchObject({ ID: created.ID, Name: "web-and-api", Description: "", CreateIndex: created.CreateIndex });
    expect(data!.ModifyIndex).toBeGreaterThan(created.ModifyIndex);
    expect((await readChain(mesh.clientWithToken(issued.SecretID), "api")).response.status).toBe(200);
    const token = await root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } } });
    expect(token.data?.Policies).toEqual([{ ID: created.ID, Name: "web-and-api" }]);
  });

  it("refuses policy updates as the agent and the RPC layer do, and changes nothing", async () => {
    const created = await policy("web", 'service "web" { policy = "read" }');
    await policy("taken");
    const cases = [
      [created.ID, { ID: MISSING, Name: "web" }, 400, "Policy ID in URL and payload do not match"],
      ["not-a-uuid", { Name: "web" }, 500, "Policy ID invalid UUID"],
      [MISSING, { Name: "web" }, 500, `cannot find policy ${MISSING}`],
      [created.ID, { Name: "taken" }, 500, 'Invalid Policy: A policy with name "taken" already exists'],
      [created.ID, { Name: "web", Rules: "service {" }, 500, /^Failed to parse ACL rules: line 1/],
      ["00000000-0000-0000-0000-000000000001", { Name: "global-management", Rules: "" }, 500, "Changing the Rules for the builtin global-management policy is not permitted"],
    ] as const;
    for (const [id, body, status, message] of cases) {
      const { response, error } = await root.PUT("/acl/policy/{id}", { params: { path: { id } }, body });
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(error).toMatch(message);
    }
    const created2 = await root.PUT("/acl/policy", { body: { ID: created.ID, Name: "again" } });
    expect([created2.response.status, created2.error]).toEqual([400, "Cannot specify the ID when creating a new policy"]);
    expect((await root.GET("/acl/policy/{id}", { params: { path: { id: created.ID } } })).data).toEqual(created);
    const refused = await mesh.clientWithToken(READER).PUT("/acl/policy/{id}", { params: { path: { id: created.ID } }, body: { Name: "web" } });
    expect([refused.response.status, refused.error]).toEqual([403, denied(READER_ACCESSOR, "acl:write")]);
  });

  it("updates a role and refuses what the RPC layer refuses", async () => {
    const reader = await policy("reader", 'service "web" { policy = "read" }');
    const { data: role } = await root.PUT("/acl/role", { body: { Name: "readers" } });
    await root.PUT("/acl/role", { body: { Name: "taken" } });
    const { data: updated } = await root.PUT("/acl/role/{id}", { params: { path: { id: role!.ID } }, body: { Name: "renamed", Policies: [{ Name: "reader" }, { ID: reader.ID }] } });
    expect(updated).toMatchObject({ ID: role!.ID, Name: "renamed", Policies: [{ ID: reader.ID, Name: "reader" }] }); // links deduplicated
    for (const [id, body, status, message] of [
      [role!.ID, { ID: MISSING, Name: "renamed" }, 400, "Role ID in URL and payload do not match"],
      ["not-a-uuid", { Name: "x" }, 500, "Role ID invalid UUID"],
      [MISSING, { Name: "x" }, 500, `cannot find role ${MISSING}`],
      [role!.ID, { Name: "taken" }, 500, 'Invalid Role: A role with name "taken" already exists'],
      [role!.ID, { Name: "renamed", Policies: [{ Name: "nope" }] }, 500, 'No such ACL policy with name "nope"'],
    ] as const) {
      const { response, error } = await root.PUT("/acl/role/{id}", { params: { path: { id } }, body: body as never });
      expect([response.status, error], JSON.stringify(body)).toEqual([status, message]);
    }
    const withId = await root.PUT("/acl/role", { body: { ID: role!.ID, Name: "again" } });
    expect([withId.response.status, withId.error]).toEqual([400, "Role ID in URL and payload do not match"]);
  });

  it("updates a token's links and description, keeping its secret, expiry and creation time", async () => {
    await policy("reader", 'service "web" { policy = "read" }');
    const issued = (await root.PUT("/acl/token", { body: { Description: "first", ExpirationTTL: "1h" } })).data!;
    const { data } = await root.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: issued.AccessorID } }, body: { Description: "second", Policies: [{ Name: "reader" }] } });
    expect(data).toMatchObject({
      AccessorID: issued.AccessorID,
      SecretID: issued.SecretID,
      Description: "second",
      CreateTime: issued.CreateTime,
      ExpirationTime: issued.ExpirationTime,
      Policies: [{ Name: "reader" }],
    });
    expect((await readChain(mesh.clientWithToken(issued.SecretID), "web")).response.status).toBe(200);
  });

  it("refuses token updates as the agent and the RPC layer do", async () => {
    const issued = (await root.PUT("/acl/token", { body: { Description: "first" } })).data!;
    const local = (await root.PUT("/acl/token", { body: { Local: true } })).data!;
    const path = (accessor_id: string) => ({ params: { path: { accessor_id } } });
    for (const [id, body, status, message] of [
      [issued.AccessorID, { AccessorID: MISSING }, 400, "Token Accessor ID in URL and payload do not match"],
      ["not-a-uuid", {}, 500, "AccessorID is not a valid UUID"],
      [MISSING, {}, 500, `Cannot find token "${MISSING}"`],
      [issued.AccessorID, { SecretID: MISSING }, 500, "Changing a tokens SecretID is not permitted"],
      [local.AccessorID, {}, 500, `cannot toggle local mode of ${local.AccessorID}`],
      [issued.AccessorID, { ExpirationTTL: "1h" }, 500, `Cannot change expiration time of ${issued.AccessorID}`],
      [issued.AccessorID, { Roles: [{ Name: "nope" }] }, 500, 'No such ACL role with name "nope"'],
      [issued.AccessorID, { ExpirationTTL: "soon" }, 400, 'Token decoding failed: time: invalid duration "soon"'],
    ] as const) {
      const { response, error } = await root.PUT("/acl/token/{accessor_id}", { ...path(id), body: body as never });
      expect([response.status, error], JSON.stringify(body)).toEqual([status, message]);
    }
    expect((await root.GET("/acl/token/{accessor_id}", path(issued.AccessorID))).data?.Description).toBe("first");
  });
});

describe("clones", () => {
  beforeEach(() => start({ tokens: [{ AccessorID: READER_ACCESSOR, SecretID: READER, Rules: 'acl = "read"' }, { SecretID: "declared", Rules: 'service "web" { policy = "read" }' }] }));

  it("clones a token: new accessor and secret, the same links, the description replaced when given", async () => {
    await policy("reader", 'service "web" { policy = "read" }');
    const source = (await root.PUT("/acl/token", { body: { Description: "source", Policies: [{ Name: "reader" }], ServiceIdentities: [{ ServiceName: "api" }] } })).data!;
    const path = { params: { path: { accessor_id: source.AccessorID } } };
    const { data: copy } = await root.PUT("/acl/token/{accessor_id}/clone", { ...path, body: { Description: "copy" } });
    expect(copy).toMatchObject({ Description: "copy", Policies: source.Policies, ServiceIdentities: [{ ServiceName: "api" }], Local: false });
    expect(copy!.AccessorID).not.toBe(source.AccessorID);
    expect(copy!.SecretID).not.toBe(source.SecretID);
    const { data: same } = await root.PUT("/acl/token/{accessor_id}/clone", path);
    expect(same?.Description).toBe("source");
    expect((await readChain(mesh.clientWithToken(copy!.SecretID), "web")).response.status).toBe(200);
  });

  it("refuses an unknown token (403 ACL not found), a token with rules of its own (500) and a caller without acl:write", async () => {
    const missing = await root.PUT("/acl/token/{accessor_id}/clone", { params: { path: { accessor_id: MISSING } } });
    expect([missing.response.status, missing.error]).toEqual([403, "ACL not found"]);
    const declared = (await root.GET("/acl/tokens")).data!.find((t) => t.SecretID === "declared")!;
    const legacy = await root.PUT("/acl/token/{accessor_id}/clone", { params: { path: { accessor_id: declared.AccessorID } } });
    expect([legacy.response.status, legacy.error]).toEqual([500, "Cannot clone a legacy ACL with this endpoint"]);
    const refused = await mesh.clientWithToken(READER).PUT("/acl/token/{accessor_id}/clone", { params: { path: { accessor_id: declared.AccessorID } } });
    expect([refused.response.status, refused.error]).toEqual([403, denied(READER_ACCESSOR, "acl:write")]);
  });
});

describe("service and node identities (agent/structs/acl.go: the policies they stand for)", () => {
  beforeEach(() => start());

  it("a role's service identity grants write on the service and its sidecar proxy and read on every service", async () => {
    const { data: role, response } = await root.PUT("/acl/role", { body: { Name: "web-service", ServiceIdentities: [{ ServiceName: "web" }, { ServiceName: "web", Datacenters: ["dc2"] }] } });
    expect(response.status).toBe(200);
    expect(role?.ServiceIdentities).toEqual([{ ServiceName: "web" }]); // deduplicated; no datacenters means everywhere
    const issued = (await root.PUT("/acl/token", { body: { Roles: [{ Name: "web-service" }] } })).data!;
    const client = mesh.clientWithToken(issued.SecretID);
    const write = (Name: string) => client.PUT("/config", { body: { Kind: "service-defaults", Name, Protocol: "http" } });
    expect((await write("web")).response.status).toBe(200);
    expect((await write("web-sidecar-proxy")).response.status).toBe(200);
    const other = await write("api");
    expect([other.response.status, other.error]).toEqual([403, denied(issued.AccessorID, "service:write", "api")]);
    expect((await readChain(client, "api")).response.status).toBe(200);
  });

  it("an identity limited to other datacenters grants nothing here; a node identity of this datacenter reads services", async () => {
    const elsewhere = (await root.PUT("/acl/token", { body: { ServiceIdentities: [{ ServiceName: "web", Datacenters: ["dc2"] }] } })).data!;
    expect((await readChain(mesh.clientWithToken(elsewhere.SecretID), "web")).response.status).toBe(403);
    const node = (await root.PUT("/acl/token", { body: { NodeIdentities: [{ NodeName: "node-1", Datacenter: "dc1" }] } })).data!;
    expect((await readChain(mesh.clientWithToken(node.SecretID), "web")).response.status).toBe(200);
    const otherNode = (await root.PUT("/acl/token", { body: { NodeIdentities: [{ NodeName: "node-1", Datacenter: "dc2" }] } })).data!;
    expect((await readChain(mesh.clientWithToken(otherNode.SecretID), "web")).response.status).toBe(403);
  });

  it("refuses identities with invalid names (500), without a name (schema: 400), and datacenters on a local token", async () => {
    for (const [body, message] of [
      [{ Name: "r", ServiceIdentities: [{ ServiceName: "Web" }] }, `Service identity "Web" has an invalid name. Only alphanumeric characters, '-' and '_' are allowed`],
      [{ Name: "r", ServiceIdentities: [{ ServiceName: "" }] }, "Service identity is missing the service name field on this role"],
      [{ Name: "r", NodeIdentities: [{ NodeName: "n", Datacenter: "" }] }, "Node identity is missing the datacenter field on this role"],
      [{ Name: "r", NodeIdentities: [{ NodeName: "-n", Datacenter: "dc1" }] }, "Node identity has an invalid name. Only alphanumeric characters, '-' and '_' are allowed"],
    ] as const) {
      const { response, error } = await root.PUT("/acl/role", { body: body as never });
      expect([response.status, error]).toEqual([500, message]);
    }
    const noName = await root.PUT("/acl/role", { body: { Name: "r", ServiceIdentities: [{} as never] } });
    expect(noName.response.status).toBe(400);
    const local = await root.PUT("/acl/token", { body: { Local: true, ServiceIdentities: [{ ServiceName: "web", Datacenters: ["dc1"] }] } });
    expect([local.response.status, local.error]).toEqual([500, 'Service identity "web" cannot specify a list of datacenters on a local token']);
    expect((await root.GET("/acl/roles")).data).toEqual([]);
  });
});

describe("the anonymous token", () => {
  beforeEach(() => start());

  it("is what a request without a token acts as: a policy given to it applies to such requests", async () => {
    expect((await readChain(mesh.client, "web")).response.status).toBe(403);
    await policy("public", 'service "web" { policy = "read" }');
    const { response } = await root.PUT("/acl/token/{accessor_id}", {
      params: { path: { accessor_id: "00000000-0000-0000-0000-000000000002" } },
      body: { Description: "Anonymous Token", Policies: [{ Name: "public" }] },
    });
    expect(response.status).toBe(200);
    expect((await readChain(mesh.client, "web")).response.status).toBe(200);
    expect((await readChain(mesh.client, "api")).response.status).toBe(403);
  });

  it("cannot be deleted; the request's own token neither; another token's deletion of the management token is allowed", async () => {
    const admin = (await root.PUT("/acl/token", { body: { Policies: [{ Name: "global-management" }] } })).data!;
    const self = (await root.GET("/acl/token/self")).data!;
    const own = await root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: self.AccessorID } } });
    expect([own.response.status, own.error]).toEqual([500, "Deletion of the request's authorization token is not permitted"]);
    const byOther = await mesh.clientWithToken(admin.SecretID).DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: self.AccessorID } } });
    expect(byOther.data).toBe(true);
    expect((await root.GET("/acl/token/self")).error).toBe("ACL not found");
  });
});

describe("the legacy update, clone and list (servers before 1.11)", () => {
  beforeEach(() => start({ version: "1.10.12" }));

  it("updates (or creates) by ID, clones and lists legacy tokens", async () => {
    const { data: updated } = await root.PUT("/acl/update", { body: { ID: "11111111-2222-4333-8444-555555555555", Name: "web", Type: "client", Rules: 'service "web" { policy = "read" }' } });
    expect(updated).toEqual({ ID: "11111111-2222-4333-8444-555555555555" });
    expect((await readChain(mesh.clientWithToken(updated!.ID), "web")).response.status).toBe(200);
    await root.PUT("/acl/update", { body: { ID: updated!.ID, Name: "web writer", Type: "client", Rules: 'service "web" { policy = "write" }' } });
    const { data: copy } = await root.PUT("/acl/clone/{id}", { params: { path: { id: updated!.ID } } });
    expect((await root.GET("/acl/info/{id}", { params: { path: { id: copy!.ID } } })).data).toEqual([
      expect.objectContaining({ Name: "web writer", Type: "client", Rules: 'service "web" { policy = "write" }' }),
    ]);
    const { data: list } = await root.GET("/acl/list");
    // The declared token with rules of its own (MESH_ACL_FILE, no name) is a legacy token too.
    expect(list!.map((t) => t.Name).sort()).toEqual(["", "Anonymous Token", "Initial Management Token", "web writer", "web writer"]);
  });

  it("refuses as the legacy endpoints do", async () => {
    const noId = await root.PUT("/acl/update", { body: { Name: "x" } });
    expect([noId.response.status, noId.error]).toEqual([400, "ACL ID must be set"]);
    const modern = (await root.PUT("/acl/token", { body: { Policies: [{ Name: "global-management" }] } })).data!;
    const notLegacy = await root.PUT("/acl/update", { body: { ID: modern.SecretID, Type: "client" } });
    expect([notLegacy.response.status, notLegacy.error]).toEqual([500, "Cannot use legacy endpoint to modify a non-legacy token"]);
    const missing = await root.PUT("/acl/clone/{id}", { params: { path: { id: "nope" } } });
    expect([missing.response.status, missing.error]).toEqual([403, "Permission denied"]);
    const reader = await mesh.clientWithToken(READER).GET("/acl/list");
    expect([reader.response.status, reader.error]).toEqual([403, "Permission denied"]);
    const anonymous = await root.PUT("/acl/destroy/{id}", { params: { path: { id: "anonymous" } } });
    expect([anonymous.response.status, anonymous.error]).toEqual([403, "Permission denied: Cannot delete anonymous token"]);
    const root2 = await root.PUT("/acl/update", { body: { ID: "manage", Type: "management" } });
    expect([root2.response.status, root2.error]).toEqual([403, "Permission denied: Cannot modify root ACL"]);
  });

  it("answers 404 from 1.11 on", async () => {
    await mesh.close();
    await start();
    for (const call of [root.PUT("/acl/update", { body: { ID: "x" } }), root.PUT("/acl/clone/{id}", { params: { path: { id: "x" } } }), root.GET("/acl/list")]) {
      const { response, error } = await call;
      expect([response.status, error]).toEqual([404, "The legacy ACL token API was removed in 1.11: use /v1/acl/token"]);
    }
  });
});
