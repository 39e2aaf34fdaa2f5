// DR replication between real clusters (separate servers on loopback), through the generated
// client with response validation on: set-up, every write shipped and measured in the status, the
// DR secondary closed to ordinary requests, DR operation tokens from the primary's key shares,
// failover without data loss, and disable/enable with a new cluster id.
import * as openpgp from "openpgp";
import { describe, expect, it } from "vitest";
import { decodeToken } from "../../server/secrets/replication/domain/otp.ts";
import { drOperationToken, inSync, ok, post, primaryStatus, replicate, secondaryStatus, secondaryToken, status, waitFor, clustersPerTest, readRole, writeRole } from "../helpers/replication.ts";
import { generatePgpKey, rekey, type RunningTestSecrets } from "../helpers/secrets.ts";

const cluster = clustersPerTest();

const origin = (c: RunningTestSecrets) => c.baseUrl.replace(/\/v1$/, "");
/** The names of the cloud roles in a cluster's storage (the engine keeps them under logical/<mount uuid>/role/). */
const storedRoles = (c: RunningTestSecrets) =>
  c.secrets.cluster.storage
    .list("logical/")
    .filter((key) => /\/role\/[^/]+$/.test(key))
    .map((key) => key.split("/").pop())
    .sort();

describe("DR set-up and data", () => {
  it("copies the primary's data into a wiped secondary, ships every write, and measures it", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    expect((await writeRole(p, "before")).response.status).toBe(204);
    expect((await writeRole(s, "local-only")).response.status).toBe(204);
    expect((await status(p.client, "dr")).mode).toBe("disabled");

    const enabled = await p.client.POST("/sys/replication/dr/primary/enable", { body: {} });
    expect(enabled.response.status).toBe(204);
    const token = await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "dr-east" } });
    expect(token.response.status).toBe(200);
    expect(token.data).toMatchObject({ lease_id: "", lease_duration: 0, renewable: false, data: null, warnings: null, wrap_info: { ttl: 1800, wrapped_accessor: "" } });
    const activation = await s.client.POST("/sys/replication/dr/secondary/enable", { body: { token: token.data!.wrap_info!.token } });
    expect(activation.response.status).toBe(204);

    // The secondary's own data is gone, the primary's is there, and so is the primary's seal.
    expect(storedRoles(s)).toEqual(["before"]);
    expect(s.secrets.cluster.seal.get()).toEqual(p.secrets.cluster.seal.get());

    await inSync(p, s, "dr");
    const primary = await primaryStatus(p.client, "dr");
    const secondary = await secondaryStatus(s.client, "dr");
    expect(primary).toMatchObject({ mode: "primary", state: "running", known_secondaries: ["dr-east"], primary_cluster_addr: "" });
    expect(primary.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(primary.secondaries).toEqual([
      { node_id: "dr-east", api_address: origin(s), cluster_address: s.secrets.clusterUrl, connection_status: "connected", last_heartbeat: expect.any(String) },
    ]);
    expect(secondary).toMatchObject({
      mode: "secondary",
      cluster_id: primary.cluster_id,
      secondary_id: "dr-east",
      state: "stream-wals",
      primary_cluster_addr: p.secrets.clusterUrl,
      known_primary_cluster_addrs: [p.secrets.clusterUrl],
      primaries: [{ api_address: origin(p), cluster_address: p.secrets.clusterUrl, connection_status: "connected", last_heartbeat: expect.any(String) }],
      last_remote_wal: primary.last_wal,
      merkle_root: primary.merkle_root,
    });

    // Three writes on the primary: last_wal counts them, and the secondary applies them.
    await writeRole(p, "a");
    await writeRole(p, "b");
    await p.client.DELETE("/aws/roles/{name}", { params: { path: { name: "before" } } });
    expect((await primaryStatus(p.client, "dr")).last_wal).toBe(primary.last_wal + 3);
    await inSync(p, s, "dr");
    expect(storedRoles(s)).toEqual(["a", "b"]);
    expect((await secondaryStatus(s.client, "dr")).last_remote_wal).toBe(primary.last_wal + 3);

    // MFA methods (identity data) replicate too.
    const method = await p.client.POST("/identity/mfa/method/pushmfa", {
      body: { api_hostname: "api-1.push.example", integration_key: "BIACEUEAXI20BNWTEYXT", secret_key: "mfa-secret" },
    });
    expect(method.response.status).toBe(200);
    await inSync(p, s, "dr");
    expect(s.secrets.cluster.storage.list("identity/").length).toBeGreaterThan(0);
  });

  it("refuses ordinary requests on the DR secondary, but serves sys/replication", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    for (const answer of [await readRole(s, "x"), await s.client.GET("/sys/rekey/init"), await writeRole(s, "x")]) {
      expect(answer.response.status).toBe(400);
      expect(answer.error).toEqual({ errors: ["path disabled in replication DR secondary mode"] });
    }
    expect((await s.client.GET("/sys/replication/dr/status")).response.status).toBe(200);
    expect((await s.client.GET("/sys/replication/performance/status")).data?.data).toEqual({ mode: "disabled" });
    // Performance replication cannot run on a DR secondary.
    expect((await post(s.client, "performance", "primary/enable")).error).toEqual({ errors: ["performance replication operations are disabled on a DR secondary"] });
    // The primary serves as before.
    expect((await readRole(p, "x")).response.status).toBe(404);
  });

  it("does not enable a DR secondary while performance replication is on", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await ok(p.client, "dr", "primary/enable");
    await ok(s.client, "performance", "primary/enable");
    const token = await secondaryToken(p.client, "dr", "dr-1");
    const refused = await post(s.client, "dr", "secondary/enable", { token });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.errors[0]).toMatch(/^cannot enable DR secondary: performance replication is enabled on this cluster/);
  });
});

