// hvac 0.11.2 (Debian's python3-hvac, the secrets service's Python client), unchanged, against the
// reference server through a proxy that only renames its token header (X-Vault-Token): every hvac
// call for rekey, the cloud credentials engine (hvac's secrets.aws), the discovery-token engine
// (hvac's secrets.consul) and leases, with what hvac hands its caller. hvac sends null for optional
// arguments it was not given (max_retries, increment) and reads an error's messages only when the
// answer is exactly application/json: both are checked here through hvac itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManualClock } from "../../server/secrets/leases/clock.ts";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { checkHvac, Hvac, type HvacAnswer } from "../helpers/hvac.ts";
import type { RunningMesh } from "../helpers/mesh.ts";
import { REKEY_NOT_STARTED, ROOT_TOKEN } from "../helpers/secrets.ts";
import { DEPLOY, READONLY, startRealClientRig, type RealClientRig } from "../helpers/secrets-real-client-rig.ts";
import type { RunningShim } from "./conformance/token-header-shim.ts";

const MANAGEMENT = "mesh-management-token-hvac";

let rig: RealClientRig;
let server: CloudTestServer;
let mesh: RunningMesh;
let shim: RunningShim;
let clock: ManualClock;
let hvac: Hvac;

beforeAll(async () => {
  checkHvac();
  rig = await startRealClientRig(MANAGEMENT);
  ({ server, mesh, shim, clock } = rig);
  hvac = new Hvac(shim.url, ROOT_TOKEN);
});

afterAll(async () => {
  hvac.close();
  await rig.close();
});

interface Envelope {
  lease_id: string;
  renewable: boolean;
  lease_duration: number;
  data: Record<string, unknown> & { keys?: string[] };
  warnings: string[] | null;
}
const NO_CONTENT = { status: 204, body: null };

/** The answer must be a success; its result. */
function ok<T>(answer: HvacAnswer<T>): T {
  expect(answer.error).toBeUndefined();
  return answer.result!;
}

