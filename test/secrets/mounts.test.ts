// The engine-mount layout: engine paths are described once relative to the mount and placed at the
// default mount; the server moves them to the mounts it serves. Checked here on a small document
// with a stand-in engine, and on the real bundle.
import { describe, expect, it } from "vitest";
import { composeMounts, enginesOf, mountProblems, mountsOf } from "../../server/secrets/sys/mounts.ts";
import { OperationIndex } from "../../server/secrets/operations.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

const engineItem = (relative: string, operationId: string, extra: Record<string, unknown> = {}) => ({
  "x-secrets-engine": "kv-test",
  "x-secrets-path": relative,
  get: { operationId, "x-secrets-capabilities": ["read"], responses: {}, ...extra },
});

const document = {
  openapi: "3.1.0",
  paths: {
    "/sys/rekey/init": { get: { operationId: "readRekeyStatus", "x-secrets-capabilities": ["read", "sudo"], responses: {} } },
    "/kv/roles/{name}": engineItem("/roles/{name}", "readTestRole"),
    "/kv/roles": engineItem("/roles", "listTestRoles", { "x-http-method": "LIST" }),
  },
};

describe("mounts", () => {
  it("reads the default mount table from the document", () => {
    expect(mountsOf(document)).toEqual([{ path: "kv", engine: "kv-test" }]);
    expect(enginesOf(document)).toEqual(["kv-test"]);
  });

  it("moves an engine to other mounts, several times over, keeping the other paths", () => {
    const composed = composeMounts(document, [
      { path: "team-a/kv", engine: "kv-test" },
      { path: "kv2", engine: "kv-test" },
    ]);
    expect(Object.keys(composed.paths)).toEqual(["/sys/rekey/init", "/team-a/kv/roles/{name}", "/team-a/kv/roles", "/kv2/roles/{name}", "/kv2/roles"]);
    expect((composed.paths as Record<string, unknown>)["/kv2/roles"]).toMatchObject({ "x-secrets-mount": "kv2", "x-secrets-path": "/roles" });
    const index = new OperationIndex(composed as never);
    expect(index.resolve("get", "/team-a/kv/roles/web")).toMatchObject({ operation: { operationId: "readTestRole", mount: "team-a/kv" }, params: { name: "web" } });
    expect(index.resolve("list", "/kv2/roles")).toMatchObject({ operation: { operationId: "listTestRoles", mount: "kv2" } });
    expect(index.resolve("get", "/kv2/roles")).toEqual({ problem: "unsupported", allowed: ["LIST"] });
    expect(index.resolve("delete", "/kv2/roles/web")).toEqual({ problem: "unsupported", allowed: ["GET"] });
    expect(index.resolve("get", "/kv/roles/web")).toEqual({ problem: "not-found" });
  });

  it("refuses mount tables that cannot be served", () => {
    expect(mountProblems([{ path: "sys", engine: "kv-test" }], ["kv-test"])).toEqual(['mount "sys": "sys" and "identity" are reserved']);
    expect(mountProblems([{ path: "a", engine: "kv-test" }, { path: "a/b", engine: "kv-test" }], ["kv-test"])).toEqual(['mount "a/b" overlaps mount "a"']);
    expect(mountProblems([{ path: "/a/", engine: "x" }], ["kv-test"])).toHaveLength(2);
    expect(() => composeMounts(document, [{ path: "x", engine: "nope" }])).toThrow(/unknown engine "nope"/);
  });

  it("places each engine of the service description at its default mount, where the server serves it by default", () => {
    const bundle = loadBundle("secrets");
    expect(mountsOf(bundle)).toEqual(expect.arrayContaining([{ path: "consul", engine: "discovery-token" }, { path: "aws", engine: "cloud-credentials" }]));
    const composed = composeMounts(bundle, mountsOf(bundle));
    expect(Object.keys(composed.paths)).toEqual(expect.arrayContaining(Object.keys(bundle.paths)));
    expect(Object.keys(composed.paths)).toHaveLength(Object.keys(bundle.paths).length);
  });
});
