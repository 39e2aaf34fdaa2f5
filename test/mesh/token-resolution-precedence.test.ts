// How the mesh resolves the token of a request into what it may do, as the real server does
// (agent/consul/acl.go ResolveToken and agent/structs/acl.go): with ACLs off nothing is checked; no
// token is the anonymous token; an unknown or expired token is "ACL not found" (403); a token's
// permissions are its own rules, its policies and the policies of its roles, read at request time
// (a deleted policy or role no longer grants anything); the built-in global-management policy makes
// a management token. The clock is the service's own, so expiry is tested without waiting.
import { describe, expect, it } from "vitest";
import { isAllowed } from "../../server/mesh/domain/acl.ts";
import { MeshAcl } from "../../server/mesh/acl-service.ts";
import { MeshHttpError } from "../../server/mesh/errors.ts";
import { MemoryAclStore } from "../../server/mesh/store/acl-store.ts";

const ROOT = "root-secret";
const START = Date.parse("2026-01-01T00:00:00.000Z");

function setup(declared: ConstructorParameters<typeof MeshAcl>[0]["tokens"] = []) {
  let now = START;
  const acl = new MeshAcl({ managementToken: ROOT, tokens: declared, legacyApi: false, tokenApi: true, datacenter: "dc1" }, new MemoryAclStore(), () => new Date(now));
  const root = acl.resolve(ROOT);
  return {
    acl,
    root,
    advance: (ms: number) => (now += ms),
    can: (secret: string | undefined, service: string, access: "read" | "write" = "read", namespace = "default") =>
      isAllowed(acl.resolve(secret)!, namespace, { type: "service", name: service }, access),
  };
}

const notFound = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MeshHttpError);
    return { status: (error as MeshHttpError).status, message: (error as Error).message };
  }
  return "resolved";
};

