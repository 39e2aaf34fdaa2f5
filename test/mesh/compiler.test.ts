import { describe, it, expect } from "vitest";
import { compileDiscoveryChain } from "../../server/mesh/domain/compiler.ts";
import {
  ChainCompileError,
  type CompiledChain,
  type CompileRequest,
  type DiscoveryTarget,
} from "../../server/mesh/domain/chain.ts";
import type {
  ConfigEntry,
  EntryLookup,
  ProxyDefaultsEntry,
  ServiceDefaultsEntry,
  ServiceResolverEntry,
  ServiceResolverSubset,
  ServiceRouterEntry,
  ServiceSplitterEntry,
} from "../../server/mesh/domain/entries.ts";

const TRUST_DOMAIN = "11111111-2222-3333-4444-555555555555.consul";

/** EntryLookup over a plain list, the way the store would answer. */
function lookup(entries: ConfigEntry[]): EntryLookup {
  const find = <K extends ConfigEntry["Kind"]>(kind: K, namespace: string, name: string) =>
    entries.find(
      (e) => e.Kind === kind && e.Name === name && (e.Namespace ?? "default") === namespace,
    ) as Extract<ConfigEntry, { Kind: K }> | undefined;
  return {
    resolver: (ns, name) => find("service-resolver", ns, name),
    splitter: (ns, name) => find("service-splitter", ns, name),
    router: (ns, name) => find("service-router", ns, name),
    serviceDefaults: (ns, name) => find("service-defaults", ns, name),
    proxyDefaults: () => entries.find((e): e is ProxyDefaultsEntry => e.Kind === "proxy-defaults"),
  };
}

function compile(entries: ConfigEntry[], request: Partial<CompileRequest> = {}): CompiledChain {
  return compileDiscoveryChain(lookup(entries), {
    serviceName: "web",
    namespace: "default",
    datacenter: "dc1",
    trustDomain: TRUST_DOMAIN,
    ...request,
  });
}

/** The message of the ChainCompileError the compilation throws. */
function compileError(entries: ConfigEntry[], request: Partial<CompileRequest> = {}): string {
  try {
    compile(entries, request);
  } catch (err) {
    expect(err).toBeInstanceOf(ChainCompileError);
    return (err as Error).message;
  }
  throw new Error("expected the compilation to fail");
}

// ---- entry builders ----

const resolver = (name: string, fields: Partial<ServiceResolverEntry> = {}): ServiceResolverEntry => ({
  Kind: "service-resolver",
  Name: name,
  ...fields,
});
const splitter = (name: string, splits: ServiceSplitterEntry["Splits"]): ServiceSplitterEntry => ({
  Kind: "service-splitter",
  Name: name,
  Splits: splits,
});
const router = (name: string, routes: ServiceRouterEntry["Routes"]): ServiceRouterEntry => ({
  Kind: "service-router",
  Name: name,
  Routes: routes,
});
const defaults = (name: string, fields: Partial<ServiceDefaultsEntry> = {}): ServiceDefaultsEntry => ({
  Kind: "service-defaults",
  Name: name,
  ...fields,
});
const http = (name: string) => defaults(name, { Protocol: "http" });
const proxyDefaults = (fields: Partial<ProxyDefaultsEntry> = {}): ProxyDefaultsEntry => ({
  Kind: "proxy-defaults",
  Name: "global",
  ...fields,
});

// ---- expected-output builders ----

function target(
  id: string,
  extra: { mode?: string; subset?: ServiceResolverSubset } = {},
): DiscoveryTarget {
  const parts = id.split(".");
  const [datacenter, namespace, service, subset] = parts.reverse() as [string, string, string, string?];
  return {
    ID: id,
    Service: service,
    ...(subset === undefined ? {} : { ServiceSubset: subset }),
    Namespace: namespace,
    Datacenter: datacenter,
    MeshGateway: extra.mode ? { Mode: extra.mode } : {},
    Subset: extra.subset ?? {},
    SNI: `${id}.internal.${TRUST_DOMAIN}`,
    Name: `${id}.internal.${TRUST_DOMAIN}`,
  };
}

function resolverNode(id: string, resolverFields: Record<string, unknown> = {}) {
  return {
    Type: "resolver",
    Name: id,
    Resolver: { ConnectTimeout: "5s", Target: id, ...resolverFields },
  };
}

const TCP_ADVANCED_ROUTING_ERROR =
  'discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior';
