// The lease operations at their older paths (/sys/renew, /sys/revoke, /sys/revoke-prefix/<prefix>,
// /sys/revoke-force/<prefix>) and with the lease id in the path (/sys/leases/renew/<id>,
// /sys/leases/revoke/<id>, /sys/renew/<id>, /sys/revoke/<id>), through the generated client: the
// real system routes them to the same handlers (vault/logical_system_paths.go leasePaths:
// `(leases/)?renew` + OptionalParamRegex("url_lease_id"), `(leases/)?revoke-prefix/(?P<prefix>.+)`...),
// reads the body's `lease_id` first and the path's when the body has none (vault/logical_system.go
// handleRenew, handleRevoke), and checks the capabilities on the path as requested, `sudo` on
// `sys/revoke-prefix/*` and `sys/revoke-force/*` too (logical_system.go PathsSpecial.Root).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/secrets/leases/clock.ts";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";
import { expectRefusedThenForced } from "../helpers/secrets-leases.ts";

const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";

let server: CloudTestServer;
const leases = () => leasesOf(server.secrets.cluster);

beforeAll(async () => {
  const world = parseWorld({
    policies: {
      // update (and sudo) on the current paths only.
      current: { path: { "sys/leases/*": { capabilities: ["update", "sudo"] } } },
      // update on the older paths, without sudo.
      older: { path: { "sys/renew": { capabilities: ["update"] }, "sys/revoke-prefix/*": { capabilities: ["update"] } } },
    },
    tokens: [
      { id: "current-paths", policies: ["current"] },
      { id: "older-paths", policies: ["older"] },
    ],
  });
  server = await startCloudSecrets({ world });
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  leases().useClock(new ManualClock(Math.floor(Date.now() / 1000) * 1000));
  ok(await server.client.POST("/aws/config/root", { body: STATIC_ROOT }));
  ok(await server.client.POST("/aws/config/lease", { body: { lease: "1h", lease_max: "2h" } }));
  ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "app" } }, body: { credential_type: "iam_user", policy_arns: READONLY } }));
  // No lease left over from an earlier case.
  ok(await server.client.PUT("/sys/leases/revoke-force/{prefix}", { params: { path: { prefix: "aws/" } } }));
});

const issue = async () => ok(await server.client.GET("/aws/creds/{name}", { params: { path: { name: "app" } } }));
const userOf = (issued: { data: { arn: string } }) => issued.data.arn.split("/").pop()!;