describe("DR operation tokens", () => {
  it("are generated from the primary's key shares, encoded with the OTP, and revoked by delete", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    const attempt = "/sys/replication/dr/secondary/generate-operation-token/attempt" as const;
    const update = "/sys/replication/dr/secondary/generate-operation-token/update" as const;

    expect((await s.client.GET(attempt)).data).toEqual({ started: false, nonce: "", progress: 0, required: 3, encoded_token: "", pgp_fingerprint: "", complete: false });
    const started = await s.client.PUT(attempt, { body: {} });
    expect(started.response.status).toBe(200);
    const { nonce, otp, otp_length } = started.data!;
    expect(otp_length).toBe(26);
    expect(otp).toMatch(/^[0-9A-Za-z]{26}$/);
    expect(started.data).toMatchObject({ started: true, progress: 0, required: 3, encoded_token: "", pgp_fingerprint: "", complete: false });
    const read = await s.client.GET(attempt);
    expect(read.data).toEqual({ started: true, nonce, progress: 0, required: 3, encoded_token: "", pgp_fingerprint: "", complete: false });
    expect(JSON.stringify(read.data)).not.toContain(otp);
    expect((await s.client.PUT(attempt, { body: {} })).error).toEqual({ errors: ["root generation already in progress"] });

    // The secondary's own shares from before activation do not count: the seal is the primary's.
    await s.client.PUT(update, { body: { key: s.keys[0]!, nonce } });
    await s.client.PUT(update, { body: { key: s.keys[1]!, nonce } });
    const wrong = await s.client.PUT(update, { body: { key: s.keys[2]!, nonce } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toEqual({ errors: ["root generation aborted: unable to authenticate: invalid key: failed to decrypt keys from storage: cipher: message authentication failed"] });
    expect((await s.client.GET(attempt)).data).toMatchObject({ started: true, nonce, progress: 0 });
    expect((await s.client.PUT(update, { body: { key: p.keys[0]!, nonce: "other" } })).error!.errors[0]).toMatch(/^incorrect nonce supplied/);

    const first = await s.client.PUT(update, { body: { key: p.keys[0]!, nonce } });
    expect(first.data).toMatchObject({ progress: 1, complete: false, encoded_token: "" });
    expect((await s.client.PUT(update, { body: { key: p.keys[0]!, nonce } })).error).toEqual({ errors: ["given key has already been provided during this generation operation"] });
    await s.client.PUT(update, { body: { key: p.keysBase64[3]!, nonce } });
    const done = await s.client.PUT(update, { body: { key: p.keys[4]!, nonce } });
    expect(done.data).toMatchObject({ started: true, nonce, progress: 3, required: 3, pgp_fingerprint: "", complete: true });
    expect(done.data!.encoded_token).toMatch(/^[A-Za-z0-9+/]{35}$/);
    const token = decodeToken(done.data!.encoded_token, otp);
    expect(token).toMatch(/^s\.[0-9A-Za-z]{24}$/);
    expect((await s.client.GET(attempt)).data).toMatchObject({ started: false, nonce: "" });

    // The token authorizes DR operations until it is deleted; it has no TTL.
    const forget = await s.client.POST("/sys/replication/dr/secondary/update-primary", { body: { dr_operation_token: "s.wrong", token: "" } });
    expect(forget.error).toEqual({ errors: ["invalid DR operation token"] });
    expect((await s.client.POST("/sys/replication/dr/secondary/operation-token/delete", { body: { dr_operation_token: token } })).response.status).toBe(204);
    const deleted = await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: token } });
    expect(deleted.error).toEqual({ errors: ["invalid DR operation token"] });
    expect((await s.client.POST("/sys/replication/dr/secondary/operation-token/delete", { body: { dr_operation_token: token } })).response.status).toBe(400);
  });

  // The older clients' flow: the caller makes the OTP (http/sys_generate_root.go takes `otp`; the
  // answer's `otp` is then empty; vault/generate_root.go GenerateRootInit checks its length first).
  it("can be encoded with an OTP the caller gives, which wins over a PGP key and must be as long as a token", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    const attempt = "/sys/replication/dr/secondary/generate-operation-token/attempt";
    const short = await s.client.PUT(attempt, { body: { otp: "abc" } });
    expect(short.response.status).toBe(400);
    expect(short.error).toEqual({ errors: ["OTP string is wrong length"] });
    expect((await s.client.GET(attempt)).data!.started).toBe(false);
    const own = "Ab3dEf6hIj9lMn2pQr5tUv8xYz";
    const { publicKeyBase64 } = await generatePgpKey("operator");
    const started = await s.client.PUT(attempt, { body: { otp: own, pgp_key: publicKeyBase64 } });
    expect(started.data).toMatchObject({ started: true, otp: "", otp_length: 26, pgp_fingerprint: "" });
    let last;
    for (const key of p.keys.slice(0, 3)) {
      last = (await s.client.PUT("/sys/replication/dr/secondary/generate-operation-token/update", { body: { key, nonce: started.data!.nonce } })).data!;
    }
    expect(last).toMatchObject({ complete: true, pgp_fingerprint: "" });
    const token = decodeToken(last!.encoded_token, own);
    expect(token).toMatch(/^s\.[A-Za-z0-9]{24}$/);
    expect((await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: token, force: true } })).response.status).toBe(200);
  });

  it("can be encrypted to a PGP key instead, and an attempt can be cancelled", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    const attempt = "/sys/replication/dr/secondary/generate-operation-token/attempt" as const;
    const pgp = await generatePgpKey("Operator");
    const started = await s.client.PUT(attempt, { body: { pgp_key: pgp.publicKeyBase64 } });
    expect(started.data).toMatchObject({ otp: "", otp_length: 26, pgp_fingerprint: pgp.fingerprint });
    let last;
    for (const key of p.keys.slice(0, 3)) last = await s.client.PUT("/sys/replication/dr/secondary/generate-operation-token/update", { body: { key, nonce: started.data!.nonce } });
    expect(last!.data).toMatchObject({ complete: true, pgp_fingerprint: pgp.fingerprint });
    const message = await openpgp.readMessage({ binaryMessage: new Uint8Array(Buffer.from(last!.data!.encoded_token, "base64")) });
    const { data } = await openpgp.decrypt({ message, decryptionKeys: pgp.privateKey, format: "binary" });
    const token = new TextDecoder().decode(data as Uint8Array);
    expect(token).toMatch(/^s\.[0-9A-Za-z]{24}$/);
    expect((await s.client.POST("/sys/replication/dr/secondary/operation-token/delete", { body: { dr_operation_token: token } })).response.status).toBe(204);

    expect((await s.client.PUT(attempt, { body: { pgp_key: "not a key" } })).error!.errors[0]).toMatch(/^invalid pgp_key/);
    await s.client.PUT(attempt, { body: {} });
    expect((await s.client.DELETE(attempt)).response.status).toBe(204);
    expect((await s.client.GET(attempt)).data).toMatchObject({ started: false });
    expect((await s.client.DELETE(attempt)).response.status).toBe(204);
  });

  it("follow the primary's rekeys: the secondary takes the new seal", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    const rekeyed = await rekey(p.client, p.keys.slice(0, 3), { secret_shares: 3, secret_threshold: 2 });
    await inSync(p, s, "dr");
    expect((await s.client.GET("/sys/replication/dr/secondary/generate-operation-token/attempt")).data).toMatchObject({ required: 2 });
    await expect(drOperationToken(s.client, p.keys.slice(0, 2))).rejects.toThrow(/root generation aborted: unable to authenticate: invalid key: failed to decrypt keys from storage/);
    await s.client.DELETE("/sys/replication/dr/secondary/generate-operation-token/attempt");
    expect(await drOperationToken(s.client, rekeyed.keys.slice(1, 3))).toMatch(/^s\./);
  });

  it("exist only on a DR secondary", async () => {
    const p = await cluster();
    const answer = await p.client.PUT("/sys/replication/dr/secondary/generate-operation-token/attempt", { body: {} });
    expect(answer.error).toEqual({ errors: ["cannot start a DR operation token generation: this cluster is not a DR secondary (DR replication is not enabled on this cluster)"] });
    await ok(p.client, "dr", "primary/enable");
    expect((await p.client.GET("/sys/replication/dr/secondary/generate-operation-token/attempt")).error).toEqual({
      errors: ["cannot read the DR operation token generation: this cluster is not a DR secondary (it is a DR primary)"],
    });
  });
});

