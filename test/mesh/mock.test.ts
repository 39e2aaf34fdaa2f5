// Prism, the stateless mock, answers every mesh operation from the description's examples, and
// those answers follow the description.
import { beforeAll, describe, expect, it } from "vitest";
import { createMeshClient } from "../../generated/mesh/client.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { responseChecker } from "../helpers/contract.ts";
import { sharedMock } from "../helpers/shared-mock.ts";

const bundle = loadBundle("mesh");
const check = responseChecker(bundle);
let client: ReturnType<typeof createMeshClient>;

beforeAll(async () => {
  // Prism itself (not the front of `npm run mock`): the run's shared one (test/setup/shared-mocks.ts).
  const { prismUrl } = await sharedMock("mesh");
  client = createMeshClient({ baseUrl: prismUrl });
}, 60_000);

async function expectValid(template: string, method: string, call: Promise<{ response: Response; data?: unknown; error?: unknown }>) {
  const { response, data, error } = await call;
  expect(response.status).toBe(200);
  expect(check(template, method, response.status, response.headers.get("content-type") ?? "", data ?? error)).toEqual([]);
  return data;
}

describe("Prism mock of the mesh API", () => {
  it("answers readDiscoveryChain with a chain example", async () => {
    const data = await expectValid(
      "/discovery-chain/{service_name}",
      "get",
      client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } }),
    );
    expect(data).toHaveProperty("Chain.StartNode");
  });

  it("answers readDiscoveryChainWithOverrides", async () => {
    await expectValid(
      "/discovery-chain/{service_name}",
      "post",
      client.POST("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } }, body: { OverrideProtocol: "tcp" } }),
    );
  });

  it("answers applyConfigEntry", async () => {
    const data = await expectValid(
      "/config",
      "put",
      client.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } }),
    );
    expect(data).toBe(true);
  });

  it("answers readConfigEntry, listConfigEntries and deleteConfigEntry", async () => {
    await expectValid("/config/{kind}/{name}", "get", client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } }));
    await expectValid("/config/{kind}", "get", client.GET("/config/{kind}", { params: { path: { kind: "service-resolver" } } }));
    await expectValid("/config/{kind}/{name}", "delete", client.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } }));
  });

  it("answers the ACL policy, role and token operations", async () => {
    await expectValid("/acl/policy", "put", client.PUT("/acl/policy", { body: { Name: "web-reader", Rules: 'service "web" { policy = "read" }' } }));
    await expectValid("/acl/policy/{id}", "get", client.GET("/acl/policy/{id}", { params: { path: { id: "p" } } }));
    await expectValid("/acl/policy/{id}", "delete", client.DELETE("/acl/policy/{id}", { params: { path: { id: "p" } } }));
    await expectValid("/acl/role", "put", client.PUT("/acl/role", { body: { Name: "readers", Policies: [{ Name: "web-reader" }] } }));
    await expectValid("/acl/role/{id}", "get", client.GET("/acl/role/{id}", { params: { path: { id: "r" } } }));
    await expectValid("/acl/role/{id}", "delete", client.DELETE("/acl/role/{id}", { params: { path: { id: "r" } } }));
    await expectValid("/acl/token", "put", client.PUT("/acl/token", { body: { Policies: [{ Name: "web-reader" }] } }));
    await expectValid("/acl/token/{accessor_id}", "get", client.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: "t" } } }));
    await expectValid("/acl/token/{accessor_id}", "delete", client.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: "t" } } }));
    await expectValid("/acl/policies", "get", client.GET("/acl/policies"));
    await expectValid("/acl/policy/name/{name}", "get", client.GET("/acl/policy/name/{name}", { params: { path: { name: "web-reader" } } }));
    await expectValid("/acl/policy/{id}", "put", client.PUT("/acl/policy/{id}", { params: { path: { id: "p" } }, body: { Name: "web-reader" } }));
    await expectValid("/acl/roles", "get", client.GET("/acl/roles"));
    await expectValid("/acl/role/name/{name}", "get", client.GET("/acl/role/name/{name}", { params: { path: { name: "readers" } } }));
    await expectValid("/acl/role/{id}", "put", client.PUT("/acl/role/{id}", { params: { path: { id: "r" } }, body: { Name: "readers" } }));
    await expectValid("/acl/tokens", "get", client.GET("/acl/tokens"));
    await expectValid("/acl/token/self", "get", client.GET("/acl/token/self"));
    await expectValid("/acl/token/{accessor_id}", "put", client.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: "t" } }, body: {} }));
    await expectValid("/acl/token/{accessor_id}/clone", "put", client.PUT("/acl/token/{accessor_id}/clone", { params: { path: { accessor_id: "t" } }, body: {} }));
  });

  it("answers the legacy token and agent operations", async () => {
    await expectValid("/acl/create", "put", client.PUT("/acl/create", { body: { Type: "client", Rules: "" } }));
    await expectValid("/acl/info/{id}", "get", client.GET("/acl/info/{id}", { params: { path: { id: "t" } } }));
    await expectValid("/acl/destroy/{id}", "put", client.PUT("/acl/destroy/{id}", { params: { path: { id: "t" } } }));
    await expectValid("/acl/update", "put", client.PUT("/acl/update", { body: { ID: "t", Type: "client" } }));
    await expectValid("/acl/clone/{id}", "put", client.PUT("/acl/clone/{id}", { params: { path: { id: "t" } } }));
    await expectValid("/acl/list", "get", client.GET("/acl/list"));
    await expectValid("/agent/self", "get", client.GET("/agent/self"));
  });

  it("covers every operation of the description", () => {
    const described = Object.values(bundle.paths).flatMap((item) =>
      Object.values(item).flatMap((op) => ((op as { operationId?: string }).operationId ? [(op as { operationId: string }).operationId] : [])),
    );
    expect(described.sort()).toEqual([
      "applyConfigEntry", "createAclPolicy", "createAclRole", "createAclToken", "deleteAclPolicy", "deleteAclRole",
      "deleteAclToken", "deleteConfigEntry", "listConfigEntries", "readAclPolicy", "readAclRole", "readAclToken",
      "readConfigEntry", "readDiscoveryChain", "readDiscoveryChainWithOverrides",
      "createLegacyAclToken", "destroyLegacyAclToken", "readAgentSelf", "readLegacyAclToken",
      "listAclPolicies", "readAclPolicyByName", "updateAclPolicy", "listAclRoles", "readAclRoleByName", "updateAclRole",
      "listAclTokens", "readAclTokenSelf", "updateAclToken", "cloneAclToken",
      "listLegacyAclTokens", "updateLegacyAclToken", "cloneLegacyAclToken",
    ].sort());
  });

  it("refuses a request the description forbids with the documented 400, as the reference server does (the front of npm run mock: Prism is given no schema for a body a discriminator picks)", async () => {
    // A number is text to the description (LenientString); an object is not.
    const front = createMeshClient({ baseUrl: (await sharedMock("mesh")).url });
    const { response, error } = await front.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: { http: true } } as never });
    expect(response.status).toBe(400);
    expect(check("/config", "put", 400, response.headers.get("content-type") ?? "", error)).toEqual([]);
  });
});
