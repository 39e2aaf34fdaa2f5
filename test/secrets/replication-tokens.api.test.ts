// Secondary activation tokens between real clusters: sudo, unique ids, the ttl (30m by default)
// enforced by both sides, single use, revocation that disconnects at once, tokens encrypted to a
// secondary's public key, and an https primary API address trusted through ca_file / ca_path.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { generateSigningKey, readActivationToken, signActivationToken } from "../../server/secrets/replication/domain/activation.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { inSync, ok, post, primaryStatus, replicate, secondaryStatus, secondaryToken, waitFor, clustersPerTest } from "../helpers/replication.ts";

const cluster = clustersPerTest();
afterEach(() => {
  vi.restoreAllMocks();
});

const MINUTE = 60_000;

describe("secondary-token", () => {
  it("needs sudo, a unique id and a ttl that is a duration", async () => {
    const world = parseWorld({
      policies: {
        "replication-no-sudo": { path: { "sys/replication/*": { capabilities: ["read", "update"] } } },
        "replication-admin": { path: { "sys/replication/*": { capabilities: ["read", "update", "sudo"] } } },
      },
      tokens: [
        { id: "no-sudo", policies: ["replication-no-sudo"] },
        { id: "admin", policies: ["replication-admin"] },
      ],
    });
    const p = await cluster({ world });
    await ok(p.clientWithToken("no-sudo"), "dr", "primary/enable");
    const withoutSudo = await p.clientWithToken("no-sudo").POST("/sys/replication/dr/primary/secondary-token", { body: { id: "a" } });
    expect(withoutSudo.response.status).toBe(403);
    expect(withoutSudo.error).toEqual({ errors: ["permission denied"] });
    const issued = await p.clientWithToken("admin").POST("/sys/replication/dr/primary/secondary-token", { body: { id: "a", ttl: "5m" } });
    expect(issued.data!.wrap_info).toMatchObject({ ttl: 300 });
    const claims = readActivationToken(issued.data!.wrap_info!.token);
    expect(claims).toMatchObject({ accessor: "", addr: p.baseUrl.replace(/\/v1$/, ""), type: "wrapping" });
    expect(claims.exp - claims.iat).toBe(300);
    expect(claims.jti).toMatch(/^s\.[0-9A-Za-z]{24}$/);

    const duplicate = await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "a" } });
    expect(duplicate.error).toEqual({ errors: ['a secondary with id "a" already exists: ids are unique (revoke it first to issue it a new activation token)'] });
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "b", ttl: "soon" } })).error).toEqual({
      errors: ['Field validation failed: error converting input soon for field "ttl": time: invalid duration "soon"'],
    });
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "b", ttl: "250ms" } })).error).toEqual({ errors: ["ttl must be at least one second"] });
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "b", ttl: 90 } })).data!.wrap_info).toMatchObject({ ttl: 90 });
    // null is a ttl not sent: the default 30m.
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "d", ttl: null } })).data!.wrap_info).toMatchObject({ ttl: 1800 });
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "c", ttl: "1d" } })).data!.wrap_info).toMatchObject({ ttl: 86_400 });
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: {} as never })).error).toEqual({ errors: ["'id' must be specified in request body as JSON"] });

    // Revoking frees the id.
    expect((await p.client.POST("/sys/replication/dr/primary/revoke-secondary", { body: { id: "a" } })).response.status).toBe(204);
    expect((await p.client.POST("/sys/replication/dr/primary/secondary-token", { body: { id: "a" } })).response.status).toBe(200);
    expect((await p.client.POST("/sys/replication/dr/primary/revoke-secondary", { body: { id: "zzz" } })).error).toEqual({ errors: ['no secondary with id "zzz" is known to this primary'] });
  });
});

