// Configuration-entry endpoints through the generated client: writes in either key style,
// reads, lists, deletes, check-and-set, and every refusal (which must leave the state unchanged).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/mesh/schema.ts";
import { meshPerTest } from "../helpers/mesh.ts";

type ConfigEntry = components["schemas"]["ConfigEntry"];
/** The request body: weakly typed values allowed (ConfigEntryInput). */
type ConfigEntryInput = components["schemas"]["ConfigEntryInput"];

const mesh = meshPerTest();

async function put(entry: ConfigEntryInput | Record<string, unknown>, query: { cas?: number; ns?: string } = {}) {
  return mesh.client.PUT("/config", { body: entry as ConfigEntryInput, params: { query } });
}

/**
 * A refused write changes nothing. 400 for bodies that do not decode; 500 for entries that break a
 * rule or a chain, as the real server answers errors of its write RPC (agent/http.go wrap/handleErr,
 * agent/consul/config_endpoint.go Apply -> Validate()).
 */
/** The whole error text, not a part of it. */
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

async function expectRefused(entry: Record<string, unknown>, message: string | RegExp, status: 400 | 500 = 400) {
  const before = await mesh.client.GET("/config/{kind}", {
    params: { path: { kind: entry.Kind as "service-resolver" } },
  });
  const { response, error } = await put(entry);
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(error).toMatch(message);
  const after = await mesh.client.GET("/config/{kind}", {
    params: { path: { kind: entry.Kind as "service-resolver" } },
  });
  expect(after.data).toEqual(before.data);
}

describe("writing and reading entries", () => {
  it("writes an entry and reads it back with its indexes and canonical durations", async () => {
    const written = await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "90s" });
    expect(written.response.status).toBe(200);
    expect(written.data).toBe(true);

    const { data, response } = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-resolver", name: "web" } },
    });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      Kind: "service-resolver",
      Name: "web",
      Namespace: "default",
      ConnectTimeout: "1m30s",
      CreateIndex: 1,
      ModifyIndex: 1,
    });
    expect(response.headers.get("x-mesh-index")).toBe("1");
  });

  it("accepts snake_case and lower-case keys, keeping the keys of Subsets, Failover and Config", async () => {
    expect((await put({ kind: "proxy-defaults", name: "global", config: { protocol: "HTTP", local_connect_timeout_ms: 500 } })).data).toBe(true);
    expect(
      (
        await put({
          kind: "service-resolver",
          name: "web",
          connect_timeout: "15s",
          default_subset: "v1",
          subsets: { v1: { filter: "Service.Meta.version == v1", only_passing: true } },
          failover: { v1: { datacenters: ["dc2"] } },
        })
      ).data,
    ).toBe(true);
    const proxy = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "proxy-defaults", name: "global" } },
    });
    // The opaque Config is kept as written (ProxyConfigEntry.Normalize leaves it alone).
    expect(proxy.data).toMatchObject({ Config: { protocol: "HTTP", local_connect_timeout_ms: 500 } });
    const resolver = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-resolver", name: "web" } },
    });
    expect(resolver.data).toMatchObject({
      ConnectTimeout: "15s",
      DefaultSubset: "v1",
      Subsets: { v1: { Filter: "Service.Meta.version == v1", OnlyPassing: true } },
      Failover: { v1: { Datacenters: ["dc2"] } },
    });
  });

  it("takes any protocol, as the real entries do; one that is not http, http2 or grpc compiles as tcp does", async () => {
    // ServiceConfigEntry.Normalize lower-cases Protocol and its Validate checks nothing; proxy-defaults
    // Config is opaque. The compiler allows routers and splitters only for IsProtocolHTTPLike ones.
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "TCPX" })).data).toBe(true);
    expect((await put({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "Redis" } })).data).toBe(true);
    const web = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect(web.data).toMatchObject({ Protocol: "tcpx" });
    const global = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "proxy-defaults", name: "global" } } });
    expect(global.data).toMatchObject({ Config: { protocol: "Redis" } });
    const chain = async (name: string) => (await mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: name } } })).data!.Chain;
    expect((await chain("web")).Protocol).toBe("tcpx");
    expect((await chain("api")).Protocol).toBe("redis");
    await expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "/a" } } }] },
      exactly('discovery chain "web" uses a protocol "tcpx" that does not permit advanced routing or splitting behavior'),
      500,
    );
  });

  it("keeps CreateIndex and moves ModifyIndex on update", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "api", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "web", Protocol: "grpc" });
    const { data } = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(data).toMatchObject({ Protocol: "grpc", CreateIndex: 1, ModifyIndex: 3 });
  });

  it("lists the entries of a kind sorted by name, and [] for an empty kind", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "api", Protocol: "tcp" });
    const { data, response } = await mesh.client.GET("/config/{kind}", {
      params: { path: { kind: "service-defaults" } },
    });
    expect(data?.map((e) => e.Name)).toEqual(["api", "web"]);
    expect(response.headers.get("x-mesh-index")).toBe("2");
    const empty = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "service-router" } } });
    expect(empty.data).toEqual([]);
  });

  it("answers 404 with a plain-text message for a missing entry", async () => {
    const { response, error } = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-resolver", name: "nope" } },
    });
    expect(response.status).toBe(404);
    expect(error).toBe('Config entry not found for "service-resolver" / "nope"');
  });

  it("deletes an entry, and deleting a missing one succeeds", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    const deleted = await mesh.client.DELETE("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({});
    const read = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(read.response.status).toBe(404);
    const again = await mesh.client.DELETE("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(again.response.status).toBe(200);
  });

  it("keeps entries apart by namespace", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" }, { ns: "team-a" });
    const inA = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" }, query: { ns: "team-a" } },
    });
    expect(inA.data).toMatchObject({ Namespace: "team-a", Protocol: "http" });
    const inDefault = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(inDefault.response.status).toBe(404);
  });
});

