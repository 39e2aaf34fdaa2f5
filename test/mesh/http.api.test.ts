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

  it("refuses an unknown kind in the path", async () => {
    const response = await fetch(`${mesh.baseUrl}/config/service-intentions`);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/path parameter "kind" must be equal to one of the allowed values/);
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
