// ACL reads as blocking queries, through the generated client: each sends X-Mesh-Index (its table's
// index), X-Mesh-KnownLeader and X-Mesh-LastContact (agent/acl_endpoint.go: `defer setMeta` in
// ACLPolicyList, ACLPolicyRead, ACLTokenList, ACLTokenGet, ACLTokenSelf, ACLRoleList, ACLRoleRead;
// agent/acl_endpoint_legacy.go ACLGet, ACLList), and with `index` waits for a write of its table
// (agent/consul/acl_endpoint.go runs each RPC through blockingQuery).
import { describe, expect, it } from "vitest";
import { meshPerTest } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
const mesh = meshPerTest({ managementToken: MANAGEMENT, version: "1.10.12" });

const indexOf = (response: Response) => Number(response.headers.get("x-mesh-index"));
const stateOf = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 150))]);

describe("index headers", () => {
  it("answers every ACL read with its table's index and a known leader", async () => {
    const policy = (await mesh.root.PUT("/acl/policy", { body: { Name: "web" } })).data!;
    const role = (await mesh.root.PUT("/acl/role", { body: { Name: "r", Policies: [{ ID: policy.ID }] } })).data!;
    const token = (await mesh.root.PUT("/acl/token", { body: { Policies: [{ ID: policy.ID }] } })).data!;
    const legacy = (await mesh.root.PUT("/acl/create", { body: { Name: "l" } })).data!;
    const reads = [
      [await mesh.root.GET("/acl/policies"), policy.ModifyIndex],
      [await mesh.root.GET("/acl/policy/{id}", { params: { path: { id: policy.ID } } }), policy.ModifyIndex],
      [await mesh.root.GET("/acl/policy/name/{name}", { params: { path: { name: "web" } } }), policy.ModifyIndex],
      [await mesh.root.GET("/acl/roles"), role.ModifyIndex],
      [await mesh.root.GET("/acl/role/{id}", { params: { path: { id: role.ID } } }), role.ModifyIndex],
      [await mesh.root.GET("/acl/role/name/{name}", { params: { path: { name: "r" } } }), role.ModifyIndex],
    ] as const;
    for (const [{ response }, index] of reads) {
      expect([response.url, indexOf(response)]).toEqual([response.url, index]);
      expect(response.headers.get("x-mesh-knownleader")).toBe("true");
      expect(response.headers.get("x-mesh-lastcontact")).toBe("0");
    }
    // The legacy create was the tokens table's last write.
    const tokensIndex = token.ModifyIndex + 1;
    for (const { response } of [
      await mesh.root.GET("/acl/tokens"),
      await mesh.root.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: token.AccessorID } } }),
      await mesh.root.GET("/acl/token/self"),
      await mesh.root.GET("/acl/list"),
      await mesh.root.GET("/acl/info/{id}", { params: { path: { id: legacy.ID } } }),
    ]) {
      expect([response.url, response.status, indexOf(response)]).toEqual([response.url, 200, tokensIndex]);
    }
  });

  it("moves a table's index on a delete", async () => {
    const policy = (await mesh.root.PUT("/acl/policy", { body: { Name: "gone" } })).data!;
    await mesh.root.DELETE("/acl/policy/{id}", { params: { path: { id: policy.ID } } });
    const { response } = await mesh.root.GET("/acl/policies");
    expect(indexOf(response)).toBe(policy.ModifyIndex + 1);
  });

  it("refuses ?stale with ?consistent", async () => {
    const { response, error } = await mesh.root.GET("/acl/policies", { params: { query: { stale: "", consistent: "" } } });
    expect([response.status, error]).toEqual([400, "Cannot specify ?stale with ?consistent, conflicting semantics."]);
  });
});

describe("blocking", () => {
  it("waits for a write of the table, not of another one", async () => {
    const policy = (await mesh.root.PUT("/acl/policy", { body: { Name: "web" } })).data!;
    const first = await mesh.root.GET("/acl/policy/{id}", { params: { path: { id: policy.ID } } });
    const index = indexOf(first.response);
    const blocked = mesh.root.GET("/acl/policy/{id}", { params: { path: { id: policy.ID }, query: { index, wait: "20s" } } });
    expect(await stateOf(blocked)).toBe("pending");
    await mesh.root.PUT("/acl/role", { body: { Name: "other" } });
    expect(await stateOf(blocked)).toBe("pending");
    await mesh.root.PUT("/acl/policy/{id}", { params: { path: { id: policy.ID } }, body: { Name: "web", Description: "changed" } });
    const { data, response } = await blocked;
    expect(indexOf(response)).toBeGreaterThan(index);
    expect(data?.Description).toBe("changed");
  });

  it("answers with the same index when wait passes, and at once for an older index", async () => {
    const { response } = await mesh.root.GET("/acl/tokens");
    const index = indexOf(response);
    const late = await mesh.root.GET("/acl/tokens", { params: { query: { index, wait: "50ms" } } });
    expect([late.response.status, indexOf(late.response)]).toEqual([200, index]);
    const older = await mesh.root.GET("/acl/tokens", { params: { query: { index: index - 1, wait: "20s" } } });
    expect(indexOf(older.response)).toBe(index);
  });

  it("wakes a blocked token list when a token is deleted", async () => {
    const token = (await mesh.root.PUT("/acl/token", { body: {} })).data!;
    const { response } = await mesh.root.GET("/acl/tokens");
    const blocked = mesh.root.GET("/acl/tokens", { params: { query: { index: indexOf(response), wait: "20s" } } });
    expect(await stateOf(blocked)).toBe("pending");
    await mesh.root.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: token.AccessorID } } });
    const { data } = await blocked;
    expect(data?.some((row) => row.AccessorID === token.AccessorID)).toBe(false);
  });
});
