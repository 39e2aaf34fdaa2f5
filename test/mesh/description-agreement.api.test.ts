// The description says what the server does (issue 24): the input rules it states are the ones the
// server enforces, in both directions, and the statuses it lists for every operation are answered
// with the described body.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { loadBundle } from "../../server/shared/openapi.ts";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

const bundle = loadBundle("mesh") as unknown as {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components: { schemas: Record<string, { oneOf?: { pattern?: string }[] }>; parameters: Record<string, { schema: { pattern: string; maxLength: number } }> };
};

let mesh: RunningMesh | undefined;
afterEach(async () => {
  await mesh?.close();
  mesh = undefined;
});

async function send(path: string, init: RequestInit = {}): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(mesh!.baseUrl + path, init);
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

describe("durations: the pattern of the description is the server's parser", () => {
  const pattern = new RegExp(bundle.components.schemas.DurationInput!.oneOf![0]!.pattern!, "u");
  const samples = ["", "5", "5s", "1.5h", ".5s", "5.s", "0", "-0", "+1s", "-1s", "1µs", "1μs", "1us", "250ms", "1h2m3s4ms5us6ns", "s", ".s", "1d", "1 s", " 1s", "1S", "0s", "+0"];

  it.each(samples)("%j: allowed by the description exactly when the server takes it", async (duration) => {
    mesh ??= await startMesh();
    const answer = await send("/discovery-chain/web", { method: "POST", body: JSON.stringify({ OverrideConnectTimeout: duration }) });
    expect(answer.status === 200, `${answer.status} ${answer.text}`).toBe(pattern.test(duration));
    if (answer.status !== 200) {
      expect(answer.status).toBe(400);
      expect(answer.text).toMatch(/^Request decoding failed: 1 error\(s\) decoding:\n\n\* error decoding 'OverrideConnectTimeout': time: /);
    }
  });

  it("an empty duration is refused with the parser's words, in entries, overrides and token TTLs", async () => {
    mesh = await startMesh({ managementToken: "root" });
    const headers = { "X-Mesh-Token": "root" };
    expect(await send("/config", { method: "PUT", headers, body: JSON.stringify({ Kind: "service-resolver", Name: "web", ConnectTimeout: "" }) })).toMatchObject({
      status: 400,
      text: `Request decoding failed: 1 error(s) decoding:\n\n* error decoding 'ConnectTimeout': time: invalid duration ""`,
    });
    expect(await send("/discovery-chain/web", { method: "POST", headers, body: JSON.stringify({ OverrideConnectTimeout: "" }) })).toMatchObject({
      status: 400,
      text: `Request decoding failed: 1 error(s) decoding:\n\n* error decoding 'OverrideConnectTimeout': time: invalid duration ""`,
    });
    expect(await send("/acl/token", { method: "PUT", headers, body: JSON.stringify({ ExpirationTTL: "" }) })).toMatchObject({
      status: 400,
      text: 'Token decoding failed: time: invalid duration ""',
    });
  });

  it("a duration the pattern allows but that overflows is the documented 400", async () => {
    mesh = await startMesh();
    expect(pattern.test("99999999999999999h")).toBe(true);
    const answer = await send("/discovery-chain/web", { method: "POST", body: JSON.stringify({ OverrideConnectTimeout: "99999999999999999h" }) });
    expect(answer).toMatchObject({ status: 400, text: `Request decoding failed: 1 error(s) decoding:\n\n* error decoding 'OverrideConnectTimeout': time: invalid duration "99999999999999999h"` });
  });
});