describe("check-and-set", () => {
  it("writes with cas=0 only when the entry does not exist", async () => {
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" }, { cas: 0 })).data).toBe(true);
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "grpc" }, { cas: 0 })).data).toBe(false);
    const { data } = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(data).toMatchObject({ Protocol: "http", ModifyIndex: 1 });
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "grpc" }, { cas: 1 })).data).toBe(true);
  });

  it("deletes with cas only at the current ModifyIndex and answers a boolean", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    const stale = await mesh.client.DELETE("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" }, query: { cas: 7 } },
    });
    expect(stale.data).toBe(false);
    const current = await mesh.client.DELETE("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" }, query: { cas: 1 } },
    });
    expect(current.data).toBe(true);
  });
});

describe("writes that change nothing are not applied", () => {
  const read = () => mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } });

  it("an identical write (in other key spellings and duration forms) succeeds without moving the indexes", async () => {
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "90s", Meta: { team: "a" } });
    const before = await read();
    expect(before.data).toMatchObject({ CreateIndex: 1, ModifyIndex: 1 });
    expect((await put({ meta: { team: "a" }, connect_timeout: 90_000_000_000, name: "web", kind: "service-resolver" })).data).toBe(true);
    const after = await read();
    expect(after.data).toEqual(before.data);
    expect(after.response.headers.get("x-mesh-index")).toBe("1");
  });

  it("an identical write succeeds whatever its cas; a different one still needs the right cas", async () => {
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s" });
    expect((await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s" }, { cas: 0 })).data).toBe(true);
    expect((await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s" }, { cas: 9 })).data).toBe(true);
    expect((await read()).data).toMatchObject({ ModifyIndex: 1 });
    expect((await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "6s" }, { cas: 9 })).data).toBe(false);
    expect((await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "6s" }, { cas: 1 })).data).toBe(true);
    expect((await read()).data).toMatchObject({ ConnectTimeout: "6s", ModifyIndex: 2 });
  });

  it("a write that adds, drops or changes any field is applied", async () => {
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s" });
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s", Meta: {} });
    expect((await read()).data).toMatchObject({ Meta: {}, ModifyIndex: 2 });
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s" });
    expect((await read()).data).toMatchObject({ ModifyIndex: 3 });
    expect((await read()).data).not.toHaveProperty("Meta");
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s", Subsets: { v1: { Filter: "Service.Meta.version == 1" } } });
    await put({ Kind: "service-resolver", Name: "web", ConnectTimeout: "5s", Subsets: { v1: { Filter: "Service.Meta.version == 2" } } });
    expect((await read()).data).toMatchObject({ Subsets: { v1: { Filter: "Service.Meta.version == 2" } }, ModifyIndex: 5 });
  });

  it("deleting an entry that does not exist answers true with cas, and moves no index", async () => {
    await put({ Kind: "service-defaults", Name: "api", Protocol: "http" });
    const deleted = await mesh.client.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "nothing" }, query: { cas: 4 } } });
    expect(deleted.data).toBe(true);
    const list = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "service-defaults" } } });
    expect(list.response.headers.get("x-mesh-index")).toBe("1");
  });
});