describe("the activation ttl", () => {
  it("is 30 minutes by default, checked by the secondary and by the primary", async () => {
    let now = Date.now();
    const clock = () => now;
    const [p, s] = await Promise.all([cluster({ replication: { clock } }), cluster({ replication: { clock } })]);
    const lateSecondary = await cluster(); // its own (real) clock: it cannot tell the token expired
    await ok(p.client, "performance", "primary/enable");

    const first = await secondaryToken(p.client, "performance", "in-time");
    const late = await secondaryToken(p.client, "performance", "too-late");
    now += 29 * MINUTE;
    expect((await s.client.POST("/sys/replication/performance/secondary/enable", { body: { token: first } })).response.status).toBe(204);

    now += 2 * MINUTE; // 31 minutes after `late` was made
    const refused = await lateSecondary.client.POST("/sys/replication/performance/secondary/enable", { body: { token: late } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: [`error unwrapping secondary activation token from ${p.baseUrl.replace(/\/v1$/, "")}: wrapping token is not valid or does not exist`] });
    const fresh = await secondaryToken(p.client, "performance", "fresh");
    now += 31 * MINUTE;
    const expired = await s.client.POST("/sys/replication/performance/secondary/update-primary", { body: { token: fresh } });
    expect(expired.error).toEqual({ errors: [`the secondary activation token expired at ${new Date(readActivationToken(fresh).exp * 1000).toISOString()}`] });
  });

  it("is enforced by the primary for encrypted tokens at the first connection", async () => {
    let now = Date.now();
    const [p, s] = await Promise.all([cluster({ replication: { clock: () => now } }), cluster()]);
    await ok(p.client, "dr", "primary/enable");
    const key = await s.client.POST("/sys/replication/dr/secondary/generate-public-key");
    const token = await secondaryToken(p.client, "dr", "enc", { secondary_public_key: key.data!.data.secondary_public_key, ttl: "10m" });
    now += 11 * MINUTE;
    const refused = await s.client.POST("/sys/replication/dr/secondary/enable", { body: { token } });
    expect(refused.error).toEqual({ errors: [`error fetching secondary bootstrap package from ${p.secrets.clusterUrl}: the secondary activation token has expired`] });
  });
});