/** A router / splitter on a service that is tcp by default. */
const tcpRouterChain = [router("web", [{ Match: { HTTP: { PathPrefix: "/" } } }])];
const tcpSplitterChain = [
  resolver("web", { Subsets: { v1: {} } }),
  splitter("web", [{ Weight: 100, ServiceSubset: "v1" }]),
];
const toDc2 = resolver("web", { Redirect: { Datacenter: "dc2" } });
/** web and api speak http; api has the subsets v1 and v2, which the splitter and router cases split over. */
const webAndApiSubsets = [http("web"), http("api"), resolver("api", { Subsets: { v1: {}, v2: {} } })];

/** Paths of every property whose value is undefined (the output schema forbids them). */
function undefinedPaths(value: unknown, path = "$"): string[] {
  if (value === undefined) return [path];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => undefinedPaths(v, `${path}.${k}`));
}

describe("default chain", () => {
  it("is a single default resolver with a local target", () => {
    const chain = compile([]);
    expect(chain).toStrictEqual({
      ServiceName: "web",
      Namespace: "default",
      Datacenter: "dc1",
      Protocol: "tcp",
      StartNode: "resolver:web.default.dc1",
      Nodes: {
        "resolver:web.default.dc1": resolverNode("web.default.dc1", { Default: true }),
      },
      Targets: { "web.default.dc1": target("web.default.dc1") },
    });
    expect(chain.Targets["web.default.dc1"]!.SNI).toBe(
      "web.default.dc1.internal.11111111-2222-3333-4444-555555555555.consul",
    );
  });

  it("evaluates in the requested namespace and datacenter", () => {
    const chain = compile([], { namespace: "team", datacenter: "dc7" });
    expect(chain.StartNode).toBe("resolver:web.team.dc7");
    expect(Object.keys(chain.Targets)).toEqual(["web.team.dc7"]);
    expect(chain.Targets["web.team.dc7"]!.MeshGateway).toEqual({});
  });

  it("never emits undefined-valued properties", () => {
    const chain = compile(
      [
        http("web"),
        http("api"),
        router("web", [
          { Match: { HTTP: { PathPrefix: "/api", Header: undefined } }, Destination: { Service: "api" } },
        ]),
        resolver("api", {
          Subsets: { v1: { Filter: "Service.Meta.v == 1", OnlyPassing: undefined } },
          Failover: { "*": { Datacenters: ["dc2"] } },
        }),
      ],
      { overrideMeshGateway: {}, overrideConnectTimeout: undefined },
    );
    expect(undefinedPaths(chain)).toEqual([]);
    expect(chain.Nodes["router:web"]!.Routes![0]!.Definition).toStrictEqual({
      Match: { HTTP: { PathPrefix: "/api" } },
      Destination: { Service: "api" },
    });
  });
});

describe("resolver", () => {
  it("uses the configured connect timeout and is no longer default", () => {
    const chain = compile([resolver("web", { ConnectTimeout: "15s" })]);
    expect(chain.Nodes["resolver:web.default.dc1"]).toStrictEqual(
      resolverNode("web.default.dc1", { ConnectTimeout: "15s" }),
    );
  });

  it("formats the connect timeout the way Go does", () => {
    const chain = compile([resolver("web", { ConnectTimeout: "90s" })]);
    expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver!.ConnectTimeout).toBe("1m30s");
  });

  it("falls back to 5s for a zero timeout; an entry that sets nothing is still Default", () => {
    // Consul: compile.go getResolverNode sets Default to resolver.IsDefault(), which is true when
    // DefaultSubset, Subsets, Redirect, Failover and ConnectTimeout are all empty or zero
    // (structs/config_entry_discoverychain.go). The seed says "true when no config entry exists",
    // which such an entry does not contradict.
    for (const entry of [
      resolver("web", { ConnectTimeout: "0s" }),
      resolver("web"),
      resolver("web", { Subsets: {}, Failover: {}, Meta: { owner: "team-a" } }),
    ]) {
      const chain = compile([entry]);
      expect(chain.Nodes["resolver:web.default.dc1"]).toStrictEqual(resolverNode("web.default.dc1", { Default: true }));
    }
  });

  it("is not Default once the entry sets any of its routing fields", () => {
    const entries: ServiceResolverEntry[] = [
      resolver("web", { ConnectTimeout: "1s" }),
      resolver("web", { Subsets: { v1: {} } }),
      resolver("web", { DefaultSubset: "v1", Subsets: { v1: {} } }),
      resolver("web", { Failover: { "*": { Datacenters: ["dc2"] } } }),
      resolver("web", { Redirect: { Service: "web", Datacenter: "dc1" } }),
    ];
    for (const entry of entries) {
      const node = Object.values(compile([entry]).Nodes)[0]!;
      expect(node.Resolver!.Default, JSON.stringify(entry)).toBeUndefined();
    }
  });

  it("resolves the default subset and exposes its definition on the target", () => {
    const chain = compile([
      resolver("web", {
        DefaultSubset: "v1",
        Subsets: {
          v1: { Filter: "Service.Meta.version == 1", OnlyPassing: true },
          v2: { Filter: "Service.Meta.version == 2", OnlyPassing: false },
        },
      }),
    ]);
    expect(chain.StartNode).toBe("resolver:v1.web.default.dc1");
    expect(chain.Nodes).toStrictEqual({
      "resolver:v1.web.default.dc1": resolverNode("v1.web.default.dc1"),
    });
    // Only the resolved subset is a target; the pre-default-subset target is dropped.
    expect(chain.Targets).toStrictEqual({
      "v1.web.default.dc1": target("v1.web.default.dc1", {
        subset: { Filter: "Service.Meta.version == 1", OnlyPassing: true },
      }),
    });
  });

  it("rejects a reference to a subset the resolver does not define", () => {
    const entries = [
      http("web"),
      resolver("web", { Subsets: { v1: { Filter: "Service.Meta.v == 1" } } }),
      router("web", [{ Match: { HTTP: { PathPrefix: "/v9" } }, Destination: { ServiceSubset: "v9" } }]),
    ];
    expect(compileError(entries)).toBe('service "web" does not have a subset named "v9"');
  });

  it("rejects a subset when the service has no resolver at all", () => {
    const entries = [
      http("web"),
      http("api"),
      splitter("web", [{ Weight: 100, Service: "api", ServiceSubset: "v1" }]),
    ];
    expect(compileError(entries)).toBe('service "api" does not have a subset named "v1"');
  });
});

