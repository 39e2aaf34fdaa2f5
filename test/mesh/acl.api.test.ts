// ACL enforcement: off by default; with a management token, every request needs a token with
// the right permission, presented as X-Mesh-Token or Authorization: Bearer.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMeshClient } from "../../generated/mesh/client.ts";
import { ANONYMOUS_ACCESSOR, denied, startMesh, type RunningMesh } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
const WEB_READER = "web-reader-secret";
const TEAM_A = "team-a-secret";

let mesh: RunningMesh;
afterEach(() => mesh.close());

const readChain = (client: RunningMesh["client"], service: string, ns?: string) =>
  client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: service }, query: ns ? { ns } : {} } });

describe("ACLs off (default)", () => {
  beforeEach(async () => {
    mesh = await startMesh();
  });

  it("answers without a token", async () => {
    expect((await readChain(mesh.client, "web")).response.status).toBe(200);
  });
});

describe("ACLs on", () => {
  beforeEach(async () => {
    mesh = await startMesh({
      managementToken: MANAGEMENT,
      tokens: [
        { AccessorID: "a1", SecretID: WEB_READER, Namespace: "default", Rules: { service: { web: { policy: "read" } } } },
        { AccessorID: "a2", SecretID: TEAM_A, Namespace: "team-a", Rules: 'service_prefix "" { policy = "write" }' },
      ],
    });
  });

  it("refuses a request without a token as the anonymous token", async () => {
    const { response, error } = await readChain(mesh.client, "web");
    expect(response.status).toBe(403);
    expect(error).toBe(denied(ANONYMOUS_ACCESSOR, "service:read", "web"));
  });

  it("refuses an unknown token", async () => {
    const { response, error } = await readChain(mesh.clientWithToken("nobody"), "web");
    expect(response.status).toBe(403);
    expect(error).toBe("ACL not found");
  });

  it("accepts the management token in X-Mesh-Token and as a bearer token", async () => {
    expect((await readChain(mesh.clientWithToken(MANAGEMENT), "web")).response.status).toBe(200);
    const bearer = createMeshClient({ baseUrl: mesh.baseUrl, headers: { Authorization: `Bearer ${MANAGEMENT}` } });
    expect((await readChain(bearer, "web")).response.status).toBe(200);
  });

  it("lets a token with service:read on web read web's chain and nothing else", async () => {
    const reader = mesh.clientWithToken(WEB_READER);
    expect((await readChain(reader, "web")).response.status).toBe(200);
    const other = await readChain(reader, "api");
    expect(other.response.status).toBe(403);
    expect(other.error).toBe(denied("a1", "service:read", "api"));
  });

  it("needs service:write to write an entry and operator:write for proxy-defaults", async () => {
    const reader = mesh.clientWithToken(WEB_READER);
    const write = await reader.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
    expect(write.response.status).toBe(403);
    expect(write.error).toMatch(/service:write/);
    const teamA = mesh.clientWithToken(TEAM_A);
    const proxy = await teamA.PUT("/config", { body: { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } } });
    expect(proxy.response.status).toBe(403);
    expect(proxy.error).toMatch(/operator:write/);
    const list = await mesh.clientWithToken(MANAGEMENT).GET("/config/{kind}", { params: { path: { kind: "proxy-defaults" } } });
    expect(list.data).toEqual([]);
  });

  it("compiles in the token's namespace when neither ns nor the header is given", async () => {
    const teamA = mesh.clientWithToken(TEAM_A);
    const written = await teamA.PUT("/config", { body: { Kind: "service-resolver", Name: "web", ConnectTimeout: "7s" } });
    expect(written.data).toBe(true);
    const { data } = await readChain(teamA, "web");
    expect(data?.Chain.Namespace).toBe("team-a");
    expect(data?.Chain.Nodes["resolver:web.team-a.dc1"]?.Resolver?.ConnectTimeout).toBe("7s");
    // Its rules do not reach other namespaces.
    expect((await readChain(teamA, "web", "default")).response.status).toBe(403);
  });

  // The proxy-defaults entry is readable by every token (ProxyConfigEntry.CanRead returns true in
  // agent/structs/config_entry.go), so ConfigEntry.Get answers it and ConfigEntry.List keeps it.
  it("lets any token, the anonymous one included, read and list proxy-defaults", async () => {
    const root = mesh.clientWithToken(MANAGEMENT);
    expect((await root.PUT("/config", { body: { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } } })).data).toBe(true);
    for (const client of [mesh.clientWithToken(WEB_READER), mesh.client]) {
      const read = await client.GET("/config/{kind}/{name}", { params: { path: { kind: "proxy-defaults", name: "global" } } });
      expect(read.response.status).toBe(200);
      expect(read.data).toMatchObject({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
      const list = await client.GET("/config/{kind}", { params: { path: { kind: "proxy-defaults" } } });
      expect(list.data?.map((e) => e.Name)).toEqual(["global"]);
    }
    // A missing one is then the not-found answer, not a refusal.
    const missing = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "proxy-defaults", name: "other" } } });
    expect(missing.response.status).toBe(404);
  });

  it("lists only the entries the token may read", async () => {
    const root = mesh.clientWithToken(MANAGEMENT);
    await root.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
    await root.PUT("/config", { body: { Kind: "service-defaults", Name: "api", Protocol: "http" } });
    const { data } = await mesh.clientWithToken(WEB_READER).GET("/config/{kind}", {
      params: { path: { kind: "service-defaults" } },
    });
    expect(data?.map((e) => e.Name)).toEqual(["web"]);
  });

  it("resolves a request's token once, before its body, and its handler acts as that caller", async () => {
    const resolve = vi.spyOn(mesh.service.acl, "resolve");
    const root = mesh.clientWithToken(MANAGEMENT);
    const reader = mesh.clientWithToken(WEB_READER);
    expect((await readChain(reader, "web")).response.status).toBe(200);
    expect((await root.PUT("/acl/policy", { body: { Name: "p1", Rules: 'operator = "read"' } })).response.status).toBe(200);
    const self = await reader.GET("/acl/token/self");
    expect(self.data?.AccessorID).toBe("a1");
    const denial = await reader.PUT("/config", { body: { Kind: "service-defaults", Name: "web" } });
    expect(denial.error).toBe(denied("a1", "service:write", "web"));
    expect(resolve.mock.calls).toEqual([[WEB_READER], [MANAGEMENT], [WEB_READER], [WEB_READER]]);
  });
});
