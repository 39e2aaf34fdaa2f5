// Conformance with a real client (issue 12): the `consul` npm package (2.0.1), unchanged, drives the
// mesh reference server on the endpoints it covers (agent/self and the legacy ACL token API; it has
// no calls for configuration entries, discovery chains or the 1.4+ token API). The only shim is a
// proxy that renames the client's token header (X-Consul-Token -> X-Mesh-Token) and the server's
// index headers back (X-Mesh-* -> X-Consul-*). Each case names the real source it follows.
import Consul from "consul";
import { describe, expect, it } from "vitest";
import type { ConsulShim } from "../helpers/consul-shim.ts";
import { shimmedMeshesPerTest } from "../helpers/mesh-consul.ts";
import type { RunningMesh } from "../helpers/mesh.ts";

const MANAGEMENT = "root-secret";

const shimmedMesh = shimmedMeshesPerTest();
let mesh: RunningMesh | undefined;
let proxy: ConsulShim | undefined;

async function consulFor(options: Parameters<typeof shimmedMesh>[0], token?: string) {
  ({ mesh, shim: proxy } = await shimmedMesh(options));
  return new Consul({ host: "127.0.0.1", port: proxy.port, ...(token ? { defaults: { token } } : {}) });
}

describe("agent.self (agent/agent_endpoint.go AgentSelf; api/agent.go Self)", () => {
  it("answers the agent's configuration: datacenter, node name and version", async () => {
    const consul = await consulFor({ version: "1.6.0", datacenter: "dc7", nodeName: "node-a" });
    const self = (await consul.agent.self()) as { Config: Record<string, unknown> };
    expect(self.Config).toMatchObject({ Datacenter: "dc7", NodeName: "node-a", Version: "1.6.0", Server: true });
  });

  it("refuses a token without agent:read with 403 Permission denied (acl.ErrPermissionDenied)", async () => {
    const consul = await consulFor({ managementToken: MANAGEMENT }, "unknown-to-acls-but-sent");
    await expect(consul.agent.self()).rejects.toMatchObject({ statusCode: 403, message: "ACL not found" });
    const anonymous = new Consul({ host: "127.0.0.1", port: proxy!.port });
    // From 1.11 the refusal names the anonymous token's accessor; papi (the client's HTTP layer) takes a
    // text body as the message only under 80 characters, so the client says "forbidden".
    await expect(anonymous.agent.self()).rejects.toMatchObject({ statusCode: 403, message: "forbidden" });
  });

  it("before 1.11 the refusal is the bare Permission denied", async () => {
    await consulFor({ managementToken: MANAGEMENT, version: "1.10.12" });
    const anonymous = new Consul({ host: "127.0.0.1", port: proxy!.port });
    await expect(anonymous.agent.self()).rejects.toMatchObject({ statusCode: 403, message: "Permission denied" });
  });
});

describe("legacy ACL tokens (agent/acl_endpoint_legacy.go ACLCreate, ACLGet, ACLDestroy; api/acl.go Create, Info, Destroy)", () => {
  it("creates a client token, reads it back by its ID, destroys it, and then reads nothing", async () => {
    const consul = await consulFor({ version: "1.10.0", managementToken: MANAGEMENT }, MANAGEMENT);
    const rules = 'service "web" { policy = "read" }';
    const created = (await consul.acl.legacy.create({ name: "web reader", type: "client", rules })) as { ID: string };
    expect(created.ID).toMatch(/^[0-9a-f-]{36}$/);

    const info = (await consul.acl.legacy.info(created.ID)) as unknown as Record<string, unknown>;
    expect(info).toMatchObject({ ID: created.ID, Name: "web reader", Type: "client", Rules: rules });
    expect(info.CreateIndex).toEqual(expect.any(Number));

    // The token it created works as a token: it may read web's chain, nothing else.
    const asToken = await fetch(`${mesh!.baseUrl}/discovery-chain/web`, { headers: { "X-Mesh-Token": created.ID } });
    expect(asToken.status).toBe(200);

    await consul.acl.legacy.destroy(created.ID);
    expect(await consul.acl.legacy.info(created.ID)).toBeUndefined();
    // Destroying a token that does not exist succeeds, as in the real endpoint.
    await expect(consul.acl.legacy.destroy(created.ID)).resolves.toBeUndefined();
  });

  it("creates a management token that may do everything (structs.ACLTokenTypeManagement)", async () => {
    const consul = await consulFor({ version: "1.10.0", managementToken: MANAGEMENT }, MANAGEMENT);
    const created = (await consul.acl.legacy.create({ name: "ops", type: "management" })) as { ID: string };
    expect(await consul.acl.legacy.info(created.ID)).toMatchObject({ Name: "ops", Type: "management", Rules: "" });
    const asOps = new Consul({ host: "127.0.0.1", port: proxy!.port, defaults: { token: created.ID } });
    expect(((await asOps.agent.self()) as { Config: { Version: string } }).Config.Version).toBe("1.10.0");
  });

  it("answers 401 ACL support disabled when ACLs are off (checkACLDisabled)", async () => {
    const consul = await consulFor({ version: "1.10.0" });
    await expect(consul.acl.legacy.create({ name: "x" })).rejects.toMatchObject({ statusCode: 401, message: "ACL support disabled" });
  });

  it("refuses a token without acl:write with 403 (acl.ErrPermissionDenied)", async () => {
    const consul = await consulFor(
      { version: "1.10.0", managementToken: MANAGEMENT, tokens: [{ SecretID: "reader", Rules: 'service "web" { policy = "read" }' }] },
      "reader",
    );
    await expect(consul.acl.legacy.create({ name: "x" })).rejects.toMatchObject({ statusCode: 403, message: expect.stringMatching(/^Permission denied/) });
  });

  it("has no legacy API from 1.11 on (the endpoints were removed in 1.11)", async () => {
    const consul = await consulFor({ version: "1.11.0", managementToken: MANAGEMENT }, MANAGEMENT);
    await expect(consul.acl.legacy.create({ name: "x" })).rejects.toMatchObject({ statusCode: 404 });
  });
});
