// Conformance: the reference secrets server driven by a real, unchanged Vault client library,
// node-vault 0.12.0 (its own axios transport, its own LIST), through a shim that only renames the
// token header (token-header-shim.ts). Each case names the real source whose behaviour it expects:
// Vault 1.14's HTTP handlers and their tests (http/sys_rekey.go and sys_rekey_test.go,
// vault/logical_system.go, vault/login_mfa.go), and its engines (builtin/logical/aws,
// builtin/logical/consul). Lease expiry runs on a manual clock given to the cluster's lease table.
import nodeVault from "node-vault";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManualClock } from "../../../server/secrets/leases/clock.ts";
import { leasesOf } from "../../../server/secrets/leases/index.ts";
import { STATIC_ROOT, type CloudTestServer } from "../../helpers/cloud-credentials.ts";
import type { RunningMesh } from "../../helpers/mesh.ts";
import { REKEY_NOT_STARTED, ROOT_TOKEN } from "../../helpers/secrets.ts";
import { DEPLOY, READONLY, startRealClientRig, type RealClientRig } from "../../helpers/secrets-real-client-rig.ts";
import type { RunningShim } from "./token-header-shim.ts";

type Vault = ReturnType<typeof nodeVault>;
interface Answer {
  request_id?: string;
  lease_id: string;
  renewable: boolean;
  lease_duration: number;
  data: Record<string, unknown> & { keys?: string[] };
  warnings: string[] | null;
}

const MANAGEMENT = "mesh-management-token-node-vault";

let rig: RealClientRig;
let server: CloudTestServer;
let mesh: RunningMesh;
let shim: RunningShim;
let clock: ManualClock;
let vault: Vault;

beforeAll(async () => {
  rig = await startRealClientRig(MANAGEMENT);
  ({ server, mesh, shim, clock } = rig);
  vault = nodeVault({ apiVersion: "v1", endpoint: shim.url, token: ROOT_TOKEN });
});

afterAll(() => rig.close());

