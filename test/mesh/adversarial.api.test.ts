// Hostile input against the mesh (issue 11): every finding of the attack is a regression test here.
// Each test is bounded (small fast-check runs, short waits): the suite runs in CI.
import { createServer, request as httpRequest, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMeshApp, MESH_BASE_PATH } from "../../server/mesh/app.ts";
import { parseWait } from "../../server/mesh/blocking.ts";
import { checkBodyShape } from "../../server/mesh/domain/body-limits.ts";
import { entryKey, entryKeyPrefix } from "../../server/mesh/store/config-entry-store.ts";
import { ENTRY_KINDS } from "../../server/mesh/domain/entries.ts";
import { denied, startMesh, type RunningMesh } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";
const TEAM_A = "team-a-secret";

let mesh: RunningMesh | undefined;
afterEach(async () => {
  await mesh?.close();
  mesh = undefined;
  vi.restoreAllMocks();
});

const withAcls = () =>
  startMesh({
    managementToken: MANAGEMENT,
    tokens: [{ AccessorID: "a2", SecretID: TEAM_A, Namespace: "team-a", Rules: 'service_prefix "" { policy = "write" }' }],
  });

async function raw(path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; text: string; type: string | null }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("X-Mesh-Token", init.token);
  const response = await fetch(`${mesh!.baseUrl}${path}`, { ...init, headers });
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

const put = (body: unknown, query = "", token = MANAGEMENT) =>
  raw(`/config${query}`, { method: "PUT", body: typeof body === "string" ? body : JSON.stringify(body), token });