describe("activation", () => {
  it("unwraps a token once, and refuses a token of the other mode", async () => {
    const [p, s, t] = await Promise.all([cluster(), cluster(), cluster()]);
    await ok(p.client, "dr", "primary/enable");
    await ok(p.client, "performance", "primary/enable");
    const token = await secondaryToken(p.client, "dr", "once");
    const wrongMode = await post(t.client, "performance", "secondary/enable", { token });
    expect(wrongMode.error!.errors[0]).toMatch(/: the activation token is for DR replication, not performance replication$/);
    await ok(s.client, "dr", "secondary/enable", { token });
    const again = await post(t.client, "dr", "secondary/enable", { token });
    expect(again.error!.errors[0]).toMatch(/wrapping token is not valid or does not exist$/);
    expect((await post(t.client, "dr", "secondary/enable", { token: "not-a-token" })).error).toEqual({
      errors: ["invalid secondary activation token: not a JWT (three base64url parts separated by dots)"],
    });
    // Nothing changed on the refused cluster.
    expect((await t.client.GET("/sys/replication/dr/status")).data!.data).toEqual({ mode: "disabled" });
  });

  it("the primary's unwrap endpoint refuses with 400 every token it cannot unwrap, and unwraps none of them", async () => {
    /** What the primary's API answers a secondary that unwraps `token` for `mode`. */
    const unwrap = async (at: { baseUrl: string }, token: string, mode: "dr" | "performance") => {
      const answer = await fetch(`${at.baseUrl}/sys/wrapping/unwrap`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token, mode }) });
      return { status: answer.status, body: (await answer.json()) as { errors?: string[]; data?: { mode?: string } } };
    };
    const invalid = { status: 400, body: { errors: ["wrapping token is not valid or does not exist"] } };
    let now = Date.now();
    const [p, never] = await Promise.all([cluster({ replication: { clock: () => now } }), cluster()]);
    await ok(p.client, "dr", "primary/enable");
    await ok(p.client, "performance", "primary/enable");
    const drToken = await secondaryToken(p.client, "dr", "dr-one");
    const performanceToken = await secondaryToken(p.client, "performance", "performance-one");
    // A cluster that never was a primary has no key to verify any token with.
    expect(await unwrap(never, drToken, "dr")).toEqual(invalid);
    // Not a token, or one this primary did not sign.
    expect(await unwrap(p, "not-a-token", "dr")).toEqual(invalid);
    const seconds = Math.floor(now / 1000);
    const foreign = signActivationToken(
      { accessor: "", addr: "http://127.0.0.1:1", exp: seconds + 600, iat: seconds, jti: readActivationToken(drToken).jti, nbf: seconds, type: "wrapping" },
      generateSigningKey().privateKey,
    );
    expect(await unwrap(p, foreign, "dr")).toEqual(invalid);
    // A token of the other mode, either way round.
    expect(await unwrap(p, drToken, "performance")).toEqual({ status: 400, body: { errors: ["the activation token is for DR replication, not performance replication"] } });
    expect(await unwrap(p, performanceToken, "dr")).toEqual({ status: 400, body: { errors: ["the activation token is for performance replication, not DR replication"] } });
    // An encrypted token carries its credentials: there is nothing to unwrap.
    const secondaryKey = (await post(never.client, "performance", "secondary/generate-public-key")).data as { data: { secondary_public_key: string } };
    const encrypted = await secondaryToken(p.client, "performance", "encrypted-one", { secondary_public_key: secondaryKey.data.secondary_public_key });
    expect(readActivationToken(encrypted).type).toBe("encrypted");
    expect(await unwrap(p, encrypted, "performance")).toEqual(invalid);
    // Each refused token is still whole: unwrapped once now, then no more.
    expect((await unwrap(p, drToken, "dr")).body.data?.mode).toBe("dr");
    expect(await unwrap(p, drToken, "dr")).toEqual(invalid);
    // Each token gives its own secondary's credentials, whichever other tokens are waiting.
    const [first, second] = [await secondaryToken(p.client, "dr", "dr-first"), await secondaryToken(p.client, "dr", "dr-second")];
    expect((await unwrap(p, second, "dr")).body.data).toMatchObject({ mode: "dr", secondary_id: "dr-second" });
    expect((await unwrap(p, first, "dr")).body.data).toMatchObject({ mode: "dr", secondary_id: "dr-first" });
    // A token is good until the very millisecond it expires (30 minutes after it was made), not after.
    const onTime = await secondaryToken(p.client, "dr", "on-time");
    now += 30 * MINUTE;
    expect((await unwrap(p, onTime, "dr")).body.data).toMatchObject({ secondary_id: "on-time" });
    const late = await secondaryToken(p.client, "dr", "late");
    now += 30 * MINUTE + 1;
    expect(await unwrap(p, late, "dr")).toEqual(invalid);
    // A token of a mode this cluster is no longer the primary of.
    await ok(p.client, "performance", "primary/disable");
    expect(await unwrap(p, performanceToken, "performance")).toEqual(invalid);
  });

  it("answers 400, never 500, for tokens that lead nowhere sensible", async () => {
    const s = await cluster();
    const stranger = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<html>hello</html>"));
    await new Promise<void>((resolve) => stranger.listen(0, "127.0.0.1", resolve));
    try {
      const key = generateSigningKey().privateKey;
      const now = Math.floor(Date.now() / 1000);
      const forge = (addr: string, extra: Record<string, unknown> = {}) =>
        signActivationToken({ accessor: "", addr, exp: now + 600, iat: now, jti: "s.forged", nbf: now, type: "wrapping", ...extra }, key);
      const html = await post(s.client, "dr", "secondary/enable", { token: forge(`http://127.0.0.1:${(stranger.address() as AddressInfo).port}`) });
      expect(html.response.status).toBe(400);
      expect(html.error!.errors[0]).toMatch(/: the answer is not activation credentials$/);
      const nowhere = await post(s.client, "dr", "secondary/enable", { token: forge("not an address") });
      expect(nowhere.error).toEqual({ errors: ['the activation token\'s addr "not an address" is not an address (such as https://10.0.0.1:8201)'] });
      const odd = await post(s.client, "dr", "secondary/enable", { token: forge("http://127.0.0.1:1", { type: "other" }) });
      expect(odd.error).toEqual({ errors: ['invalid secondary activation token: unknown token type "other"'] });
      expect((await post(s.client, "dr", "secondary/enable", { token: 42 })).response.status).toBe(400);
      expect((await s.client.GET("/sys/replication/dr/status")).data!.data).toEqual({ mode: "disabled" });
    } finally {
      stranger.closeAllConnections();
      await new Promise((resolve) => stranger.close(resolve));
    }
  });

  it("with secondary_public_key carries encrypted credentials and needs no call to the primary's API", async () => {
    const [p, s, t] = await Promise.all([cluster(), cluster(), cluster()]);
    await ok(p.client, "performance", "primary/enable");
    const generated = await s.client.POST("/sys/replication/performance/secondary/generate-public-key");
    expect(generated.response.status).toBe(200);
    const publicKey = generated.data!.data.secondary_public_key;
    const issued = await p.client.POST("/sys/replication/performance/primary/secondary-token", { body: { id: "enc", secondary_public_key: publicKey } });
    expect(issued.data).toMatchObject({ wrap_info: null, warnings: null, data: { token: expect.any(String) } });
    const token = issued.data!.data!.token;
    expect(readActivationToken(token)).toMatchObject({ type: "encrypted", enc: expect.any(String) });

    // Another cluster cannot read it: without a key pair, or with its own.
    expect((await post(t.client, "performance", "secondary/enable", { token })).error!.errors[0]).toMatch(/this cluster has made none/);
    await t.client.POST("/sys/replication/performance/secondary/generate-public-key");
    expect((await post(t.client, "performance", "secondary/enable", { token })).error!.errors[0]).toMatch(/cannot be decrypted with this cluster's key/);

    // The primary's API address is not used: an unreachable one does not matter.
    expect((await s.client.POST("/sys/replication/performance/secondary/enable", { body: { token, primary_api_addr: "http://127.0.0.1:9" } })).response.status).toBe(204);
    await inSync(p, s, "performance");
    expect((await secondaryStatus(s.client, "performance")).primaries[0]!.api_address).toBe("http://127.0.0.1:9");

    expect((await p.client.POST("/sys/replication/performance/secondary/generate-public-key")).error).toEqual({
      errors: ["cannot generate a secondary public key: this cluster is a performance primary"],
    });
    expect((await p.client.POST("/sys/replication/performance/primary/secondary-token", { body: { id: "x", secondary_public_key: "bm9wZQ==" } })).error).toEqual({
      errors: ["secondary_public_key is not a base64 DER public key (from secondary/generate-public-key)"],
    });
  });
});

