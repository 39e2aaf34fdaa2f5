// The lease table through the generated client: leases of IAM users, STS credentials and discovery
// tokens; lookup, renewal up to the maximum TTL, revocation on demand and at expiry, after which
// the credential stops working where it was issued (the simulated cloud provider, a real mesh
// server). Time is a manual clock given to the cluster's lease table: no test waits for a TTL.
// Statuses and words follow the real system (vault/logical_system.go handleRenew, handleRevoke,
// handleLeaseLookup; vault/expiration.go leaseEntry.renewable; sdk/framework/lease.go CalculateTTL).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/secrets/leases/clock.ts";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";
import { startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";
import { expectRefusedThenForced } from "../helpers/secrets-leases.ts";

const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const DEPLOY = "arn:aws:iam::123456789012:role/deploy";
const HOUR = 3_600_000;
/** Now, to the whole second (TTLs are whole seconds). */
const wholeSecond = () => Math.floor(Date.now() / 1000) * 1000;

describe("cloud credentials leases", () => {
  let server: CloudTestServer;
  let clock: ManualClock;
  const leases = () => leasesOf(server.secrets.cluster);

  beforeAll(async () => {
    // A token with every capability on the lease paths but sudo.
    const world = parseWorld({
      policies: { "leases-no-sudo": { path: { "sys/leases/*": { capabilities: ["create", "read", "update", "delete", "list"] } } } },
      tokens: [{ id: "leases-no-sudo", policies: ["leases-no-sudo"] }],
    });
    server = await startCloudSecrets({ world });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    server.reset();
    clock = new ManualClock(wholeSecond());
    leases().useClock(clock);
    ok(await server.client.POST("/aws/config/root", { body: STATIC_ROOT }));
    ok(await server.client.POST("/aws/config/lease", { body: { lease: "1h", lease_max: "2h" } }));
    ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "app" } }, body: { credential_type: "iam_user", policy_arns: READONLY, iam_groups: "developers" } }));
    ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "deploy" } }, body: { credential_type: "assumed_role", role_arns: DEPLOY } }));
  });

  const issue = async () => ok(await server.client.GET("/aws/creds/{name}", { params: { path: { name: "app" } } }));
  const lookup = (lease_id: string) => server.client.PUT("/sys/leases/lookup", { body: { lease_id } });
  const renew = (lease_id: string, increment?: number | string) =>
    server.client.PUT("/sys/leases/renew", { body: { lease_id, ...(increment === undefined ? {} : { increment }) } });
  const revoke = (lease_id: string) => server.client.PUT("/sys/leases/revoke", { body: { lease_id } });
  /** Whether the provider still takes the keys. */
  const keysWork = async (access_key: string, secret_key: string) =>
    server.cloud.getUser({ credentials: { accessKeyId: access_key, secretAccessKey: secret_key }, region: "us-east-1", endpoint: "", maxRetries: -1 }).then(
      () => true,
      (error: { code?: string }) => {
        expect(error.code).toBe("InvalidClientTokenId");
        return false;
      },
    );

  it("gives an IAM user a lease of the mount's configured lease, stored under sys/expire/id/", async () => {
    const issued = await issue();
    expect(issued).toMatchObject({ renewable: true, lease_duration: 3600, warnings: null });
    expect(issued.lease_id).toMatch(/^aws\/creds\/app\/[0-9A-Za-z]{24}$/);
    expect(server.secrets.cluster.storage.list("sys/expire/id/")).toEqual([`sys/expire/id/${issued.lease_id}`]);
    const { data } = await lookup(issued.lease_id);
    expect(data!.data).toEqual({
      id: issued.lease_id,
      issue_time: new Date(clock.now()).toISOString(),
      expire_time: new Date(clock.now() + HOUR).toISOString(),
      last_renewal: null,
      renewable: true,
      ttl: 3600,
    });
  });

  it("revokes the IAM user at expiry: the user, its keys and policies are gone and the keys stop working", async () => {
    const issued = await issue();
    const userName = issued.data.arn.split("/").pop()!;
    expect(server.cloud.userNames()).toContain(userName);
    expect(await keysWork(issued.data.access_key, issued.data.secret_key)).toBe(true);

    clock.advance(HOUR - 1000);
    await leases().idle();
    expect(server.cloud.userNames()).toContain(userName);

    clock.advance(1000);
    await leases().idle();
    expect(server.cloud.userNames()).not.toContain(userName);
    expect(await keysWork(issued.data.access_key, issued.data.secret_key)).toBe(false);
    expect(server.secrets.cluster.storage.list("sys/expire/id/")).toEqual([]);
    expect(await lookup(issued.lease_id)).toMatchObject({ response: { status: 400 }, error: { errors: ["invalid lease"] } });
    expect(await renew(issued.lease_id)).toMatchObject({ response: { status: 400 }, error: { errors: ["lease not found"] } });
  });

  it("renews from now, up to the lease's maximum, with the real system's warning when it is cut", async () => {
    const issued = await issue();
    clock.advance(30 * 60_000);
    const renewed = ok(await renew(issued.lease_id));
    expect(renewed).toMatchObject({ lease_id: issued.lease_id, renewable: true, lease_duration: 3600, data: null, warnings: null });
    expect(ok(await lookup(issued.lease_id)).data).toMatchObject({
      last_renewal: new Date(clock.now()).toISOString(),
      expire_time: new Date(clock.now() + HOUR).toISOString(),
    });
    // Asked for 2h with 1h30m of the 2h maximum left: cut, with a warning.
    const capped = ok(await renew(issued.lease_id, "2h"));
    expect(capped.lease_duration).toBe(5400);
    expect(capped.warnings).toEqual(['TTL of "2h" exceeded the effective max_ttl of "1h30m"; TTL value is capped accordingly']);
    // The increment is seconds or a duration.
    expect(ok(await renew(issued.lease_id, 600)).lease_duration).toBe(600);

    // The last renewal decides: 10 minutes from now.
    const userName = issued.data.arn.split("/").pop()!;
    clock.advance(10 * 60_000 - 1000);
    await leases().idle();
    expect(server.cloud.userNames()).toContain(userName);
    clock.advance(1000);
    await leases().idle();
    expect(server.cloud.userNames()).not.toContain(userName);
  });

  it("refuses a renewal once the lease is past its maximum TTL (the maximum was lowered after issue)", async () => {
    const issued = await issue();
    ok(await server.client.POST("/aws/config/lease", { body: { lease: "10m", lease_max: "30m" } }));
    clock.advance(40 * 60_000);
    const refused = await renew(issued.lease_id);
    expect(refused).toMatchObject({ response: { status: 400 }, error: { errors: ["past the max TTL, cannot renew"] } });
    expect(ok(await lookup(issued.lease_id)).data.last_renewal).toBeNull();
  });

  it("revokes on demand: 204, the user is gone, and revoking again (or an unknown lease) is 204 too", async () => {
    const issued = await issue();
    const userName = issued.data.arn.split("/").pop()!;
    expect((await revoke(issued.lease_id)).response.status).toBe(204);
    expect(server.cloud.userNames()).not.toContain(userName);
    expect(await keysWork(issued.data.access_key, issued.data.secret_key)).toBe(false);
    expect((await revoke(issued.lease_id)).response.status).toBe(204);
    expect((await revoke("aws/creds/app/nothing-here")).response.status).toBe(204);
    // The timer went with the lease: nothing happens at the old expiry.
    clock.advance(2 * HOUR);
    await leases().idle();
  });

  it("revokes in the background with sync false (202)", async () => {
    const issued = await issue();
    const { response } = await server.client.PUT("/sys/leases/revoke", { body: { lease_id: issued.lease_id, sync: false } });
    expect(response.status).toBe(202);
    await leases().idle();
    expect(leases().list()).toEqual([]);
  });

  it("reads sync as the framework reads a bool: its spellings, 0 and 1; anything else 400 and the lease kept", async () => {
    for (const [sync, status] of [["false", 202], ["f", 202], [0, 202], ["", 202], ["TRUE", 204], [1, 204]] as const) {
      const issued = await issue();
      const { response } = await server.client.PUT("/sys/leases/revoke", { body: { lease_id: issued.lease_id, sync } });
      expect(response.status, String(sync)).toBe(status);
      await leases().idle();
    }
    const prefix = await server.client.PUT("/sys/leases/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/creds/app" } }, body: { sync: "false" } });
    expect(prefix.response.status).toBe(202);
    await leases().idle();
    const issued = await issue();
    const refused = await server.client.PUT("/sys/leases/revoke", { body: { lease_id: issued.lease_id, sync: "later" as "false" } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: [`Field validation failed: error converting input later for field "sync": cannot parse '' as bool: strconv.ParseBool: parsing "later": invalid syntax`] });
    expect(leases().list()).toEqual([issued.lease_id]);
    expect((await revoke(issued.lease_id)).response.status).toBe(204);
  });

  it("gives STS credentials a lease that cannot be renewed, and revoking it changes nothing at the provider", async () => {
    const issued = ok(await server.client.GET("/aws/creds/{name}", { params: { path: { name: "deploy" }, query: { ttl: "900" } } }));
    expect(issued).toMatchObject({ renewable: false, lease_duration: 900 });
    expect(await renew(issued.lease_id)).toMatchObject({ response: { status: 400 }, error: { errors: ["lease is not renewable"] } });
    expect(ok(await lookup(issued.lease_id)).data).toMatchObject({ renewable: false, ttl: 900 });
    const calls = server.cloud.calls.length;
    expect((await revoke(issued.lease_id)).response.status).toBe(204);
    expect(server.cloud.calls.length).toBe(calls);
  });

  it("keeps the lease when the provider refuses the revocation, and answers 400", async () => {
    const issued = await issue();
    ok(await server.client.POST("/aws/config/root", { body: { access_key: "AKIAWRONGWRONGWRONG0", secret_key: "wrong" } }));
    const { response, error } = await revoke(issued.lease_id);
    expect(response.status).toBe(400);
    expect(error!.errors[0]).toMatch(/^failed to revoke entry: /);
    expect(leases().list()).toEqual([issued.lease_id]);
    // At expiry it is retried with growing waits; once the root credentials work again it goes.
    clock.advance(HOUR);
    await leases().idle();
    expect(leases().entry(issued.lease_id)!.revoke_attempts).toBe(1);
    ok(await server.client.POST("/aws/config/root", { body: STATIC_ROOT }));
    clock.advance(20_000);
    await leases().idle();
    expect(leases().list()).toEqual([]);
    expect(server.cloud.userNames()).not.toContain(issued.data.arn.split("/").pop());
  });

  describe("listing and revoking by prefix", () => {
    const list = (prefix?: string) =>
      prefix === undefined
        ? server.client.GET("/sys/leases/lookup", { params: { query: { list: "true" } } })
        : server.client.GET("/sys/leases/lookup/{prefix}", { params: { path: { prefix }, query: { list: "true" } } });

    it("lists the first segments, then what lies under a prefix (with or without its slash, LIST on the wire too)", async () => {
      const [a, b] = [await issue(), await issue()];
      expect(ok(await list()).data.keys).toEqual(["aws/"]);
      expect(ok(await list("aws")).data.keys).toEqual(["creds/"]);
      const suffixes = [a, b].map((lease) => lease.lease_id.split("/").pop()!).sort();
      expect(ok(await list("aws/creds/app/")).data.keys).toEqual(suffixes);
      const wire = await fetch(`${server.baseUrl}/sys/leases/lookup/aws/creds/app`, { method: "LIST", headers: { "X-Secrets-Token": "root-token-for-tests" } });
      expect(((await wire.json()) as { data: { keys: string[] } }).data.keys).toEqual(suffixes);
    });

    it("answers 404 with no message under a prefix nothing has", async () => {
      const { response, error } = await list("consul/");
      expect(response.status).toBe(404);
      expect(error).toEqual({ errors: [] });
    });

    it("revokes every lease under a prefix: the users are gone at the provider", async () => {
      const issued = [await issue(), await issue()];
      expect((await server.client.PUT("/sys/leases/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/creds/app" } } })).response.status).toBe(204);
      expect(leases().list()).toEqual([]);
      for (const lease of issued) expect(await keysWork(lease.data.access_key, lease.data.secret_key)).toBe(false);
    });

    it("stops at an engine's refusal (400), keeping what it could not revoke; revoke-force forgets it", async () => {
      const issued = await issue();
      await expectRefusedThenForced(server, { prefix: "/sys/leases/revoke-prefix/{prefix}", force: "/sys/leases/revoke-force/{prefix}" }, issued.lease_id);
    });

    it("needs sudo: a token with list and update on the paths but no sudo is refused, and nothing is revoked", async () => {
      const issued = await issue();
      const caller = server.clientWithToken("leases-no-sudo");
      // The same token may renew (no sudo needed there): the token itself is good.
      expect((await caller.PUT("/sys/leases/renew", { body: { lease_id: issued.lease_id } })).response.status).toBe(200);
      expect((await caller.GET("/sys/leases/lookup/{prefix}", { params: { path: { prefix: "aws/" }, query: { list: "true" } } })).response.status).toBe(403);
      expect((await caller.PUT("/sys/leases/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/" } } })).response.status).toBe(403);
      expect(leases().list()).toEqual([issued.lease_id]);
    });
  });

  it("refuses requests without a lease id with the real system's words", async () => {
    for (const body of [{}, { lease_id: "" }]) {
      for (const path of ["/sys/leases/renew", "/sys/leases/revoke", "/sys/leases/lookup"] as const) {
        // The description requires lease_id: sent as a client that does not follow it would.
        const { response, error } = await server.client.PUT(path, { body: body as { lease_id: string } });
        expect(response.status, path).toBe(400);
        expect(error, path).toEqual({ errors: ["lease_id must be specified"] });
      }
    }
    const issued = await issue();
    const bad = await renew(issued.lease_id, "soon");
    expect(bad.response.status).toBe(400);
    expect(bad.error).toEqual({ errors: ['Field validation failed: error converting input soon for field "increment": time: invalid duration "soon"'] });
    expect((await renew(issued.lease_id, -60)).error).toEqual({ errors: [`Field validation failed: error converting input -60 for field "increment": cannot provide negative value '-60'`] });
  });
});