describe("namespace escape (names holding '/', namespaces that are not labels)", () => {
  it("a team-a token writing Name 'prod/web' writes exactly that entry of team-a, nothing of another namespace", async () => {
    mesh = await withAcls();
    // The victim: `web` in namespace `prod`, written by the management token.
    expect((await put({ Kind: "service-defaults", Name: "web", Protocol: "http" }, "?ns=prod")).status).toBe(200);

    expect((await put({ Kind: "service-defaults", Name: "prod/web", Protocol: "grpc" }, "", TEAM_A)).text).toBe("true");
    const own = await raw("/config/service-defaults/prod%2Fweb", { token: TEAM_A });
    expect(JSON.parse(own.text)).toMatchObject({ Name: "prod/web", Namespace: "team-a", Protocol: "grpc" });

    const victim = await raw("/config/service-defaults/web?ns=prod", { token: MANAGEMENT });
    expect(JSON.parse(victim.text)).toMatchObject({ Name: "web", Namespace: "prod", Protocol: "http", ModifyIndex: 1 });

    expect((await raw("/config/service-defaults/prod%2Fweb", { method: "DELETE", token: TEAM_A })).status).toBe(200);
    expect((await raw("/config/service-defaults/web?ns=prod", { token: MANAGEMENT })).status).toBe(200);
  });

  // agent/config_endpoint.go: strings.SplitN(kind/name, "/", 2) on the decoded path: the name is
  // everything after the kind, `/` included; the ACL check and the handler see that one name.
  it("reads and deletes a name holding '/' sent unencoded, and checks ACLs on that whole name", async () => {
    mesh = await startMesh({
      managementToken: MANAGEMENT,
      tokens: [{ AccessorID: "a3", SecretID: "web-writer", Rules: 'service "web" { policy = "write" }' }],
    });
    await put({ Kind: "service-defaults", Name: "web/x", Protocol: "http" });
    await put({ Kind: "service-defaults", Name: "web", Protocol: "grpc" });
    expect(JSON.parse((await raw("/config/service-defaults/web/x", { token: MANAGEMENT })).text)).toMatchObject({ Name: "web/x" });
    // A trailing slash is part of the name, as in the real handler.
    expect((await raw("/config/service-defaults/web/", { token: MANAGEMENT })).text).toBe('Config entry not found for "service-defaults" / "web/"');
    // A token that may write `web` may not delete `web/x` by sending its `/` unencoded.
    const refused = await raw("/config/service-defaults/web/x", { method: "DELETE", token: "web-writer" });
    expect([refused.status, refused.text]).toEqual([403, denied("a3", "service:write", "web/x")]);
    expect((await raw("/config/service-defaults/web/x", { method: "DELETE", token: MANAGEMENT })).status).toBe(200);
    expect(JSON.parse((await raw("/config/service-defaults", { token: MANAGEMENT })).text).map((e: { Name: string }) => e.Name)).toEqual(["web"]);
  });

  it("refuses a team-a token in another namespace, however it is named", async () => {
    mesh = await withAcls();
    for (const query of ["?ns=prod", "?ns=default"]) {
      const { status, text } = await put({ Kind: "service-defaults", Name: "web" }, query, TEAM_A);
      expect(status).toBe(403);
      expect(text).toBe(denied("a2", "service:write", "web"));
    }
    const inBody = await put({ Kind: "service-defaults", Name: "web", Namespace: "prod" }, "", TEAM_A);
    expect(inBody.status).toBe(403);
  });

  it.each(["team-a/prod", "team-a%2Fprod", "..", "a.b", "-a", "a-", "a".repeat(64), "with space", "ü"])(
    "refuses the namespace %j in ns, in X-Mesh-Namespace and in the body with 400",
    async (ns) => {
      mesh = await withAcls();
      const viaQuery = await raw(`/config/service-defaults/web?ns=${encodeURIComponent(ns)}`, { token: MANAGEMENT });
      expect(viaQuery.status).toBe(400);
      expect(viaQuery.text).toMatch(/^Invalid namespace name .*: must be a valid DNS hostname label$/);
      expect(viaQuery.type).toMatch(/^text\/plain/);
      if (/^[\x20-\x7e]*$/.test(ns)) {
        const viaHeader = await raw("/discovery-chain/web", { token: MANAGEMENT, headers: { "X-Mesh-Namespace": ns } });
        expect(viaHeader.status).toBe(400);
      }
      const viaBody = await put({ Kind: "service-resolver", Name: "web", Namespace: ns });
      expect(viaBody.status).toBe(400);
      expect((await raw("/config/service-resolver", { token: MANAGEMENT })).text).toBe("[]");
    },
  );

  it("refuses token namespaces and partitions that are not labels", async () => {
    mesh = await withAcls();
    for (const [field, value] of [["Namespace", "team-a/prod"], ["Partition", "../default"]] as const) {
      const response = await raw("/acl/token", { method: "PUT", token: MANAGEMENT, body: JSON.stringify({ [field]: value }) });
      expect(response.status).toBe(400);
      expect(response.text).toMatch(new RegExp(`^Invalid Token: Invalid ${field.toLowerCase()} name`));
    }
  });

  it("store keys are unambiguous: distinct (kind, namespace, name) never share a key or a list prefix", () => {
    const part = fc.string({ unit: fc.constantFrom("a", "/", '"', ",", "\\", "[", "]", "%", ".", "é"), maxLength: 6 });
    const kind = fc.constantFrom(...ENTRY_KINDS);
    fc.assert(
      fc.property(kind, part, part, kind, part, part, (k1, ns1, n1, k2, ns2, n2) => {
        const same = k1 === k2 && ns1 === ns2 && n1 === n2;
        expect(entryKey(k1, ns1, n1) === entryKey(k2, ns2, n2)).toBe(same);
        const inList = k1 === k2 && ns1 === ns2;
        expect(entryKey(k1, ns1, n1).startsWith(entryKeyPrefix(k2, ns2))).toBe(inList);
      }),
      { numRuns: 2_000 },
    );
  });

  it("any name round-trips through write, read (encoded) and delete, and touches no other entry", async () => {
    mesh = await startMesh();
    await put({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    const names = fc.string({ unit: fc.constantFrom("w", "e", "b", "/", "%", ".", "?", "#", " ", "é", "*"), minLength: 1, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        // "." and ".." are dot segments to every URL parser, encoded or not (as in the real product):
        // such entries can be written but not addressed by path.
        fc.pre(name !== "web" && name !== "." && name !== "..");
        expect((await put({ Kind: "service-defaults", Name: name, Protocol: "grpc" })).text).toBe("true");
        const read = await raw(`/config/service-defaults/${encodeURIComponent(name)}`);
        expect(JSON.parse(read.text)).toMatchObject({ Name: name, Protocol: "grpc" });
        expect((await raw(`/config/service-defaults/${encodeURIComponent(name)}`, { method: "DELETE" })).status).toBe(200);
        expect(JSON.parse((await raw("/config/service-defaults/web")).text)).toMatchObject({ Protocol: "http", ModifyIndex: 1 });
      }),
      { numRuns: 25 },
    );
  });
});

describe("deep and large bodies are 400 in the plain-text envelope, checked before anything recurses", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "x";
    for (let i = 0; i < depth; i++) value = { k: value };
    return value;
  };
  /** The JSON text of nested(depth), built without JSON.stringify (whose recursion would overflow first). */
  const nestedJson = (depth: number): string => `${'{"k":'.repeat(depth)}"x"${"}".repeat(depth)}`;

  it("a Meta value nested 5,000 deep: 400 before the body is parsed, for a token or the anonymous one", async () => {
    mesh = await withAcls();
    for (const token of [MANAGEMENT, TEAM_A, undefined]) {
      const response = await raw("/config", {
        method: "PUT",
        body: `{"Kind": "service-defaults", "Name": "web", "Meta": {"a": ${nestedJson(5_000)}}}`,
        ...(token ? { token } : {}),
      });
      expect(response.status).toBe(400);
      expect(response.type).toMatch(/^text\/plain/);
      expect(response.text).toBe("Request decoding failed: JSON nested more than 32 levels deep");
    }
  });

  it("an unknown token is refused before its body is read; an oversized body before it is read", async () => {
    mesh = await withAcls();
    const unknown = await raw("/config", { method: "PUT", token: "nobody", body: `[${nestedJson(5_000)}]` });
    expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
    // Content-Length far over the limit, and only a few bytes sent: answered at once, not read.
    const url = new URL(`${mesh.baseUrl}/config`);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: "PUT", headers: { "Content-Length": "99999999999999", "X-Mesh-Token": MANAGEMENT } },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.write("{");
    });
    expect(answer).toEqual({ status: 413, text: "request entity too large" });
  });

  // Each endpoint words a body it cannot decode with its own prefix (agent/acl_endpoint.go
  // aclPolicyWriteInternal `Policy decoding failed`, aclTokenSetInternal `Token decoding failed`).
  it.each([
    ["POST", "/discovery-chain/web", `{"OverrideMeshGateway": ${nestedJson(5_000)}}`, "Request decoding failed"],
    ["PUT", "/acl/policy", `{"Name": "p", "Rules": ${nestedJson(5_000)}}`, "Policy decoding failed"],
    ["PUT", "/acl/token", `{"Policies": [${nestedJson(5_000)}]}`, "Token decoding failed"],
    ["PUT", "/config", `[${nestedJson(5_000)}]`, "Request decoding failed"],
  ])("%s %s with a body nested 5,000 deep", async (method, path, body, prefix) => {
    mesh = await withAcls();
    const response = await raw(path, { method, body, token: MANAGEMENT });
    expect(response.status).toBe(400);
    expect(response.text).toMatch(new RegExp(`^${prefix}: JSON nested more than 32 levels deep`));
  });

  it("counts values without recursion, whatever the shape", () => {
    expect(checkBodyShape(nested(1_000_000))).toMatch(/nested more than 32/);
    expect(checkBodyShape({ a: Array.from({ length: 200_000 }, () => 1) })).toMatch(/more than 100000 values/);
    expect(checkBodyShape({ Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { Header: [{ Name: "x", Exact: "y" }] } } }] })).toBeUndefined();
  });

  it("Meta within Consul's limits: 64 pairs, keys of 128, values of 512 (500 with its messages otherwise)", async () => {
    mesh = await startMesh();
    const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));
    expect((await put({ Kind: "service-defaults", Name: "web", Meta: pairs(64) })).status).toBe(200);
    for (const [meta, message] of [
      [pairs(65), "Meta exceeds maximum element count 64"],
      [{ ["k".repeat(129)]: "v" }, `Meta key "${"k".repeat(129)}" exceeds maximum length 128`],
      [{ k: "v".repeat(513) }, 'Meta value for key "k" exceeds maximum length 512'],
    ] as const) {
      const response = await put({ Kind: "service-defaults", Name: "api", Meta: meta });
      expect(response.status).toBe(500);
      expect(response.text).toBe(message);
    }
    expect((await raw("/config/service-defaults/api")).status).toBe(404);
  });
});

