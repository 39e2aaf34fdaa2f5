// The discovery-chain endpoints through the generated client: compiled chains for every kind of
// entry, compile-dc, namespaces, POST overrides, and the compile error of a state writes refuse.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { components } from "../../generated/mesh/schema.ts";
import { MemoryConfigEntryStore } from "../../server/mesh/store/config-entry-store.ts";
import { meshPerTest, startMesh, TRUST_DOMAIN } from "../helpers/mesh.ts";

type ConfigEntry = components["schemas"]["ConfigEntry"];
type Overrides = components["schemas"]["DiscoveryChainOverrides"];

const mesh = meshPerTest();

async function apply(...entries: ConfigEntry[]) {
  for (const entry of entries) {
    const { response, error } = await mesh.client.PUT("/config", { body: entry });
    expect(response.status, String(error)).toBe(200);
  }
}

async function chain(service: string, query: { "compile-dc"?: string; ns?: string } = {}) {
  const { data, response, error } = await mesh.client.GET("/discovery-chain/{service_name}", {
    params: { path: { service_name: service }, query },
  });
  expect(response.status, String(error)).toBe(200);
  return data!.Chain;
}

async function chainWith(service: string, overrides: Overrides) {
  const { data, response, error } = await mesh.client.POST("/discovery-chain/{service_name}", {
    params: { path: { service_name: service } },
    body: overrides,
  });
  expect(response.status, String(error)).toBe(200);
  return data!.Chain;
}

const httpDefaults = (name: string): ConfigEntry => ({ Kind: "service-defaults", Name: name, Protocol: "http" });