describe("redirects", () => {
  it("starts the chain at the redirect target of another service", () => {
    const chain = compile([resolver("web", { Redirect: { Service: "api" } })]);
    expect(chain.StartNode).toBe("resolver:api.default.dc1");
    expect(chain.Nodes).toStrictEqual({
      "resolver:api.default.dc1": resolverNode("api.default.dc1", { Default: true }),
    });
    expect(chain.Targets).toStrictEqual({ "api.default.dc1": target("api.default.dc1") });
  });

  it("redirects to a subset of another service", () => {
    const chain = compile([
      resolver("web", { Redirect: { Service: "api", ServiceSubset: "v2" } }),
      resolver("api", { Subsets: { v2: { Filter: "Service.Meta.v == 2" } } }),
    ]);
    expect(chain.StartNode).toBe("resolver:v2.api.default.dc1");
    expect(chain.Targets).toStrictEqual({
      "v2.api.default.dc1": target("v2.api.default.dc1", { subset: { Filter: "Service.Meta.v == 2" } }),
    });
  });

  it("drops the old subset when redirecting to another service and applies its default subset", () => {
    const chain = compile([
      resolver("web", { DefaultSubset: "v1", Subsets: { v1: {} }, Redirect: { Service: "api" } }),
      resolver("api", { DefaultSubset: "blue", Subsets: { blue: { Filter: "Service.Meta.c == blue" } } }),
    ]);
    expect(chain.StartNode).toBe("resolver:blue.api.default.dc1");
  });

  it("redirects to another datacenter, taking the target's gateway mode from service-defaults", () => {
    const chain = compile([
      resolver("web", { Redirect: { Datacenter: "dc2" } }),
      defaults("web", { MeshGateway: { Mode: "remote" } }),
    ]);
    expect(chain.StartNode).toBe("resolver:web.default.dc2");
    expect(chain.Targets).toStrictEqual({
      "web.default.dc2": target("web.default.dc2", { mode: "remote" }),
    });
    expect(chain.CustomizationHash).toBeUndefined();
  });

  it("carries a mesh gateway mode it does not know as written (no entry rule refuses one)", () => {
    const chain = compile([resolver("web", { Redirect: { Datacenter: "dc2" } }), defaults("web", { MeshGateway: { Mode: "bridge" } })]);
    expect(chain.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "bridge" });
  });

  it("falls back to proxy-defaults for the mesh gateway mode of a remote target", () => {
    const chain = compile([
      resolver("web", { Redirect: { Datacenter: "dc2" } }),
      proxyDefaults({ MeshGateway: { Mode: "local" } }),
    ]);
    expect(chain.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "local" });
  });

  // 1.6-1.8 compile.go: `if target.Datacenter == c.useInDatacenter { Mode = default }`, with
  // UseInDatacenter = the answering server's datacenter (discovery_chain_endpoint.go), not compile-dc.
  describe("when compile-dc is another datacenter than the server's", () => {
    const entries = () => [defaults("web", { MeshGateway: { Mode: "remote" } })];

    it("gives the targets in compile-dc their mesh-gateway mode: they are remote to the server", () => {
      const chain = compile(entries(), { datacenter: "dc2", useInDatacenter: "dc1" });
      expect(chain.Datacenter).toBe("dc2");
      expect(chain.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "remote" });
    });

    it("gives no mode to a target in the server's own datacenter", () => {
      const chain = compile([...entries(), resolver("web", { Redirect: { Datacenter: "dc1" } })], { datacenter: "dc2", useInDatacenter: "dc1" });
      expect(chain.Targets["web.default.dc1"]!.MeshGateway).toEqual({});
    });

    it("applies OverrideMeshGateway to compile-dc targets and marks the chain customized", () => {
      const chain = compile(entries(), { datacenter: "dc2", useInDatacenter: "dc1", overrideMeshGateway: { Mode: "local" } });
      expect(chain.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "local" });
      expect(chain.CustomizationHash).toBeDefined();
    });
  });

  it("never puts a mesh gateway on a local target, whatever the config says", () => {
    const chain = compile([
      defaults("web", { MeshGateway: { Mode: "remote" } }),
      proxyDefaults({ MeshGateway: { Mode: "local" } }),
    ]);
    expect(chain.Targets["web.default.dc1"]!.MeshGateway).toEqual({});
  });

  it("detects a redirect loop", () => {
    const entries = [
      resolver("web", { Redirect: { Service: "api" } }),
      resolver("api", { Redirect: { Service: "web" } }),
    ];
    expect(compileError(entries)).toBe(
      "detected circular resolver redirect: [web.default.dc1 -> api.default.dc1 -> web.default.dc1]",
    );
  });

  it("treats a redirect to itself as no redirect", () => {
    const chain = compile([resolver("web", { Redirect: { Service: "web", Datacenter: "dc1" } })]);
    expect(chain.StartNode).toBe("resolver:web.default.dc1");
    expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver!.Default).toBeUndefined();
  });
});