describe("wait and index as the agent parses them (agent/http.go parseWait)", () => {
  it.each(["99999999999999999h", "abc", "30", "1x", "-"])("wait=%s is 400 Invalid wait time", async (wait) => {
    mesh = await startMesh();
    const response = await raw(`/discovery-chain/web?index=1&wait=${encodeURIComponent(wait)}`);
    expect(response).toMatchObject({ status: 400, text: "Invalid wait time" });
    expect(response.type).toMatch(/^text\/plain/);
  });

  it.each(["-1", "abc", "1.5", "18446744073709551616"])("index=%s is 400 Invalid index", async (index) => {
    mesh = await startMesh();
    for (const path of ["/discovery-chain/web", "/config/service-defaults", "/config/service-defaults/web"]) {
      expect(await raw(`${path}?index=${index}`)).toMatchObject({ status: 400, text: "Invalid index" });
    }
  });

  it("caps waits at 10 minutes, and takes zero or negative waits as the 5-minute default", () => {
    expect(parseWait("20m", "1").waitMs).toBe(600_000);
    expect(parseWait("1h30m", undefined).waitMs).toBe(600_000);
    expect(parseWait("0s", "1").waitMs).toBe(300_000);
    expect(parseWait("-5s", "1").waitMs).toBe(300_000);
    expect(parseWait("1.5s", "1")).toEqual({ waitMs: 1_500, index: 1 });
    expect(parseWait(undefined, "18446744073709551615").index).toBe(2 ** 64);
  });
});

