// ACL writes with the bodies real clients send, through the generated client. The Go client
// (api/acl.go) marshals its whole structs: ACLPolicy and ACLRole with `Hash: null`, `CreateIndex`,
// `ModifyIndex` (and `Datacenters: null` for policies), ACLToken with the indexes and a zero
// `CreateTime`, the legacy ACLEntry with its indexes; python-consul2 writes back what it read. The
// agent decodes each into a struct that has all those fields (agent/structs: RaftIndex, Hash,
// CreateTime, ExpirationTime) with lib.DecodeJSON, which refuses only keys the struct does not have
// (`json: unknown field "Foo"`), prefixed per endpoint (agent/acl_endpoint.go, acl_endpoint_legacy.go).
import { describe, expect, it } from "vitest";
import { meshPerTest } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";
const mesh = meshPerTest({ managementToken: MANAGEMENT, version: "1.10.12" });

/** A body sent as the client marshals it, byte for byte (the generated client's type is bypassed on purpose). */
async function send(method: string, path: string, body: unknown) {
  const response = await fetch(`${mesh.baseUrl}${path}`, {
    method,
    headers: { "X-Mesh-Token": MANAGEMENT },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe("what the Go client sends", () => {
  it("creates a policy, a role and a token from api.ACLPolicy, api.ACLRole and api.ACLToken as marshalled", async () => {
    // json.Marshal(&api.ACLPolicy{Name, Description, Rules}): every field, nil slices as null.
    const policyBody = { ID: "", Name: "web", Description: "d", Rules: 'service "web" { policy = "read" }', Datacenters: null, Hash: null, CreateIndex: 0, ModifyIndex: 0 };
    const policy = await mesh.root.PUT("/acl/policy", { body: policyBody });
    expect(policy.response.status, String(policy.error)).toBe(200);
    expect(policy.data).toMatchObject({ Name: "web", Description: "d" });
    expect(policy.data!.CreateIndex).toBeGreaterThan(0);

    const roleBody = { ID: "", Name: "r", Description: "", Policies: [{ ID: policy.data!.ID, Name: "" }], Hash: null, CreateIndex: 0, ModifyIndex: 0 };
    const role = await mesh.root.PUT("/acl/role", { body: roleBody });
    expect(role.response.status, String(role.error)).toBe(200);
    expect(role.data!.Policies).toEqual([{ ID: policy.data!.ID, Name: "web" }]);

    // api.ACLToken: omitempty on the links, TTL, ExpirationTime and Hash; CreateTime is a struct, always sent.
    const tokenBody = { CreateIndex: 0, ModifyIndex: 0, AccessorID: "", SecretID: "", Description: "t", Roles: [{ ID: role.data!.ID, Name: "" }], Local: false, CreateTime: GO_ZERO_TIME };
    const token = await mesh.root.PUT("/acl/token", { body: tokenBody });
    expect(token.response.status, String(token.error)).toBe(200);
    expect(token.data!.CreateTime).not.toBe(GO_ZERO_TIME); // set by the server, not taken from the body
    expect(token.data!.Roles).toEqual([{ ID: role.data!.ID, Name: "r" }]);
  });

  it("updates with a token read back with its hash, creation time and expiration time", async () => {
    const created = await mesh.root.PUT("/acl/token", { body: { Description: "t", ExpirationTTL: "1h" } });
    expect(created.response.status).toBe(200);
    const { AccessorID, CreateTime, ExpirationTime } = created.data!;
    // What api.ACLToken read from a real server carries and writes back: Hash as base64.
    const body = { ...created.data!, Description: "changed", Hash: "yJr1bYsUXqaSKM1tKpUJV2DKuDPEhufGtTdxp+xrOn0=", CreateTime: "2000-01-01T00:00:00Z" };
    const updated = await mesh.root.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: AccessorID } }, body });
    expect(updated.response.status, String(updated.error)).toBe(200);
    // The creation and expiration times stay the token's own (agent/consul/acl_endpoint.go tokenSetInternal).
    expect(updated.data).toMatchObject({ Description: "changed", CreateTime, ExpirationTime });
    expect(updated.data!.ModifyIndex).toBeGreaterThan(created.data!.ModifyIndex);

    const zero = await mesh.root.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: AccessorID } }, body: { Description: "z", ExpirationTime: GO_ZERO_TIME } });
    expect([zero.response.status, zero.data?.ExpirationTime]).toEqual([200, ExpirationTime]);
  });

  it("refuses a different expiration time on update, and one given with a TTL on create (500, the RPC layer's words)", async () => {
    const plain = await mesh.root.PUT("/acl/token", { body: { Description: "t" } });
    const other = new Date(Date.now() + 3600_000).toISOString();
    const changed = await mesh.root.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: plain.data!.AccessorID } }, body: { ExpirationTime: other } });
    expect([changed.response.status, changed.error]).toEqual([500, `Cannot change expiration time of ${plain.data!.AccessorID}`]);
    const both = await mesh.root.PUT("/acl/token", { body: { ExpirationTTL: "1h", ExpirationTime: other } });
    expect([both.response.status, both.error]).toEqual([500, "Token Expiration TTL and Expiration Time cannot both be set"]);
  });

  it("creates a token with an expiration time given as such, within the same bounds as a TTL", async () => {
    const at = new Date(Date.now() + 600_000).toISOString();
    const token = await mesh.root.PUT("/acl/token", { body: { ExpirationTime: at } });
    expect([token.response.status, token.data?.ExpirationTime]).toEqual([200, at]);
    const soon = await mesh.root.PUT("/acl/token", { body: { ExpirationTime: new Date(Date.now() + 30_000).toISOString() } });
    expect(soon.response.status).toBe(500);
    expect(soon.error).toMatch(/^ExpirationTime cannot be less than 1m0s in the future \(was /);
  });

  it("creates and updates a legacy token from api.ACLEntry as marshalled", async () => {
    const created = await mesh.root.PUT("/acl/create", { body: { CreateIndex: 0, ModifyIndex: 0, ID: "", Name: "n", Type: "client", Rules: "" } });
    expect(created.response.status, String(created.error)).toBe(200);
    const [read] = (await mesh.root.GET("/acl/info/{id}", { params: { path: { id: created.data!.ID } } })).data!;
    const updated = await mesh.root.PUT("/acl/update", { body: { ...read!, Name: "renamed" } });
    expect(updated.response.status, String(updated.error)).toBe(200);
  });

  it("lets the built-in management policy be written back with Datacenters null, but not []", async () => {
    const { data: builtin } = await mesh.root.GET("/acl/policy/{id}", { params: { path: { id: "00000000-0000-0000-0000-000000000001" } } });
    const path = { params: { path: { id: builtin!.ID } } };
    const back = await mesh.root.PUT("/acl/policy/{id}", { ...path, body: { ...builtin!, Datacenters: null, Hash: null, Description: "all" } });
    expect(back.response.status, String(back.error)).toBe(200);
    const empty = await mesh.root.PUT("/acl/policy/{id}", { ...path, body: { ...builtin!, Datacenters: [] } });
    expect([empty.response.status, empty.error]).toEqual([500, "Changing the Datacenters of the builtin global-management policy is not permitted"]);
  });
});

