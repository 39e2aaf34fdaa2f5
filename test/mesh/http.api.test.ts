// Raw HTTP: content types of answers and errors, bodies without a JSON content type (the real
// system decodes them anyway), unknown paths and methods.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

let mesh: RunningMesh;
beforeEach(async () => {
  mesh = await startMesh();
});
afterEach(() => mesh.close());

describe("content types", () => {
  it("answers JSON as exactly application/json, as the agent writes it", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/web`);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).Chain.ServiceName).toBe("web");
  });

  it("decodes a body sent without a content type or as text/plain", async () => {
    for (const headers of [{}, { "Content-Type": "text/plain" }] as Record<string, string>[]) {
      const response = await fetch(`${mesh.baseUrl}/discovery-chain/web`, {
        method: "POST",
        headers,
        body: JSON.stringify({ OverrideProtocol: "http" }),
      });
      expect(response.status).toBe(200);
      expect((await response.json()).Chain.Protocol).toBe("http");
    }
  });

  it("refuses a write, or a chain POST, without a body, as the real decoder does", async () => {
    // The chain POST too: DiscoveryChainRead decodes the body with decodeBody, which meets EOF on an
    // empty one (agent/discovery_chain_endpoint.go, lib.DecodeJSON); the token write says so with its
    // own prefix (agent/acl_endpoint.go aclTokenSetInternal).
    for (const [method, path, prefix] of [["PUT", "/config", "Request"], ["PUT", "/acl/token", "Token"], ["POST", "/discovery-chain/web", "Request"]] as const) {
      const response = await fetch(`${mesh.baseUrl}${path}`, { method });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe(`${prefix} decoding failed: EOF`);
    }
  });

  it("treats an empty ns or compile-dc as absent", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/web?ns=&compile-dc=`);
    expect(response.status).toBe(200);
    const { Chain } = await response.json();
    expect([Chain.Namespace, Chain.Datacenter]).toEqual(["default", "dc1"]);
  });

  it("answers malformed JSON with a plain-text 400", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/web`, { method: "POST", body: "{" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await response.text()).toMatch(/^Request decoding failed: /);
  });
});

describe("unknown routes", () => {
  it("answers an unknown path with a plain-text 404", async () => {
    const response = await fetch(`${mesh.baseUrl}/nope`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("answers an unsupported method with 405", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/web`, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  // The list's RPC endpoint checks the kind: its error is the HTTP layer's 500
  // (agent/consul/config_endpoint.go List, agent/http.go wrap).
  it("refuses an unknown kind in the path", async () => {
    const response = await fetch(`${mesh.baseUrl}/config/service-intentions`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("invalid config entry kind: service-intentions");
  });
});

// The agent reads the query parameters it needs and ignores the rest (agent/http.go parse, parseDC,
// parseToken): real clients send `dc`, `token` and others the description does not use.
describe("query parameters as the agent reads them", () => {
  it("ignores parameters an endpoint does not use", async () => {
    for (const query of ["pretty", "near=_agent", "filter=x", "cached"]) {
      expect((await fetch(`${mesh.baseUrl}/config/service-defaults?${query}`)).status).toBe(200);
    }
  });

  it("takes dc naming its own datacenter, and answers 500 No path to datacenter for any other", async () => {
    expect((await fetch(`${mesh.baseUrl}/discovery-chain/web?dc=dc1`)).status).toBe(200);
    const other = await fetch(`${mesh.baseUrl}/discovery-chain/web?dc=dc9`);
    expect(other.status).toBe(500);
    expect(await other.text()).toBe("No path to datacenter");
  });

  it("takes partition=default only", async () => {
    expect((await fetch(`${mesh.baseUrl}/config/service-defaults?partition=default`)).status).toBe(200);
    const other = await fetch(`${mesh.baseUrl}/config/service-defaults?partition=eu`);
    expect([other.status, await other.text()]).toEqual([400, 'Partition "eu" does not exist']);
    const bad = await fetch(`${mesh.baseUrl}/config/service-defaults?partition=a%2Fb`);
    expect(bad.status).toBe(400);
  });
});

