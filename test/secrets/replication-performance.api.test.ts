// Performance replication between real clusters through the generated client: the secondary
// serves reads of the replicated data (engine roles written through the engine's endpoints) and
// refuses writes; paths filters (allow/deny over mounts and namespaces, and the deprecated mount
// filter as an alias) decide what it receives and routes, and the dynamic filter reports it on both
// sides; promote and update-primary without operation token; a performance secondary that is also
// a DR primary passes the writes on.
import { describe, expect, it } from "vitest";
import { mountStoragePrefix } from "../../server/secrets/engines/mount-storage.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { inSync, ok, post, primaryStatus, replicate, secondaryStatus, secondaryToken, status, waitFor, clustersPerTest, readRole, writeRole } from "../helpers/replication.ts";
import { ROOT_TOKEN, type RunningTestSecrets } from "../helpers/secrets.ts";

const cluster = clustersPerTest();

const CONSUL = mountStoragePrefix("discovery-token", "consul");
const putConsul = (c: RunningTestSecrets, name: string) => c.secrets.cluster.storage.put(`${CONSUL}roles/${name}`, { token_type: "management" });
const consulRoles = (c: RunningTestSecrets) => c.secrets.cluster.storage.list(`${CONSUL}roles/`).map((key) => key.split("/").pop());
const awsRoles = (c: RunningTestSecrets) =>
  c.secrets.cluster.storage
    .list(mountStoragePrefix("cloud-credentials", "aws"))
    .filter((key) => key.includes("/role/"))
    .map((key) => key.split("/").pop());
const ROUTE_NOT_FOUND = (path: string) => ({ errors: [`no handler for route "${path}". route entry not found.`] });

describe("the WAL of a cluster", () => {
  it("keeps no write while the cluster is no primary, and every write once it is one; a secondary joining later gets all", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    const { wal } = p.secrets.cluster.replication;
    await writeRole(p, "before");
    await writeRole(p, "again");
    expect(wal.bytes).toBe(0);
    expect(wal.last).toBeGreaterThanOrEqual(2);
    await replicate(p, s, "performance", "perf-1");
    const last = wal.last;
    await writeRole(p, "after");
    expect(wal.bytes).toBeGreaterThan(0);
    expect(wal.since(last)).toMatchObject({ entries: [{ index: last + 1 }] });
    await inSync(p, s, "performance");
    expect(awsRoles(s).sort()).toEqual(["after", "again", "before"]);
  });
});

describe("a performance secondary", () => {
  it("serves reads of the replicated data and refuses writes", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await writeRole(p, "web");
    await replicate(p, s, "performance", "perf-1");
    const fromPrimary = await readRole(p, "web");
    const fromSecondary = await readRole(s, "web");
    expect(fromSecondary.response.status).toBe(200);
    expect(fromSecondary.data!.data).toEqual(fromPrimary.data!.data);

    await writeRole(p, "api");
    await inSync(p, s, "performance");
    expect((await readRole(s, "api")).response.status).toBe(200);

    const write = await writeRole(s, "local");
    expect(write.response.status).toBe(400);
    expect(write.error).toEqual({
      errors: [`cannot write to a performance secondary: replicated data is written on the performance primary (${p.baseUrl.replace(/\/v1$/, "")}) and reaches this cluster by replication`],
    });
    // http/sys_rekey.go handleSysRekeyInit/handleSysRekeyVerify: every method refused on a performance
    // secondary; handleSysRekeyUpdate has no such check and meets the (absent) attempt.
    const rekeyRefused = { errors: ["rekeying can only be performed on the primary cluster when replication is activated"] };
    for (const call of [
      () => s.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } }),
      () => s.client.GET("/sys/rekey/init"),
      () => s.client.DELETE("/sys/rekey/init"),
      () => s.client.GET("/sys/rekey/verify"),
      () => s.client.POST("/sys/rekey/verify", { body: { key: s.keys[0]!, nonce: "x" } }),
      () => s.client.DELETE("/sys/rekey/verify"),
    ]) {
      const { response, error } = await call();
      expect(response.status).toBe(400);
      expect(error).toEqual(rekeyRefused);
    }
    const listed = await fetch(`${s.baseUrl}/sys/rekey/init`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(listed.status).toBe(400);
    expect(await listed.json()).toEqual(rekeyRefused);
    const update = await s.client.POST("/sys/rekey/update", { body: { key: s.keys[0]!, nonce: "x" } });
    expect(update.response.status).toBe(400);
    expect(update.error).toEqual({ errors: ["no barrier rekey in progress"] });
    expect(await primaryStatus(p.client, "performance")).toMatchObject({ mode: "primary", known_secondaries: ["perf-1"] });
    expect(await secondaryStatus(s.client, "performance")).toMatchObject({ mode: "secondary", secondary_id: "perf-1", state: "stream-wals" });
    expect(await status(s.client, "dr")).toEqual({ mode: "disabled" });
  });

  it("promotes and changes primary without an operation token", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "performance", "perf-1");
    await writeRole(p, "before-failover");
    await inSync(p, s, "performance");
    await ok(p.client, "performance", "primary/demote");
    const promoted = await s.client.POST("/sys/replication/performance/secondary/promote", { body: {} });
    expect(promoted.response.status).toBe(200);
    expect(promoted.data).toMatchObject({ complete: true });
    await writeRole(s, "after-failover");
    const token = await secondaryToken(s.client, "performance", "old-primary");
    expect((await p.client.POST("/sys/replication/performance/secondary/update-primary", { body: { token } })).response.status).toBe(204);
    await inSync(s, p, "performance");
    expect((await readRole(p, "after-failover")).response.status).toBe(200);
    expect(awsRoles(p).sort()).toEqual(["after-failover", "before-failover"]);
  });

  it("passes the writes on to its own DR secondary", async () => {
    const [p, s, d] = await Promise.all([cluster(), cluster(), cluster()]);
    await replicate(p, s, "performance", "perf-1");
    await replicate(s, d, "dr", "dr-of-perf");
    await writeRole(p, "chained");
    await inSync(p, s, "performance");
    await inSync(s, d, "dr");
    expect(awsRoles(d)).toEqual(["chained"]);
  });
});