describe("refused entries name the field and change nothing (400 decoding, 500 rules)", () => {
  // The kind is read before anything else, from `Kind` or else `kind` only, in DecodeConfigEntry's
  // words (agent/structs/config_entry.go DecodeConfigEntry, MakeConfigEntry; the agent's own test
  // TestConfig_Apply_Decoding in agent/config_endpoint_test.go).
  it("unknown kind", () =>
    expectRefused({ Kind: "service-intentions", Name: "web" }, exactly("Request decoding failed: invalid config entry kind: service-intentions")));
  it("no kind", async () => {
    const { response, error } = await put({ Name: "web", Protocol: "tcp" });
    expect(response.status).toBe(400);
    expect(error).toBe("Request decoding failed: Payload does not contain a kind/Kind key at the top level");
  });
  it("a kind spelled other than Kind or kind", async () => {
    const { response, error } = await put({ KIND: "service-defaults", Name: "web" });
    expect(response.status).toBe(400);
    expect(error).toBe("Request decoding failed: Payload does not contain a kind/Kind key at the top level");
  });
  it("a kind that is not a string", async () => {
    for (const Kind of [123, null, ["service-defaults"]]) {
      const { response, error } = await put({ Kind, Name: "web" });
      expect(response.status).toBe(400);
      expect(error).toBe("Request decoding failed: Kind value in payload is not a string");
    }
  });
  // The handler decodes the body into a map first (agent/http.go decodeBodyDeprecated: encoding/json
  // into interface{}, then mapstructure into the map, whose decodeMap names the kind it got; a JSON
  // null sets nothing, leaving no kind).
  it("a body that is not an object", async () => {
    const cases: [unknown, string][] = [
      [[], "'' expected a map, got 'slice'"],
      ["x", "'' expected a map, got 'string'"],
      [5, "'' expected a map, got 'float64'"],
      [true, "'' expected a map, got 'bool'"],
      [null, "Payload does not contain a kind/Kind key at the top level"],
    ];
    // No body at all: the JSON decoder meets EOF.
    const empty = await fetch(`${mesh.baseUrl}/config`, { method: "PUT" });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toBe("Request decoding failed: EOF");
    for (const [body, text] of cases) {
      const response = await fetch(`${mesh.baseUrl}/config`, { method: "PUT", body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe(`Request decoding failed: ${text}`);
    }
  });
  it("Kind wins over kind", async () => {
    const { response, error } = await put({ Kind: "nope", kind: "service-defaults", Name: "web" });
    expect(response.status).toBe(400);
    expect(error).toBe("Request decoding failed: invalid config entry kind: nope");
  });
  // DecodeConfigEntry collects the keys mapstructure left unused into a go-multierror, whose
  // Error() is its ListFormatFunc (agent/structs/config_entry.go DecodeConfigEntry).
  it("unknown key", () =>
    expectRefused({ Kind: "service-resolver", Name: "web", Timeout: "5s" }, exactly('Request decoding failed: 1 error occurred:\n\t* invalid config key "Timeout"\n\n')));
  // mapstructure names a nested key by its path (its Metadata.Unused). Of several unknown keys, the
  // real decoder lists all (in map order); this server names the first.
  it("a nested unknown key, named by its path", () =>
    expectRefused(
      { Kind: "service-defaults", Name: "web", MeshGateway: { Bar: 2 } },
      exactly('Request decoding failed: 1 error occurred:\n\t* invalid config key "MeshGateway.Bar"\n\n'),
    ));
  // The duration's alternatives (text, nanoseconds, null) are named once, as the types that would do.
  it("wrong type", () =>
    expectRefused({ Kind: "service-resolver", Name: "web", ConnectTimeout: true }, exactly("Request decoding failed: ConnectTimeout must be string,number or null")));
  // Only the alternative of the value's type speaks (a count is also text, a boolean or null).
  it("a negative count written as a number", () =>
    expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Destination: { NumRetries: -1 } }] },
      exactly("Request decoding failed: Routes[0].Destination.NumRetries must be >= 0"),
    ));
  // ServiceSplitterConfigEntry.Validate checks no weight alone, only the sum; a weight left out is 0.
  it("a weight above 100 is taken when the sum is 100, and a weight left out is 0", async () => {
    for (const Name of ["weights", "api"]) expect((await put({ Kind: "service-defaults", Name, Protocol: "http" })).response.status).toBe(200);
    const subsets = { v2: { Filter: "Service.Meta.version == v2" } };
    expect((await put({ Kind: "service-resolver", Name: "weights", Subsets: subsets })).response.status).toBe(200);
    const written = await put({ Kind: "service-splitter", Name: "weights", Splits: [{ Weight: 110 }, { Weight: -10, ServiceSubset: "v2" }, { Service: "api" }] });
    expect(written.response.status).toBe(200);
    const read = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-splitter", name: "weights" } } });
    expect(read.data).toMatchObject({ Splits: [{ Weight: 110 }, { Weight: -10, ServiceSubset: "v2" }, { Weight: 0, Service: "api" }] });
    // The chain carries them as written.
    const chain = await mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "weights" } } });
    expect(chain.data!.Chain.Nodes["splitter:weights"]!.Splits!.map((split) => split.Weight ?? 0)).toEqual([110, -10, 0]);
    await expectRefused({ Kind: "service-splitter", Name: "web", Splits: [{ Weight: 900 }] }, exactly("the sum of all split weights must be 100, not 900.000000"), 500);
  });
  it("bad duration", () =>
    expectRefused({ Kind: "service-resolver", Name: "web", ConnectTimeout: "soon" }, exactly(`Request decoding failed: 1 error(s) decoding:\n\n* error decoding 'ConnectTimeout': time: invalid duration "soon"`)));
  it("bad route duration", () =>
    expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Destination: { RequestTimeout: "1x" } }, { Destination: { NumRetries: "x" } }] },
      // Gathered and sorted with the decoder's other refusals (mapstructure's Error).
      exactly(
        `Request decoding failed: 2 error(s) decoding:\n\n* cannot parse 'Routes[1].Destination.NumRetries' as uint: strconv.ParseUint: parsing "x": invalid syntax\n* error decoding 'Routes[0].Destination.RequestTimeout': time: unknown unit "x" in duration "1x"`,
      ),
    ));
  // Texts of ServiceSplitterConfigEntry.Validate (structs/config_entry_discoverychain.go), which
  // carry no field prefix.
  it("split weights not summing to 100", () =>
    expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 80 }, { Weight: 10, Service: "api" }] },
      exactly("the sum of all split weights must be 100, not 90.000000"), 500,
    ));
  it("the same split destination twice", () =>
    expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50, Service: "api" }, { Weight: 50, Service: "api" }] },
      exactly('split destination occurs more than once: service="api", subset="", namespace=""'), 500,
    ));
  it("no splits, empty or absent (Validate's check, not a decoding error)", async () => {
    await expectRefused({ Kind: "service-splitter", Name: "web", Splits: [] }, exactly("no splits configured"), 500);
    await expectRefused({ Kind: "service-splitter", Name: "web" }, exactly("no splits configured"), 500);
  });
  it("a subset name that is not a DNS label", async () => {
    await expectRefused(
      { Kind: "service-resolver", Name: "web", Subsets: { V1: {} } },
      exactly(
        'Subset "V1" is invalid: must be 63 characters or fewer, begin or end with lower case alphanumeric characters, ' +
          "and contain lower case alphanumeric characters or '-' in between",
      ),
      500,
    );
    await expectRefused({ Kind: "service-resolver", Name: "web", Subsets: { ["a".repeat(64)]: {} } }, exactly(`Subset "${"a".repeat(64)}" is invalid: must be non-empty and 63 characters or fewer`), 500);
  });
  it("redirect and failover on one resolver", () =>
    expectRefused(
      { Kind: "service-resolver", Name: "web", Redirect: { Service: "api" }, Failover: { "*": { Datacenters: ["dc2"] } } },
      /Redirect and Failover cannot both be set/, 500,
    ));
  it("unknown default subset", () =>
    expectRefused({ Kind: "service-resolver", Name: "web", DefaultSubset: "v9" }, /DefaultSubset "v9" is not a valid subset/, 500));
  it("failover for an unknown subset", () =>
    expectRefused(
      { Kind: "service-resolver", Name: "web", Failover: { v9: { Datacenters: ["dc2"] } } },
      /Bad Failover\["v9"\]: not a valid subset/, 500,
    ));
  // A number would be its text (mapstructure's weak decodeString); an object is not.
  it("a protocol that is not text in service-defaults", () =>
    expectRefused(
      { Kind: "service-defaults", Name: "web", Protocol: { http: true } },
      exactly("Request decoding failed: 1 error(s) decoding:\n\n* 'Protocol' expected type 'string', got unconvertible type 'map[string]interface {}'"),
    ));
  it("proxy-defaults not named global", () =>
    expectRefused({ Kind: "proxy-defaults", Name: "mine" }, /Name must be equal to constant|only "global" is supported/));
  it("a path prefix without a leading slash", () =>
    expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "api" } } }] },
      /Route\[0\] PathPrefix doesn't start with '\/'/, 500,
    ));
  it("a header match with two matchers", () =>
    expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { Header: [{ Name: "x", Exact: "a", Present: true }] } } }] },
      /Route\[0\] Header\[0\] should only contain one of/, 500,
    ));
  it("a body that is not JSON", async () => {
    const response = await fetch(`${mesh.baseUrl}/config`, { method: "PUT", body: "{not json" });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/^Request decoding failed: /);
  });
});

