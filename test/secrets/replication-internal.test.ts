// The cluster-to-cluster protocol: its description (openapi/secrets/internal/openapi.yaml) lints
// clean, stays out of the public reference, names exactly the endpoints served, and the server
// validates that traffic against it.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { INTERNAL_DESCRIPTION } from "../../server/secrets/replication/internal-protocol.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { ok, replicate, secondaryToken, startCluster } from "../helpers/replication.ts";
import type { RunningTestSecrets } from "../helpers/secrets.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
type Json = Record<string, any>;
const internal = parse(readFileSync(INTERNAL_DESCRIPTION, "utf8")) as Json;

async function call(url: string, body: unknown, bearer?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe("the internal description", () => {
  it("lints clean with the project's rules", () => {
    const lint = spawnSync(path.join(root, "node_modules", ".bin", "redocly"), ["lint", "openapi/secrets/internal/openapi.yaml"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    const output = `${lint.stdout}${lint.stderr}`;
    expect(lint.status, output).toBe(0);
    expect(output).toContain("Your API description is valid");
    expect(output).not.toMatch(/You have \d+ warning/);
  });

  it("describes the four cluster endpoints, none of which is in the public reference", () => {
    const operations = Object.entries(internal.paths as Json).flatMap(([template, item]) => Object.keys(item).filter((k) => k === "post").map(() => [template, item.post.operationId]));
    expect(operations).toEqual([
      ["/sys/wrapping/unwrap", "unwrapActivationCredentials"],
      ["/replication/{mode}/connect", "connectSecondary"],
      ["/replication/{mode}/wal", "pollWal"],
      ["/replication/{mode}/probe", "probePrimary"],
    ]);
    const publicPaths = Object.keys(loadBundle("secrets").paths);
    expect(publicPaths.filter((p) => p.startsWith("/replication") || p.startsWith("/sys/wrapping"))).toEqual([]);
    const publicIds = Object.values(loadBundle("secrets").paths).flatMap((item) => Object.values(item).map((op) => (op as Json).operationId));
    for (const [, id] of operations) expect(publicIds).not.toContain(id);
  });
});

describe("cluster traffic", () => {
  let p: RunningTestSecrets;
  let s: RunningTestSecrets;
  beforeAll(async () => {
    [p, s] = await Promise.all([startCluster(), startCluster()]);
    await replicate(p, s, "dr", "validated");
  });
  afterAll(() => Promise.all([p.close(), s.close()]));

  it("is validated against the description: bodies that break it are 400", async () => {
    const wal = `${p.secrets.clusterUrl}/v1/replication/dr/wal`;
    const bad = await call(wal, { cluster_id: "not-a-uuid", after: -1 }, "x");
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/cluster_id/), expect.stringMatching(/after/)]));
    expect((await call(`${p.secrets.clusterUrl}/v1/replication/xdr/wal`, { cluster_id: crypto.randomUUID(), after: 0 })).status).toBe(400);
    expect((await call(`${p.secrets.clusterUrl}/v1/nothing`, {})).status).toBe(404);
    const unwrap = await call(`${p.baseUrl}/sys/wrapping/unwrap`, { token: "" });
    expect(unwrap.status).toBe(400);
  });

  it("authenticates secondaries by their credential", async () => {
    const { cluster_id } = (await p.client.GET("/sys/replication/dr/status")).data!.data as { cluster_id: string };
    const wal = await call(`${p.secrets.clusterUrl}/v1/replication/dr/wal`, { cluster_id, after: 0 }, "forged");
    expect(wal).toEqual({ status: 403, body: { errors: ["unknown or revoked secondary credential"] } });
    const connect = await call(
      `${p.secrets.clusterUrl}/v1/replication/dr/connect`,
      { cluster_id, secondary_id: "validated", merkle_root: "", last_remote_wal: 0, api_address: "http://127.0.0.1:1", cluster_address: "http://127.0.0.1:2" },
    );
    expect(connect.status).toBe(403);
    // Not a performance primary: 410.
    expect((await call(`${p.secrets.clusterUrl}/v1/replication/performance/wal`, { cluster_id, after: 0 }, "x")).status).toBe(410);
    // The probe needs no credential and tells only whether the set's primary is here.
    expect(await call(`${p.secrets.clusterUrl}/v1/replication/dr/probe`, { cluster_id })).toEqual({
      status: 200,
      body: { active: true, cluster_id, last_wal: p.secrets.cluster.replication.wal.last },
    });
    expect(await call(`${p.secrets.clusterUrl}/v1/replication/dr/probe`, { cluster_id: crypto.randomUUID() })).toEqual({ status: 200, body: { active: false } });
  });

  it("unwraps a token once, over the API listener", async () => {
    await ok(p.client, "performance", "primary/enable");
    const token = await secondaryToken(p.client, "performance", "raw");
    const first = await call(`${p.baseUrl}/sys/wrapping/unwrap`, { token, mode: "performance" });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ mode: "performance", secondary_id: "raw", primary_api_addr: p.baseUrl.replace(/\/v1$/, ""), primary_cluster_addr: p.secrets.clusterUrl });
    expect(first.body.data.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await call(`${p.baseUrl}/sys/wrapping/unwrap`, { token, mode: "performance" })).toEqual({ status: 400, body: { errors: ["wrapping token is not valid or does not exist"] } });
    // The unwrap is not on the cluster listener, and the public API has no such operation.
    expect((await call(`${p.secrets.clusterUrl}/v1/sys/wrapping/unwrap`, { token, mode: "performance" })).status).toBe(404);
  });
});