describe("GET /discovery-chain/{service_name}", () => {
  it("compiles a default chain when no entry exists", async () => {
    expect(await chain("web")).toEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:web.default.dc1",
      Nodes: {
        "resolver:web.default.dc1": {
          Type: "resolver",
          Name: "web.default.dc1",
          Resolver: { ConnectTimeout: "5s", Target: "web.default.dc1", Default: true },
        },
      },
      Targets: {
        "web.default.dc1": {
          ID: "web.default.dc1",
          Service: "web",
          Namespace: "default",
          Datacenter: "dc1",
          MeshGateway: {},
          Subset: {},
          SNI: `web.default.dc1.internal.${TRUST_DOMAIN}`,
          Name: `web.default.dc1.internal.${TRUST_DOMAIN}`,
        },
      },
    });
  });

  it("uses the resolver's connect timeout and default subset, and is no longer Default", async () => {
    await apply({
      Kind: "service-resolver",
      Name: "web",
      ConnectTimeout: "15s",
      DefaultSubset: "v1",
      Subsets: { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } },
    });
    const c = await chain("web");
    expect(c.StartNode).toBe("resolver:v1.web.default.dc1");
    expect(c.Nodes["resolver:v1.web.default.dc1"]?.Resolver).toEqual({ ConnectTimeout: "15s", Target: "v1.web.default.dc1" });
    expect(c.Targets["v1.web.default.dc1"]).toMatchObject({
      ServiceSubset: "v1",
      Subset: { Filter: "Service.Meta.version == v1" },
    });
  });

  it("keeps Default for a resolver entry that sets nothing that changes resolution", async () => {
    // Consul's compile.go getResolverNode: Default is the entry's IsDefault(), not "no entry exists".
    await apply({ Kind: "service-resolver", Name: "web" }, { Kind: "service-resolver", Name: "api", ConnectTimeout: "0s" });
    expect((await chain("web")).Nodes["resolver:web.default.dc1"]?.Resolver).toEqual({ ConnectTimeout: "5s", Target: "web.default.dc1", Default: true });
    expect((await chain("api")).Nodes["resolver:api.default.dc1"]?.Resolver).toEqual({ ConnectTimeout: "5s", Target: "api.default.dc1", Default: true });
  });

  it("lists failover targets, one per datacenter in order, keeping their targets but not their nodes", async () => {
    await apply({ Kind: "service-resolver", Name: "web", Failover: { "*": { Datacenters: ["dc3", "dc2"] } } });
    const c = await chain("web");
    expect(c.Nodes["resolver:web.default.dc1"]?.Resolver?.Failover).toEqual({ Targets: ["web.default.dc3", "web.default.dc2"] });
    expect(Object.keys(c.Nodes)).toEqual(["resolver:web.default.dc1"]);
    expect(Object.keys(c.Targets).sort()).toEqual(["web.default.dc1", "web.default.dc2", "web.default.dc3"]);
  });

  it("prefers the failover entry of the target's subset over *", async () => {
    await apply({
      Kind: "service-resolver",
      Name: "web",
      DefaultSubset: "v1",
      Subsets: { v1: { Filter: "Service.Meta.version == v1" } },
      Failover: { v1: { Datacenters: ["dc2"] }, "*": { Datacenters: ["dc9"] } },
    });
    const c = await chain("web");
    expect(c.Nodes[c.StartNode]?.Resolver?.Failover).toEqual({ Targets: ["v1.web.default.dc2"] });
  });

  it("starts at the redirect target", async () => {
    await apply({ Kind: "service-resolver", Name: "web", Redirect: { Service: "web-v2" } });
    const c = await chain("web");
    expect(c.StartNode).toBe("resolver:web-v2.default.dc1");
    expect(Object.keys(c.Targets)).toEqual(["web-v2.default.dc1"]);
  });

  it("applies the mesh-gateway mode only to targets in other datacenters", async () => {
    await apply(
      { Kind: "service-defaults", Name: "web", MeshGateway: { Mode: "local" } },
      { Kind: "service-resolver", Name: "web", Failover: { "*": { Datacenters: ["dc2"] } } },
    );
    const c = await chain("web");
    expect(c.Targets["web.default.dc1"]?.MeshGateway).toEqual({});
    expect(c.Targets["web.default.dc2"]?.MeshGateway).toEqual({ Mode: "local" });
  });

  it("compiles a splitter into splits that reference resolver nodes per subset", async () => {
    await apply(
      httpDefaults("web"),
      { Kind: "service-resolver", Name: "web", Subsets: { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } } },
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 90, ServiceSubset: "v1" }, { Weight: 10, ServiceSubset: "v2" }] },
    );
    const c = await chain("web");
    expect(c.Protocol).toBe("http");
    expect(c.StartNode).toBe("splitter:web");
    expect(c.Nodes["splitter:web"]?.Splits).toEqual([
      { Weight: 90, NextNode: "resolver:v1.web.default.dc1" },
      { Weight: 10, NextNode: "resolver:v2.web.default.dc1" },
    ]);
  });

  it("stores and compiles weights rounded to 0.01, leaving a 0 weight out of the chain", async () => {
    // Consul: ServiceSplitterConfigEntry.Normalize rounds each weight (NormalizeServiceSplitWeight)
    // before it is stored; DiscoverySplit.Weight is `json:",omitempty"`.
    await apply(
      httpDefaults("web"),
      { Kind: "service-resolver", Name: "web", Subsets: { v1: {}, v2: {}, v3: {} } },
      {
        Kind: "service-splitter",
        Name: "web",
        Splits: [{ Weight: 50.004, ServiceSubset: "v1" }, { Weight: 49.996, ServiceSubset: "v2" }, { Weight: 0, ServiceSubset: "v3" }],
      },
    );
    const entry = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-splitter", name: "web" } } });
    expect((entry.data as { Splits: { Weight: number }[] }).Splits.map((s) => s.Weight)).toEqual([50, 50, 0]);
    expect((await chain("web")).Nodes["splitter:web"]?.Splits).toStrictEqual([
      { Weight: 50, NextNode: "resolver:v1.web.default.dc1" },
      { Weight: 50, NextNode: "resolver:v2.web.default.dc1" },
      { NextNode: "resolver:v3.web.default.dc1" },
    ]);
  });

  it("flattens a split to another splitter, multiplying weights", async () => {
    await apply(
      httpDefaults("web"),
      httpDefaults("api"),
      { Kind: "service-resolver", Name: "api", Subsets: { a: { Filter: "x" }, b: { Filter: "y" } } },
      { Kind: "service-splitter", Name: "api", Splits: [{ Weight: 50, ServiceSubset: "a" }, { Weight: 50, ServiceSubset: "b" }] },
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50 }, { Weight: 50, Service: "api" }] },
    );
    const c = await chain("web");
    expect(c.Nodes["splitter:web"]?.Splits).toEqual([
      { Weight: 50, NextNode: "resolver:web.default.dc1" },
      { Weight: 25, NextNode: "resolver:a.api.default.dc1" },
      { Weight: 25, NextNode: "resolver:b.api.default.dc1" },
    ]);
  });

  it("compiles a router with its routes and a final catch-all route to the service", async () => {
    await apply(
      httpDefaults("web"),
      httpDefaults("admin"),
      { Kind: "service-resolver", Name: "web", Subsets: { canary: { Filter: "Service.Meta.canary == true" } } },
      {
        Kind: "service-router",
        Name: "web",
        Routes: [
          { Match: { HTTP: { PathPrefix: "/admin" } }, Destination: { Service: "admin", PrefixRewrite: "/", NumRetries: 2 } },
          { Match: { HTTP: { Header: [{ Name: "x-canary", Exact: "1" }] } }, Destination: { ServiceSubset: "canary" } },
        ],
      },
    );
    const c = await chain("web");
    expect(c.StartNode).toBe("router:web");
    expect(c.Nodes["router:web"]?.Routes).toEqual([
      {
        Definition: { Match: { HTTP: { PathPrefix: "/admin" } }, Destination: { Service: "admin", PrefixRewrite: "/", NumRetries: 2 } },
        NextNode: "resolver:admin.default.dc1",
      },
      {
        Definition: { Match: { HTTP: { Header: [{ Name: "x-canary", Exact: "1" }] } }, Destination: { ServiceSubset: "canary" } },
        NextNode: "resolver:canary.web.default.dc1",
      },
      {
        Definition: { Match: { HTTP: { PathPrefix: "/" } }, Destination: { Service: "web", Namespace: "default" } },
        NextNode: "resolver:web.default.dc1",
      },
    ]);
  });

  it("takes the protocol from proxy-defaults when the service has no service-defaults", async () => {
    await apply({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "grpc" } });
    expect((await chain("web")).Protocol).toBe("grpc");
  });

  it("compiles in the compile-dc datacenter", async () => {
    await apply({ Kind: "service-resolver", Name: "web", Failover: { "*": { Datacenters: ["dc1", "dc2"] } } });
    const c = await chain("web", { "compile-dc": "dc2" });
    expect(c.Datacenter).toBe("dc2");
    expect(c.StartNode).toBe("resolver:web.default.dc2");
    // A failover to the datacenter the chain is compiled in is dropped.
    expect(c.Nodes[c.StartNode]?.Resolver?.Failover).toEqual({ Targets: ["web.default.dc1"] });
  });

  it("takes query values whose reserved characters are not percent-encoded, as the agent does", async () => {
    // encodeURIComponent (so the generated client) leaves !'()* as they are.
    expect((await chain("web", { "compile-dc": "dc(2)*'!" })).Datacenter).toBe("dc(2)*'!");
    const raw = await fetch(`${mesh.baseUrl}/discovery-chain/web?compile-dc=dc:2/@$,;`);
    expect(raw.status, await raw.clone().text()).toBe(200);
    expect(((await raw.json()) as { Chain: { Datacenter: string } }).Chain.Datacenter).toBe("dc:2/@$,;");
  });

  it("compiles in the namespace of ns, else X-Mesh-Namespace, else default", async () => {
    await apply({ Kind: "service-resolver", Name: "web", Namespace: "team-a", ConnectTimeout: "3s" } as ConfigEntry);
    const byParam = await mesh.client.GET("/discovery-chain/{service_name}", {
      params: { path: { service_name: "web" }, query: { ns: "team-a" }, header: { "X-Mesh-Namespace": "team-b" } },
    });
    expect(byParam.data?.Chain.Namespace).toBe("team-a");
    expect(byParam.data?.Chain.StartNode).toBe("resolver:web.team-a.dc1");
    const byHeader = await mesh.client.GET("/discovery-chain/{service_name}", {
      params: { path: { service_name: "web" }, header: { "X-Mesh-Namespace": "team-a" } },
    });
    expect(byHeader.data?.Chain.Nodes["resolver:web.team-a.dc1"]?.Resolver?.ConnectTimeout).toBe("3s");
    expect((await chain("web")).Namespace).toBe("default");
  });

  it("answers 500 with the compiler's message when stored entries cannot be compiled", async () => {
    // Writes refuse a redirect loop, so the loop is put in the store directly.
    const store = new MemoryConfigEntryStore([
      { Kind: "service-resolver", Name: "web", Namespace: "default", Redirect: { Service: "api" } },
      { Kind: "service-resolver", Name: "api", Namespace: "default", Redirect: { Service: "web" } },
    ]);
    const looped = await startMesh({ store });
    try {
      const { response, error } = await looped.client.GET("/discovery-chain/{service_name}", {
        params: { path: { service_name: "web" } },
      });
      expect(response.status).toBe(500);
      expect(error).toBe("detected circular resolver redirect: [web.default.dc1 -> api.default.dc1 -> web.default.dc1]");
    } finally {
      await looped.close();
    }
  });
});

