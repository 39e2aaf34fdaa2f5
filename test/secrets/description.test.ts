// The secrets description and the server agree: every operation has a handler and declares the
// capabilities it needs (sudo on the root-protected rekey paths), operationIds are unique across
// all APIs, and the conventions hold (204 without a body, the error envelope on every 4xx).
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { operationsOf, type OpenApiDoc } from "../../scripts/contract/document.ts";
import { secretsHandlers } from "../../server/secrets/handlers/index.ts";
import { OperationIndex } from "../../server/secrets/operations.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

const bundle = loadBundle("secrets");
type Json = Record<string, any>;

const operations = Object.entries(bundle.paths).flatMap(([template, item]) =>
  ["get", "put", "post", "delete", "patch"].filter((m) => item[m]).map((method) => ({ template, method, operation: item[method] as Json })),
);

describe("the secrets description", () => {
  it("describes the nine rekey operations among the others, each operation with a handler", () => {
    expect(operations.map((o) => o.operation.operationId)).toEqual(
      expect.arrayContaining([
        "cancelRekey",
        "deleteRekeyBackup",
        "readRekeyBackup",
        "readRekeyStatus",
        "readRekeyVerification",
        "restartRekeyVerification",
        "startRekey",
        "submitRekeyShare",
        "submitRekeyVerificationShare",
      ]),
    );
    expect(Object.keys(secretsHandlers).sort()).toEqual(operations.map((o) => o.operation.operationId).sort());
  });

  it("names the capabilities of every operation: the method's, and sudo on sys/rekey", () => {
    const needed: Record<string, string> = { get: "read", post: "update", put: "update", delete: "delete" };
    const index = new OperationIndex(bundle);
    for (const { template, method, operation } of operations.filter(({ operation }) => !servedWithoutToken(operation))) {
      const capabilities = operation["x-secrets-capabilities"] as string[];
      expect(capabilities, operation.operationId).toContain(operation["x-http-method"] === "LIST" ? "list" : needed[method]);
      if (template.startsWith("/sys/rekey")) expect(capabilities, operation.operationId).toContain("sudo");
      const requestMethod = operation["x-http-method"] === "LIST" ? "list" : method;
      expect(index.resolve(requestMethod as never, template)).toMatchObject({ operation: { operationId: operation.operationId } });
    }
  });

  it("marks the framework's typed fields with LenientBoolean, LenientInteger and LenientDuration: read before the handler, in the framework's words", () => {
    const index = new OperationIndex(bundle);
    const fields = Object.fromEntries([...index.frameworkFields].map(([operationId, members]) => [operationId, Object.fromEntries(members)]));
    expect(fields).toEqual({
      createPushMfaMethod: { use_passcode: "bool" },
      updatePushMfaMethod: { use_passcode: "bool" },
      revokeLease: { sync: "bool" },
      revokeLeaseLegacy: { sync: "bool" },
      revokeLeaseById: { sync: "bool" },
      revokeLeaseByIdLegacy: { sync: "bool" },
      revokeLeasePrefix: { sync: "bool" },
      revokeLeasePrefixLegacy: { sync: "bool" },
      writeDiscoveryTokenRole: { local: "bool", ttl: "duration", max_ttl: "duration", lease: "duration" },
      writeCloudCredentialsRootConfig: { max_retries: "int" },
      writeCloudCredentialsRole: { default_sts_ttl: "duration", max_sts_ttl: "duration" },
      generateCloudCredentialsWithParameters: { ttl: "duration" },
      generateCloudStsCredentials: { ttl: "duration" },
      promoteDrSecondary: { force: "bool" },
      promotePerformanceSecondary: { force: "bool" },
      renewLease: { increment: "duration" },
      renewLeaseLegacy: { increment: "duration" },
      renewLeaseById: { increment: "duration" },
      renewLeaseByIdLegacy: { increment: "duration" },
      createDrSecondaryToken: { ttl: "duration" },
      createPerformanceSecondaryToken: { ttl: "duration" },
    });
  });

  it("serves an operation described with security: [] without a token and without capabilities, and refuses one that names capabilities", () => {
    const index = new OperationIndex(bundle);
    expect(index.resolve("post", "/sys/replication/dr/secondary/promote")).toMatchObject({ operation: { unauthenticated: true, capabilities: [] } });
    expect(index.resolve("get", "/sys/replication/dr/status")).toMatchObject({ operation: { unauthenticated: false, capabilities: ["read"] } });
    const open = { get: { operationId: "readOpen", security: [], responses: {} } };
    expect(new OperationIndex({ ...bundle, paths: { "/open": open } } as never).resolve("get", "/open")).toMatchObject({ operation: { unauthenticated: true } });
    const both = { get: { ...open.get, "x-secrets-capabilities": ["read"] } };
    expect(() => new OperationIndex({ ...bundle, paths: { "/open": both } } as never)).toThrow("operation readOpen: served without a token (security: []), it takes no x-secrets-capabilities");
    // An operation that needs a token must name its capabilities, known ones only.
    const capabilitiesError = /^operation readNamed: x-secrets-capabilities must list the capabilities it needs \(create, read, update, /;
    for (const named of [undefined, "read", ["read", "own"], ["own"]]) {
      const path = { get: { operationId: "readNamed", "x-secrets-capabilities": named, responses: {} } };
      expect(() => new OperationIndex({ ...bundle, paths: { "/named": path } } as never), JSON.stringify(named)).toThrow(capabilitiesError);
    }
    // An operation with its own non-empty security, or none (the document's), needs its capabilities.
    const own = { get: { operationId: "readOwn", security: [{ secretsToken: [] }], "x-secrets-capabilities": ["read"], responses: {} } };
    expect(new OperationIndex({ ...bundle, paths: { "/own": own } } as never).resolve("get", "/own")).toMatchObject({ operation: { unauthenticated: false, capabilities: ["read"] } });
  });

  it("keeps operationIds unique across this project's APIs (one added with add-api may share one: it has its own types and docs)", () => {
    const ids = APIS.filter((api) => api.hasReferenceServer).flatMap((api) => {
      try {
        return operationsOf(loadBundle(api.name) as OpenApiDoc).map((operation) => operation.operationId);
      } catch {
        return [];
      }
    });
    expect(ids.length).toBeGreaterThan(operations.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("answers 204 without a body, and every 4xx in the error envelope", () => {
    for (const { operation } of operations) {
      for (const [status, raw] of Object.entries(operation.responses as Json)) {
        const response = raw.$ref ? (bundle.components as Json).responses[raw.$ref.split("/").pop()] : raw;
        if (status === "204") expect(response.content, operation.operationId).toBeUndefined();
        if (status.startsWith("4")) {
          const schema = response.content["application/json"].schema;
          expect(schema.$ref, `${operation.operationId} ${status}`).toBe("#/components/schemas/ErrorResponse");
        }
      }
      // A 403 wherever a token is needed; an operation served without one (security: []) has none.
      if (servedWithoutToken(operation)) expect(Object.keys(operation.responses), operation.operationId).not.toContain("403");
      else expect(Object.keys(operation.responses), operation.operationId).toContain("403");
    }
  });

  it("is served at the documented addresses", () => {
    expect(bundle.servers).toEqual([
      { url: "http://127.0.0.1:8200/v1", description: "Reference server (npm start)" },
      { url: "http://127.0.0.1:4020", description: "Prism mock (npm run mock)" },
    ]);
    expect(APIS.find((api) => api.name === "secrets")).toMatchObject({ serverPort: 8200, mockPort: 4020, basePath: "/v1" });
  });
});

/** Served without a request token: the description says `security: []`. */
function servedWithoutToken(operation: Json): boolean {
  return Array.isArray(operation.security) && operation.security.length === 0;
}
