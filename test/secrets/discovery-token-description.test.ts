// The discovery-token engine in the service description: seven operations at the default mount
// `consul`, described relative to the mount, each with its capabilities and a handler, and movable
// to any other mount.
import { describe, expect, it } from "vitest";
import { composeMounts } from "../../server/secrets/sys/mounts.ts";
import { OperationIndex } from "../../server/secrets/operations.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { expectOperationsDescribed, type ExpectedOperation } from "../helpers/secrets-description.ts";

const bundle = loadBundle("secrets");
type Json = Record<string, any>;

const expected: ExpectedOperation[] = [
  ["/consul/config/access", "post", "configureDiscoveryTokenAccess", ["update"]],
  ["/consul/config/access", "get", "readDiscoveryTokenAccess", ["read"]],
  ["/consul/roles/{name}", "post", "writeDiscoveryTokenRole", ["update"]],
  ["/consul/roles/{name}", "get", "readDiscoveryTokenRole", ["read"]],
  ["/consul/roles", "get", "listDiscoveryTokenRoles", ["list"]],
  ["/consul/roles/{name}", "delete", "deleteDiscoveryTokenRole", ["delete"]],
  ["/consul/creds/{name}", "get", "generateDiscoveryToken", ["read"]],
];

describe("the discovery-token engine's description", () => {
  it("describes the seven operations at the default mount, relative to it, each with its capabilities and a handler", () => {
    expectOperationsDescribed(bundle, expected);
    for (const [template] of expected) {
      const item = bundle.paths[template] as Json;
      expect(item["x-secrets-engine"]).toBe("discovery-token");
      expect(template).toBe(`/consul${item["x-secrets-path"]}`);
    }
    expect((bundle.paths["/consul/roles"] as Json).get["x-http-method"]).toBe("LIST");
    const engineOperations = Object.values(bundle.paths)
      .filter((item) => item["x-secrets-engine"] === "discovery-token")
      .flatMap((item) => ["get", "post", "put", "delete", "patch"].filter((m) => item[m]));
    expect(engineOperations).toHaveLength(7);
  });

  // The real engine answers a backend failure with 400 (path_token.go, pathTokenRead): no 502.
  it("documents a 403 on every operation, and backend failures of creds as 400", () => {
    for (const [template, method] of expected) expect((bundle.paths[template] as Json)[method].responses).toHaveProperty("403");
    const creds = (bundle.paths["/consul/creds/{name}"] as Json).get.responses;
    expect(creds).not.toHaveProperty("502");
    expect(Object.keys(creds["400"].content["application/json"].examples)).toEqual(expect.arrayContaining(["refused", "unreachable"]));
  });

  it("moves to other mounts, several times over", () => {
    const composed = composeMounts(bundle, [
      { path: "discovery", engine: "discovery-token" },
      { path: "team-a/consul", engine: "discovery-token" },
    ]);
    expect(Object.keys(composed.paths).filter((p) => p.startsWith("/consul/"))).toEqual([]);
    const index = new OperationIndex(composed);
    expect(index.resolve("get", "/team-a/consul/creds/web")).toMatchObject({ operation: { operationId: "generateDiscoveryToken", mount: "team-a/consul" }, params: { name: "web" } });
    expect(index.resolve("list", "/discovery/roles")).toMatchObject({ operation: { operationId: "listDiscoveryTokenRoles", mount: "discovery" } });
    expect(index.resolve("put", "/discovery/roles/web")).toMatchObject({ operation: { operationId: "writeDiscoveryTokenRole" } });
  });
});