describe("failover", () => {
  const subsets = { v1: { Filter: "Service.Meta.v == 1" }, v2: { Filter: "Service.Meta.v == 2" } };
  const failover = {
    v1: { Datacenters: ["dc2"] },
    "*": { Service: "backup" },
  };

  it("uses the entry of the target's subset", () => {
    const chain = compile([resolver("web", { DefaultSubset: "v1", Subsets: subsets, Failover: failover })]);
    expect(chain.Nodes["resolver:v1.web.default.dc1"]!.Resolver!.Failover).toStrictEqual({
      Targets: ["v1.web.default.dc2"],
    });
  });

  it('falls back to the "*" entry, where another service drops the subset', () => {
    const chain = compile([resolver("web", { DefaultSubset: "v2", Subsets: subsets, Failover: failover })]);
    expect(chain.Nodes["resolver:v2.web.default.dc1"]!.Resolver!.Failover).toStrictEqual({
      Targets: ["backup.default.dc1"],
    });
  });

  it("fails over to each datacenter in order, keeping targets but not nodes", () => {
    const chain = compile([
      resolver("web", { Failover: { "*": { Datacenters: ["dc3", "dc1", "dc2"] } } }),
      defaults("web", { MeshGateway: { Mode: "local" } }),
    ]);
    // dc1 is the primary itself and is dropped.
    expect(chain.Nodes).toStrictEqual({
      "resolver:web.default.dc1": resolverNode("web.default.dc1", {
        Failover: { Targets: ["web.default.dc3", "web.default.dc2"] },
      }),
    });
    expect(chain.Targets).toStrictEqual({
      "web.default.dc1": target("web.default.dc1"),
      "web.default.dc2": target("web.default.dc2", { mode: "local" }),
      "web.default.dc3": target("web.default.dc3", { mode: "local" }),
    });
  });

  it("applies the failover service's redirects, subsets and timeout", () => {
    const chain = compile([
      resolver("web", { Failover: { "*": { Service: "backup" } } }),
      resolver("backup", { Redirect: { Service: "spare" } }),
      resolver("spare", { DefaultSubset: "hot", Subsets: { hot: { OnlyPassing: true } } }),
    ]);
    expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver!.Failover).toStrictEqual({
      Targets: ["hot.spare.default.dc1"],
    });
    expect(Object.keys(chain.Nodes)).toEqual(["resolver:web.default.dc1"]);
    expect(Object.keys(chain.Targets)).toEqual(["hot.spare.default.dc1", "web.default.dc1"]);
    expect(chain.Targets["hot.spare.default.dc1"]!.Subset).toEqual({ OnlyPassing: true });
  });

  it("has no failover when every failover target is the primary", () => {
    const chain = compile([resolver("web", { Failover: { "*": { Datacenters: ["dc1"] } } })]);
    expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver).toStrictEqual({
      ConnectTimeout: "5s",
      Target: "web.default.dc1",
    });
    expect(Object.keys(chain.Targets)).toEqual(["web.default.dc1"]);
  });

  it("does not follow the failover of a failover target", () => {
    const chain = compile([
      resolver("web", { Failover: { "*": { Service: "backup" } } }),
      resolver("backup", { Failover: { "*": { Service: "spare" } } }),
    ]);
    expect(Object.keys(chain.Targets)).toEqual(["backup.default.dc1", "web.default.dc1"]);
  });
});

