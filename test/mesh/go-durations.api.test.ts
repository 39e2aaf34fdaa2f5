// Durations as Go clients encode time.Duration: a JSON number of nanoseconds is accepted wherever a
// duration string is (the real decoders: mapstructure's StringToTimeDurationHookFunc with weakly typed
// input in agent/structs DecodeConfigEntry and agent/discovery_chain_endpoint.go), and read back as
// a duration string. Also: compile-dc on another datacenter than the server's, over HTTP.
import { afterEach, describe, expect, it } from "vitest";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

let mesh: RunningMesh;
afterEach(() => mesh.close());

const put = (body: unknown) => fetch(`${mesh.baseUrl}/config`, { method: "PUT", headers: { "X-Mesh-Token": "root" }, body: JSON.stringify(body) });

describe("durations as numbers of nanoseconds", () => {
  it("in a resolver's ConnectTimeout and a route's RequestTimeout, stored and read back as strings", async () => {
    mesh = await startMesh();
    expect((await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: 15_000_000_000 })).status).toBe(200);
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" })).status).toBe(200);
    const route = { Match: { HTTP: { PathPrefix: "/a" } }, Destination: { RequestTimeout: 1_500_000_000.9 } };
    expect((await put({ Kind: "service-router", Name: "web", Routes: [route] })).status).toBe(200);

    const resolver = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } });
    expect(resolver.data).toMatchObject({ ConnectTimeout: "15s" });
    const router = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-router", name: "web" } } });
    expect(router.data).toMatchObject({ Routes: [{ Destination: { RequestTimeout: "1.5s" } }] });
    const chain = await mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } });
    expect(chain.data?.Chain.Nodes["resolver:web.default.dc1"]?.Resolver?.ConnectTimeout).toBe("15s");
  });

  it("in snake_case too, and refuses a number out of a duration's range with 400", async () => {
    mesh = await startMesh();
    expect((await put({ kind: "service-resolver", name: "api", connect_timeout: 2_000_000 })).status).toBe(200);
    const read = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "api" } } });
    expect(read.data).toMatchObject({ ConnectTimeout: "2ms" });
    const huge = await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: 1e30 });
    expect(huge.status).toBe(400);
    expect(await huge.text()).toBe("Request decoding failed: ConnectTimeout: 1e+30 nanoseconds is out of range for a duration");
    const negative = await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: -1_000_000_000 });
    expect(negative.status).toBe(500);
    expect(await negative.text()).toBe("Bad ConnectTimeout '-1s', must be >= 0");
  });

  it("in OverrideConnectTimeout", async () => {
    mesh = await startMesh();
    const { data } = await mesh.client.POST("/discovery-chain/{service_name}", {
      params: { path: { service_name: "web" } },
      body: { OverrideConnectTimeout: 22_000_000_000 },
    });
    expect(data?.Chain.Nodes["resolver:web.default.dc1"]?.Resolver?.ConnectTimeout).toBe("22s");
    expect(data?.Chain.CustomizationHash).toBeDefined();
  });

  it("in a token's ExpirationTTL", async () => {
    mesh = await startMesh({ managementToken: "root" });
    const admin = mesh.clientWithToken("root");
    const { data } = await admin.PUT("/acl/token", { body: { ExpirationTTL: 3_600_000_000_000 } });
    const lifetime = Date.parse(data!.ExpirationTime!) - Date.parse(data!.CreateTime);
    expect(Math.abs(lifetime - 3_600_000)).toBeLessThan(1_000);
  });
});

describe("compile-dc on another datacenter than the server's (1.6-1.8 compile.go UseInDatacenter)", () => {
  it("gives compile-dc targets their mesh-gateway mode and the server's own none", async () => {
    mesh = await startMesh({ datacenter: "dc1" });
    await put({ Kind: "service-defaults", Name: "web", MeshGateway: { Mode: "local" } });
    await put({ Kind: "service-defaults", Name: "api", MeshGateway: { Mode: "local" } });
    await put({ Kind: "service-resolver", Name: "api", Redirect: { Datacenter: "dc1" } });
    const read = (service: string) =>
      mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: service }, query: { "compile-dc": "dc2" } } });
    const web = (await read("web")).data!.Chain;
    expect(web.Datacenter).toBe("dc2");
    expect(web.Targets["web.default.dc2"]?.MeshGateway).toEqual({ Mode: "local" });
    const api = (await read("api")).data!.Chain;
    expect(api.Targets["api.default.dc1"]?.MeshGateway).toEqual({});
  });
});
