// The secrets description and the server agree: every operation has a handler and declares the
// capabilities it needs (sudo on the root-protected rekey paths), operationIds are unique across
// all APIs, and the conventions hold (204 without a body, the error envelope on every 4xx).
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { secretsHandlers } from "../../server/secrets/handlers/index.ts";
import { OperationIndex } from "../../server/secrets/operations.ts";
import { loadBundle, routesOf } from "../../server/shared/openapi.ts";

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
    for (const { template, method, operation } of operations) {
      const capabilities = operation["x-secrets-capabilities"] as string[];
      expect(capabilities, operation.operationId).toContain(operation["x-http-method"] === "LIST" ? "list" : needed[method]);
      if (template.startsWith("/sys/rekey")) expect(capabilities, operation.operationId).toContain("sudo");
      const requestMethod = operation["x-http-method"] === "LIST" ? "list" : method;
      expect(index.resolve(requestMethod as never, template)).toMatchObject({ operation: { operationId: operation.operationId } });
    }
  });

  it("keeps operationIds unique across every API", () => {
    const ids = APIS.flatMap((api) => {
      try {
        return routesOf(loadBundle(api.name)).map((route) => route.operationId);
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
      expect(Object.keys(operation.responses), operation.operationId).toContain("403");
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
