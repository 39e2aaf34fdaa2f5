import { describe, expect, it } from "vitest";
import {
  EntryValidationError,
  normalizeSplitWeight,
  translateEntryKeys,
  validateEntry,
} from "../../server/mesh/domain/config-entry.ts";
import type {
  ConfigEntry,
  ProxyDefaultsEntry,
  ServiceDefaultsEntry,
  ServiceResolverEntry,
  ServiceRouterEntry,
  ServiceSplitterEntry,
} from "../../server/mesh/domain/entries.ts";

// Builders: a valid entry of each kind, with overrides. Values of the wrong type are cast on purpose,
// since the schema validator upstream only checks types, not case or ranges.
const resolver = (extra: Record<string, unknown> = {}) =>
  ({ Kind: "service-resolver", Name: "web", ...extra }) as ServiceResolverEntry;
const defaults = (extra: Record<string, unknown> = {}) =>
  ({ Kind: "service-defaults", Name: "web", ...extra }) as ServiceDefaultsEntry;
const proxy = (extra: Record<string, unknown> = {}) =>
  ({ Kind: "proxy-defaults", Name: "global", ...extra }) as ProxyDefaultsEntry;
const splitter = (splits: unknown[]) =>
  ({ Kind: "service-splitter", Name: "web", Splits: splits }) as ServiceSplitterEntry;
const router = (...routes: unknown[]) =>
  ({ Kind: "service-router", Name: "web", Routes: routes }) as ServiceRouterEntry;

const V1_V2 = { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } };

/** Asserts validation fails with an EntryValidationError whose message is exactly `message`. */
function expectInvalid(entry: ConfigEntry, message: string): void {
  let error: unknown;
  try {
    validateEntry(entry);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(EntryValidationError);
  expect((error as Error).name).toBe("EntryValidationError");
  expect((error as Error).message).toBe(message);
}

describe("translateEntryKeys", () => {
  it("rewrites snake_case, lower-case and mixed-case keys to CamelCase", () => {
    expect(
      translateEntryKeys({
        kind: "service-resolver",
        NAME: "web",
        connect_timeout: "5s",
        default_subset: "v1",
        reDirect: { service_subset: "v2", DataCenter: "dc2" },
        "external-sni": "x",
      }),
    ).toEqual({
      Kind: "service-resolver",
      Name: "web",
      ConnectTimeout: "5s",
      DefaultSubset: "v1",
      Redirect: { ServiceSubset: "v2", Datacenter: "dc2" },
      ExternalSNI: "x",
    });
  });

  it("translates inside arrays and nested matches, including http -> HTTP", () => {
    expect(
      translateEntryKeys({
        routes: [
          {
            match: { http: { path_prefix: "/api", header: [{ name: "x", exact: "1", invert: true }] } },
            destination: { request_timeout: "1s", retry_on_status_codes: [503], num_retries: 2 },
          },
        ],
      }),
    ).toEqual({
      Routes: [
        {
          Match: { HTTP: { PathPrefix: "/api", Header: [{ Name: "x", Exact: "1", Invert: true }] } },
          Destination: { RequestTimeout: "1s", RetryOnStatusCodes: [503], NumRetries: 2 },
        },
      ],
    });
  });

  it("leaves the keys and values of opaque Config and Meta untouched", () => {
    const out = translateEntryKeys({
      kind: "proxy-defaults",
      config: { protocol: "http", local_connect_timeout_ms: 1000, nested: { connect_timeout: "1s" } },
      meta: { owner_team: "a", Name: "b" },
    });
    expect(out).toEqual({
      Kind: "proxy-defaults",
      Config: { protocol: "http", local_connect_timeout_ms: 1000, nested: { connect_timeout: "1s" } },
      Meta: { owner_team: "a", Name: "b" },
    });
  });

  it("keeps subset names as Subsets/Failover keys while translating their values", () => {
    expect(
      translateEntryKeys({
        subsets: { only_passing: { only_passing: true }, V2: { filter: "f" } },
        failover: { "*": { datacenters: ["dc2"] }, service: { service_subset: "v1" } },
      }),
    ).toEqual({
      Subsets: { only_passing: { OnlyPassing: true }, V2: { Filter: "f" } },
      Failover: { "*": { Datacenters: ["dc2"] }, service: { ServiceSubset: "v1" } },
    });
  });

  it("lets the canonical spelling win over an alias, in either order", () => {
    expect(translateEntryKeys({ connect_timeout: "1s", ConnectTimeout: "2s" })).toEqual({ ConnectTimeout: "2s" });
    expect(translateEntryKeys({ ConnectTimeout: "2s", connecttimeout: "1s" })).toEqual({ ConnectTimeout: "2s" });
  });

  it("leaves unknown keys as they are", () => {
    expect(translateEntryKeys({ name: "web", bogus_field: { connect_timeout: "1s" } })).toEqual({
      Name: "web",
      bogus_field: { connect_timeout: "1s" },
    });
  });

  it("returns a deep copy and passes non-objects through", () => {
    const body = { name: "web", subsets: { v1: { filter: "a" } }, meta: { k: "v" } };
    const out = translateEntryKeys(body) as { Subsets: object; Meta: object };
    expect(out.Subsets).not.toBe(body.subsets);
    expect(out.Meta).not.toBe(body.meta);
    expect(body).toEqual({ name: "web", subsets: { v1: { filter: "a" } }, meta: { k: "v" } });
    expect(translateEntryKeys("text")).toBe("text");
    expect(translateEntryKeys(null)).toBe(null);
    expect(translateEntryKeys(7)).toBe(7);
  });

  it("does not let a __proto__ key change the prototype of the copy", () => {
    const out = translateEntryKeys(JSON.parse('{"__proto__": {"Name": "x"}}')) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });
});

describe("validateEntry: common rules and normalization", () => {
  it("requires a Name", () => {
    expectInvalid(resolver({ Name: "" }), "Name is required");
  });

  it("rejects an unknown kind", () => {
    expectInvalid({ Kind: "mesh", Name: "x" } as unknown as ConfigEntry, "invalid config entry kind: mesh");
  });

  it("fills a missing Namespace with default and keeps an explicit one", () => {
    expect(validateEntry(defaults()).Namespace).toBe("default");
    expect(validateEntry(defaults({ Namespace: "" })).Namespace).toBe("default");
    expect(validateEntry(defaults({ Namespace: "team-a" })).Namespace).toBe("team-a");
  });

  it("returns a normalized copy without changing the input", () => {
    const input = resolver({ ConnectTimeout: "90s" });
    const out = validateEntry(input) as ServiceResolverEntry;
    expect(out.ConnectTimeout).toBe("1m30s");
    expect(input.ConnectTimeout).toBe("90s");
    expect(input.Namespace).toBeUndefined();
  });
});

describe("validateEntry: service-defaults and proxy-defaults", () => {
  it("accepts a protocol in any case and stores it lower-case", () => {
    expect((validateEntry(defaults({ Protocol: "HTTP2" })) as ServiceDefaultsEntry).Protocol).toBe("http2");
  });

  it("takes any service-defaults Protocol, lower-cased", () => {
    // ServiceConfigEntry.Normalize lower-cases it and its Validate checks nothing
    // (structs/config_entry.go); the compiler treats what is not http, http2 or grpc as tcp.
    expect((validateEntry(defaults({ Protocol: "UDP" })) as ServiceDefaultsEntry).Protocol).toBe("udp");
    expect((validateEntry(defaults({ Protocol: "" })) as ServiceDefaultsEntry).Protocol).toBe("");
  });

  it("stores any MeshGateway.Mode: neither Validate looks at it", () => {
    expect((validateEntry(defaults({ MeshGateway: { Mode: "bridge" } })) as ServiceDefaultsEntry).MeshGateway).toEqual({ Mode: "bridge" });
    expect((validateEntry(proxy({ MeshGateway: { Mode: "LOCAL" } })) as ProxyDefaultsEntry).MeshGateway).toEqual({ Mode: "LOCAL" });
    expect(validateEntry(defaults({ MeshGateway: { Mode: "" } }))).toMatchObject({ MeshGateway: { Mode: "" } });
  });

  it("only allows the name global for proxy-defaults", () => {
    expectInvalid(proxy({ Name: "x" }), 'invalid name ("x"), only "global" is supported');
  });

  it("always puts proxy-defaults in the default namespace", () => {
    expect(validateEntry(proxy({ Namespace: "team-a" })).Namespace).toBe("default");
  });

  it("keeps Config as written, protocol included, whatever its value", () => {
    // ProxyConfigEntry.Normalize and Validate leave the opaque Config alone (structs/config_entry.go);
    // the compiler reads and lower-cases its protocol.
    for (const protocol of ["GRPC", "foo", 5, { nested: true }]) {
      const out = validateEntry(proxy({ Config: { protocol, Other: "KEEP" } })) as ProxyDefaultsEntry;
      expect(out.Config).toEqual({ protocol, Other: "KEEP" });
    }
  });
});

describe("validateEntry: service-resolver", () => {
  it("rejects an empty subset name", () => {
    expectInvalid(resolver({ Subsets: { "": {} } }), "Subset defined with empty name");
  });

  it("rejects subset names that are not DNS labels", () => {
    expectInvalid(
      resolver({ Subsets: { v1: {}, Bad_Name: {} } }),
      // validateServiceSubset's words (structs/config_entry_discoverychain.go).
      'Subset "Bad_Name" is invalid: must be 63 characters or fewer, begin or end with lower case ' +
        "alphanumeric characters, and contain lower case alphanumeric characters or '-' in between",
    );
    expectInvalid(resolver({ Subsets: { ["a".repeat(64)]: {} } }), `Subset "${"a".repeat(64)}" is invalid: must be non-empty and 63 characters or fewer`);
    for (const name of ["-v1", "v1-", "V1", "a".repeat(64)]) {
      expect(() => validateEntry(resolver({ Subsets: { [name]: {} } }))).toThrow(`Subset "${name}" is invalid`);
    }
    expect(() => validateEntry(resolver({ Subsets: { ["a".repeat(63)]: {}, "v-1": {}, "0": {} } }))).not.toThrow();
  });

  it("requires DefaultSubset to be a defined subset", () => {
    expectInvalid(resolver({ Subsets: V1_V2, DefaultSubset: "v3" }), 'DefaultSubset "v3" is not a valid subset');
    expect(() => validateEntry(resolver({ Subsets: V1_V2, DefaultSubset: "v1" }))).not.toThrow();
  });

  it("forbids Redirect together with Failover", () => {
    expectInvalid(
      resolver({ Redirect: { Service: "db" }, Failover: { "*": { Datacenters: ["dc2"] } } }),
      "Redirect and Failover cannot both be set",
    );
  });

  it("rejects an empty Redirect", () => {
    expectInvalid(resolver({ Redirect: {} }), "Redirect is empty");
  });

  it("requires Redirect.Service for Redirect.ServiceSubset and Redirect.Namespace", () => {
    expectInvalid(resolver({ Redirect: { ServiceSubset: "v1" } }), "Redirect.ServiceSubset defined without Redirect.Service");
    expectInvalid(resolver({ Redirect: { Namespace: "ns" } }), "Redirect.Namespace defined without Redirect.Service");
  });

  it("requires a self-redirect's ServiceSubset to be one of its own subsets", () => {
    expectInvalid(
      resolver({ Subsets: V1_V2, Redirect: { Service: "web", ServiceSubset: "v3" } }),
      'Redirect.ServiceSubset "v3" is not a valid subset of "web"',
    );
    // Another service's subsets are that service's business.
    expect(() => validateEntry(resolver({ Redirect: { Service: "db", ServiceSubset: "v3" } }))).not.toThrow();
    expect(() => validateEntry(resolver({ Redirect: { Datacenter: "dc2" } }))).not.toThrow();
  });

  it("requires Failover keys to be * or a defined subset", () => {
    expectInvalid(
      resolver({ Subsets: V1_V2, Failover: { v3: { Datacenters: ["dc2"] } } }),
      'Bad Failover["v3"]: not a valid subset',
    );
  });

  it("requires a Failover to name at least one target", () => {
    expectInvalid(
      resolver({ Failover: { "*": { Datacenters: [] } } }),
      'Bad Failover["*"] one of Service, ServiceSubset, Namespace, or Datacenters is required',
    );
  });

  it("requires Failover.ServiceSubset to exist when failing over within the same service", () => {
    // The text names the failover's Service as written: empty when left out (1.6-1.10 Validate).
    expectInvalid(
      resolver({ Subsets: V1_V2, Failover: { v2: { ServiceSubset: "v3" } } }),
      'Bad Failover["v2"].ServiceSubset "v3" is not a valid subset of ""',
    );
    expectInvalid(
      resolver({ Subsets: V1_V2, Failover: { v2: { Service: "web", ServiceSubset: "v3" } } }),
      'Bad Failover["v2"].ServiceSubset "v3" is not a valid subset of "web"',
    );
    expect(() => validateEntry(resolver({ Failover: { "*": { Service: "db", ServiceSubset: "v3" } } }))).not.toThrow();
  });

  it("rejects an empty Failover datacenter", () => {
    expectInvalid(resolver({ Failover: { "*": { Datacenters: ["dc2", ""] } } }), 'Bad Failover["*"].Datacenters: found empty datacenter');
  });

  it("rejects an unparsable ConnectTimeout", () => {
    expectInvalid(resolver({ ConnectTimeout: "abc" }), 'Bad ConnectTimeout: time: invalid duration "abc"');
  });

  it("rejects a negative ConnectTimeout", () => {
    expectInvalid(resolver({ ConnectTimeout: "-1s" }), "Bad ConnectTimeout '-1s', must be >= 0");
  });

  it("accepts a complete valid resolver and normalizes its ConnectTimeout", () => {
    const out = validateEntry(
      resolver({
        Subsets: V1_V2,
        DefaultSubset: "v1",
        Failover: { v1: { ServiceSubset: "v2" }, "*": { Datacenters: ["dc2"] } },
        ConnectTimeout: "1500ms",
      }),
    );
    expect(out).toMatchObject({ ConnectTimeout: "1.5s", Namespace: "default" });
  });
});

describe("validateEntry: service-splitter", () => {
  it("requires at least one split", () => {
    // ServiceSplitterConfigEntry.Validate's words carry no field prefix.
    expectInvalid(splitter([]), "no splits configured");
    expectInvalid({ Kind: "service-splitter", Name: "web" } as ServiceSplitterEntry, "no splits configured");
  });

  it("checks no weight alone, only the sum: -10 and 110 make 100 (Validate has no bounds)", () => {
    expect((validateEntry(splitter([{ Weight: 110 }, { Weight: -10, ServiceSubset: "v2" }])) as ServiceSplitterEntry).Splits).toEqual([{ Weight: 110 }, { Weight: -10, ServiceSubset: "v2" }]);
    expectInvalid(splitter([{ Weight: 100 }, { Weight: 120, ServiceSubset: "v2" }]), "the sum of all split weights must be 100, not 220.000000");
    expectInvalid(splitter([{ Weight: -1 }]), "the sum of all split weights must be 100, not -1.000000");
    // A number past what a float32 holds is infinite: no sum makes 100.
    expect(() => validateEntry(splitter([{ Weight: Infinity }, { Weight: -Infinity, ServiceSubset: "v2" }]))).toThrow(/the sum of all split weights must be 100/);
  });

  it("rejects the same destination twice, with an empty Service meaning the splitter's own", () => {
    expectInvalid(
      splitter([{ Weight: 50, ServiceSubset: "v1" }, { Weight: 50, Service: "web", ServiceSubset: "v1" }]),
      'split destination occurs more than once: service="web", subset="v1", namespace=""',
    );
  });

  it("requires the weights to add up to 100", () => {
    expectInvalid(
      splitter([{ Weight: 50, ServiceSubset: "v1" }, { Weight: 40, ServiceSubset: "v2" }]),
      "the sum of all split weights must be 100, not 90.000000",
    );
  });

  it("sums weights at two-decimal precision", () => {
    const thirds = [
      { Weight: 33.33, ServiceSubset: "a" },
      { Weight: 33.33, ServiceSubset: "b" },
      { Weight: 33.34, ServiceSubset: "c" },
    ];
    expect(() => validateEntry(splitter(thirds))).not.toThrow();
    // Each weight is rounded to two decimals before summing: 100.00 + 0.00.
    expect(() => validateEntry(splitter([{ Weight: 99.996 }, { Weight: 0.001, Service: "db" }]))).not.toThrow();
    // Go prints the float32 sum with %f: its binary value to 6 decimals.
    expectInvalid(
      splitter([{ Weight: 99.99 }, { Weight: 0.02, Service: "db" }]),
      "the sum of all split weights must be 100, not 100.010002",
    );
  });

  it("rounds each weight to 0.01 in float32 and keeps the rounded weight, as Normalize does", () => {
    const out = validateEntry(splitter([{ Weight: 50.004, Service: "a" }, { Weight: 49.996 }, { Weight: 0, Service: "b" }])) as ServiceSplitterEntry;
    expect(out.Splits!.map((s) => s.Weight)).toEqual([50, 50, 0]);
    // float32(50.005) * 100 is 5000.5 in float32, which rounds up: 50.01 (in float64 it would be 50).
    expect(normalizeSplitWeight(50.005)).toBe(50.01);
    expect(normalizeSplitWeight(33.333)).toBe(33.33);
    expect(normalizeSplitWeight(12.345)).toBe(12.35);
    expect(normalizeSplitWeight(0.004)).toBe(0);
    expect(Object.is(normalizeSplitWeight(-0.004), 0)).toBe(true);
  });
});

describe("validateEntry: service-router", () => {
  const http = (match: Record<string, unknown>, destination?: Record<string, unknown>) => ({
    Match: { HTTP: match },
    ...(destination ? { Destination: destination } : {}),
  });

  it("allows at most one of PathExact, PathPrefix and PathRegex", () => {
    expectInvalid(
      router(http({ PathPrefix: "/a" }), http({ PathExact: "/a", PathRegex: "/.*" })),
      "Route[1] should only contain at most one of PathExact, PathPrefix, or PathRegex",
    );
  });

  it("requires PathExact and PathPrefix to start with a slash", () => {
    expectInvalid(router(http({ PathPrefix: "api" })), `Route[0] PathPrefix doesn't start with '/': "api"`);
    expectInvalid(router(http({ PathExact: "api" })), `Route[0] PathExact doesn't start with '/': "api"`);
    expect(() => validateEntry(router(http({ PathRegex: "api.*" })))).not.toThrow();
  });

  it("requires a Name on header matches", () => {
    expectInvalid(
      router(http({ Header: [{ Name: "a", Present: true }, { Exact: "x" }] })),
      "Route[0] Header[1] missing required Name field",
    );
  });

  it("requires exactly one way of matching a header", () => {
    const message = "Route[0] Header[1] should only contain one of Present, Exact, Prefix, Suffix, or Regex";
    expectInvalid(router(http({ Header: [{ Name: "a", Suffix: "x" }, { Name: "b", Exact: "x", Prefix: "y" }] })), message);
    expectInvalid(router(http({ Header: [{ Name: "a", Regex: "x" }, { Name: "b", Present: false, Invert: true }] })), message);
  });

  it("requires a Name and exactly one way of matching a query parameter", () => {
    expectInvalid(router(http({ QueryParam: [{ Exact: "1" }] })), "Route[0] QueryParam[0] missing required Name field");
    expectInvalid(
      router(http({ QueryParam: [{ Name: "a", Present: true, Regex: "x" }] })),
      "Route[0] QueryParam[0] should only contain one of Present, Exact, or Regex",
    );
  });

  it("upper-cases Methods and rejects duplicates", () => {
    const out = validateEntry(router(http({ Methods: ["get", "Post"] }))) as ServiceRouterEntry;
    expect(out.Routes?.[0]?.Match?.HTTP?.Methods).toEqual(["GET", "POST"]);
    expectInvalid(router(http({ Methods: ["GET", "get"] })), 'Route[0] Methods contains "GET" more than once');
    // The 1.6-1.10 Validate checks duplicates only (isValidHTTPMethod came later): any name is stored, upper-cased.
    const methods = validateEntry(router(http({ Methods: ["get", "Head", "fetch", "LIST"] }))) as ServiceRouterEntry;
    expect(methods.Routes?.[0]?.Match?.HTTP?.Methods).toEqual(["GET", "HEAD", "FETCH", "LIST"]);
  });

  it("allows PrefixRewrite only with PathExact or PathPrefix", () => {
    const message = "Route[0] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix";
    expectInvalid(router(http({ PathRegex: "/a.*" }, { PrefixRewrite: "/b" })), message);
    expectInvalid(router({ Destination: { PrefixRewrite: "/b" } }), message);
    expect(() => validateEntry(router(http({ PathPrefix: "/a" }, { PrefixRewrite: "/b" })))).not.toThrow();
  });

  it("checks and normalizes Destination.RequestTimeout", () => {
    expectInvalid(
      router(http({}, { RequestTimeout: "abc" })),
      'Bad Routes[0].Destination.RequestTimeout: time: invalid duration "abc"',
    );
    const out = validateEntry(router(http({}, { RequestTimeout: "3600s" }))) as ServiceRouterEntry;
    expect(out.Routes?.[0]?.Destination?.RequestTimeout).toBe("1h0m0s");
    // The router's Validate checks no timeout (the resolver's ConnectTimeout it does): stored as written.
    const negative = validateEntry(router(http({}, { RequestTimeout: "-2m" }))) as ServiceRouterEntry;
    expect(negative.Routes?.[0]?.Destination?.RequestTimeout).toBe("-2m0s");
  });

  it("requires NumRetries to be non-negative", () => {
    expectInvalid(router({ Destination: { NumRetries: -1 } }), "Routes[0].Destination.NumRetries must be a non-negative integer, got -1");
    expect(() => validateEntry(router({ Destination: { NumRetries: 0 } }))).not.toThrow();
  });

  it("stores any RetryOnStatusCodes: Validate does not look at them (only the proxy gives them a meaning)", () => {
    const out = validateEntry(router({ Destination: { RetryOnStatusCodes: [503, 99, 600, 0] } })) as ServiceRouterEntry;
    expect(out.Routes?.[0]?.Destination?.RetryOnStatusCodes).toEqual([503, 99, 600, 0]);
  });

  it("accepts a router without routes", () => {
    expect(validateEntry({ Kind: "service-router", Name: "web" })).toEqual({
      Kind: "service-router",
      Name: "web",
      Namespace: "default",
    });
  });
});
