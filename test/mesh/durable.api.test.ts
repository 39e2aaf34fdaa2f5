// MESH_DATA_DIR: what the mesh acknowledged is there after kill -9 and a restart (configuration
// entries, ACL policies, roles and tokens, the raft-like index, the cluster id in target SNIs), and a
// directory that is not a mesh data directory stops the start with a clear error.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DataDirectory } from "../../server/shared/data-dir.ts";
import { MemoryAclStore } from "../../server/mesh/store/acl-store.ts";
import { entryScript, killHard, startChildServer } from "../helpers/child-server.ts";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

const ROOT = mkdtempSync(join(tmpdir(), "mesh-durable-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
let counter = 0;
const freshDir = () => join(ROOT, `data-${++counter}`);

const MANAGEMENT = "root-secret";

describe("in process: a second app on the same directory", () => {
  let mesh: RunningMesh | undefined;
  afterEach(async () => {
    await mesh?.close();
    mesh = undefined;
  });

  it("moves a management token stored under the anonymous token's accessor (before issue 24) to its own", async () => {
    const dataDir = freshDir();
    const data = DataDirectory.open(dataDir, "mesh");
    const old = new MemoryAclStore(data);
    old.tokens.put("00000000-0000-0000-0000-000000000002", {
      AccessorID: "00000000-0000-0000-0000-000000000002", SecretID: MANAGEMENT, Description: "Initial management token",
      Policies: [{ ID: "00000000-0000-0000-0000-000000000001", Name: "global-management" }], Roles: [], Local: false,
      Namespace: "default", CreateTime: "2026-01-01T00:00:00.000Z", Management: true,
    });
    data.close();
    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT });
    const self = (await mesh.clientWithToken(MANAGEMENT).GET("/acl/token/self")).data!;
    expect(self.AccessorID).not.toBe("00000000-0000-0000-0000-000000000002");
    expect(self.Description).toBe("Initial Management Token");
    const { data: tokens } = await mesh.clientWithToken(MANAGEMENT).GET("/acl/tokens");
    expect(tokens!.map((t) => [t.AccessorID === self.AccessorID ? "self" : t.AccessorID, t.SecretID])).toEqual(
      expect.arrayContaining([["00000000-0000-0000-0000-000000000002", "anonymous"], ["self", MANAGEMENT]]),
    );
    expect(tokens).toHaveLength(2);
    // A request without a token is the anonymous token again, not the management token.
    expect((await mesh.client.GET("/acl/tokens")).response.status).toBe(403);
    // And a restart keeps the accessor.
    await mesh.close();
    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT });
    expect((await mesh.clientWithToken(MANAGEMENT).GET("/acl/token/self")).data!.AccessorID).toBe(self.AccessorID);
  });

  it("starts from what the first one acknowledged and continues its indexes", async () => {
    const dataDir = freshDir();
    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT });
    const admin = mesh.clientWithToken(MANAGEMENT);
    await admin.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
    await admin.PUT("/config", { body: { Kind: "service-resolver", Name: "web", ConnectTimeout: "7s" }, params: { query: { ns: "team-a" } } });
    const policy = (await admin.PUT("/acl/policy", { body: { Name: "readers", Rules: 'service_prefix "" { policy = "read" }' } })).data!;
    const token = (await admin.PUT("/acl/token", { body: { Policies: [{ Name: "readers" }], SecretID: "6f7c1a52-3d1e-4c3b-9a55-2f1e0d9c8b71" } })).data!;
    await mesh.close();

    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT });
    const again = mesh.clientWithToken(MANAGEMENT);
    expect((await again.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } })).data).toMatchObject({ Protocol: "http", ModifyIndex: 1 });
    const resolver = await again.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" }, query: { ns: "team-a" } } });
    expect(resolver.data).toMatchObject({ ConnectTimeout: "7s", Namespace: "team-a", ModifyIndex: 2 });
    expect((await again.GET("/acl/policy/{id}", { params: { path: { id: policy.ID } } })).data).toEqual(policy);
    expect((await again.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: token.AccessorID } } })).data).toEqual(token);
    // The restored token works, and new writes continue the index.
    const reader = mesh.clientWithToken("6f7c1a52-3d1e-4c3b-9a55-2f1e0d9c8b71");
    expect((await reader.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } })).response.status).toBe(200);
    await again.PUT("/config", { body: { Kind: "service-defaults", Name: "api" } });
    expect((await again.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "api" } } })).data?.ModifyIndex).toBe(3);
  });

  it("keeps a delete, and the declared tokens of MESH_ACL_FILE are not duplicated by a restart", async () => {
    const dataDir = freshDir();
    const tokens = [{ SecretID: "declared", Rules: 'service "web" { policy = "read" }' }];
    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT, tokens });
    const admin = mesh.clientWithToken(MANAGEMENT);
    await admin.PUT("/config", { body: { Kind: "service-defaults", Name: "web" } });
    await admin.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    const accessors = mesh.service.acl["store"].tokens.all().filter((t) => t.SecretID === "declared").map((t) => t.AccessorID);
    await mesh.close();

    mesh = await startMesh({ dataDir, managementToken: MANAGEMENT, tokens });
    const again = mesh.clientWithToken(MANAGEMENT);
    expect((await again.GET("/config/{kind}", { params: { path: { kind: "service-defaults" } } })).data).toEqual([]);
    const after = mesh.service.acl["store"].tokens.all().filter((t) => t.SecretID === "declared").map((t) => t.AccessorID);
    expect(after).toEqual(accessors);
    expect(after).toHaveLength(1);
  });
});

// ---- the real process, killed with SIGKILL --------------------------------------------------