describe("DR failover", () => {
  it("demotes the primary, promotes the secondary, and rejoins the old primary without a wipe or lost data", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await writeRole(p, "one");
    await replicate(p, s, "dr", "dr-east");
    await writeRole(p, "two");
    await inSync(p, s, "dr");
    const { cluster_id } = await primaryStatus(p.client, "dr");
    const sToken = await drOperationToken(s.client, p.keys.slice(0, 3));

    // Not while the primary is active: only one primary.
    const early = await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: sToken } });
    expect(early.response.status).toBe(400);
    expect(early.error!.errors[0]).toBe(
      `the primary at ${p.secrets.clusterUrl} is still the active primary of replication set ${cluster_id}: demote or disable it first (only one primary may be active), or promote with force`,
    );

    expect((await p.client.POST("/sys/replication/dr/primary/demote")).response.status).toBe(204);
    expect(await secondaryStatus(p.client, "dr")).toEqual({
      cluster_id,
      known_primary_cluster_addrs: [],
      last_remote_wal: 0,
      merkle_root: (await secondaryStatus(s.client, "dr")).merkle_root,
      mode: "secondary",
      primaries: [],
      primary_cluster_addr: "",
      secondary_id: "",
      state: "idle",
    });
    expect((await readRole(p, "one")).error).toEqual({ errors: ["path disabled in replication DR secondary mode"] });
    await waitFor(() => secondaryStatus(s.client, "dr"), (st) => st.primaries[0]?.connection_status === "disconnected");

    const promoted = await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: sToken } });
    expect(promoted.response.status).toBe(200);
    expect(promoted.data).toMatchObject({ complete: true, progress: 0, required: 0, data: { complete: true, progress: 0, required: 0 }, wrap_info: null, warnings: null, auth: null });
    expect(await primaryStatus(s.client, "dr")).toMatchObject({ mode: "primary", cluster_id, known_secondaries: [], secondaries: [] });

    // The new primary serves and takes writes.
    expect((await readRole(s, "two")).response.status).toBe(200);
    await writeRole(s, "three");

    // The old primary rejoins the set as a secondary of the new one, without a wipe.
    const pToken = await drOperationToken(p.client, p.keys.slice(1, 4));
    const walBefore = p.secrets.cluster.replication.wal.last;
    const rejoin = await secondaryToken(s.client, "dr", "dr-west");
    expect((await p.client.POST("/sys/replication/dr/secondary/update-primary", { body: { dr_operation_token: pToken, token: rejoin } })).response.status).toBe(204);
    await inSync(s, p, "dr");
    // Only the write it missed was applied (one put), not a copy of everything.
    expect(p.secrets.cluster.replication.wal.last - walBefore).toBe(1);
    expect(await secondaryStatus(p.client, "dr")).toMatchObject({ cluster_id, secondary_id: "dr-west", state: "stream-wals" });
    expect(storedRoles(p)).toEqual(["one", "three", "two"]);
  });

  it("promotes with force although the primary is still active", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-1");
    const token = await drOperationToken(s.client, p.keys.slice(0, 3));
    const forced = await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: token, force: true, primary_cluster_addr: "https://dr.example.internal:8201" } });
    expect(forced.response.status).toBe(200);
    expect(await primaryStatus(s.client, "dr")).toMatchObject({ mode: "primary", primary_cluster_addr: "https://dr.example.internal:8201" });
    expect((await primaryStatus(p.client, "dr")).mode).toBe("primary");
  });

  it("reads force as the framework reads a bool, as the CLI sends it (text): \"false\" keeps the safety checks, \"true\" skips them", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-text");
    const token = await drOperationToken(s.client, p.keys.slice(0, 3));
    const promote = (force: unknown) => s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: token, force: force as boolean } });
    const unsure = await promote("maybe");
    expect(unsure.response.status).toBe(400);
    expect(unsure.error).toEqual({ errors: [`Field validation failed: error converting input maybe for field "force": cannot parse '' as bool: strconv.ParseBool: parsing "maybe": invalid syntax`] });
    // "false" is false: the primary is still active, so the checks refuse.
    const checked = await promote("false");
    expect(checked.response.status).toBe(400);
    expect(checked.error!.errors[0]).toMatch(/is still the active primary .* or promote with force$/);
    expect((await secondaryStatus(s.client, "dr")).mode).toBe("secondary");
    expect((await promote("true")).response.status).toBe(200);
    expect((await primaryStatus(s.client, "dr")).mode).toBe("primary");
  });

  it("promotes without force once the primary is gone, and update-primary with a blank token forgets the primary", async () => {
    const [p, s, t] = await Promise.all([cluster(), cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-s");
    await replicate(p, t, "dr", "dr-t");
    const tToken = await drOperationToken(t.client, p.keys.slice(0, 3));
    expect((await t.client.POST("/sys/replication/dr/secondary/update-primary", { body: { dr_operation_token: tToken, token: "" } })).response.status).toBe(204);
    expect(await secondaryStatus(t.client, "dr")).toMatchObject({ state: "idle", primaries: [], known_primary_cluster_addrs: [], primary_cluster_addr: "" });

    const sToken = await drOperationToken(s.client, p.keys.slice(0, 3));
    await p.close();
    await waitFor(() => secondaryStatus(s.client, "dr"), (st) => st.primaries[0]?.connection_status === "disconnected");
    expect((await s.client.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: sToken } })).response.status).toBe(200);
    expect((await primaryStatus(s.client, "dr")).mode).toBe("primary");
  });
});