describe("a token in the query (parseToken: ?token= first)", () => {
  it("is used, and wins over the header", async () => {
    await mesh.close();
    mesh = await startMesh({ managementToken: "root" });
    expect((await fetch(`${mesh.baseUrl}/discovery-chain/web?token=root`)).status).toBe(200);
    const wins = await fetch(`${mesh.baseUrl}/discovery-chain/web?token=nobody`, { headers: { "X-Mesh-Token": "root" } });
    expect([wins.status, await wins.text()]).toEqual([403, "ACL not found"]);
  });
});

// agent/http.go wrap: an endpoint with declared methods answers OPTIONS itself, 200 with
// `Allow: OPTIONS,<methods>` and no body, before the token or the handler is looked at
// (TestHTTPAPI_OptionMethod_OSS); a 405 lists OPTIONS first too.
describe("OPTIONS", () => {
  it("answers 200 with the endpoint's methods, OPTIONS first, whatever the token", async () => {
    await mesh.close();
    mesh = await startMesh({ managementToken: "root", version: "1.10.12" });
    for (const [path, allow] of [
      // In the agent's registration order (agent/http_register.go: GET, PUT, DELETE).
      ["/acl/policy/5e52a099-4c90-c067-5478-980f06be9af5", "OPTIONS,GET,PUT,DELETE"],
      ["/acl/token/self", "OPTIONS,GET"],
      ["/discovery-chain/web", "OPTIONS,GET,POST"],
      ["/discovery-chain/", "OPTIONS,GET,POST"],
      ["/acl/create", "OPTIONS,PUT"],
    ] as const) {
      const response = await fetch(`${mesh.baseUrl}${path}`, { method: "OPTIONS", headers: { "X-Mesh-Token": "nobody" } });
      expect([path, response.status, response.headers.get("allow"), await response.text()]).toEqual([path, 200, allow, ""]);
    }
  });

  it("is the Index handler's 404 on an ACL API the reported version does not have", async () => {
    await mesh.close();
    mesh = await startMesh({ managementToken: "root", version: "1.16.0" });
    for (const method of ["OPTIONS", "GET"]) {
      const legacy = await fetch(`${mesh.baseUrl}/acl/create`, { method });
      expect([method, legacy.status, await legacy.text()]).toEqual([method, 404, "Invalid URL path: not a recognized HTTP API endpoint\n"]);
    }
    await mesh.close();
    mesh = await startMesh({ managementToken: "root", version: "1.3.0" });
    const tokens = await fetch(`${mesh.baseUrl}/acl/policy`, { method: "OPTIONS" });
    expect([tokens.status, await tokens.text()]).toEqual([404, ""]);
  });

  it("is the Index handler's 404 on a path no endpoint serves, and OPTIONS leads a 405's Allow", async () => {
    const unknown = await fetch(`${mesh.baseUrl}/acl/auth-methods`, { method: "OPTIONS" });
    expect([unknown.status, unknown.headers.get("allow")]).toEqual([404, null]);
    const refused = await fetch(`${mesh.baseUrl}/config`, { method: "GET" });
    expect([refused.status, refused.headers.get("allow"), await refused.text()]).toEqual([405, "OPTIONS,PUT", "method GET not allowed"]);
  });
});

// agent/http.go marshalJSON: with `pretty` in the query (any value, or none), json.MarshalIndent
// with four spaces and a newline after it; without, json.Marshal's compact text.
describe("?pretty", () => {
  it("indents JSON answers by four spaces and ends them with a newline, per request", async () => {
    for (const query of ["?pretty", "?pretty=false", "?pretty&dc=dc1"]) {
      const response = await fetch(`${mesh.baseUrl}/discovery-chain/web${query}`);
      const text = await response.text();
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 4)}\n`);
      expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    }
    // The same read without it, before and after: compact, with no newline (a kept answer is not reused across the two forms).
    for (let i = 0; i < 3; i++) {
      const text = await (await fetch(`${mesh.baseUrl}/discovery-chain/web`)).text();
      expect(text).toBe(JSON.stringify(JSON.parse(text)));
    }
    const pretty = await (await fetch(`${mesh.baseUrl}/discovery-chain/web?pretty`)).text();
    expect(pretty.startsWith('{\n    "Chain": {\n        "')).toBe(true);
  });

  it("leaves plain-text errors as they are", async () => {
    const response = await fetch(`${mesh.baseUrl}/config/service-defaults/missing?pretty`);
    expect([response.status, await response.text()]).toEqual([404, "Config entry not found for \"service-defaults\" / \"missing\""]);
  });
});