describe("read, edit, write back (python-consul2's way)", () => {
  it("writes back a policy, a role and a token exactly as read", async () => {
    const policy = (await mesh.root.PUT("/acl/policy", { body: { Name: "web", Rules: "" } })).data!;
    const policyBack = await mesh.root.PUT("/acl/policy/{id}", { params: { path: { id: policy.ID } }, body: { ...policy, Description: "changed" } });
    expect([policyBack.response.status, policyBack.data?.Description]).toEqual([200, "changed"]);

    const role = (await mesh.root.PUT("/acl/role", { body: { Name: "r", Policies: [{ ID: policy.ID }], ServiceIdentities: [{ ServiceName: "web" }] } })).data!;
    const roleBack = await mesh.root.PUT("/acl/role/{id}", { params: { path: { id: role.ID } }, body: { ...role, Description: "changed" } });
    expect([roleBack.response.status, roleBack.data?.Description]).toEqual([200, "changed"]);

    const token = (await mesh.root.PUT("/acl/token", { body: { Description: "t", Policies: [{ ID: policy.ID }] } })).data!;
    const { data: read } = await mesh.root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: token.AccessorID } } });
    const tokenBack = await mesh.root.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: token.AccessorID } }, body: { ...read!, Description: "changed" } });
    expect([tokenBack.response.status, tokenBack.data?.Description]).toEqual([200, "changed"]);
  });
});

describe("what is refused, in each endpoint's words", () => {
  it.each([
    ["PUT", "/acl/policy", { Name: "a", Foo: 1, Bar: 2 }, 'Policy decoding failed: json: unknown field "Foo"'],
    ["PUT", "/acl/role", { Name: "a", Policies: [{ ID: "x", Foo: 1 }] }, 'Role decoding failed: json: unknown field "Foo"'],
    ["PUT", "/acl/token", { Foo: 1 }, 'Token decoding failed: json: unknown field "Foo"'],
    ["PUT", "/acl/create", { Foo: 1 }, 'Request decode failed: json: unknown field "Foo"'],
    ["PUT", "/acl/update", { ID: "x", Foo: 1 }, 'Request decode failed: json: unknown field "Foo"'],
    ["PUT", "/acl/token", "", "Token decoding failed: EOF"],
    ["PUT", "/acl/policy", "", "Policy decoding failed: EOF"],
  ])("%s %s %j is 400 %s", async (method, path, body, text) => {
    expect(await send(method, path, body)).toEqual({ status: 400, text });
  });

  it("words a clone's unknown key as a token's, and a bad JSON text with the endpoint's prefix", async () => {
    const token = (await mesh.root.PUT("/acl/token", { body: {} })).data!;
    expect(await send("PUT", `/acl/token/${token.AccessorID}/clone`, { Foo: 1 })).toEqual({ status: 400, text: 'Token decoding failed: json: unknown field "Foo"' });
    expect((await send("PUT", "/acl/role", "{")).text).toMatch(/^Role decoding failed: /);
  });

  it("refuses a Hash that is not base64 and an index that is not a number", async () => {
    expect((await send("PUT", "/acl/policy", { Name: "a", Hash: "!!" })).text).toMatch(/^Policy decoding failed: Hash /);
    expect((await send("PUT", "/acl/token", { CreateIndex: "1" })).text).toMatch(/^Token decoding failed: CreateIndex /);
  });
});