describe("hvac sys: rekey", () => {
  it("read_rekey_progress before any attempt", async () => {
    expect(ok(await hvac.call("sys.read_rekey_progress"))).toEqual(REKEY_NOT_STARTED);
  });

  it("start_rekey (hvac's defaults: 5 shares, threshold 3), read_rekey_progress, cancel_rekey", async () => {
    const started = ok(await hvac.call<{ nonce: string }>("sys.start_rekey"));
    expect(started).toMatchObject({ started: true, t: 3, n: 5, progress: 0, required: 3, verification_required: false });
    expect(ok(await hvac.call("sys.read_rekey_progress"))).toEqual(started);
    expect(ok(await hvac.call("sys.cancel_rekey"))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call("sys.read_rekey_progress"))).toEqual(REKEY_NOT_STARTED);
  });

  it("start_rekey refused: threshold above the shares, with the messages hvac reads (InvalidRequest)", async () => {
    expect(await hvac.call("sys.start_rekey", { secret_shares: 2, secret_threshold: 3 })).toMatchObject({
      error: { type: "InvalidRequest", errors: ["provided threshold greater than the total shares"] },
    });
    expect(ok(await hvac.call("sys.read_rekey_progress"))).toEqual(REKEY_NOT_STARTED);
  });

  it("rekey with a wrong nonce, then rekey_multi with the current shares: new shares, which then rekey with verification", async () => {
    const { nonce } = ok(await hvac.call<{ nonce: string }>("sys.start_rekey", { secret_shares: 3, secret_threshold: 2 }));
    expect(await hvac.call("sys.rekey", { key: server.keys[0], nonce: "00000000-0000-0000-0000-000000000000" })).toMatchObject({
      error: { type: "InvalidRequest", errors: [`incorrect nonce supplied; nonce for this rekey operation is "${nonce}"`] },
    });
    const progress = ok(await hvac.call("sys.rekey", { key: server.keys[0], nonce }));
    expect(progress).toMatchObject({ started: true, progress: 1, nonce });
    const done = ok(await hvac.call<{ complete: boolean; keys: string[]; keys_base64: string[] }>("sys.rekey_multi", { keys: server.keys.slice(1, 3), nonce }));
    expect(done).toMatchObject({ complete: true, nonce });
    expect(done.keys).toHaveLength(3);

    // The new shares (base64 this time) start a rekey that must be verified.
    const verifying = ok(await hvac.call<{ nonce: string }>("sys.start_rekey", { secret_shares: 2, secret_threshold: 2, require_verification: true }));
    const pending = ok(await hvac.call<{ verification_nonce: string; keys: string[] }>("sys.rekey_multi", { keys: done.keys_base64.slice(0, 2), nonce: verifying.nonce }));
    expect(pending).toMatchObject({ complete: true, verification_required: true, verification_nonce: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(ok(await hvac.call("sys.read_rekey_verify_progress"))).toMatchObject({ started: true, nonce: pending.verification_nonce, t: 2, n: 2, progress: 0 });
    // cancel_rekey_verify starts the verification again with a new nonce.
    const restarted = ok(await hvac.call<{ nonce: string }>("sys.cancel_rekey_verify"));
    expect(restarted.nonce).not.toBe(pending.verification_nonce);
    const verified = ok(await hvac.call("sys.rekey_verify_multi", { keys: pending.keys, nonce: restarted.nonce }));
    expect(verified).toEqual({ nonce: restarted.nonce, complete: true });
    server.keys.splice(0, server.keys.length, ...pending.keys);
  });

  it("read_backup_keys without a backup: InvalidRequest with the message hvac reads", async () => {
    expect(await hvac.call("sys.read_backup_keys")).toMatchObject({ error: { type: "InvalidRequest", errors: ["no backed-up keys found"] } });
  });
});

describe("hvac secrets.aws (the cloud credentials engine)", () => {
  it("configure_root_iam_credentials (max_retries null: read as 0), then read back without the secret key", async () => {
    expect(ok(await hvac.call("secrets.aws.configure_root_iam_credentials", { ...STATIC_ROOT, region: "eu-west-1", max_retries: null }))).toEqual(NO_CONTENT);
    const read = await fetch(`${server.baseUrl}/aws/config/root`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(((await read.json()) as Envelope).data).toEqual({ access_key: STATIC_ROOT.access_key, region: "eu-west-1", iam_endpoint: "", sts_endpoint: "", max_retries: 0 });
  });

  it("configure_lease and read_lease_config (durations in long form)", async () => {
    expect(ok(await hvac.call("secrets.aws.configure_lease", { lease: "1h", lease_max: "2h" }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call<Envelope>("secrets.aws.read_lease_config")).data).toEqual({ lease: "1h0m0s", lease_max: "2h0m0s" });
    expect(await hvac.call("secrets.aws.configure_lease", { lease: "soon", lease_max: "2h" })).toMatchObject({ error: { type: "InvalidRequest", errors: [expect.stringMatching(/lease/)] } });
  });

  it("create_or_update_role, read_role, list_roles, delete_role; a missing role is InvalidPath", async () => {
    expect(ok(await hvac.call("secrets.aws.create_or_update_role", { name: "app", credential_type: "iam_user", policy_arns: [READONLY] }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call("secrets.aws.create_or_update_role", { name: "deploy", credential_type: "assumed_role", role_arns: [DEPLOY], default_sts_ttl: "15m" }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call<Envelope>("secrets.aws.read_role", { name: "app" })).data).toMatchObject({ credential_type: "iam_user", policy_arns: [READONLY] });
    expect(ok(await hvac.call<Envelope>("secrets.aws.list_roles")).data.keys).toEqual(["app", "deploy"]);
    ok(await hvac.call("secrets.aws.create_or_update_role", { name: "gone", credential_type: "iam_user", policy_arns: [READONLY] }));
    expect(ok(await hvac.call("secrets.aws.delete_role", { name: "gone" }))).toEqual(NO_CONTENT);
    expect(await hvac.call("secrets.aws.read_role", { name: "gone" })).toMatchObject({ error: { type: "InvalidPath", errors: [] } });
  });

  it("create_or_update_role with durations as the framework reads them: days, and a refusal in its words (InvalidRequest)", async () => {
    expect(ok(await hvac.call("secrets.aws.create_or_update_role", { name: "daily", credential_type: "assumed_role", role_arns: [DEPLOY], default_sts_ttl: "1d", max_sts_ttl: 172800 }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call<Envelope>("secrets.aws.read_role", { name: "daily" })).data).toMatchObject({ default_sts_ttl: 86400, max_sts_ttl: 172800 });
    expect(await hvac.call("secrets.aws.create_or_update_role", { name: "daily", credential_type: "assumed_role", role_arns: [DEPLOY], default_sts_ttl: "soon" })).toMatchObject({
      error: { type: "InvalidRequest", errors: ['Field validation failed: error converting input soon for field "default_sts_ttl": time: invalid duration "soon"'] },
    });
    // Through /creds, a GET with ttl in the query. (hvac 0.11.2 sends /sts parameters as the query
    // of a PUT, which the service, as Vault, does not read: only a write's body is.)
    expect(await hvac.call("secrets.aws.generate_credentials", { name: "daily", ttl: "-1h" })).toMatchObject({
      error: { type: "InvalidRequest", errors: [`Field validation failed: error converting input -1h for field "ttl": cannot provide negative value '-3600'`] },
    });
    expect(ok(await hvac.call("secrets.aws.delete_role", { name: "daily" }))).toEqual(NO_CONTENT);
  });

  it("create_or_update_role refused: an assumed role without role ARNs (InvalidRequest with the engine's words)", async () => {
    const refused = await hvac.call("secrets.aws.create_or_update_role", { name: "broken", credential_type: "assumed_role" });
    expect(refused.error?.type).toBe("InvalidRequest");
    expect(refused.error?.errors?.[0]).toMatch(/role_arns/);
    expect(await hvac.call("secrets.aws.read_role", { name: "broken" })).toMatchObject({ error: { type: "InvalidPath" } });
  });

  it("generate_credentials from /creds (an IAM user, a renewable lease) and /sts (an assumed role)", async () => {
    const user = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    expect(user).toMatchObject({ renewable: true, lease_duration: 3600, lease_id: expect.stringMatching(/^aws\/creds\/app\//) });
    expect(user.data.access_key).toMatch(/^AKIA/);
    const assumed = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "deploy", role_arn: DEPLOY, ttl: "15m", endpoint: "sts" }));
    expect(assumed).toMatchObject({ renewable: false, lease_duration: 900 });
    expect(assumed.data.access_key).toMatch(/^ASIA/);
    expect(await hvac.call("secrets.aws.generate_credentials", { name: "nope" })).toMatchObject({ error: { type: "InvalidRequest", errors: ["Role 'nope' not found"] } });
  });

  it("rotate_root_iam_credentials: a new access key, the old one gone at the provider", async () => {
    const rotated = ok(await hvac.call<Envelope>("secrets.aws.rotate_root_iam_credentials"));
    expect(rotated.data.access_key).toMatch(/^AKIA/);
    expect(rotated.data.access_key).not.toBe(STATIC_ROOT.access_key);
    expect(JSON.stringify(rotated)).not.toContain("secret_key");
  });
});

describe("hvac secrets.consul (the discovery-token engine)", () => {
  const tokenWorks = async (token: string) =>
    (await mesh.clientWithToken(token).GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } })).response.status === 200;

  // The real engine writes roles without reading the configuration (builtin/logical/consul/
  // path_roles.go, pathRolesWrite); only creds need it (path_token.go, pathTokenRead).
  it("roles before configure_access: stored; generate_credentials is what needs the access", async () => {
    expect(ok(await hvac.call("secrets.consul.create_or_update_role", { name: "early", policies: ["web-reader"] }))).toEqual(NO_CONTENT);
    expect(await hvac.call("secrets.consul.generate_credentials", { name: "early" })).toMatchObject({
      error: { type: "InvalidRequest", errors: ["access credentials for the backend itself haven't been configured; please configure them at the '/config/access' endpoint"] },
    });
    expect(ok(await hvac.call("secrets.consul.delete_role", { name: "early" }))).toEqual(NO_CONTENT);
  });

  it("configure_access, then create_or_update_role, read_role, list_roles, delete_role", async () => {
    expect(ok(await hvac.call("secrets.consul.configure_access", { address: new URL(mesh.baseUrl).host, token: MANAGEMENT }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call("secrets.consul.create_or_update_role", { name: "web", policies: ["web-reader"], ttl: "10m", max_ttl: "1h" }))).toEqual(NO_CONTENT);
    expect(ok(await hvac.call<Envelope>("secrets.consul.read_role", { name: "web" })).data).toMatchObject({ policies: ["web-reader"], ttl: 600, max_ttl: 3600, token_type: "client" });
    expect(ok(await hvac.call<Envelope>("secrets.consul.list_roles")).data.keys).toEqual(["web"]);
    ok(await hvac.call("secrets.consul.create_or_update_role", { name: "gone", token_type: "management" }));
    expect(ok(await hvac.call("secrets.consul.delete_role", { name: "gone" }))).toEqual(NO_CONTENT);
    expect(await hvac.call("secrets.consul.read_role", { name: "gone" })).toMatchObject({ error: { type: "InvalidPath", errors: [] } });
  });

  it("generate_credentials: a token that works at the mesh, as a lease of the role's TTL; a missing role is InvalidRequest", async () => {
    const issued = ok(await hvac.call<Envelope>("secrets.consul.generate_credentials", { name: "web" }));
    expect(issued).toMatchObject({ renewable: true, lease_duration: 600, lease_id: expect.stringMatching(/^consul\/creds\/web\//) });
    expect(await tokenWorks(issued.data.token as string)).toBe(true);
    expect(await hvac.call("secrets.consul.generate_credentials", { name: "nope" })).toMatchObject({ error: { type: "InvalidRequest", errors: ['role "nope" not found'] } });
  });
});

describe("hvac sys: leases", () => {
  it("read_lease, renew_lease (increment null: the engine's TTL; then an increment), revoke_lease", async () => {
    const issued = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    const looked = ok(await hvac.call<Envelope>("sys.read_lease", { lease_id: issued.lease_id }));
    expect(looked.data).toMatchObject({ id: issued.lease_id, renewable: true });
    const renewed = ok(await hvac.call<Envelope>("sys.renew_lease", { lease_id: issued.lease_id }));
    expect(renewed).toMatchObject({ lease_id: issued.lease_id, renewable: true, lease_duration: 3600 });
    expect(ok(await hvac.call<Envelope>("sys.renew_lease", { lease_id: issued.lease_id, increment: 600 })).lease_duration).toBe(600);
    const userName = String(issued.data.arn).split("/").pop()!;
    expect(server.cloud.userNames()).toContain(userName);
    expect(ok(await hvac.call("sys.revoke_lease", { lease_id: issued.lease_id }))).toEqual(NO_CONTENT);
    expect(server.cloud.userNames()).not.toContain(userName);
    expect(await hvac.call("sys.renew_lease", { lease_id: issued.lease_id })).toMatchObject({ error: { type: "InvalidRequest", errors: ["lease not found"] } });
  });

  it("list_leases: the mounts, then a role's leases; revoke_prefix revokes them all; an empty prefix is InvalidPath", async () => {
    const first = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    const second = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    expect(ok(await hvac.call<Envelope>("sys.list_leases", { prefix: "" })).data.keys).toEqual(expect.arrayContaining(["aws/"]));
    expect(ok(await hvac.call<Envelope>("sys.list_leases", { prefix: "aws" })).data.keys).toEqual(expect.arrayContaining(["creds/", "sts/"]));
    const suffixes = [first.lease_id, second.lease_id].map((id) => id.split("/").pop()!);
    expect(ok(await hvac.call<Envelope>("sys.list_leases", { prefix: "aws/creds/app/" })).data.keys).toEqual(expect.arrayContaining(suffixes));
    const users = [first, second].map((issued) => String(issued.data.arn).split("/").pop()!);
    expect(ok(await hvac.call("sys.revoke_prefix", { prefix: "aws/creds/app" }))).toEqual(NO_CONTENT);
    for (const user of users) expect(server.cloud.userNames()).not.toContain(user);
    expect(await hvac.call("sys.list_leases", { prefix: "aws/creds/app" })).toMatchObject({ error: { type: "InvalidPath", errors: [] } });
  });

  it("revoke_force forgets the leases under a prefix", async () => {
    const issued = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    expect(ok(await hvac.call("sys.revoke_force", { prefix: "aws/creds/app/" }))).toEqual(NO_CONTENT);
    expect(await hvac.call("sys.read_lease", { lease_id: issued.lease_id })).toMatchObject({ error: { type: "InvalidRequest", errors: ["invalid lease"] } });
  });

  it("a lease ended by time: renewing it is InvalidRequest `lease not found`", async () => {
    const issued = ok(await hvac.call<Envelope>("secrets.aws.generate_credentials", { name: "app" }));
    clock.advance(3 * 3600_000);
    await leasesOf(server.secrets.cluster).idle();
    expect(await hvac.call("sys.renew_lease", { lease_id: issued.lease_id })).toMatchObject({ error: { type: "InvalidRequest", errors: ["lease not found"] } });
  });
});

describe("hvac's generic read, write, list and delete (push-MFA methods, replication status)", () => {
  const body = { secret_key: "mfa-secret", integration_key: "mfa-integration", api_hostname: "api-12345.push.example.com" };

  it("writes, reads, lists (GET with list=True, Python's spelling) and deletes a push-MFA method; a missing one reads None", async () => {
    const created = ok(await hvac.call<Envelope>("write", { path: "identity/mfa/method/pushmfa", ...body }));
    const id = created.data.method_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok(await hvac.call<Envelope>("read", { path: `identity/mfa/method/pushmfa/${id}` })).data).toMatchObject({ id, type: "pushmfa", api_hostname: body.api_hostname });
    expect(ok(await hvac.call<Envelope>("list", { path: "identity/mfa/method/pushmfa" })).data.keys).toContain(id);
    expect(await hvac.call("delete", { path: `identity/mfa/method/pushmfa/${id}` })).toEqual({ result: null });
    // hvac's read and list turn a 404 into None.
    expect(await hvac.call("read", { path: `identity/mfa/method/pushmfa/${id}` })).toEqual({ result: null });
  });

  it("a write missing a required member is InvalidRequest naming it", async () => {
    const refused = await hvac.call("write", { path: "identity/mfa/method/pushmfa", secret_key: "s", integration_key: "i" });
    expect(refused).toMatchObject({ error: { type: "InvalidRequest", errors: [expect.stringContaining("api_hostname")] } });
  });

  it("reads the DR and performance replication status", async () => {
    expect(ok(await hvac.call<Envelope>("read", { path: "sys/replication/dr/status" })).data).toMatchObject({ mode: "disabled" });
    expect(ok(await hvac.call<Envelope>("read", { path: "sys/replication/performance/status" })).data).toMatchObject({ mode: "disabled" });
  });
});

describe("hvac's token calls (the token store's lookups, vault/token_store.go handleLookupSelf, handleLookup)", () => {
  // hvac's Client.is_authenticated() GETs auth/token/lookup-self and reads Forbidden, InvalidPath
  // and InvalidRequest as "not authenticated": without the route it was False for every token.
  it("is_authenticated() is True for the root token, False for an unknown one", async () => {
    expect(await hvac.call("is_authenticated")).toEqual({ result: true });
    const stranger = new Hvac(shim.url, "not-a-token");
    try {
      expect(await stranger.call("is_authenticated")).toEqual({ result: false });
      expect(await stranger.call("auth.token.lookup_self")).toMatchObject({ error: { type: "Forbidden", errors: ["permission denied"] } });
    } finally {
      stranger.close();
    }
  });

  it("auth.token.lookup_self() and lookup_token(): the root token's properties", async () => {
    const self = ok(await hvac.call<Envelope>("auth.token.lookup_self"));
    expect(self.data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"], path: "auth/token/root", display_name: "root", ttl: 0, expire_time: null, orphan: true, type: "service", meta: null });
    expect(ok(await hvac.call<Envelope>("lookup_token")).data).toEqual(self.data);
  });

  it("auth.token.lookup(token): another token's properties, or Forbidden `bad token` for one that does not exist", async () => {
    expect(ok(await hvac.call<Envelope>("auth.token.lookup", { token: ROOT_TOKEN })).data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"] });
    expect(await hvac.call("auth.token.lookup", { token: "no-such-token" })).toMatchObject({ error: { type: "Forbidden", errors: ["bad token"] } });
  });
});

describe("hvac without the right token", () => {
  it("is Forbidden with `permission denied`, for reads and writes alike, and nothing is written", async () => {
    const stranger = new Hvac(shim.url, "not-a-token");
    try {
      expect(await stranger.call("sys.list_leases", { prefix: "aws/" })).toMatchObject({ error: { type: "Forbidden", errors: ["permission denied"] } });
      expect(await stranger.call("sys.revoke_prefix", { prefix: "aws/" })).toMatchObject({ error: { type: "Forbidden", errors: ["permission denied"] } });
      expect(await stranger.call("sys.read_rekey_progress")).toMatchObject({ error: { type: "Forbidden", errors: ["permission denied"] } });
      expect(await stranger.call("secrets.aws.create_or_update_role", { name: "intruder", credential_type: "iam_user", policy_arns: [READONLY] })).toMatchObject({
        error: { type: "Forbidden", errors: ["permission denied"] },
      });
      expect(await hvac.call("secrets.aws.read_role", { name: "intruder" })).toMatchObject({ error: { type: "InvalidPath" } });
    } finally {
      stranger.close();
    }
  });
});