describe("splitters", () => {
  /** api split evenly over its subsets: what web's splitter flattens in. */
  const apiEvenlySplit = splitter("api", [
    { Weight: 50, ServiceSubset: "v1" },
    { Weight: 50, ServiceSubset: "v2" },
  ]);

  it("splits between subsets, each going straight to its resolver", () => {
    const chain = compile([
      http("web"),
      resolver("web", { Subsets: { v1: {}, v2: {} } }),
      splitter("web", [
        { Weight: 90, ServiceSubset: "v1" },
        { Weight: 10, ServiceSubset: "v2" },
      ]),
    ]);
    expect(chain.Protocol).toBe("http");
    expect(chain.StartNode).toBe("splitter:web");
    expect(chain.Nodes).toStrictEqual({
      "splitter:web": {
        Type: "splitter",
        Name: "web",
        Splits: [
          { Weight: 90, NextNode: "resolver:v1.web.default.dc1" },
          { Weight: 10, NextNode: "resolver:v2.web.default.dc1" },
        ],
      },
      "resolver:v1.web.default.dc1": resolverNode("v1.web.default.dc1"),
      "resolver:v2.web.default.dc1": resolverNode("v2.web.default.dc1"),
    });
    expect(Object.keys(chain.Targets)).toEqual(["v1.web.default.dc1", "v2.web.default.dc1"]);
  });

  it("sends a split of its own service to the resolver, not back to itself", () => {
    const chain = compile([
      http("web"),
      http("api"),
      splitter("web", [{ Weight: 60 }, { Weight: 40, Service: "api" }]),
    ]);
    expect(chain.Nodes["splitter:web"]!.Splits).toStrictEqual([
      { Weight: 60, NextNode: "resolver:web.default.dc1" },
      { Weight: 40, NextNode: "resolver:api.default.dc1" },
    ]);
  });

  it("flattens a nested splitter, multiplying weights", () => {
    const chain = compile([
      ...webAndApiSubsets,
      splitter("web", [
        { Weight: 50, Service: "api" },
        { Weight: 50 },
      ]),
      apiEvenlySplit,
    ]);
    expect(chain.Nodes["splitter:web"]!.Splits).toStrictEqual([
      { Weight: 25, NextNode: "resolver:v1.api.default.dc1" },
      { Weight: 25, NextNode: "resolver:v2.api.default.dc1" },
      { Weight: 50, NextNode: "resolver:web.default.dc1" },
    ]);
    // The inlined splitter is no longer reachable.
    expect(Object.keys(chain.Nodes).sort()).toEqual([
      "resolver:v1.api.default.dc1",
      "resolver:v2.api.default.dc1",
      "resolver:web.default.dc1",
      "splitter:web",
    ]);
  });

  it("rounds flattened weights to two decimals", () => {
    const chain = compile([
      ...webAndApiSubsets,
      splitter("web", [{ Weight: 33.33, Service: "api" }, { Weight: 66.67 }]),
      apiEvenlySplit,
    ]);
    expect(chain.Nodes["splitter:web"]!.Splits!.map((s) => s.Weight)).toEqual([16.67, 16.67, 66.67]);
  });

  it("detects splitters that point at each other", () => {
    const entries = [
      http("web"),
      http("api"),
      splitter("web", [{ Weight: 100, Service: "api" }]),
      splitter("api", [{ Weight: 100, Service: "web" }]),
    ];
    expect(compileError(entries)).toBe(
      "detected circular reference: [splitter:web -> splitter:api -> splitter:web]",
    );
  });

  it("is refused on a tcp chain", () => {
    expect(compileError(tcpSplitterChain)).toBe(TCP_ADVANCED_ROUTING_ERROR);
  });
});