describe("writes that would break a chain are refused", () => {
  it("a router on a tcp service", async () => {
    await expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: "api" } }] },
      'discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior', 500,
    );
  });

  it("a redirect loop", async () => {
    expect((await put({ Kind: "service-resolver", Name: "web", Redirect: { Service: "api" } })).data).toBe(true);
    await expectRefused({ Kind: "service-resolver", Name: "api", Redirect: { Service: "web" } }, /detected circular resolver redirect/, 500);
  });

  it("services of different protocols in one chain", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "api", Protocol: "grpc" });
    await expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50 }, { Weight: 50, Service: "api" }] },
      'discovery chain "web" uses inconsistent protocols; service "api" has "grpc" which is not "http"', 500,
    );
  });

  it("deleting the service-defaults that makes a routed service http", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    await put({ Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "/v2" } } }] });
    const { response, error } = await mesh.client.DELETE("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(response.status).toBe(500);
    expect(error).toMatch(/does not permit advanced routing/);
    const still = await mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" } },
    });
    expect(still.response.status).toBe(200);
  });
});

describe("a write compiles the chains that read what it changes", () => {
  // The check is incremental: after the first write, only the chains that read the changed entry
  // (and the entry's own service) are compiled. These writes come after others, so they go
  // through the incremental path, and must still be refused when they break another chain.
  it("refuses a resolver change that breaks a chain of another service that reads it", async () => {
    expect((await put({ Kind: "service-resolver", Name: "api", Subsets: { v2: { Filter: "Service.Meta.v == 2" } } })).response.status).toBe(200);
    expect((await put({ Kind: "service-resolver", Name: "web", Redirect: { Service: "api", ServiceSubset: "v2" } })).response.status).toBe(200);
    expect((await put({ Kind: "service-defaults", Name: "unrelated", Protocol: "http" })).response.status).toBe(200);
    await expectRefused({ Kind: "service-resolver", Name: "api", Subsets: { v3: { Filter: "Service.Meta.v == 3" } } }, /v2/, 500);
    // Deleting what another chain reads is refused the same way.
    const deleted = await mesh.client.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "api" } } });
    expect(deleted.response.status).toBe(500);
    expect((await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "api" } } })).response.status).toBe(200);
  });

  it("tracks a chain that starts reading an entry later", async () => {
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" })).response.status).toBe(200);
    expect((await put({ Kind: "service-defaults", Name: "db", Protocol: "http" })).response.status).toBe(200);
    expect((await put({ Kind: "service-resolver", Name: "db", Subsets: { v1: { Filter: "Service.Meta.v == 1" } } })).response.status).toBe(200);
    // web now reads db's resolver through a new splitter.
    expect((await put({ Kind: "service-splitter", Name: "web", Splits: [{ Weight: 100, Service: "db", ServiceSubset: "v1" }] })).response.status).toBe(200);
    await expectRefused({ Kind: "service-resolver", Name: "db" }, /v1/, 500);
    // A protocol for db that web's splitter cannot use: web's chain reads db's defaults too.
    await expectRefused({ Kind: "service-defaults", Name: "db", Protocol: "tcp" }, /discovery chain "web" uses a protocol/, 500);
  });
});