describe("POST /discovery-chain/{service_name} overrides", () => {
  beforeEach(async () => {
    await apply(
      httpDefaults("web"),
      { Kind: "service-resolver", Name: "web", ConnectTimeout: "10s", Subsets: { v1: { Filter: "a" }, v2: { Filter: "b" } }, Failover: { "*": { Datacenters: ["dc2"] } } },
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50, ServiceSubset: "v1" }, { Weight: 50, ServiceSubset: "v2" }] },
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "/v1" } }, Destination: { ServiceSubset: "v1" } }] },
    );
  });

  it("compiles without overrides from an empty body, with no CustomizationHash", async () => {
    const c = await chainWith("web", {});
    expect(c).toEqual(await chain("web"));
    expect(c.CustomizationHash).toBeUndefined();
  });

  it("replaces every resolver's connect timeout", async () => {
    const c = await chainWith("web", { OverrideConnectTimeout: "2s" });
    const timeouts = Object.values(c.Nodes).flatMap((n) => (n.Resolver ? [n.Resolver.ConnectTimeout] : []));
    expect(timeouts).toEqual(["2s", "2s"]);
    expect(c.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("adds no CustomizationHash when an override changes nothing", async () => {
    const c = await chainWith("web", { OverrideConnectTimeout: "10s", OverrideProtocol: "http" });
    expect(c.CustomizationHash).toBeUndefined();
  });

  it("drops routers and splitters when forced to tcp", async () => {
    const c = await chainWith("web", { OverrideProtocol: "tcp" });
    expect(c.Protocol).toBe("tcp");
    expect(c.StartNode).toBe("resolver:web.default.dc1");
    expect(Object.values(c.Nodes).map((n) => n.Type)).toEqual(["resolver"]);
    expect(c.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("adds no routers or splitters when a tcp chain is forced to http", async () => {
    const c = await chainWith("api", { OverrideProtocol: "http" });
    expect(c.Protocol).toBe("http");
    expect(Object.values(c.Nodes).map((n) => n.Type)).toEqual(["resolver"]);
    expect(c.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("sets the mesh-gateway mode of targets in other datacenters", async () => {
    const c = await chainWith("web", { OverrideMeshGateway: { Mode: "remote" } });
    expect(c.Targets["v1.web.default.dc2"]?.MeshGateway).toEqual({ Mode: "remote" });
    expect(c.Targets["v1.web.default.dc1"]?.MeshGateway).toEqual({});
    expect(c.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
    const differentHash = await chainWith("web", { OverrideMeshGateway: { Mode: "local" } });
    expect(differentHash.CustomizationHash).not.toBe(c.CustomizationHash);
  });

  it("refuses a bad override with 400 in the endpoint's words", async () => {
    for (const [body, message] of [
      // The request's mapstructure decode wraps its duration hook's error (decode: "error decoding '%s': %s").
      [{ OverrideConnectTimeout: "soon" }, /^Request decoding failed: 1 error\(s\) decoding:\n\n\* error decoding 'OverrideConnectTimeout': time: invalid duration "soon"$/],
      [{ override_connect_timeout: "soon" }, /^Request decoding failed: 1 error\(s\) decoding:\n\n\* error decoding 'OverrideConnectTimeout': time: invalid duration "soon"$/],
      // DiscoveryChainRead checks the mode after decoding and writes this text itself
      // (agent/discovery_chain_endpoint.go); modes are exact (structs.ValidateMeshGatewayMode).
      [{ OverrideMeshGateway: { Mode: "sideways" } }, /^Invalid OverrideMeshGateway\.Mode parameter$/],
      [{ OverrideMeshGateway: { Mode: "LOCAL" } }, /^Invalid OverrideMeshGateway\.Mode parameter$/],
      [{ override_mesh_gateway: { mode: "sideways" } }, /^Invalid OverrideMeshGateway\.Mode parameter$/],
      [{ OverrideMeshGateway: { Mode: 5 } }, /^Invalid OverrideMeshGateway\.Mode parameter$/],
    ] as const) {
      const { response, error } = await mesh.client.POST("/discovery-chain/{service_name}", {
        params: { path: { service_name: "web" } },
        body: body as Overrides,
      });
      expect(response.status).toBe(400);
      expect(error).toMatch(message);
    }
  });

  it("takes any OverrideProtocol as given, dropping routers and splitters for one that is not L7", async () => {
    // The endpoint does not check it; compile.go enables routing only for IsProtocolHTTPLike ones.
    const c = await chainWith("web", { OverrideProtocol: "udp" });
    expect(c.Protocol).toBe("udp");
    expect(Object.values(c.Nodes).map((n) => n.Type)).toEqual(["resolver"]);
    const upper = await chainWith("web", { OverrideProtocol: "HTTP" });
    expect(upper.Protocol).toBe("HTTP");
    expect(upper.StartNode).toBe("resolver:web.default.dc1");
  });

  it("reads snake_case keys and keys in any case, ignores unknown keys, and prefers the exact spelling", async () => {
    // decodeDiscoveryChainReadRequest: TranslateKeys for the snake_case aliases, then mapstructure
    // (case-insensitive keys, unused keys ignored); agent/discovery_chain_endpoint_test.go has the
    // "POST: read modified chain with overrides (snake case)" case.
    const camel = await chainWith("web", { OverrideConnectTimeout: "22s", OverrideProtocol: "grpc", OverrideMeshGateway: { Mode: "local" } });
    const snake = await chainWith("web", { override_connect_timeout: "22s", override_protocol: "grpc", override_mesh_gateway: { mode: "local" } } as Overrides);
    expect(snake).toEqual(camel);
    expect(camel.Protocol).toBe("grpc");
    expect(camel.Targets["v1.web.default.dc2"]?.MeshGateway).toEqual({ Mode: "local" });
    const anyCase = await chainWith("web", { overrideconnecttimeout: "22s", OVERRIDEPROTOCOL: "grpc", OverrideMeshgateway: { MODE: "local", Other: 1 } } as Overrides);
    expect(anyCase).toEqual(camel);
    const ignored = await chainWith("web", { Override: true, EvaluateInDatacenter: "dc9", evaluate_in_datacenter: "dc9" } as Overrides);
    expect(ignored).toEqual(await chain("web"));
    const both = await chainWith("web", { OverrideProtocol: "tcp", override_protocol: "grpc" } as Overrides);
    expect(both.Protocol).toBe("tcp");
    // An alias beside its field is dropped unread, whatever its value (mapstructure leaves it unused).
    expect(await chainWith("web", { OverrideProtocol: "", override_protocol: 42 } as unknown as Overrides)).toEqual(await chain("web"));
    // The decoder is weakly typed (WeaklyTypedInput): a number is read as its text.
    expect((await chainWith("web", { override_protocol: 42 } as unknown as Overrides)).Protocol).toBe("42");
  });

  it("reads overrides weakly typed, as the decoder does: null unset, numbers and booleans as text; refuses in its words", async () => {
    const plain = await chain("web");
    expect(await chainWith("web", { OverrideProtocol: null, OverrideConnectTimeout: null, OverrideMeshGateway: null })).toEqual(plain);
    expect(await chainWith("web", { OverrideMeshGateway: { Mode: null } })).toEqual(plain);
    expect((await chainWith("web", { OverrideProtocol: 5 })).Protocol).toBe("5");
    expect((await chainWith("web", { OverrideProtocol: true })).Protocol).toBe("1");
    expect((await chainWith("web", { OverrideProtocol: 1.5 })).Protocol).toBe("1.5");
    const refused = async (body: unknown, text: string) => {
      const { response, error } = await mesh.client.POST("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } }, body: body as Overrides });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error).toBe(text);
    };
    await refused({ OverrideProtocol: { a: 1 } }, "Request decoding failed: 1 error(s) decoding:\n\n* 'OverrideProtocol' expected type 'string', got unconvertible type 'map[string]interface {}'");
    // Every value the decoder refuses, in one sorted list.
    await refused(
      { OverrideProtocol: { a: 1 }, OverrideConnectTimeout: "soon" },
      `Request decoding failed: 2 error(s) decoding:\n\n* 'OverrideProtocol' expected type 'string', got unconvertible type 'map[string]interface {}'\n* error decoding 'OverrideConnectTimeout': time: invalid duration "soon"`,
    );
    await refused({ OverrideMeshGateway: "local" }, "Request decoding failed: 1 error(s) decoding:\n\n* 'OverrideMeshGateway' expected a map, got 'string'");
  });

  it("refuses a request without a body, as the decoder meets EOF", async () => {
    const { response, error } = await mesh.client.POST("/discovery-chain/{service_name}", {
      params: { path: { service_name: "web" } },
      body: undefined as unknown as Overrides,
    });
    expect(response.status).toBe(400);
    expect(error).toBe("Request decoding failed: EOF");
  });
});

describe("/discovery-chain/ without a service name", () => {
  it("is refused with 400 Missing chain name, for GET and POST alike", async () => {
    // DiscoveryChainRead takes everything after /v1/discovery-chain/ as the name and refuses an empty one.
    const read = await mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "" } } });
    expect(read.response.status).toBe(400);
    expect(read.error).toBe("Missing chain name");
    const post = await mesh.client.POST("/discovery-chain/{service_name}", { params: { path: { service_name: "" } }, body: {} });
    expect(post.response.status).toBe(400);
    expect(post.error).toBe("Missing chain name");
    // The handler parses the query before it looks at the name.
    const badIndex = await mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "" }, query: { index: "abc" as unknown as number } } });
    expect(badIndex.response.status).toBe(400);
    expect(badIndex.error).toBe("Invalid index");
  });

  it("answers another method with 405 and the endpoint's methods", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/`, { method: "DELETE" });
    expect(response.status).toBe(405);
    // OPTIONS first, as the agent's wrap lists it (agent/http.go wrap, TestHTTPAPI_OptionMethod_OSS).
    expect(response.headers.get("allow")).toBe("OPTIONS,GET,POST");
    expect(await response.text()).toBe("method DELETE not allowed");
  });
});

describe("a compiled chain's JSON text", () => {
  /** The chains JSON.stringify is asked to write (whole answers holding one, or the chain itself). */
  function chainTextsWritten(spy: { mock: { calls: unknown[][] } }): number {
    return spy.mock.calls.filter(([value]) => typeof value === "object" && value !== null && ("Chain" in value || "Nodes" in value)).length;
  }

  it("is written once while the chain is kept, and anew after a write that changes it; the store's entries stay as they were", async () => {
    await apply({ Kind: "service-resolver", Name: "web", ConnectTimeout: "9s" });
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      // Two reads no kept answer serves (a query parameter of each one's own): the chain is kept.
      const texts: string[] = [];
      for (const n of [1, 2]) texts.push(await (await fetch(`${mesh.baseUrl}/discovery-chain/web?read=${n}`)).text());
      expect(texts[1]).toBe(texts[0]);
      expect(JSON.parse(texts[0]!).Chain.Nodes["resolver:web.default.dc1"].Resolver.ConnectTimeout).toBe("9s");
      expect(chainTextsWritten(stringify)).toBe(1);

      await apply({ Kind: "service-resolver", Name: "web", ConnectTimeout: "4s" });
      const after = await (await fetch(`${mesh.baseUrl}/discovery-chain/web?read=3`)).text();
      expect(JSON.parse(after).Chain.Nodes["resolver:web.default.dc1"].Resolver.ConnectTimeout).toBe("4s");
      expect(chainTextsWritten(stringify)).toBe(2);
    } finally {
      stringify.mockRestore();
    }
    // What the chain was compiled from is not frozen with it.
    expect(Object.isFrozen(mesh.service.store.get("service-resolver", "default", "web"))).toBe(false);
  });
});