describe("routers", () => {
  const routes: ServiceRouterEntry["Routes"] = [
    {
      Match: { HTTP: { PathPrefix: "/admin" } },
      Destination: { Service: "admin", PrefixRewrite: "/", RequestTimeout: "10s" },
    },
    {
      Match: { HTTP: { Header: [{ Name: "x-debug", Exact: "1" }] } },
      Destination: { ServiceSubset: "canary", NumRetries: 3, RetryOnStatusCodes: [503] },
    },
  ];

  it("routes by path and header to another service and to a subset, then catches all", () => {
    const chain = compile([
      http("web"),
      http("admin"),
      resolver("web", { Subsets: { canary: { Filter: "Service.Meta.canary == true" } } }),
      router("web", routes),
    ]);
    expect(chain.StartNode).toBe("router:web");
    expect(chain.Nodes["router:web"]).toStrictEqual({
      Type: "router",
      Name: "web",
      Routes: [
        { Definition: routes[0], NextNode: "resolver:admin.default.dc1" },
        { Definition: routes[1], NextNode: "resolver:canary.web.default.dc1" },
        {
          Definition: {
            Match: { HTTP: { PathPrefix: "/" } },
            Destination: { Service: "web", Namespace: "default" },
          },
          NextNode: "resolver:web.default.dc1",
        },
      ],
    });
    expect(Object.keys(chain.Targets)).toEqual([
      "admin.default.dc1",
      "canary.web.default.dc1",
      "web.default.dc1",
    ]);
  });

  it("routes to a destination's splitter unless a subset is named", () => {
    const chain = compile([
      ...webAndApiSubsets,
      splitter("api", [
        { Weight: 20, ServiceSubset: "v1" },
        { Weight: 80, ServiceSubset: "v2" },
      ]),
      splitter("web", [{ Weight: 100 }]),
      router("web", [
        { Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: "api" } },
        { Match: { HTTP: { PathPrefix: "/v1" } }, Destination: { Service: "api", ServiceSubset: "v1" } },
      ]),
    ]);
    expect(chain.Nodes["router:web"]!.Routes!.map((r) => r.NextNode)).toEqual([
      "splitter:api",
      "resolver:v1.api.default.dc1",
      "splitter:web",
    ]);
    expect(chain.Nodes["splitter:api"]!.Splits).toStrictEqual([
      { Weight: 20, NextNode: "resolver:v1.api.default.dc1" },
      { Weight: 80, NextNode: "resolver:v2.api.default.dc1" },
    ]);
  });

  it("routes into another namespace", () => {
    const chain = compile([
      http("web"),
      { ...http("api"), Namespace: "ops" },
      router("web", [
        { Match: { HTTP: { PathPrefix: "/ops" } }, Destination: { Service: "api", Namespace: "ops" } },
      ]),
    ]);
    expect(chain.Nodes["router:web"]!.Routes![0]!.NextNode).toBe("resolver:api.ops.dc1");
    expect(chain.Targets["api.ops.dc1"]!.Namespace).toBe("ops");
  });

  it("is refused on a tcp chain", () => {
    expect(compileError(tcpRouterChain)).toBe(TCP_ADVANCED_ROUTING_ERROR);
  });
});