describe("renewing at the older path and with the lease id in the path", () => {
  it("PUT /sys/renew renews as /sys/leases/renew does", async () => {
    const issued = await issue();
    const renewed = ok(await server.client.PUT("/sys/renew", { body: { lease_id: issued.lease_id, increment: 600 } }));
    expect(renewed).toMatchObject({ lease_id: issued.lease_id, renewable: true, lease_duration: 600, data: null, warnings: null });
  });

  it("PUT /sys/leases/renew/<id> and /sys/renew/<id> renew the lease in the path, without a body too", async () => {
    const issued = await issue();
    const renewed = ok(await server.client.PUT("/sys/leases/renew/{url_lease_id}", { params: { path: { url_lease_id: issued.lease_id } }, body: { increment: "20m" } }));
    expect(renewed).toMatchObject({ lease_id: issued.lease_id, lease_duration: 1200 });
    const again = ok(await server.client.PUT("/sys/renew/{url_lease_id}", { params: { path: { url_lease_id: issued.lease_id } } }));
    expect(again).toMatchObject({ lease_id: issued.lease_id, lease_duration: 3600 });
  });

  it("takes the lease id with its `/` unencoded in the path, as clients send it", async () => {
    const issued = await issue();
    const answer = await fetch(`${server.baseUrl}/sys/leases/renew/${issued.lease_id}`, { method: "PUT", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: '{"increment":60}' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ lease_id: issued.lease_id, lease_duration: 60 });
  });

  it("renews the body's lease_id when it is given and not empty, else the path's", async () => {
    const [inBody, inPath] = [await issue(), await issue()];
    const path = { url_lease_id: inPath.lease_id };
    expect(ok(await server.client.PUT("/sys/leases/renew/{url_lease_id}", { params: { path }, body: { lease_id: inBody.lease_id } })).lease_id).toBe(inBody.lease_id);
    expect(ok(await server.client.PUT("/sys/leases/renew/{url_lease_id}", { params: { path }, body: { lease_id: "" } })).lease_id).toBe(inPath.lease_id);
    expect(ok(await server.client.PUT("/sys/leases/renew/{url_lease_id}", { params: { path }, body: { lease_id: null } })).lease_id).toBe(inPath.lease_id);
    // An unknown lease in the path: the real system's words.
    const unknown = await server.client.PUT("/sys/renew/{url_lease_id}", { params: { path: { url_lease_id: "aws/creds/app/nothing" } } });
    expect(unknown).toMatchObject({ response: { status: 400 }, error: { errors: ["lease not found"] } });
  });

  it("refuses /sys/renew and /sys/revoke without a lease id in the real system's words", async () => {
    for (const body of [{}, { lease_id: "" }]) {
      for (const path of ["/sys/renew", "/sys/revoke"] as const) {
        // The description requires lease_id: sent as a client that does not follow it would.
        const { response, error } = await server.client.PUT(path, { body: body as { lease_id: string } });
        expect(response.status, path).toBe(400);
        expect(error, path).toEqual({ errors: ["lease_id must be specified"] });
      }
    }
  });

  it("answers another method on a path with the id 405, with PUT and POST in Allow", async () => {
    const answer = await fetch(`${server.baseUrl}/sys/leases/renew/aws/creds/app/x`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST, PUT");
  });
});

describe("revoking at the older paths and with the lease id in the path", () => {
  it("PUT /sys/revoke, /sys/leases/revoke/<id> and /sys/revoke/<id> revoke: the users are gone at the provider", async () => {
    const issued = [await issue(), await issue(), await issue()];
    expect((await server.client.PUT("/sys/revoke", { body: { lease_id: issued[0]!.lease_id } })).response.status).toBe(204);
    expect((await server.client.PUT("/sys/leases/revoke/{url_lease_id}", { params: { path: { url_lease_id: issued[1]!.lease_id } } })).response.status).toBe(204);
    const background = await server.client.PUT("/sys/revoke/{url_lease_id}", { params: { path: { url_lease_id: issued[2]!.lease_id } }, body: { sync: false } });
    expect(background.response.status).toBe(202);
    await leases().idle();
    expect(leases().list()).toEqual([]);
    for (const lease of issued) expect(server.cloud.userNames()).not.toContain(userOf(lease));
  });

  it("revokes the body's lease_id when given, leaving the path's", async () => {
    const [inBody, inPath] = [await issue(), await issue()];
    const answer = await server.client.PUT("/sys/leases/revoke/{url_lease_id}", { params: { path: { url_lease_id: inPath.lease_id } }, body: { lease_id: inBody.lease_id } });
    expect(answer.response.status).toBe(204);
    expect(leases().list()).toEqual([inPath.lease_id]);
  });

  it("PUT /sys/revoke-prefix/<prefix> and /sys/revoke-force/<prefix> revoke every lease under the prefix", async () => {
    const issued = [await issue(), await issue()];
    expect((await server.client.PUT("/sys/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/creds/app" } } })).response.status).toBe(204);
    expect(leases().list()).toEqual([]);
    for (const lease of issued) expect(server.cloud.userNames()).not.toContain(userOf(lease));

    // revoke-force forgets a lease whose engine refuses to revoke it.
    const kept = await issue();
    await expectRefusedThenForced(server, { prefix: "/sys/revoke-prefix/{prefix}", force: "/sys/revoke-force/{prefix}" }, kept.lease_id);
  });
});

describe("capabilities, checked on the path as requested", () => {
  it("a grant on sys/leases/* covers the paths with the id there, not the older paths", async () => {
    const issued = await issue();
    const caller = server.clientWithToken("current-paths");
    expect((await caller.PUT("/sys/leases/renew/{url_lease_id}", { params: { path: { url_lease_id: issued.lease_id } } })).response.status).toBe(200);
    expect((await caller.PUT("/sys/renew", { body: { lease_id: issued.lease_id } })).response.status).toBe(403);
    expect((await caller.PUT("/sys/renew/{url_lease_id}", { params: { path: { url_lease_id: issued.lease_id } } })).response.status).toBe(403);
    expect((await caller.PUT("/sys/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/" } } })).response.status).toBe(403);
    expect(leases().list()).toEqual([issued.lease_id]);
  });

  it("a grant on sys/renew covers only that path; sys/revoke-prefix/* needs sudo as sys/leases/revoke-prefix/* does", async () => {
    const issued = await issue();
    const caller = server.clientWithToken("older-paths");
    expect((await caller.PUT("/sys/renew", { body: { lease_id: issued.lease_id } })).response.status).toBe(200);
    expect((await caller.PUT("/sys/renew/{url_lease_id}", { params: { path: { url_lease_id: issued.lease_id } } })).response.status).toBe(403);
    expect((await caller.PUT("/sys/revoke-prefix/{prefix}", { params: { path: { prefix: "aws/" } } })).response.status).toBe(403);
    expect(leases().list()).toEqual([issued.lease_id]);
  });
});