describe("blocking queries keep one close listener, however often they wake", () => {
  it("15+ wake-ups that do not reach the index add no listener and raise no warning", async () => {
    const { app, service } = createMeshApp({ clusterId: "c" });
    const responses: ServerResponse[] = [];
    const server: Server = createServer((req, res) => {
      responses.push(res);
      app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${MESH_BASE_PATH}`;
      const controller = new AbortController();
      // An index far ahead: every write of `web` wakes the query, none reaches the index.
      const blocked = fetch(`${base}/discovery-chain/web?index=1000000&wait=30s`, { signal: controller.signal }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      const [res] = responses;
      const before = res!.listenerCount("close");
      for (let i = 1; i <= 20; i++) {
        service.applyEntry({ namespace: "default" }, { Kind: "service-resolver", Name: "web", ConnectTimeout: `${i}s` }, undefined);
        await new Promise((r) => setImmediate(r));
        expect(res!.listenerCount("close")).toBe(before);
      }
      controller.abort();
      await blocked;
      await new Promise((r) => setTimeout(r, 50));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe("clients that go away are not server errors", () => {
  it("logs nothing when a client aborts mid-body or leaves a blocking query", async () => {
    mesh = await startMesh();
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const url = new URL(`${mesh.baseUrl}/config`);
    await new Promise<void>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "PUT", headers: { "Content-Length": "1000" } });
      req.on("error", () => resolve());
      req.write('{"Kind": "service-defaults", ');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const controller = new AbortController();
    const blocked = fetch(`${mesh.baseUrl}/discovery-chain/web?index=5&wait=10s`, { signal: controller.signal }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    await blocked;
    await new Promise((r) => setTimeout(r, 200));
    expect(errors).not.toHaveBeenCalled();
    expect((await raw("/config/service-defaults")).text).toBe("[]");
  });
});