// A kind in the path that names no kind: the read and the list reach the RPC endpoint, whose
// MakeConfigEntry (Get) or kind check (List) fails with an error the HTTP layer answers 500
// (agent/consul/config_endpoint.go Get, List; agent/http.go wrap); the delete builds the entry in its
// HTTP handler and answers that error with 400 (agent/config_endpoint.go configDelete).
describe("an unknown kind in the path", () => {
  const bogus = "service-intentions" as "service-resolver";

  it("reading one entry is 500 invalid config entry kind", async () => {
    const { response, error } = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: bogus, name: "web" } } });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(error).toBe("invalid config entry kind: service-intentions");
  });

  it("listing is 500 invalid config entry kind", async () => {
    const { response, error } = await mesh.client.GET("/config/{kind}", { params: { path: { kind: bogus } } });
    expect(response.status).toBe(500);
    expect(error).toBe("invalid config entry kind: service-intentions");
  });

  it("deleting is 400 invalid config entry kind, with or without cas", async () => {
    for (const query of [{}, { cas: 3 }]) {
      const { response, error } = await mesh.client.DELETE("/config/{kind}/{name}", { params: { path: { kind: bogus, name: "web" }, query } });
      expect(response.status).toBe(400);
      expect(error).toBe("invalid config entry kind: service-intentions");
    }
  });

  it("the kind is taken as the path spells it, after percent-decoding", async () => {
    const { response, error } = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "Service-Defaults" as "service-defaults" } } });
    expect(response.status).toBe(500);
    expect(error).toBe("invalid config entry kind: Service-Defaults");
    const encoded = await fetch(`${mesh.baseUrl}/config/service%2Ddefaults`);
    expect(encoded.status).toBe(200);
  });
});

// The state store answers an entry read and a kind's list with the index of the whole entries table
// (agent/consul/state/config_entry.go configEntryTxn, configEntriesByKindTxn: maxIndexTxn(tx,
// configTableName)), and a missing entry with that index and no entry; the blocking query waits on
// the entry's (or the kind's) watch channel; the HTTP handler sets the index headers before it
// answers 404 (agent/consul/config_endpoint.go Get; agent/config_endpoint.go configGet).
describe("indexes and blocking of entry reads", () => {
  const readWeb = (query: { index?: number; wait?: string } = {}) =>
    mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" }, query } });

  it("a read and a list carry the index of all entries", async () => {
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    await put({ Kind: "service-resolver", Name: "api" });
    const read = await readWeb();
    expect(read.data).toMatchObject({ ModifyIndex: 1 });
    expect(read.response.headers.get("x-mesh-index")).toBe("2");
    const list = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "service-defaults" } } });
    expect(list.response.headers.get("x-mesh-index")).toBe("2");
  });

  it("a missing entry is 404 with the index headers", async () => {
    await put({ Kind: "service-resolver", Name: "api" });
    const { response, error } = await readWeb();
    expect(response.status).toBe(404);
    expect(error).toBe('Config entry not found for "service-defaults" / "web"');
    expect(response.headers.get("x-mesh-index")).toBe("1");
    expect(response.headers.get("x-mesh-knownleader")).toBe("true");
    expect(response.headers.get("x-mesh-lastcontact")).toBe("0");
  });

  it("a blocking read of a missing entry waits for it to be written", async () => {
    await put({ Kind: "service-resolver", Name: "api" });
    const pending = readWeb({ index: 1, wait: "5s" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await put({ Kind: "service-resolver", Name: "other" }); // not this entry: the read goes on waiting
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    const { response, data } = await pending;
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ Name: "web", ModifyIndex: 3 });
    expect(response.headers.get("x-mesh-index")).toBe("3");
  });

  it("a blocking read of a missing entry that stays missing is 404 when the wait is over", async () => {
    await put({ Kind: "service-resolver", Name: "api" });
    const started = Date.now();
    const { response } = await readWeb({ index: 1, wait: "200ms" });
    expect(response.status).toBe(404);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(response.headers.get("x-mesh-index")).toBe("1");
  });
});

// service-defaults and proxy-defaults have an Expose block (agent/structs/config_entry.go
// ServiceConfigEntry.Expose, ProxyConfigEntry.Expose: ExposeConfig with Checks and Paths of
// ExposePath; snake_case aliases listener_port, local_path_port, parsed_from_check), which their
// Validate does not look at; the chain does not use it.
describe("the Expose block", () => {
  it("is written and read back on service-defaults and proxy-defaults, in either key style", async () => {
    const expose = { Checks: true, Paths: [{ ListenerPort: 21500, Path: "/metrics", LocalPathPort: 9102, Protocol: "http" }] };
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http", Expose: expose })).data).toBe(true);
    expect((await put({ kind: "proxy-defaults", name: "global", expose: { checks: false, paths: [{ listener_port: 21501, path: "/health", local_path_port: 8080, parsed_from_check: true }] } })).data).toBe(true);
    const web = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect(web.data).toMatchObject({ Expose: expose });
    const global = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "proxy-defaults", name: "global" } } });
    expect(global.data).toMatchObject({ Expose: { Checks: false, Paths: [{ ListenerPort: 21501, Path: "/health", LocalPathPort: 8080, ParsedFromCheck: true }] } });
  });

  it("has no keys of its own beyond those", () =>
    expectRefused({ Kind: "service-defaults", Name: "web", Expose: { Port: 1 } }, exactly('Request decoding failed: 1 error occurred:\n\t* invalid config key "Expose.Port"\n\n')));
});