describe("DR failover without a request token", () => {
  // The real server lists promote, update-primary and operation-token/delete among its
  // unauthenticated paths (vault/logical_system.go, PathsSpecial.Unauthenticated) and serves the
  // operation token's generation as sys/generate-root, without a token check
  // (http/sys_generate_root.go): a DR secondary holds no token a runbook could use.
  it("generates a DR operation token, changes the primary, promotes and deletes the token with no X-Secrets-Token at all", async () => {
    const [p, s, t] = await Promise.all([cluster(), cluster(), cluster()]);
    await replicate(p, s, "dr", "dr-s");
    await replicate(p, t, "dr", "dr-t");
    const anonymous = s.clientWithToken(undefined);
    expect((await anonymous.GET("/sys/replication/dr/secondary/generate-operation-token/attempt")).data).toMatchObject({ started: false });
    const token = await drOperationToken(anonymous, p.keys.slice(0, 3));
    // Another cluster's DR operation token authorizes nothing here, with or without a request token.
    const tToken = await drOperationToken(t.clientWithToken(undefined), p.keys.slice(0, 3));
    const foreign = await anonymous.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: tToken, force: true } });
    expect(foreign.response.status).toBe(400);
    expect(foreign.error).toEqual({ errors: ["invalid DR operation token"] });
    // A cancelled attempt and a status read need no token either; the replication status still does.
    expect((await anonymous.PUT("/sys/replication/dr/secondary/generate-operation-token/attempt", { body: {} })).response.status).toBe(200);
    expect((await anonymous.DELETE("/sys/replication/dr/secondary/generate-operation-token/attempt")).response.status).toBe(204);
    expect((await anonymous.GET("/sys/replication/dr/status")).response.status).toBe(403);
    expect((await anonymous.POST("/sys/replication/dr/secondary/update-primary", { body: { dr_operation_token: token, token: "" } })).response.status).toBe(204);
    const promoted = await anonymous.POST("/sys/replication/dr/secondary/promote", { body: { dr_operation_token: token } });
    expect(promoted.response.status).toBe(200);
    expect((await primaryStatus(s.client, "dr")).mode).toBe("primary");
    // On the DR secondary t, the token's revocation needs it alone.
    const t2 = t.clientWithToken(undefined);
    expect((await t2.POST("/sys/replication/dr/secondary/operation-token/delete", { body: { dr_operation_token: tToken } })).response.status).toBe(204);
    expect((await t2.POST("/sys/replication/dr/secondary/operation-token/delete", { body: { dr_operation_token: tToken } })).response.status).toBe(400);
  });
});