describe("protocols", () => {
  it("takes the protocol from proxy-defaults when the service has no service-defaults", () => {
    const chain = compile([
      // Not what the decoder passes on (it lower-cases protocols), which is the point.
      proxyDefaults({ Config: { protocol: "HTTP2" } as unknown as ProxyDefaultsEntry["Config"] }),
      splitter("web", [{ Weight: 100, Service: "api" }]),
    ]);
    expect(chain.Protocol).toBe("http2");
    expect(chain.StartNode).toBe("splitter:web");
  });

  it("lets service-defaults win over proxy-defaults", () => {
    const chain = compile([
      proxyDefaults({ Config: { protocol: "http" } }),
      defaults("web", { Protocol: "grpc" }),
    ]);
    expect(chain.Protocol).toBe("grpc");
  });

  it("treats a service-defaults entry without Protocol as tcp, even under an http proxy-defaults", () => {
    const chain = compile([proxyDefaults({ Config: { protocol: "http" } }), defaults("web")]);
    expect(chain.Protocol).toBe("tcp");
  });

  it("fixes the chain protocol by the first service reached, as Consul does", () => {
    // The splitter reaches only "api", so web's own (tcp) protocol is never recorded.
    const chain = compile([http("api"), splitter("web", [{ Weight: 100, Service: "api" }])]);
    expect(chain.Protocol).toBe("http");
    expect(Object.keys(chain.Targets)).toEqual(["api.default.dc1"]);
  });

  it("reads the proxy-defaults protocol as mapstructure.WeakDecode does", () => {
    // compile.go recordServiceProtocol: WeakDecode of Config into a struct with a `protocol` field,
    // errors ignored. Keys match in any case; numbers and booleans become text; other values nothing.
    const protocolOf = (config: Record<string, unknown>) =>
      compile([proxyDefaults({ Config: config as ProxyDefaultsEntry["Config"] })]).Protocol;
    expect(protocolOf({ protocol: 7 })).toBe("7");
    expect(protocolOf({ protocol: 1.5 })).toBe("1.5");
    expect(protocolOf({ protocol: 1e21 })).toBe("1000000000000000000000");
    expect(protocolOf({ protocol: 1e-7 })).toBe("0.0000001");
    expect(protocolOf({ protocol: true })).toBe("1");
    expect(protocolOf({ protocol: { http: true } })).toBe("tcp");
    expect(protocolOf({ protocol: null })).toBe("tcp");
    expect(protocolOf({ Protocol: "GRPC" })).toBe("grpc");
    expect(protocolOf({ PROTOCOL: "http", protocol: "http2" })).toBe("http2");
    expect(protocolOf({ protocol: "Kafka" })).toBe("kafka");
  });

  it("treats any protocol but http, http2 and grpc as tcp: no routers or splitters", () => {
    const entries = [defaults("web", { Protocol: "redis" }), splitter("web", [{ Weight: 100, Service: "api" }]), defaults("api", { Protocol: "redis" })];
    expect(compileError(entries)).toBe('discovery chain "web" uses a protocol "redis" that does not permit advanced routing or splitting behavior');
  });

  it("rejects a chain reaching a service with another protocol", () => {
    const entries = [
      http("web"),
      router("web", [{ Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: "api" } }]),
    ];
    expect(compileError(entries)).toBe(
      'discovery chain "web" uses inconsistent protocols; service "api" has "tcp" which is not "http"',
    );
  });

  it("checks redirect and failover targets too", () => {
    expect(compileError([http("web"), resolver("web", { Redirect: { Service: "api" } })])).toBe(
      'discovery chain "web" uses inconsistent protocols; service "api" has "tcp" which is not "http"',
    );
    const failoverToGrpc = [
      http("web"),
      defaults("db", { Protocol: "grpc" }),
      resolver("web", { Failover: { "*": { Service: "db" } } }),
    ];
    expect(compileError(failoverToGrpc)).toBe(
      'discovery chain "web" uses inconsistent protocols; service "db" has "grpc" which is not "http"',
    );
  });
});

