// ACL paths without an ID, exact paths with a trailing "/", and the bearer token, as the agent's
// mux and handlers treat them. The ACL endpoints with an ID are subtree patterns of the mux
// (agent/http_register.go): their handlers see an empty ID and refuse it after the method and ACL
// checks (agent/acl_endpoint.go ACLPolicyCRUD, ACLRoleCRUD, ACLTokenCRUD, ACLPolicyReadByName,
// ACLRoleReadByName; agent/acl_endpoint_legacy.go ACLGet, ACLDestroy, ACLClone). Other patterns are
// exact, so the same path with a trailing "/" reaches only the mux's "/": the Index handler's 404.
import { afterEach, describe, expect, it } from "vitest";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

let mesh: RunningMesh;
afterEach(() => mesh.close());

const INDEX_404 = "Invalid URL path: not a recognized HTTP API endpoint\n";

async function call(method: string, path: string, headers: Record<string, string> = { "X-Mesh-Token": "root" }) {
  const response = await fetch(`${mesh.baseUrl}${path}`, { method, headers });
  return { status: response.status, text: await response.text(), allow: response.headers.get("allow") };
}

describe("an ACL path without an ID", () => {
  it.each([
    ["GET", "/acl/policy/", "Missing policy ID"],
    ["DELETE", "/acl/policy/", "Missing policy ID"],
    ["GET", "/acl/role/", "Missing role ID"],
    ["GET", "/acl/token/", "Missing token ID"],
    ["DELETE", "/acl/token/", "Missing token ID"],
    ["GET", "/acl/policy/name/", "Missing policy Name"],
    ["GET", "/acl/role/name/", "Missing role Name"],
    ["GET", "/acl/info/", "Missing ACL"],
    ["PUT", "/acl/destroy/", "Missing ACL"],
    ["PUT", "/acl/clone/", "Missing ACL"],
  ])("%s %s is 400 %s, whatever the token", async (method, path, text) => {
    mesh = await startMesh({ managementToken: "root", version: "1.10.12" });
    expect(await call(method, path, { "X-Mesh-Token": "nobody" })).toMatchObject({ status: 400, text });
  });

  it("checks the method and whether ACLs are on first", async () => {
    mesh = await startMesh({ version: "1.10.12" });
    expect(await call("POST", "/acl/policy/")).toEqual({ status: 405, text: "method POST not allowed", allow: "OPTIONS,GET,PUT,DELETE" });
    expect(await call("OPTIONS", "/acl/policy/name/")).toEqual({ status: 200, text: "", allow: "OPTIONS,GET" });
    expect(await call("GET", "/acl/policy/")).toMatchObject({ status: 401, text: "ACL support disabled" });
  });

  it("is the Index handler's 404 where the API does not exist (legacy from 1.11, tokens before 1.4)", async () => {
    mesh = await startMesh({ managementToken: "root", version: "1.16.0" });
    expect(await call("GET", "/acl/info/")).toMatchObject({ status: 404, text: INDEX_404 });
    await mesh.close();
    mesh = await startMesh({ managementToken: "root", version: "1.3.0" });
    expect(await call("GET", "/acl/policy/")).toMatchObject({ status: 404, text: "" });
  });
});

describe("an exact path with a trailing slash", () => {
  it.each(["/acl/tokens/", "/acl/policies/", "/acl/roles/", "/agent/self/", "/acl/list/"])("GET %s is the Index handler's 404", async (path) => {
    mesh = await startMesh({ managementToken: "root", version: "1.10.12" });
    expect(await call("GET", path)).toMatchObject({ status: 404, text: INDEX_404 });
  });
});

// agent/http.go parseToken: the Authorization header split on " ", scheme `bearer` in any case, and
// only the first word of the rest.
describe("a bearer token", () => {
  it("is the first word after the scheme", async () => {
    mesh = await startMesh({ managementToken: "root", version: "1.10.12" });
    for (const authorization of ["Bearer root extra", "bearer  root", "BEARER root "]) {
      const { status } = await call("GET", "/acl/token/self", { Authorization: authorization });
      expect([authorization, status]).toEqual([authorization, 200]);
    }
    // No space after the scheme: no token at all (the anonymous token, which has no self to read).
    expect(await call("GET", "/acl/token/self", { Authorization: "Bearer\troot" })).toMatchObject({ status: 403, text: "ACL not found" });
  });
});
