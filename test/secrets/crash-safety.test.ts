// SECRETS_DATA_DIR: what a secrets server acknowledged survives kill -9. The server is started as a
// user starts it (`server/main.ts` in a child process), written to, killed with SIGKILL and started
// again on the same directory: the cluster id, root token, roles, push-MFA methods and the root key
// are all there, and the shares given out (by the initialization, then by a rekey) still rekey it.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSecretsClient } from "../../generated/secrets/client.ts";
import { DataDirectory } from "../../server/shared/data-dir.ts";
import { killHard, startChildServer } from "../helpers/child-server.ts";
import { rekey } from "../helpers/secrets.ts";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

interface Started {
  child: ChildProcess;
  output: string;
  baseUrl: string;
  rootToken: string;
  clusterId: string;
  keys: string[];
}

/** `npm start` (server/main.ts) with every service on a free port. */
async function start(env: Record<string, string>): Promise<Started> {
  const started = await startChildServer(["server/main.ts"], { SECRETS_PORT: "0", MESH_PORT: "0", ORG_PLATFORM_PORT: "0", SECRETS_CLUSTER_PORT: "0", ...env });
  children.push(started.process);
  const { output } = started;
  return {
    child: started.process,
    output,
    baseUrl: /secrets .*?(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output)![1]!,
    rootToken: /root token \(X-Secrets-Token\): (\S+)/.exec(output)![1]!,
    clusterId: /cluster id ([0-9a-f-]{36})/.exec(output)![1]!,
    keys: [...output.matchAll(/Unseal Key \d+: (\S+)/g)].map((m) => m[1]!),
  };
}

function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return start(env).then(
    () => {
      throw new Error("the server started");
    },
    (error: { code: number | null; output: string }) => ({ code: error.code, output: error.output }),
  );
}

describe("SECRETS_DATA_DIR", () => {
  it("keeps every acknowledged write across kill -9: cluster, root token, roles, methods, and the root key its shares make up", async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "secrets-data-")), "data");
    const first = await start({ SECRETS_DATA_DIR: dataDir });
    expect(first.keys).toHaveLength(5);
    expect(first.output).toMatch(/initialized in SECRETS_DATA_DIR=/);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dataDir, "state.db")).mode & 0o777).toBe(0o600);

    const client = createSecretsClient({ baseUrl: first.baseUrl, headers: { "X-Secrets-Token": first.rootToken } });
    expect((await client.POST("/aws/roles/{name}", { params: { path: { name: "deploy" } }, body: { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } })).response.status).toBe(204);
    const method = await client.POST("/identity/mfa/method/pushmfa", { body: { secret_key: "s", integration_key: "i", api_hostname: "api.example.com" } });
    const methodId = method.data!.data.method_id;
    // A rekey: the new shares are what the operators hold from now on.
    const rotated = await rekey(client, first.keys.slice(0, 3), { secret_shares: 3, secret_threshold: 2 });
    await killHard(first.child);

    const second = await start({ SECRETS_DATA_DIR: dataDir });
    expect(second.output).toMatch(/restored from SECRETS_DATA_DIR=.* and unsealed from it/);
    expect(second.keys).toEqual([]);
    expect(second.rootToken).toBe(first.rootToken);
    expect(second.clusterId).toBe(first.clusterId);
    const again = createSecretsClient({ baseUrl: second.baseUrl, headers: { "X-Secrets-Token": second.rootToken } });
    expect((await again.GET("/aws/roles/{name}", { params: { path: { name: "deploy" } } })).data?.data.policy_arns).toEqual(["arn:aws:iam::aws:policy/ReadOnlyAccess"]);
    expect((await again.GET("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: methodId } } })).data).toMatchObject({ data: { id: methodId, api_hostname: "api.example.com" } });
    // The shares of the rekey still make up the root key; the shares of the initialization do not.
    const started = await again.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } });
    const nonce = started.data!.nonce;
    expect((await again.POST("/sys/rekey/update", { body: { key: first.keys[0]!, nonce } })).response.status).toBe(200);
    const old = await again.POST("/sys/rekey/update", { body: { key: first.keys[1]!, nonce } });
    // The real system's answer to shares of another key (vault/rekey.go BarrierRekeyUpdate): 500.
    expect(old.response.status).toBe(500);
    expect(old.error?.errors[0]).toMatch(/^failed to read root key: invalid key: /);
    await again.DELETE("/sys/rekey/init");
    expect((await rekey(again, rotated.keys.slice(0, 2), { secret_shares: 1, secret_threshold: 1 })).keys).toHaveLength(1);
  });

  it("refuses to start on a directory that is another service's, foreign or damaged, naming it", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "secrets-bad-"));
    const foreign = path.join(base, "foreign");
    mkdirSync(foreign);
    writeFileSync(path.join(foreign, "notes.txt"), "mine");
    const refusedForeign = await failedStart({ SECRETS_DATA_DIR: foreign });
    expect(refusedForeign.code).not.toBe(0);
    expect(refusedForeign.output).toContain(`data directory ${foreign} holds files that are not a secrets data directory's (notes.txt)`);
    expect(refusedForeign.output).not.toMatch(/root token/);

    const damaged = path.join(base, "damaged");
    mkdirSync(damaged);
    writeFileSync(path.join(damaged, "state.db"), "this is not a database ".repeat(100));
    const refusedDamaged = await failedStart({ SECRETS_DATA_DIR: damaged });
    expect(refusedDamaged.code).not.toBe(0);
    expect(refusedDamaged.output).toContain(`data directory ${damaged}: state.db is not a readable database`);

    const mesh = path.join(base, "mesh");
    DataDirectory.open(mesh, "mesh").close();
    const refusedMesh = await failedStart({ SECRETS_DATA_DIR: mesh });
    expect(refusedMesh.output).toContain(`data directory ${mesh} belongs to the mesh service, not to the secrets service`);
  });
});