describe("disabling DR replication", () => {
  it("gives the primary a new cluster id when enabled again, and its old secondaries need a wipe", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await writeRole(p, "kept");
    await replicate(p, s, "dr", "dr-1");
    const { cluster_id: first } = await primaryStatus(p.client, "dr");
    expect((await p.client.POST("/sys/replication/dr/primary/disable")).response.status).toBe(204);
    expect(await status(p.client, "dr")).toEqual({ mode: "disabled" });
    await waitFor(() => secondaryStatus(s.client, "dr"), (st) => st.primaries[0]?.connection_status === "disconnected");

    await ok(p.client, "dr", "primary/enable");
    const { cluster_id: second } = await primaryStatus(p.client, "dr");
    expect(second).not.toBe(first);

    const opToken = await drOperationToken(s.client, p.keys.slice(0, 3));
    const rejoin = await s.client.POST("/sys/replication/dr/secondary/update-primary", { body: { dr_operation_token: opToken, token: await secondaryToken(p.client, "dr", "dr-1b") } });
    expect(rejoin.response.status).toBe(400);
    expect(rejoin.error!.errors[0]).toBe(
      `the activation token is for replication set ${second}, but this secondary belongs to replication set ${first}: ` +
        "to join another replication set (for example after its primary was disabled and enabled again, which changes its cluster id) disable this secondary and enable it again, which wipes its data",
    );

    // Disabled, the secondary is a cluster of its own again with its data; enabled again, it is wiped.
    expect((await s.client.POST("/sys/replication/dr/secondary/disable")).response.status).toBe(204);
    expect(await status(s.client, "dr")).toEqual({ mode: "disabled" });
    expect((await readRole(s, "kept")).response.status).toBe(200);
    await writeRole(s, "written-while-disabled");
    expect((await s.client.POST("/sys/replication/dr/secondary/enable", { body: { token: await secondaryToken(p.client, "dr", "dr-1c") } })).response.status).toBe(204);
    await inSync(p, s, "dr");
    expect(await secondaryStatus(s.client, "dr")).toMatchObject({ cluster_id: second, secondary_id: "dr-1c" });
    expect(storedRoles(s)).toEqual(["kept"]);
  });
});