describe("overrides", () => {
  const l7Chain = [
    http("web"),
    http("api"),
    router("web", [{ Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: "api" } }]),
    splitter("web", [{ Weight: 100, Service: "api" }]),
  ];

  it("drops routers and splitters when the protocol is overridden to tcp", () => {
    const chain = compile(l7Chain, { overrideProtocol: "tcp" });
    expect(chain.Protocol).toBe("tcp");
    expect(chain.StartNode).toBe("resolver:web.default.dc1");
    expect(Object.keys(chain.Nodes)).toEqual(["resolver:web.default.dc1"]);
    expect(Object.keys(chain.Targets)).toEqual(["web.default.dc1"]);
    expect(chain.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("marks the protocol customization when a matching tcp override skips a router/splitter", () => {
    // tcp chains with a router / splitter: without the override they would be refused.
    const expectedHash = compile(l7Chain, { overrideProtocol: "tcp" }).CustomizationHash;
    for (const entries of [tcpSplitterChain, tcpRouterChain]) {
      const chain = compile(entries, { overrideProtocol: "tcp" });
      expect(chain.Protocol).toBe("tcp");
      expect(chain.StartNode).toBe("resolver:web.default.dc1");
      expect(chain.CustomizationHash).toBe(expectedHash);
    }
    expect(compile([], { overrideProtocol: "tcp" }).CustomizationHash).toBeUndefined();
  });

  it("only relabels a tcp chain overridden to http", () => {
    const plain = compile([]);
    const chain = compile([], { overrideProtocol: "http" });
    expect(chain.Protocol).toBe("http");
    expect(chain.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
    expect(chain.Nodes).toStrictEqual(plain.Nodes);
    expect(chain.Targets).toStrictEqual(plain.Targets);
  });

  it("sets no hash when the protocol override matches the chain", () => {
    const chain = compile(l7Chain, { overrideProtocol: "http" });
    expect(chain.CustomizationHash).toBeUndefined();
    expect(chain.StartNode).toBe("router:web");
  });

  it("sets no hash for a connect timeout override equal to the configured one", () => {
    const chain = compile([resolver("web", { ConnectTimeout: "15s" })], {
      overrideConnectTimeout: "15000ms",
    });
    expect(chain.CustomizationHash).toBeUndefined();
    expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver!.ConnectTimeout).toBe("15s");
  });

  it('treats "" and "0s" as no connect timeout override', () => {
    for (const overrideConnectTimeout of ["", "0s"]) {
      const chain = compile([], { overrideConnectTimeout });
      expect(chain.CustomizationHash).toBeUndefined();
      expect(chain.Nodes["resolver:web.default.dc1"]!.Resolver!.ConnectTimeout).toBe("5s");
    }
  });

  it("applies a differing connect timeout to every resolver and sets a hash", () => {
    const chain = compile(
      [
        http("web"),
        resolver("web", { ConnectTimeout: "15s", Subsets: { v1: {}, v2: {} } }),
        splitter("web", [
          { Weight: 50, ServiceSubset: "v1" },
          { Weight: 50, ServiceSubset: "v2" },
        ]),
      ],
      { overrideConnectTimeout: "1m" },
    );
    const timeouts = Object.values(chain.Nodes)
      .filter((n) => n.Type === "resolver")
      .map((n) => n.Resolver!.ConnectTimeout);
    expect(timeouts).toEqual(["1m0s", "1m0s"]);
    expect(chain.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("overrides the mesh gateway of remote targets only", () => {
    const entries = [
      resolver("web", { Failover: { "*": { Datacenters: ["dc2"] } } }),
      defaults("web", { MeshGateway: { Mode: "remote" } }),
    ];
    const chain = compile(entries, { overrideMeshGateway: { Mode: "local" } });
    expect(chain.Targets["web.default.dc1"]!.MeshGateway).toEqual({});
    expect(chain.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "local" });
    expect(chain.CustomizationHash).toMatch(/^[0-9a-f]{8}$/);
  });

  it("sets no hash when the mesh gateway override changes nothing", () => {
    const localOnly = compile([defaults("web", { MeshGateway: { Mode: "remote" } })], {
      overrideMeshGateway: { Mode: "local" },
    });
    expect(localOnly.CustomizationHash).toBeUndefined();
    expect(localOnly.Targets["web.default.dc1"]!.MeshGateway).toEqual({});

    const sameMode = compile(
      [toDc2, proxyDefaults({ MeshGateway: { Mode: "local" } })],
      { overrideMeshGateway: { Mode: "local" } },
    );
    expect(sameMode.CustomizationHash).toBeUndefined();
    expect(sameMode.Targets["web.default.dc2"]!.MeshGateway).toEqual({ Mode: "local" });
  });

  it("derives a distinct hash per applied override", () => {
    const hashes = [
      compile([], { overrideProtocol: "http" }),
      compile([], { overrideProtocol: "grpc" }),
      compile([], { overrideConnectTimeout: "10s" }),
      compile([toDc2], { overrideMeshGateway: { Mode: "local" } }),
      compile([toDc2], { overrideMeshGateway: { Mode: "remote" } }),
    ].map((c) => c.CustomizationHash);
    expect(new Set(hashes).size).toBe(5);
    expect(compile([], { overrideProtocol: "http" }).CustomizationHash).toBe(hashes[0]);
  });

  it("reproduces Consul's customization hash for the same overrides", () => {
    // Consul's own test expects "98809527" for OverrideMeshGateway local, OverrideProtocol grpc
    // and OverrideConnectTimeout 22s when all three customize the chain.
    const chain = compile([resolver("web", { ConnectTimeout: "33s", Redirect: { Datacenter: "dc2" } })], {
      overrideMeshGateway: { Mode: "local" },
      overrideProtocol: "grpc",
      overrideConnectTimeout: "22s",
    });
    expect(chain.CustomizationHash).toBe("98809527");
    expect(chain.Protocol).toBe("grpc");
    expect(chain.Nodes["resolver:web.default.dc2"]!.Resolver!.ConnectTimeout).toBe("22s");
  });
});

describe("external services", () => {
  // agent/consul/discoverychain/compile.go (1.8): target.SNI = ExternalSNI, target.External = true,
  // and the mesh gateway is bypassed; DiscoveryTarget.External is `json:",omitempty"`.
  it("uses the external SNI, flags the target External and never uses a mesh gateway", () => {
    const chain = compile([
      resolver("web", { Redirect: { Service: "ext", Datacenter: "dc2" } }),
      defaults("ext", { ExternalSNI: "ext.example.com", MeshGateway: { Mode: "local" } }),
    ]);
    expect(chain.Targets["ext.default.dc2"]).toStrictEqual({
      ...target("ext.default.dc2"),
      External: true,
      SNI: "ext.example.com",
    });
    expect(chain.Targets["ext.default.dc2"]).not.toHaveProperty("MeshGateway.Mode");
  });

  it("refuses subsets on an external service", () => {
    const entries = [
      defaults("web", { ExternalSNI: "web.example.com" }),
      resolver("web", { Subsets: { v1: {} } }),
    ];
    expect(compileError(entries)).toBe(
      'service "web" has an external SNI set; cannot define subsets for external services',
    );
  });
});