describe("discovery token leases", () => {
  const MANAGEMENT = "mesh-management-token-leases";
  let mesh: RunningMesh;
  let secrets: RunningTestSecrets;
  let clock: ManualClock;
  const leases = () => leasesOf(secrets.secrets.cluster);

  beforeAll(async () => {
    mesh = await startMesh({ managementToken: MANAGEMENT });
    expect((await mesh.clientWithToken(MANAGEMENT).PUT("/acl/policy", { body: { Name: "web-reader", Rules: 'service "web" { policy = "read" }' } })).response.status).toBe(200);
    secrets = await startSecrets();
    clock = new ManualClock(wholeSecond());
    leases().useClock(clock);
    ok(await secrets.client.POST("/consul/config/access", { body: { address: new URL(mesh.baseUrl).host, token: MANAGEMENT } }));
    ok(await secrets.client.POST("/consul/roles/{name}", { params: { path: { name: "web" } }, body: { policies: "web-reader", ttl: "10m", max_ttl: "30m" } }));
  });
  afterAll(async () => {
    await secrets.close();
    await mesh.close();
  });

  const issue = async () => ok(await secrets.client.GET("/consul/creds/{name}", { params: { path: { name: "web" } } }));
  /** Whether the mesh takes the token: a read its policy allows. */
  const tokenWorks = async (token: string) => {
    const { response } = await mesh.clientWithToken(token).GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } });
    return response.status === 200;
  };

  it("deletes the token from the mesh when the lease ends: the token stops working", async () => {
    const issued = await issue();
    expect(issued).toMatchObject({ renewable: true, lease_duration: 600 });
    expect(await tokenWorks(issued.data.token)).toBe(true);
    clock.advance(10 * 60_000);
    await leases().idle();
    expect(await tokenWorks(issued.data.token)).toBe(false);
    expect(leases().list()).toEqual([]);
  });

  it("renews with the role's TTL, up to its max_ttl, and revokes on demand", async () => {
    const issued = await issue();
    clock.advance(5 * 60_000);
    expect(ok(await secrets.client.PUT("/sys/leases/renew", { body: { lease_id: issued.lease_id } })).lease_duration).toBe(600);
    clock.advance(9 * 60_000);
    await leases().idle();
    expect(await tokenWorks(issued.data.token)).toBe(true);
    expect((await secrets.client.PUT("/sys/leases/revoke", { body: { lease_id: issued.lease_id } })).response.status).toBe(204);
    expect(await tokenWorks(issued.data.token)).toBe(false);
  });

  it("refuses to renew once the role is gone, with the real engine's words, and keeps the lease", async () => {
    ok(await secrets.client.POST("/consul/roles/{name}", { params: { path: { name: "brief" } }, body: { policies: "web-reader" } }));
    const issued = ok(await secrets.client.GET("/consul/creds/{name}", { params: { path: { name: "brief" } } }));
    expect(issued.lease_duration).toBe(768 * 3600);
    ok(await secrets.client.DELETE("/consul/roles/{name}", { params: { path: { name: "brief" } } }));
    const { response, error } = await secrets.client.PUT("/sys/leases/renew", { body: { lease_id: issued.lease_id } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ errors: ['failed to renew entry: issuing role "brief" not found'] });
    expect(leases().list()).toContain(issued.lease_id);
    expect((await secrets.client.PUT("/sys/leases/revoke", { body: { lease_id: issued.lease_id } })).response.status).toBe(204);
    expect(await tokenWorks(issued.data.token)).toBe(false);
  });
});