describe("revoke-secondary", () => {
  it("disconnects the secondary at once, until it gets a new token", async () => {
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await replicate(p, s, "performance", "perf-1");
    await inSync(p, s, "performance");
    expect((await p.client.POST("/sys/replication/performance/primary/revoke-secondary", { body: { id: "perf-1" } })).response.status).toBe(204);
    expect(await primaryStatus(p.client, "performance")).toMatchObject({ known_secondaries: [], secondaries: [] });
    // From now on the primary refuses the secondary's credential: no write reaches it.
    p.secrets.cluster.storage.put("sys/after-revoke", { written: true });
    await waitFor(() => secondaryStatus(s.client, "performance"), (st) => st.primaries[0]!.connection_status === "disconnected" && st.state === "connecting");
    expect(s.secrets.cluster.storage.get("sys/after-revoke")).toBeUndefined();
    expect((await secondaryStatus(s.client, "performance")).last_remote_wal).toBeLessThan((await primaryStatus(p.client, "performance")).last_wal);

    // A new token for the same id brings it back, without a wipe.
    const token = await secondaryToken(p.client, "performance", "perf-1");
    expect((await s.client.POST("/sys/replication/performance/secondary/update-primary", { body: { token } })).response.status).toBe(204);
    await inSync(p, s, "performance");
    expect(s.secrets.cluster.storage.get("sys/after-revoke")).toEqual({ written: true });
  });
});