// The agent registers one handler for everything under /v1/config/ with GET and DELETE
// (agent/http_register.go), whose Allow lists OPTIONS and then those, in that order (agent/http.go
// wrap; TestHTTPAPI_OptionMethod_OSS); its delete without a name is answered before any RPC
// (agent/config_endpoint.go configDelete).
describe("the paths under /config/ as one endpoint", () => {
  const call = async (method: string, path: string) => {
    const response = await fetch(`${mesh.baseUrl}${path}`, { method });
    return { status: response.status, allow: response.headers.get("allow"), text: await response.text() };
  };

  it("OPTIONS and a refused method list GET and DELETE", async () => {
    for (const path of ["/config/service-defaults", "/config/service-defaults/web"]) {
      expect(await call("OPTIONS", path)).toEqual({ status: 200, allow: "OPTIONS,GET,DELETE", text: "" });
      expect(await call("PUT", path)).toEqual({ status: 405, allow: "OPTIONS,GET,DELETE", text: "method PUT not allowed" });
    }
  });

  it("a delete without a name is 404 Must provide both a kind and name to delete", async () => {
    expect(await call("DELETE", "/config/service-defaults")).toMatchObject({ status: 404, text: "Must provide both a kind and name to delete" });
  });
});

// Go's encoding/json writes a struct field even with `omitempty` (only empty strings, numbers,
// maps, slices and nil pointers are left out): ServiceConfigEntry's Protocol (no omitempty),
// MeshGateway and Expose, and ProxyConfigEntry's MeshGateway and Expose are in every answer
// (agent/structs/config_entry.go). A write of the same entry without them changes nothing
// (the decoded entries are equal, ConfigEntry.Apply skips the write).
describe("fields every answer carries", () => {
  it("service-defaults and proxy-defaults, read and listed", async () => {
    await put({ Kind: "service-defaults", Name: "web" });
    await put({ Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } });
    const web = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect(web.data).toEqual({ Kind: "service-defaults", Name: "web", Protocol: "", MeshGateway: {}, Expose: {}, Namespace: "default", CreateIndex: 1, ModifyIndex: 1 });
    const list = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "proxy-defaults" } } });
    expect(list.data).toEqual([{ Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" }, MeshGateway: {}, Expose: {}, Namespace: "default", CreateIndex: 2, ModifyIndex: 2 }]);
  });

  it("writing back what was read changes nothing", async () => {
    await put({ Kind: "service-defaults", Name: "web" });
    const { data } = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect((await put(data!)).data).toBe(true);
    const again = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect(again.data).toMatchObject({ ModifyIndex: 1 });
    expect(again.response.headers.get("x-mesh-index")).toBe("1");
  });
});