describe("leases in a data directory (SECRETS_DATA_DIR)", () => {
  it("outlive a restart: the restarted server knows the lease and deletes the token from the mesh at its end", async () => {
    const MANAGEMENT = "mesh-management-token-restart";
    const mesh = await startMesh({ managementToken: MANAGEMENT });
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "secrets-leases-")), "data");
    try {
      expect((await mesh.clientWithToken(MANAGEMENT).PUT("/acl/policy", { body: { Name: "web-reader", Rules: 'service "web" { policy = "read" }' } })).response.status).toBe(200);
      const first = await startSecrets({ dataDir });
      ok(await first.client.POST("/consul/config/access", { body: { address: new URL(mesh.baseUrl).host, token: MANAGEMENT } }));
      ok(await first.client.POST("/consul/roles/{name}", { params: { path: { name: "web" } }, body: { policies: "web-reader", ttl: "10m" } }));
      const issued = ok(await first.client.GET("/consul/creds/{name}", { params: { path: { name: "web" } } }));
      await first.close();

      const second = await startSecrets({ dataDir });
      try {
        const clock = new ManualClock(wholeSecond());
        leasesOf(second.secrets.cluster).useClock(clock);
        expect(ok(await second.client.PUT("/sys/leases/lookup", { body: { lease_id: issued.lease_id } })).data).toMatchObject({ id: issued.lease_id, renewable: true });
        const works = async () =>
          (await mesh.clientWithToken(issued.data.token).GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } })).response.status === 200;
        expect(await works()).toBe(true);
        clock.advance(11 * 60_000);
        await leasesOf(second.secrets.cluster).idle();
        expect(await works()).toBe(false);
        expect(leasesOf(second.secrets.cluster).list()).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await mesh.close();
    }
  });
});