/** The refusal node-vault rejected with: its status and the server's errors. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; errors: string[] }> {
  try {
    await call;
  } catch (error) {
    const { response } = error as { response?: { statusCode: number; body: { errors?: string[] } } };
    if (!response) throw error;
    return { status: response.statusCode, errors: response.body?.errors ?? [] };
  }
  throw new Error("the call succeeded");
}

describe("rekey (http/sys_rekey.go; cases of http/sys_rekey_test.go)", () => {
  const notStarted = REKEY_NOT_STARTED;

  it("TestSysRekey_Init_Status: the status before any attempt", async () => {
    expect(await vault.read("sys/rekey/init")).toEqual(notStarted);
  });

  it("TestSysRekey_Init_Setup and _Cancel: start, read, cancel (204), read again", async () => {
    const started = await vault.write("sys/rekey/init", { secret_shares: 5, secret_threshold: 3 });
    expect(started).toMatchObject({ started: true, t: 3, n: 5, progress: 0, required: 3, nonce: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await vault.read("sys/rekey/init")).toEqual(started);
    expect(await vault.delete("sys/rekey/init")).toBe("");
    expect(await vault.read("sys/rekey/init")).toEqual(notStarted);
  });

  it("TestSysRekey_badKey: a key of 2 bytes is refused with 400", async () => {
    expect(await refusal(vault.write("sys/rekey/update", { key: "0123" }))).toEqual({ status: 400, errors: ["key is shorter than minimum 16 bytes"] });
  });

  it("TestSysRekey_ReInitUpdate: an update without the nonce is refused with 400", async () => {
    await vault.write("sys/rekey/init", { secret_shares: 5, secret_threshold: 3 });
    expect(await vault.delete("sys/rekey/init")).toBe("");
    const { nonce } = (await vault.write("sys/rekey/init", { secret_shares: 5, secret_threshold: 3 })) as { nonce: string };
    try {
      expect(await refusal(vault.write("sys/rekey/update", { key: server.keys[0] }))).toEqual({
        status: 400,
        errors: [`incorrect nonce supplied; nonce for this rekey operation is "${nonce}"`],
      });
    } finally {
      await vault.delete("sys/rekey/init");
    }
  });

  it("TestSysRekey_Update: progress with each share, then five new shares that rekey again", async () => {
    const { nonce } = (await vault.write("sys/rekey/init", { secret_shares: 5, secret_threshold: 3 })) as { nonce: string };
    let last: Record<string, unknown> = {};
    for (const [i, key] of server.keys.slice(0, 3).entries()) {
      last = (await vault.write("sys/rekey/update", { nonce, key })) as Record<string, unknown>;
      if (i < 2) expect(last).toEqual({ ...notStarted, started: true, nonce, t: 3, n: 5, progress: i + 1 });
    }
    expect(last).toEqual({
      nonce,
      complete: true,
      keys: expect.any(Array),
      keys_base64: expect.any(Array),
      pgp_fingerprints: null,
      backup: false,
      verification_required: false,
    });
    const fresh = last.keys as string[];
    expect(fresh).toHaveLength(5);
    // The old shares stop working, the new ones rekey.
    const again = (await vault.write("sys/rekey/init", { secret_shares: 5, secret_threshold: 3 })) as { nonce: string };
    for (const key of server.keys.slice(0, 2)) await vault.write("sys/rekey/update", { nonce: again.nonce, key });
    // The old shares' key cannot decrypt the stored root key: the real system's 500 (vault/rekey.go BarrierRekeyUpdate).
    expect(await refusal(vault.write("sys/rekey/update", { nonce: again.nonce, key: server.keys[2] }))).toEqual({
      status: 500,
      errors: ["failed to read root key: invalid key: failed to decrypt keys from storage: cipher: message authentication failed"],
    });
    for (const key of fresh.slice(2, 5)) last = (await vault.write("sys/rekey/update", { nonce: again.nonce, key })) as Record<string, unknown>;
    expect(last).toMatchObject({ complete: true });
    server.keys.splice(0, server.keys.length, ...(last.keys as string[]));
  });
});

describe("cloud credentials engine (builtin/logical/aws)", () => {
  beforeAll(async () => {
    // path_config_root.go: written and read back without the secret key.
    expect(await vault.write("aws/config/root", { ...STATIC_ROOT, region: "eu-west-1" })).toBe("");
    await vault.write("aws/config/lease", { lease: "1h", lease_max: "2h" });
  });

  it("path_config_root.go and path_config_lease.go: read back, lease in long form", async () => {
    expect(((await vault.read("aws/config/root")) as Answer).data).toEqual({
      access_key: STATIC_ROOT.access_key,
      region: "eu-west-1",
      iam_endpoint: "",
      sts_endpoint: "",
      max_retries: -1,
    });
    expect(((await vault.read("aws/config/lease")) as Answer).data).toEqual({ lease: "1h0m0s", lease_max: "2h0m0s" });
  });

  it("path_roles.go: write, read, LIST (without and with the trailing slash the CLI sends), delete; a missing role reads 404", async () => {
    expect(await vault.write("aws/roles/app", { credential_type: "iam_user", policy_arns: [READONLY] })).toBe("");
    await vault.write("aws/roles/deploy", { credential_type: "assumed_role", role_arns: [DEPLOY] });
    expect(((await vault.read("aws/roles/app")) as Answer).data).toMatchObject({ credential_type: "iam_user", policy_arns: [READONLY] });
    expect(((await vault.list("aws/roles")) as Answer).data.keys).toEqual(["app", "deploy"]);
    expect(((await vault.list("aws/roles/")) as Answer).data.keys).toEqual(["app", "deploy"]);
    await vault.write("aws/roles/gone", { credential_type: "iam_user", policy_arns: [READONLY] });
    expect(await vault.delete("aws/roles/gone")).toBe("");
    expect((await refusal(vault.read("aws/roles/gone"))).status).toBe(404);
  });

  it("path_user.go: credentials of an IAM user, as a renewable lease of the configured lease", async () => {
    const issued = (await vault.read("aws/creds/app")) as Answer;
    expect(issued).toMatchObject({ renewable: true, lease_duration: 3600, lease_id: expect.stringMatching(/^aws\/creds\/app\//) });
    expect(issued.data).toMatchObject({ access_key: expect.stringMatching(/^AKIA/), security_token: null });
  });

  it("path_user.go (pathCredsRead, before Aug 2022): a missing role is 400 `Role '<name>' not found`", async () => {
    expect(await refusal(vault.read("aws/creds/nope"))).toEqual({ status: 400, errors: ["Role 'nope' not found"] });
  });

  it("path_user.go: an assumed role with its ARN unencoded in the query, as clients send it", async () => {
    const issued = (await vault.read(`aws/creds/deploy?role_arn=${DEPLOY}&ttl=900`)) as Answer;
    expect(issued).toMatchObject({ renewable: false, lease_duration: 900 });
    expect(issued.data.access_key).toMatch(/^ASIA/);
  });

  it("path_user.go: /sts with a body", async () => {
    const issued = (await vault.write("aws/sts/deploy", { ttl: "15m" })) as Answer;
    expect(issued).toMatchObject({ renewable: false, lease_duration: 900 });
  });

  it("path_user.go: read and update on both paths (pathUser registers both on pathCredsRead): /sts read with a query, /creds written with a body", async () => {
    const read = (await vault.read("aws/sts/deploy?ttl=1000")) as Answer;
    expect(read).toMatchObject({ renewable: false, lease_duration: 1000, lease_id: expect.stringMatching(/^aws\/sts\/deploy\//) });
    const written = (await vault.write("aws/creds/deploy", { ttl: "20m" })) as Answer;
    expect(written).toMatchObject({ renewable: false, lease_duration: 1200, lease_id: expect.stringMatching(/^aws\/creds\/deploy\//) });
  });
});

describe("discovery-token engine (builtin/logical/consul)", () => {
  beforeAll(async () => {
    expect(await vault.write("consul/config/access", { address: new URL(mesh.baseUrl).host, token: MANAGEMENT })).toBe("");
  });
  const tokenWorks = async (token: string) =>
    (await mesh.clientWithToken(token).GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } })).response.status === 200;

  it("path_roles.go: write, read, LIST, delete (a missing role still deletes), read of a missing role 404", async () => {
    expect(await vault.write("consul/roles/web", { policies: "web-reader", ttl: "10m", max_ttl: "1h" })).toBe("");
    expect(((await vault.read("consul/roles/web")) as Answer).data).toMatchObject({ policies: ["web-reader"], ttl: 600, max_ttl: 3600, token_type: "client" });
    expect(((await vault.list("consul/roles")) as Answer).data.keys).toEqual(["web"]);
    expect(((await vault.list("consul/roles/")) as Answer).data.keys).toEqual(["web"]);
    expect(await vault.delete("consul/roles/never-was")).toBe("");
    expect((await refusal(vault.read("consul/roles/never-was"))).status).toBe(404);
  });

  it("path_token.go: a token that works at the backend, as a lease of the role's TTL; a missing role is 400", async () => {
    const issued = (await vault.read("consul/creds/web")) as Answer;
    expect(issued).toMatchObject({ renewable: true, lease_duration: 600, lease_id: expect.stringMatching(/^consul\/creds\/web\//) });
    expect(await tokenWorks(issued.data.token as string)).toBe(true);
    expect(await refusal(vault.read("consul/creds/nope"))).toEqual({ status: 400, errors: ['role "nope" not found'] });
  });

  it("secret_token.go: the token is deleted from the backend when its lease ends", async () => {
    const issued = (await vault.read("consul/creds/web")) as Answer;
    expect(await tokenWorks(issued.data.token as string)).toBe(true);
    clock.advance(600_000);
    await leasesOf(server.secrets.cluster).idle();
    expect(await tokenWorks(issued.data.token as string)).toBe(false);
  });
});

describe("leases with node-vault's renew and revoke (vault/logical_system.go handleRenew, handleRevoke)", () => {
  it("renews with an increment, capped by the lease's maximum", async () => {
    const issued = (await vault.read("aws/creds/app")) as Answer;
    const renewed = (await vault.renew({ lease_id: issued.lease_id, increment: 600 })) as Answer;
    expect(renewed).toMatchObject({ lease_id: issued.lease_id, renewable: true, lease_duration: 600, data: null });
    const capped = (await vault.renew({ lease_id: issued.lease_id, increment: 3 * 3600 })) as Answer;
    expect(capped.lease_duration).toBe(7200);
    expect(capped.warnings).toEqual(['TTL of "3h" exceeded the effective max_ttl of "2h"; TTL value is capped accordingly']);
  });

  it("revokes (204): the IAM user is gone from the provider", async () => {
    const issued = (await vault.read("aws/creds/app")) as Answer;
    const userName = String(issued.data.arn).split("/").pop()!;
    expect(server.cloud.userNames()).toContain(userName);
    expect(await vault.revoke({ lease_id: issued.lease_id })).toBe("");
    expect(server.cloud.userNames()).not.toContain(userName);
  });

  it("expiry revokes the IAM user; renewing afterwards is 400 `lease not found`", async () => {
    const issued = (await vault.read("aws/creds/app")) as Answer;
    const userName = String(issued.data.arn).split("/").pop()!;
    clock.advance(3600_000);
    await leasesOf(server.secrets.cluster).idle();
    expect(server.cloud.userNames()).not.toContain(userName);
    expect(await refusal(vault.renew({ lease_id: issued.lease_id }))).toEqual({ status: 400, errors: ["lease not found"] });
  });

  it("revokePrefix (PUT /sys/revoke-prefix/<prefix>, the older path: vault/logical_system_paths.go leasePaths) revokes every lease under it", async () => {
    const issued = [(await vault.read("aws/creds/app")) as Answer, (await vault.read("aws/creds/app")) as Answer];
    const userNames = issued.map((answer) => String(answer.data.arn).split("/").pop()!);
    for (const name of userNames) expect(server.cloud.userNames()).toContain(name);
    expect(await vault.revokePrefix({ path_prefix: "aws" })).toBe("");
    for (const name of userNames) expect(server.cloud.userNames()).not.toContain(name);
    expect(await refusal(vault.renew({ lease_id: issued[0]!.lease_id }))).toEqual({ status: 400, errors: ["lease not found"] });
  });

  it("an STS lease is not renewable", async () => {
    const issued = (await vault.write("aws/sts/deploy", { ttl: "15m" })) as Answer;
    expect(await refusal(vault.renew({ lease_id: issued.lease_id }))).toEqual({ status: 400, errors: ["lease is not renewable"] });
  });
});

describe("push-MFA methods (vault/login_mfa.go)", () => {
  const body = { secret_key: "mfa-secret", integration_key: "mfa-integration", api_hostname: "api-12345.push.example.com" };

  it("creates, reads, lists, updates (an unknown id: 204, nothing written) and deletes", async () => {
    const created = (await vault.write("identity/mfa/method/pushmfa", body)) as Answer;
    const id = created.data.method_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await vault.read(`identity/mfa/method/pushmfa/${id}`)) as Answer).data).toMatchObject({ id, type: "pushmfa", api_hostname: body.api_hostname });
    expect(((await vault.list("identity/mfa/method/pushmfa")) as Answer).data.keys).toContain(id);
    expect(await vault.write(`identity/mfa/method/pushmfa/${id}`, { ...body, use_passcode: true })).toBe("");
    expect(((await vault.read(`identity/mfa/method/pushmfa/${id}`)) as Answer).data).toMatchObject({ use_passcode: true });
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await vault.write(`identity/mfa/method/pushmfa/${unknown}`, body)).toBe("");
    expect((await refusal(vault.read(`identity/mfa/method/pushmfa/${unknown}`))).status).toBe(404);
    expect(await vault.delete(`identity/mfa/method/pushmfa/${id}`)).toBe("");
    expect((await refusal(vault.read(`identity/mfa/method/pushmfa/${id}`))).status).toBe(404);
  });
});

describe("replication status", () => {
  it("reads the DR and performance status of a cluster without replication: mode disabled", async () => {
    expect(((await vault.read("sys/replication/dr/status")) as Answer).data).toEqual({ mode: "disabled" });
    expect(((await vault.read("sys/replication/performance/status")) as Answer).data).toEqual({ mode: "disabled" });
  });
});

describe("token lookups (vault/token_store.go handleLookupSelf, handleLookup)", () => {
  it("tokenLookupSelf: the root token as the real system makes it", async () => {
    const answer = (await vault.tokenLookupSelf()) as Answer;
    expect(answer.data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"], path: "auth/token/root", display_name: "root", num_uses: 0, meta: null, ttl: 0, expire_time: null, orphan: true });
  });

  it("tokenLookup: another token, and 403 `bad token` for one that does not exist", async () => {
    expect(((await vault.tokenLookup({ token: ROOT_TOKEN })) as Answer).data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"] });
    expect(await refusal(vault.tokenLookup({ token: "no-such-token" }))).toEqual({ status: 403, errors: ["bad token"] });
  });

  it("tokenLookupSelf with an unknown token: 403 `permission denied`", async () => {
    const stranger = nodeVault({ apiVersion: "v1", endpoint: shim.url, token: "not-a-token" });
    expect(await refusal(stranger.tokenLookupSelf())).toEqual({ status: 403, errors: ["permission denied"] });
  });
});

describe("the shim", () => {
  it("renamed the token header of every request (nothing reached the server with X-Vault-Token)", () => {
    expect(shim.renamed()).toBeGreaterThan(40);
  });
});