interface Child {
  process: ChildProcess;
  baseUrl: string;
  stdout: string;
}

/** Starts the mesh entry in a child process and resolves once it listens (or rejects with its stderr). */
async function startChild(env: Record<string, string>): Promise<Child> {
  try {
    const started = await startChildServer(entryScript("mesh"), { MESH_PORT: "0", HOST: "127.0.0.1", ...env });
    return { process: started.process, baseUrl: /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(started.stdout)![1]!, stdout: started.stdout };
  } catch (error) {
    const { stderr, code } = error as { stderr: string; code: number | null };
    throw Object.assign(new Error(stderr.trim()), { code });
  }
}

const kill9 = (child: Child) => killHard(child.process);

async function call(child: Child, method: string, path: string, body?: unknown) {
  const response = await fetch(`${child.baseUrl}${path}`, {
    method,
    headers: { "X-Mesh-Token": MANAGEMENT },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.startsWith("application/json");
  return { status: response.status, body: json ? JSON.parse(text) : text };
}

describe("crash safety: kill -9 and a restart on MESH_DATA_DIR", () => {
  const children: Child[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.process.kill("SIGKILL");
  });

  it("keeps every acknowledged write", async () => {
    const env = { MESH_DATA_DIR: freshDir(), MESH_MANAGEMENT_TOKEN: MANAGEMENT, MESH_DATACENTER: "dc1" };
    const first = await startChild(env);
    children.push(first);
    expect(first.stdout).toContain("(new)");

    const entries = [
      { Kind: "proxy-defaults", Name: "global", Config: { protocol: "http" } },
      { Kind: "service-defaults", Name: "web", Protocol: "http" },
      { Kind: "service-resolver", Name: "web", ConnectTimeout: 3_000_000_000, Subsets: { v1: { Filter: "Service.Meta.v == 1" } } },
      { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 90, ServiceSubset: "v1" }, { Weight: 10 }] },
      { Kind: "service-router", Name: "web", Routes: [{ Match: { HTTP: { PathPrefix: "/v1" } }, Destination: { ServiceSubset: "v1" } }] },
      { Kind: "service-defaults", Name: "gone" },
    ];
    for (const entry of entries) expect(await call(first, "PUT", "/config", entry)).toEqual({ status: 200, body: true });
    expect((await call(first, "DELETE", "/config/service-defaults/gone")).status).toBe(200);
    const policy = (await call(first, "PUT", "/acl/policy", { Name: "web-read", Rules: 'service "web" { policy = "read" }' })).body;
    const role = (await call(first, "PUT", "/acl/role", { Name: "readers", Policies: [{ ID: policy.ID }] })).body;
    const token = (await call(first, "PUT", "/acl/token", { SecretID: "4e0f2b8a-91c7-4d2e-b3a6-7c5d8e9f0a12", Roles: [{ Name: "readers" }] })).body;
    const chain = (await call(first, "GET", "/discovery-chain/web")).body;
    const listed = (await call(first, "GET", "/config/service-defaults")).body;

    await kill9(first);
    const second = await startChild(env);
    children.push(second);
    expect(second.stdout).toContain("(reopened)");

    expect((await call(second, "GET", "/config/service-defaults")).body).toEqual(listed);
    expect((await call(second, "GET", "/config/service-defaults/gone")).status).toBe(404);
    expect((await call(second, "GET", "/config/service-resolver/web")).body).toMatchObject({ ConnectTimeout: "3s", ModifyIndex: 3 });
    // Same entries, same cluster id: the same chain, SNIs included.
    expect((await call(second, "GET", "/discovery-chain/web")).body).toEqual(chain);
    expect((await call(second, "GET", `/acl/policy/${policy.ID}`)).body).toEqual(policy);
    expect((await call(second, "GET", `/acl/role/${role.ID}`)).body).toEqual(role);
    expect((await call(second, "GET", `/acl/token/${token.AccessorID}`)).body).toEqual(token);
    const asReader = await fetch(`${second.baseUrl}/discovery-chain/web`, { headers: { "X-Mesh-Token": "4e0f2b8a-91c7-4d2e-b3a6-7c5d8e9f0a12" } });
    expect(asReader.status).toBe(200);
    // The index goes on from where it was: 6 writes and a delete came before.
    expect(await call(second, "PUT", "/config", { Kind: "service-defaults", Name: "api" })).toEqual({ status: 200, body: true });
    expect((await call(second, "GET", "/config/service-defaults/api")).body.ModifyIndex).toBe(8);
  }, 90_000);

  it("refuses a directory with foreign files, a damaged database or another service's data, naming it", async () => {
    const foreign = freshDir();
    mkdirSync(foreign, { recursive: true });
    writeFileSync(join(foreign, "notes.txt"), "mine");
    const damaged = freshDir();
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, "state.db"), "this is not a database, just text long enough to look like one ".repeat(20));
    const secrets = freshDir();
    DataDirectory.open(secrets, "secrets").close();

    for (const [dir, why] of [
      [foreign, /holds files that are not a mesh data directory's \(notes\.txt\)/],
      [damaged, /state\.db is not a readable database/],
      [secrets, /belongs to the secrets service, not to the mesh service/],
    ] as const) {
      const failure = await startChild({ MESH_DATA_DIR: dir }).then(
        (child) => {
          children.push(child);
          throw new Error(`started on ${dir}`);
        },
        (error: Error & { code?: number }) => error,
      );
      expect(failure.code).toBe(1);
      expect(failure.message).toMatch(/^could not start: data directory /);
      expect(failure.message).toContain(dir);
      expect(failure.message).toMatch(why);
    }
  }, 90_000);
});