describe("namespaces: ns and X-Mesh-Namespace as the description constrains them", () => {
  const { pattern, maxLength } = bundle.components.parameters.Namespace!.schema;
  const header = bundle.components.parameters.NamespaceHeader!.schema;
  const samples = ["", "a", "team-a", "A1", "-a", "a-", "a_b", "a.b", "a".repeat(63), "a".repeat(64), "ü"];
  const allowed = (ns: string) => new RegExp(pattern, "u").test(ns) && ns.length <= maxLength;

  it("the header has the parameter's rule", () => {
    expect(header).toEqual(bundle.components.parameters.Namespace!.schema);
  });

  it.each(samples)("%j: allowed by the description exactly when the server takes it", async (ns) => {
    mesh ??= await startMesh();
    const viaQuery = await send(`/config/service-defaults?ns=${encodeURIComponent(ns)}`);
    expect(viaQuery.status === 200, `${viaQuery.status} ${viaQuery.text}`).toBe(allowed(ns));
    if (!allowed(ns)) expect(viaQuery.text).toBe(`Invalid namespace name ${JSON.stringify(ns)}: must be a valid DNS hostname label`);
    if (/^[\x20-\x7e]*$/.test(ns)) {
      const viaHeader = await send("/config/service-defaults", { headers: { "X-Mesh-Namespace": ns } });
      expect(viaHeader.status === 200).toBe(allowed(ns));
    }
  });
});

describe("statuses every operation documents", () => {
  const operations = Object.values(bundle.paths).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => method !== "parameters")
      .map(([, operation]) => operation),
  );

  it("every operation documents 400, 403, 413, 431 and 500", () => {
    for (const operation of operations) {
      expect(Object.keys(operation.responses ?? {})).toEqual(expect.arrayContaining(["400", "403", "413", "431", "500"]));
    }
  });

  it("413: a body over 1 MB, by Content-Length, as text", async () => {
    mesh = await startMesh();
    const answer = await send("/agent/self", { method: "GET", headers: { "Content-Type": "application/json" }, body: undefined });
    expect(answer.status).toBe(200);
    const big = await send("/config", { method: "PUT", body: JSON.stringify({ Kind: "service-defaults", Name: "web", Meta: { k: "x".repeat(1024 * 1024) } }) });
    expect(big).toMatchObject({ status: 413, text: "request entity too large", type: "text/plain; charset=utf-8" });
  });

  it("431: request line and headers over 16 KB, with no body", async () => {
    mesh = await startMesh();
    const url = new URL(`${mesh.baseUrl}/agent/self?q=${"x".repeat(20_000)}`);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer).toEqual({ status: 431, body: "" });
  });

  it("500: a dc other than the server's own, on any operation", async () => {
    mesh = await startMesh({ managementToken: "root" });
    for (const path of ["/agent/self?dc=dc9", "/acl/tokens?dc=dc9", "/config/service-defaults?dc=dc9"]) {
      expect(await send(path, { headers: { "X-Mesh-Token": "root" } }), path).toMatchObject({ status: 500, text: "No path to datacenter" });
    }
  });

  // The agent's mux sends every path it has no endpoint for to its Index handler (agent/http.go
  // Index), which from 1.9 on says why in a line (fmt.Fprintln) and before wrote the bare status.
  it("a path no endpoint serves: the Index handler's 404, whatever the token and body", async () => {
    mesh = await startMesh({ managementToken: "root" });
    const response = await fetch(`${mesh.baseUrl}/acl/auth-methods`, { headers: { "X-Mesh-Token": "unknown" } });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("Invalid URL path: not a recognized HTTP API endpoint\n");
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const withBody = await send("/acl/rules/translate", { method: "POST", body: 'agent "" { policy = "read" }' });
    expect(withBody).toMatchObject({ status: 404, text: "Invalid URL path: not a recognized HTTP API endpoint\n" });
    const outside = await fetch(mesh.baseUrl.replace(/\/v1$/, "/v2/kv"));
    expect([outside.status, await outside.text()]).toEqual([404, "Invalid URL path: if attempting to use the HTTP API, ensure the path starts with '/v1/'\n"]);
  });

  it("a path no endpoint serves, on a server before 1.9: 404 with no body", async () => {
    mesh = await startMesh({ managementToken: "root", version: "1.8.5" });
    const response = await fetch(`${mesh.baseUrl}/acl/auth-methods`, { headers: { "X-Mesh-Token": "root" } });
    expect([response.status, await response.text(), response.headers.get("content-type")]).toEqual([404, "", null]);
  });
});