describe("secrets in logs", () => {
  it("no token, credential or key is printed during replication", async () => {
    const printed: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
    }
    const [p, s] = await Promise.all([cluster(), cluster()]);
    await ok(p.client, "dr", "primary/enable");
    const token = await secondaryToken(p.client, "dr", "quiet");
    await ok(s.client, "dr", "secondary/enable", { token });
    await inSync(p, s, "dr");
    const jti = readActivationToken(token).jti;
    for (const line of printed) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(jti);
    }
  });
});

describe("an https primary API address", () => {
  let dir: string;
  let proxy: https.Server;
  let proxyTarget = "";

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "replication-ca-"));
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Replication Test CA");
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
    writeFileSync(path.join(dir, "san.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext");
    mkdirSync(path.join(dir, "cas"));
    writeFileSync(path.join(dir, "cas", "replication-ca.pem"), readFileSync(path.join(dir, "ca.pem")));
    writeFileSync(path.join(dir, "cas", "notes.txt"), "not a certificate\n");
    // A TLS-terminating proxy in front of the primary's API (as a load balancer would be).
    proxy = https.createServer({ key: readFileSync(path.join(dir, "server.key")), cert: readFileSync(path.join(dir, "server.pem")) }, (req, res) => {
      const upstream = http.request(`${proxyTarget}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.writeHead(502).end());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("is trusted through ca_file or ca_path, and refused without them", async () => {
    const [p, s, t] = await Promise.all([cluster(), cluster(), cluster()]);
    proxyTarget = p.baseUrl.replace(/\/v1$/, "");
    const tls = `https://localhost:${(proxy.address() as AddressInfo).port}`;
    await ok(p.client, "dr", "primary/enable");

    const untrusted = await post(s.client, "dr", "secondary/enable", { token: await secondaryToken(p.client, "dr", "tls-1"), primary_api_addr: tls });
    expect(untrusted.response.status).toBe(400);
    expect(untrusted.error!.errors[0]).toMatch(new RegExp(`^error unwrapping secondary activation token from ${tls}: .*(certificate|issuer)`));
    const missing = await post(s.client, "dr", "secondary/enable", { token: await secondaryToken(p.client, "dr", "tls-2"), primary_api_addr: tls, ca_file: path.join(dir, "missing.pem") });
    expect(missing.error).toEqual({ errors: [`error reading ca_file ${JSON.stringify(path.join(dir, "missing.pem"))}: ENOENT`] });
    const notPem = await post(s.client, "dr", "secondary/enable", { token: await secondaryToken(p.client, "dr", "tls-3"), ca_file: path.join(dir, "san.ext") });
    expect(notPem.error!.errors[0]).toMatch(/holds no PEM certificate$/);

    await ok(s.client, "dr", "secondary/enable", { token: await secondaryToken(p.client, "dr", "tls-4"), primary_api_addr: tls, ca_file: path.join(dir, "ca.pem") });
    expect((await secondaryStatus(s.client, "dr")).primaries[0]!.api_address).toBe(tls);
    await ok(t.client, "dr", "secondary/enable", { token: await secondaryToken(p.client, "dr", "tls-5"), primary_api_addr: tls, ca_path: path.join(dir, "cas") });
    await inSync(p, t, "dr");
  });
});
