// The replication part of the secrets description: the seed's 35 replication operations (from
// operations.tsv, kept in test/fixtures), each described once with its operationId, capabilities (sudo for
// secondary-token), a handler, request and response examples, and 400/403 answers.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { secretsHandlers } from "../../server/secrets/handlers/index.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

type Json = Record<string, any>;
const bundle = loadBundle("secrets") as Json;
const seed = readFileSync(path.resolve(import.meta.dirname, "..", "fixtures", "seed-operations.tsv"), "utf8")
  .split("\n")
  .map((line) => line.split("\t"))
  .filter(([service, , , route]) => service === "secrets" && route?.startsWith("/sys/replication/"))
  .map(([, , method, route]) => `${method} ${route}`);

const described = Object.entries(bundle.paths as Json)
  .filter(([template]) => template.startsWith("/sys/replication/"))
  .flatMap(([template, item]) => ["get", "put", "post", "delete"].filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${template}`, operation: item[m] as Json })));

const OPERATION_IDS: Record<string, string> = {
  "GET /sys/replication/dr/status": "readDrReplicationStatus",
  "POST /sys/replication/dr/primary/enable": "enableDrPrimary",
  "POST /sys/replication/dr/primary/demote": "demoteDrPrimary",
  "POST /sys/replication/dr/primary/disable": "disableDrPrimary",
  "POST /sys/replication/dr/primary/secondary-token": "createDrSecondaryToken",
  "POST /sys/replication/dr/primary/revoke-secondary": "revokeDrSecondary",
  "POST /sys/replication/dr/secondary/generate-public-key": "generateDrSecondaryPublicKey",
  "POST /sys/replication/dr/secondary/enable": "enableDrSecondary",
  "POST /sys/replication/dr/secondary/promote": "promoteDrSecondary",
  "POST /sys/replication/dr/secondary/disable": "disableDrSecondary",
  "POST /sys/replication/dr/secondary/update-primary": "updateDrSecondaryPrimary",
  "GET /sys/replication/dr/secondary/generate-operation-token/attempt": "readDrOperationTokenAttempt",
  "PUT /sys/replication/dr/secondary/generate-operation-token/attempt": "startDrOperationTokenAttempt",
  "DELETE /sys/replication/dr/secondary/generate-operation-token/attempt": "cancelDrOperationTokenAttempt",
  "PUT /sys/replication/dr/secondary/generate-operation-token/update": "submitDrOperationTokenShare",
  "POST /sys/replication/dr/secondary/operation-token/delete": "deleteDrOperationToken",
  "GET /sys/replication/performance/status": "readPerformanceReplicationStatus",
  "POST /sys/replication/performance/primary/enable": "enablePerformancePrimary",
  "POST /sys/replication/performance/primary/demote": "demotePerformancePrimary",
  "POST /sys/replication/performance/primary/disable": "disablePerformancePrimary",
  "POST /sys/replication/performance/primary/secondary-token": "createPerformanceSecondaryToken",
  "POST /sys/replication/performance/primary/revoke-secondary": "revokePerformanceSecondary",
  "POST /sys/replication/performance/secondary/generate-public-key": "generatePerformanceSecondaryPublicKey",
  "POST /sys/replication/performance/secondary/enable": "enablePerformanceSecondary",
  "POST /sys/replication/performance/secondary/promote": "promotePerformanceSecondary",
  "POST /sys/replication/performance/secondary/disable": "disablePerformanceSecondary",
  "POST /sys/replication/performance/secondary/update-primary": "updatePerformanceSecondaryPrimary",
  "POST /sys/replication/performance/primary/paths-filter/{id}": "writePerformancePathsFilter",
  "GET /sys/replication/performance/primary/paths-filter/{id}": "readPerformancePathsFilter",
  "DELETE /sys/replication/performance/primary/paths-filter/{id}": "deletePerformancePathsFilter",
  "GET /sys/replication/performance/primary/dynamic-filter/{id}": "readPerformancePrimaryDynamicFilter",
  "GET /sys/replication/performance/secondary/dynamic-filter/{id}": "readPerformanceSecondaryDynamicFilter",
  "POST /sys/replication/performance/primary/mount-filter/{id}": "writePerformanceMountFilter",
  "GET /sys/replication/performance/primary/mount-filter/{id}": "readPerformanceMountFilter",
  "DELETE /sys/replication/performance/primary/mount-filter/{id}": "deletePerformanceMountFilter",
};

describe("the replication description", () => {
  it("describes exactly the seed's 35 replication operations, with their operationIds and handlers", () => {
    expect(seed).toHaveLength(35);
    expect(described.map((d) => d.key).sort()).toEqual([...seed].sort());
    for (const { key, operation } of described) {
      expect(operation.operationId, key).toBe(OPERATION_IDS[key]);
      expect(secretsHandlers, key).toHaveProperty(operation.operationId);
    }
  });

  // Served without a request token: the DR operation token's generation and what it authorizes
  // (vault/logical_system.go lists them in PathsSpecial.Unauthenticated; generate-operation-token
  // is handled as sys/generate-root is, by http/sys_generate_root.go, without a token check).
  const unauthenticated = [
    "POST /sys/replication/dr/secondary/promote",
    "POST /sys/replication/dr/secondary/update-primary",
    "POST /sys/replication/dr/secondary/operation-token/delete",
    "GET /sys/replication/dr/secondary/generate-operation-token/attempt",
    "PUT /sys/replication/dr/secondary/generate-operation-token/attempt",
    "DELETE /sys/replication/dr/secondary/generate-operation-token/attempt",
    "PUT /sys/replication/dr/secondary/generate-operation-token/update",
  ];

  it("serves the DR operation token's generation and the operations it authorizes without a token (security: [], no capabilities, no 403)", () => {
    const open = described.filter(({ operation }) => Array.isArray(operation.security) && (operation.security as unknown[]).length === 0).map(({ key }) => key);
    expect(open.sort()).toEqual([...unauthenticated].sort());
    for (const { key, operation } of described.filter(({ key }) => unauthenticated.includes(key))) {
      expect(operation["x-secrets-capabilities"], key).toBeUndefined();
      expect(Object.keys(operation.responses), key).not.toContain("403");
    }
  });

  it("names each other operation's capabilities: the method's, and sudo only for secondary-token", () => {
    const needed: Record<string, string> = { GET: "read", POST: "update", PUT: "update", DELETE: "delete" };
    for (const { key, operation } of described.filter(({ key }) => !unauthenticated.includes(key))) {
      const capabilities = operation["x-secrets-capabilities"] as string[];
      expect(capabilities, key).toContain(needed[key.split(" ")[0]!]);
      expect(capabilities.includes("sudo"), key).toBe(key.endsWith("/secondary-token"));
    }
  });

  it("documents refusals (400) and permission (403) where a token is needed, and marks the mount filter deprecated", () => {
    for (const { key, operation } of described) {
      // Reading the status refuses nothing but a missing permission.
      const refusals = key.endsWith("/status") ? ["200", "403"] : unauthenticated.includes(key) ? ["400"] : ["400", "403"];
      expect(Object.keys(operation.responses), key).toEqual(expect.arrayContaining(refusals));
      expect(operation.tags, key).toEqual([key.includes("/dr/") ? "dr-replication" : "performance-replication"]);
      expect(operation.deprecated === true, key).toBe(key.includes("/mount-filter/"));
    }
  });
});