// DecodeConfigEntry decodes with mapstructure and WeaklyTypedInput, on the body as encoding/json
// decoded it (agent/structs/config_entry.go DecodeConfigEntry; mitchellh/mapstructure mapstructure.go
// decode, decodeString, decodeBool, decodeUint, decodeInt, decodeFloat, decodeSlice, decodeMapFromMap;
// error.go Error). Each form is written through the generated client, whose request type
// (ConfigEntryInput) takes it, and read back with the entry's own types.
describe("weakly typed values, as the agent's decoder reads them", () => {
  const read = async (kind: "service-defaults" | "service-resolver" | "service-splitter" | "service-router", name = "web") =>
    (await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind, name } } })).data;
  const httpServices = async (...names: string[]) => {
    for (const Name of names) expect((await put({ Kind: "service-defaults", Name, Protocol: "http" })).response.status).toBe(200);
  };

  it("null is nothing set; numbers and booleans are text", async () => {
    const written = await put({
      Kind: "service-defaults",
      Name: 7,
      Protocol: null,
      MeshGateway: null,
      Expose: null,
      ExternalSNI: 5,
      Meta: { v: 2, on: true, off: false, f: 1.5, big: 1e21, small: 1e-7, none: null },
      CreateIndex: "ignored",
    });
    expect(written.response.status).toBe(200);
    expect(await read("service-defaults", "7")).toEqual({
      Kind: "service-defaults",
      Name: "7",
      Protocol: "",
      MeshGateway: {},
      Expose: {},
      ExternalSNI: "5",
      Meta: { v: "2", on: "1", off: "0", f: "1.5", big: "1000000000000000000000", small: "0.0000001", none: "" },
      Namespace: "default",
      CreateIndex: 1,
      ModifyIndex: 1,
    });
  });

  it("booleans from numbers and from strconv.ParseBool's words; a null subset is an empty one", async () => {
    const written = await put({
      Kind: "service-resolver",
      Name: "web",
      ConnectTimeout: null,
      DefaultSubset: null,
      Redirect: null,
      Subsets: { v1: { OnlyPassing: "true" }, v2: { OnlyPassing: 1 }, v3: { OnlyPassing: "F" }, v4: { OnlyPassing: "", Filter: 5 }, v5: { OnlyPassing: 0.5 }, v6: null },
    });
    expect(written.response.status).toBe(200);
    expect(await read("service-resolver")).toEqual({
      Kind: "service-resolver",
      Name: "web",
      Namespace: "default",
      Subsets: { v1: { OnlyPassing: true }, v2: { OnlyPassing: true }, v3: { OnlyPassing: false }, v4: { OnlyPassing: false, Filter: "5" }, v5: { OnlyPassing: true }, v6: {} },
      CreateIndex: 1,
      ModifyIndex: 1,
    });
  });

  it("weights from text and booleans; a single split is a list of it", async () => {
    await httpServices("web", "api", "db");
    expect((await put({ Kind: "service-splitter", Name: "web", Splits: [{ Weight: "99" }, { Weight: true, Service: "api" }, { Weight: false, Service: "db" }] })).response.status).toBe(200);
    expect(await read("service-splitter")).toMatchObject({ Splits: [{ Weight: 99 }, { Weight: 1, Service: "api" }, { Weight: 0, Service: "db" }] });
    expect((await put({ Kind: "service-splitter", Name: "api", Splits: { Weight: "1e2" } })).response.status).toBe(200);
    expect(await read("service-splitter", "api")).toMatchObject({ Splits: [{ Weight: 100 }] });
  });

  it("counts from text, fractions and booleans; lists from single values; {} an empty list", async () => {
    await httpServices("web");
    const written = await put({
      Kind: "service-router",
      Name: "web",
      Routes: [
        {
          Match: { HTTP: { PathPrefix: "/a", Methods: "get", Header: { Name: "x", Present: "1", Invert: 0 }, QueryParam: null } },
          Destination: { NumRetries: "0x3", RetryOnStatusCodes: "503", RetryOnConnectFailure: "t", PrefixRewrite: null },
        },
        { Match: { HTTP: { PathPrefix: "/b", Methods: {} } }, Destination: { NumRetries: 2.9, RetryOnStatusCodes: [502, "0o770", 504.5] } },
        { Match: { HTTP: { PathExact: "/c", QueryParam: [{ Name: "q", Exact: 1 }] } }, Destination: { NumRetries: "1_0", RetryOnConnectFailure: 0 } },
        // uint64(f), then reflect's SetUint keeps a uint32's low 32 bits.
        { Match: { HTTP: { PathExact: "/d" } }, Destination: { NumRetries: 4294967297 } },
      ],
    });
    expect(written.response.status).toBe(200);
    expect(await read("service-router")).toMatchObject({
      Routes: [
        {
          Match: { HTTP: { PathPrefix: "/a", Methods: ["GET"], Header: [{ Name: "x", Present: true, Invert: false }] } },
          Destination: { NumRetries: 3, RetryOnStatusCodes: [503], RetryOnConnectFailure: true },
        },
        { Match: { HTTP: { PathPrefix: "/b", Methods: [] } }, Destination: { NumRetries: 2, RetryOnStatusCodes: [502, 504, 504] } },
        { Match: { HTTP: { PathExact: "/c", QueryParam: [{ Name: "q", Exact: "1" }] } }, Destination: { NumRetries: 10, RetryOnConnectFailure: false } },
        { Match: { HTTP: { PathExact: "/d" } }, Destination: { NumRetries: 1 } },
      ],
    });
  });

  it("a single route is a list of it, and a failover's single datacenter a list of it", async () => {
    await httpServices("web");
    expect((await put({ Kind: "service-router", Name: "web", Routes: { Match: { HTTP: { PathPrefix: "/" } } } })).response.status).toBe(200);
    expect(await read("service-router")).toMatchObject({ Routes: [{ Match: { HTTP: { PathPrefix: "/" } } }] });
    expect((await put({ Kind: "service-resolver", Name: "db", Failover: { "*": { Datacenters: "dc2" } } })).response.status).toBe(200);
    expect(await read("service-resolver", "db")).toMatchObject({ Failover: { "*": { Datacenters: ["dc2"] } } });
  });

  it("exposed paths: ports from text, a single path a list of it, and snake_case keys", async () => {
    const written = await put({
      kind: "service-defaults",
      name: "web",
      expose: { checks: "true", paths: { listener_port: "21500", path: 5, local_path_port: "0x1f90", parsed_from_check: 0 } },
    });
    expect(written.response.status).toBe(200);
    expect(await read("service-defaults")).toMatchObject({
      Expose: { Checks: true, Paths: [{ ListenerPort: 21500, Path: "5", LocalPathPort: 8080, ParsedFromCheck: false }] },
    });
  });

  it("what is written weakly and read back writes back unchanged", async () => {
    await put({ Kind: "service-resolver", Name: "web", Subsets: { v1: { OnlyPassing: "1", Filter: null } } });
    const { data } = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } });
    expect((await put(data!)).data).toBe(true);
    expect(await read("service-resolver")).toMatchObject({ Subsets: { v1: { OnlyPassing: true } }, ModifyIndex: 1 });
  });
});