describe("resolving a token", () => {
  it("with ACLs off there is no authorizer: nothing is checked", () => {
    const acl = new MeshAcl({ tokens: [], legacyApi: false, tokenApi: true, datacenter: "dc1" });
    expect(acl.resolve("anything")).toBeUndefined();
    expect(acl.resolve(undefined)).toBeUndefined();
  });

  it("no token is the anonymous token, which may do nothing; an unknown one is not found", () => {
    const { acl, can } = setup();
    // The anonymous token (agent/structs ACLTokenAnonymousID), with no policies.
    expect(acl.resolve(undefined)).toEqual({ management: false, namespace: "default", accessorId: "00000000-0000-0000-0000-000000000002", rules: {} });
    expect(can(undefined, "web")).toBe(false);
    expect(notFound(() => acl.resolve("nope"))).toEqual({ status: 403, message: "ACL not found" });
  });

  it("the management token may do everything, everywhere", () => {
    const { root } = setup();
    expect(root).toMatchObject({ management: true });
    expect(isAllowed(root!, "team-a", { type: "acl" }, "write")).toBe(true);
  });

  it("a token's permissions come from its policies and from the policies of its roles", () => {
    const { acl, root, can } = setup();
    const reader = acl.policies.create(root, { Name: "web-reader", Rules: 'service "web" { policy = "read" }' });
    const writer = acl.policies.create(root, { Name: "api-writer", Rules: 'service "api" { policy = "write" }' });
    const role = acl.roles.create(root, { Name: "api", Policies: [{ ID: writer.ID }] });
    const token = acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000001", Policies: [{ ID: reader.ID }], Roles: [{ ID: role.ID }] }, "default");
    expect(token.SecretID).toBe("11111111-0000-4000-8000-000000000001");
    expect(can("11111111-0000-4000-8000-000000000001", "web")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000001", "web", "write")).toBe(false);
    expect(can("11111111-0000-4000-8000-000000000001", "api", "write")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000001", "db")).toBe(false);
    expect(acl.resolve("11111111-0000-4000-8000-000000000001")).toMatchObject({ management: false });
  });

  it("reads policies and roles at request time: a deleted role or policy grants nothing any more", () => {
    const { acl, root, can } = setup();
    const writer = acl.policies.create(root, { Name: "api-writer", Rules: 'service "api" { policy = "write" }' });
    const reader = acl.policies.create(root, { Name: "web-reader", Rules: 'service "web" { policy = "read" }' });
    const role = acl.roles.create(root, { Name: "api", Policies: [{ ID: writer.ID }] });
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000001", Policies: [{ ID: reader.ID }], Roles: [{ ID: role.ID }] }, "default");
    acl.roles.delete(root, role.ID);
    expect(can("11111111-0000-4000-8000-000000000001", "api", "write")).toBe(false);
    expect(can("11111111-0000-4000-8000-000000000001", "web")).toBe(true);
    acl.policies.delete(root, reader.ID);
    expect(can("11111111-0000-4000-8000-000000000001", "web")).toBe(false);
  });

  it("the built-in global-management policy, directly or through a role, makes a management token", () => {
    const { acl, root } = setup();
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000002", Policies: [{ Name: "global-management" }] }, "default");
    const role = acl.roles.create(root, { Name: "admins", Policies: [{ Name: "global-management" }] });
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000003", Roles: [{ ID: role.ID }] }, "default");
    for (const secret of ["11111111-0000-4000-8000-000000000002", "11111111-0000-4000-8000-000000000003"]) {
      const authorizer = acl.resolve(secret)!;
      expect(authorizer.management).toBe(true);
      expect(isAllowed(authorizer, "team-b", { type: "operator" }, "write")).toBe(true);
    }
  });

  it("a declared token's own rules add to its policies", () => {
    const { acl, root, can } = setup([{ SecretID: "agent", Rules: 'service "web" { policy = "write" }' }]);
    expect(can("agent", "web", "write")).toBe(true);
    expect(can("agent", "api")).toBe(false);
    const { can: can2 } = setup([{ SecretID: "agent", Rules: 'service "web" { policy = "read" }', Policies: ["global-management"] }]);
    expect(can2("agent", "api", "write")).toBe(true);
    expect(root).toBeDefined();
    expect(acl.resolve("agent")).toMatchObject({ management: false });
  });

  it("a service identity, of the token or of its role, grants write on its service and sidecar and read on every service, in its datacenters only", () => {
    const { acl, root, can } = setup();
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000007", ServiceIdentities: [{ ServiceName: "web" }] }, "default");
    expect(can("11111111-0000-4000-8000-000000000007", "web", "write")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000007", "web-sidecar-proxy", "write")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000007", "api")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000007", "api", "write")).toBe(false);
    const role = acl.roles.create(root, { Name: "api-service", ServiceIdentities: [{ ServiceName: "api" }] });
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000008", Roles: [{ ID: role.ID }] }, "default");
    expect(can("11111111-0000-4000-8000-000000000008", "api", "write")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000008", "web", "write")).toBe(false);
    // An identity for another datacenter grants nothing here (dc1).
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000009", ServiceIdentities: [{ ServiceName: "db", Datacenters: ["dc2"] }] }, "default");
    expect(can("11111111-0000-4000-8000-000000000009", "db")).toBe(false);
  });

  it("a token is in its namespace: its rules do not apply in another", () => {
    const { acl, root, can } = setup();
    const writer = acl.policies.create(root, { Name: "all", Rules: 'service_prefix "" { policy = "write" }' });
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000004", Namespace: "team-a", Policies: [{ ID: writer.ID }] }, "default");
    expect(can("11111111-0000-4000-8000-000000000004", "web", "write", "team-a")).toBe(true);
    expect(can("11111111-0000-4000-8000-000000000004", "web", "read", "default")).toBe(false);
  });
});

describe("expiry (ExpirationTTL)", () => {
  it("a token works until its expiration time and is not found after it", () => {
    const { acl, root, advance, can } = setup();
    const token = acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000005", ExpirationTTL: "1m", Policies: [{ Name: "global-management" }] }, "default");
    expect(token.ExpirationTime).toBe("2026-01-01T00:01:00.000Z");
    advance(59_000);
    expect(can("11111111-0000-4000-8000-000000000005", "web")).toBe(true);
    // At its exact expiration time it still works: expired means ExpirationTime.Before(now).
    advance(1_000);
    expect(can("11111111-0000-4000-8000-000000000005", "web")).toBe(true);
    advance(1);
    expect(notFound(() => acl.resolve("11111111-0000-4000-8000-000000000005"))).toEqual({ status: 403, message: "ACL not found" });
  });

  it("a token without an expiration time does not expire", () => {
    const { acl, root, advance, can } = setup();
    acl.tokens.create(root, { SecretID: "11111111-0000-4000-8000-000000000006", Policies: [{ Name: "global-management" }] }, "default");
    advance(100 * 365 * 24 * 3600 * 1000);
    expect(can("11111111-0000-4000-8000-000000000006", "web")).toBe(true);
  });
});

describe("a token's expiration time", () => {
  it("is its creation time plus the TTL exactly, however the clock moves while it is created (Consul: CreateTime.Add(TTL))", () => {
    let now = START;
    // A clock that moves a millisecond every time it is read.
    const acl = new MeshAcl({ managementToken: ROOT, tokens: [], legacyApi: false, tokenApi: true, datacenter: "dc1" }, new MemoryAclStore(), () => new Date(now++));
    const issued = acl.tokens.create(acl.resolve(ROOT), { ExpirationTTL: "1m", Policies: [{ Name: "global-management" }] }, "default");
    expect(Date.parse(issued.ExpirationTime!) - Date.parse(issued.CreateTime)).toBe(60_000);
  });
});