describe("paths filters", () => {
  it("deny a mount: its data is not sent, the secondary does not route it, and both sides report it", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await writeRole(p, "web");
    putConsul(p, "svc");
    await ok(p.client, "performance", "primary/enable");
    // Set before the secondary exists: it applies from the first sync.
    const set = await p.client.POST("/sys/replication/performance/primary/paths-filter/{id}", { params: { path: { id: "perf-1" } }, body: { mode: "deny", paths: ["/aws"] } });
    expect(set.response.status).toBe(204);
    const read = await p.client.GET("/sys/replication/performance/primary/paths-filter/{id}", { params: { path: { id: "perf-1" } } });
    expect(read.data!.data).toEqual({ mode: "deny", paths: ["aws/"] });
    await ok(s.client, "performance", "secondary/enable", { token: await secondaryToken(p.client, "performance", "perf-1") });

    expect(awsRoles(s)).toEqual([]);
    expect(consulRoles(s)).toEqual(["svc"]);
    expect((await readRole(s, "web")).error).toEqual(ROUTE_NOT_FOUND("aws/roles/web"));
    // Writes to the filtered mount are not shipped, but the secondary's position still advances.
    await writeRole(p, "later");
    putConsul(p, "svc-2");
    await waitFor(() => secondaryStatus(s.client, "performance"), (st) => consulRoles(s).length === 2 && st.last_remote_wal === p.secrets.cluster.replication.wal.last);
    expect(awsRoles(s)).toEqual([]);
    // With a filter, the secondary holds less than the primary: their merkle roots differ.
    expect((await secondaryStatus(s.client, "performance")).merkle_root).not.toBe((await primaryStatus(p.client, "performance")).merkle_root);

    const expected = { dynamic_filtered_mounts: ["aws/"], dynamic_filtered_namespaces: [] };
    const onPrimary = await p.client.GET("/sys/replication/performance/primary/dynamic-filter/{id}", { params: { path: { id: "perf-1" } } });
    expect(onPrimary.data!.data).toEqual(expected);
    const onSecondary = await s.client.GET("/sys/replication/performance/secondary/dynamic-filter/{id}", { params: { path: { id: "perf-1" } } });
    expect(onSecondary.data!.data).toEqual(expected);
    const otherId = await s.client.GET("/sys/replication/performance/secondary/dynamic-filter/{id}", { params: { path: { id: "perf-2" } } });
    expect(otherId.error).toEqual({ errors: ['"perf-2" is not the id of this secondary ("perf-1")'] });
    const unfiltered = await p.client.GET("/sys/replication/performance/primary/dynamic-filter/{id}", { params: { path: { id: "nobody" } } });
    expect(unfiltered.data!.data).toEqual({ dynamic_filtered_mounts: [], dynamic_filtered_namespaces: [] });
  });

  it("converge at once when changed (the mount filter is an alias) and when deleted", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await writeRole(p, "web");
    putConsul(p, "svc");
    await replicate(p, s, "performance", "perf-1");
    expect(consulRoles(s)).toEqual(["svc"]);

    const id = { params: { path: { id: "perf-1" } } };
    expect((await p.client.POST("/sys/replication/performance/primary/mount-filter/{id}", { ...id, body: { mode: "whitelist", paths: ["aws"] } })).response.status).toBe(204);
    expect((await p.client.GET("/sys/replication/performance/primary/mount-filter/{id}", id)).data!.data).toEqual({ mode: "whitelist", paths: ["aws/"] });
    expect((await p.client.GET("/sys/replication/performance/primary/paths-filter/{id}", id)).data!.data).toEqual({ mode: "allow", paths: ["aws/"] });
    await waitFor(() => consulRoles(s), (roles) => roles.length === 0);
    expect(awsRoles(s)).toEqual(["web"]);
    expect((await s.client.GET("/consul/roles/{name}", { params: { path: { name: "svc" } } })).error).toEqual(ROUTE_NOT_FOUND("consul/roles/svc"));
    expect((await s.client.GET("/sys/replication/performance/secondary/dynamic-filter/{id}", id)).data!.data).toEqual({
      dynamic_filtered_mounts: ["consul/"],
      dynamic_filtered_namespaces: [],
    });

    expect((await p.client.DELETE("/sys/replication/performance/primary/paths-filter/{id}", id)).response.status).toBe(204);
    expect((await p.client.GET("/sys/replication/performance/primary/mount-filter/{id}", id)).response.status).toBe(404);
    await inSync(p, s, "performance");
    expect(consulRoles(s)).toEqual(["svc"]);
    expect((await p.client.DELETE("/sys/replication/performance/primary/mount-filter/{id}", id)).response.status).toBe(204);
  });

  it("filter namespaces: the MFA methods of a denied namespace stay on the primary", async () => {
    const world = parseWorld({ namespaces: ["team-a", "team-b"] });
    const [p, s] = await Promise.all([cluster({ world }), cluster({ world })]);
    const body = { api_hostname: "api-1.push.example", integration_key: "BIACEUEAXI20BNWTEYXT", secret_key: "mfa-secret" };
    const create = (namespace: string) => p.client.POST("/identity/mfa/method/pushmfa", { body, headers: { "X-Secrets-Namespace": namespace } });
    const root = (await create("")).data!.data.method_id;
    const teamA = (await create("team-a")).data!.data.method_id;
    const teamB = (await create("team-b")).data!.data.method_id;
    await ok(p.client, "performance", "primary/enable");
    await p.client.POST("/sys/replication/performance/primary/paths-filter/{id}", { params: { path: { id: "perf-1" } }, body: { mode: "deny", paths: ["team-a/"] } });
    await ok(s.client, "performance", "secondary/enable", { token: await secondaryToken(p.client, "performance", "perf-1") });
    const onSecondary = s.secrets.cluster.storage.list("identity/").join(" ");
    expect(onSecondary).toContain(root);
    expect(onSecondary).toContain(teamB);
    expect(onSecondary).not.toContain(teamA);
    const dynamic = await p.client.GET("/sys/replication/performance/primary/dynamic-filter/{id}", { params: { path: { id: "perf-1" } } });
    expect(dynamic.data!.data).toEqual({ dynamic_filtered_mounts: [], dynamic_filtered_namespaces: ["team-a/"] });
  });

  it("are refused where they do not apply, and with bad input", async () => {
    const p = await cluster();
    const id = { params: { path: { id: "perf-1" } } };
    const notPrimary = await p.client.POST("/sys/replication/performance/primary/paths-filter/{id}", { ...id, body: { mode: "allow", paths: [] } });
    expect(notPrimary.error).toEqual({ errors: ["cannot set a paths filter: this cluster is not a performance primary (performance replication is not enabled on this cluster)"] });
    expect((await p.client.GET("/sys/replication/performance/primary/dynamic-filter/{id}", id)).response.status).toBe(400);
    expect((await p.client.GET("/sys/replication/performance/secondary/dynamic-filter/{id}", id)).error).toEqual({
      errors: ["cannot read the dynamic filter of this secondary: this cluster is not a performance secondary (performance replication is not enabled on this cluster)"],
    });
    await ok(p.client, "performance", "primary/enable");
    const badMode = await p.client.POST("/sys/replication/performance/primary/paths-filter/{id}", { ...id, body: { mode: "whitelist" as never } });
    expect(badMode.response.status).toBe(400);
    expect(badMode.error!.errors[0]).toMatch(/^mode: must be equal to one of the allowed values/);
    const badPath = await p.client.POST("/sys/replication/performance/primary/paths-filter/{id}", { ...id, body: { paths: ["sys/"] } });
    expect(badPath.error).toEqual({ errors: ['paths: "sys/" cannot be filtered: "sys/" and "identity/" are always replicated'] });
    const badMountMode = await p.client.POST("/sys/replication/performance/primary/mount-filter/{id}", { ...id, body: { mode: "allow" as never } });
    expect(badMountMode.response.status).toBe(400);
    expect((await p.client.GET("/sys/replication/performance/primary/paths-filter/{id}", id)).error).toEqual({ errors: ['no paths filter is set for secondary "perf-1"'] });
    expect((await post(p.client, "dr", "primary/enable")).response.status).toBe(204);
  });
});