// What the weak decoding still refuses, in mapstructure's words: its Error lists every problem,
// sorted, under "N error(s) decoding:" (mapstructure error.go Error; the strconv texts are
// NumError's). The write changes nothing.
describe("weakly typed values the decoder refuses", () => {
  const decodingFailed = (...problems: string[]) =>
    exactly(`Request decoding failed: ${problems.length} error(s) decoding:\n\n${problems.map((p) => `* ${p}`).join("\n")}`);

  it("a boolean that strconv.ParseBool does not read", () =>
    expectRefused(
      { Kind: "service-resolver", Name: "web", Subsets: { v1: { OnlyPassing: "maybe" } } },
      decodingFailed(`cannot parse 'Subsets[v1].OnlyPassing' as bool: strconv.ParseBool: parsing "maybe": invalid syntax`),
    ));
  it("a count that strconv.ParseUint does not read: a sign, a fraction, beyond 32 bits, empty", async () => {
    for (const [value, error] of [["-1", "invalid syntax"], ["1.5", "invalid syntax"], ["4294967296", "value out of range"], ["", "invalid syntax"], ["08", "invalid syntax"], ["1__0", "invalid syntax"]]) {
      await expectRefused(
        { Kind: "service-router", Name: "web", Routes: [{ Destination: { NumRetries: value } }] },
        decodingFailed(`cannot parse 'Routes[0].Destination.NumRetries' as uint: strconv.ParseUint: parsing ${JSON.stringify(value)}: ${error}`),
      );
    }
  });
  it("a weight that strconv.ParseFloat does not read", () =>
    expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: "half" }, { Weight: "1e39" }] },
      decodingFailed(
        `cannot parse 'Splits[0].Weight' as float: strconv.ParseFloat: parsing "half": invalid syntax`,
        `cannot parse 'Splits[1].Weight' as float: strconv.ParseFloat: parsing "1e39": value out of range`,
      ),
    ));
  it("a weight of a long run of digits that is no number: refused after one scan of it (the pattern is unambiguous)", async () => {
    // 200,000 digits and a letter: the ambiguous pattern `\d+\.?\d*` took minutes on this.
    const digits = `${"1".repeat(200_000)}x`;
    await expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: digits }] },
      // (the text as a string: a regular expression of 200,000 characters is too large to build)
      `Request decoding failed: 1 error(s) decoding:\n\n* cannot parse 'Splits[0].Weight' as float: strconv.ParseFloat: parsing "${digits}": invalid syntax`,
    );
    // `_`s and a line break: no form of ParseFloat this server leaves to the description (`.*_.*` tried every split).
    const underscores = `${"1_".repeat(100_000)}\n`;
    await expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: underscores }] },
      `Request decoding failed: 1 error(s) decoding:\n\n* cannot parse 'Splits[0].Weight' as float: strconv.ParseFloat: parsing ${JSON.stringify(underscores)}: invalid syntax`,
    );
    // The description's pattern (the check a contract tool runs) is the same unambiguous one.
    const pattern = /pattern: (.*)$/m.exec(readFileSync("openapi/mesh/components/schemas/ServiceSplitInput.yaml", "utf8"))![1]!;
    expect(new RegExp(pattern, "u").test(digits)).toBe(false);
    expect(new RegExp(pattern, "u").test("12.5e1")).toBe(true);
  });
  it("a port that strconv.ParseInt does not read", () =>
    expectRefused(
      { Kind: "proxy-defaults", Name: "global", Expose: { Paths: [{ ListenerPort: "port" }] } },
      decodingFailed(`cannot parse 'Expose.Paths[0].ListenerPort' as int: strconv.ParseInt: parsing "port": invalid syntax`),
    ));
  it("an object or a list where text is expected, a value where a structure is expected: every problem, sorted", () =>
    expectRefused(
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { Methods: [{ a: 1 }], PathPrefix: ["/a", "/b"] } }, Destination: "api" }] },
      decodingFailed(
        `'Routes[0].Destination' expected a map, got 'string'`,
        `'Routes[0].Match.HTTP.Methods[0]' expected type 'string', got unconvertible type 'map[string]interface {}'`,
        `'Routes[0].Match.HTTP.PathPrefix' expected type 'string', got unconvertible type '[]interface {}'`,
      ),
    ));
  it("a mesh-gateway mode that is not text names its Go type", () =>
    expectRefused(
      { Kind: "service-defaults", Name: "web", MeshGateway: { Mode: ["local"] } },
      decodingFailed(`'MeshGateway.Mode' expected type 'structs.MeshGatewayMode', got unconvertible type '[]interface {}'`),
    ));
  it("null under a key no entry has is still an unknown key", () =>
    expectRefused({ Kind: "service-resolver", Name: "web", Timeout: null }, exactly('Request decoding failed: 1 error occurred:\n\t* invalid config key "Timeout"\n\n')));
  // A single split is decoded as the list's element 0 (decodeSlice), so its unused key is named so.
  it("an unknown key of a single value lifted into a list is named as the list's first element's", () =>
    expectRefused(
      { Kind: "service-splitter", Name: "web", Splits: { Weight: 100, Foo: 1 } },
      exactly('Request decoding failed: 1 error occurred:\n\t* invalid config key "Splits[0].Foo"\n\n'),
    ));
  it("a value the decoder refuses wins over an unknown key", () =>
    expectRefused(
      { Kind: "service-resolver", Name: "web", Timeout: 1, Subsets: { v1: { OnlyPassing: "no way" } } },
      decodingFailed(`cannot parse 'Subsets[v1].OnlyPassing' as bool: strconv.ParseBool: parsing "no way": invalid syntax`),
    ));
  // A negative number for a count is converted by Go's float-to-unsigned conversion, whose result the
  // Go specification leaves to the implementation (mapstructure decodeUint skips its sign check
  // under WeaklyTypedInput): not taken here, the description refuses it.
  it("a negative count written as a number is refused by the description", () =>
    expectRefused({ Kind: "service-router", Name: "web", Routes: [{ Destination: { NumRetries: -1 } }] }, /^Request decoding failed: Routes\[0\]\.Destination\.NumRetries/));
});
