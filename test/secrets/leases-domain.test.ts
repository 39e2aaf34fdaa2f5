// The lease table without HTTP: TTL arithmetic as the real system's framework.CalculateTTL does it,
// renewability (vault/expiration.go leaseEntry.renewable), expiry timers restored from storage,
// waits longer than one timer can hold, and the retries and irrevocable mark of a revocation that
// keeps failing (maxRevokeAttempts = 6, revokeRetryBase = 10s in vault/expiration.go).
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../server/secrets/leases/clock.ts";
import { calculateTtl, humanDuration, MAX_REVOKE_ATTEMPTS, MOUNT_MAX_LEASE_TTL, renewProblem, type LeaseEntry } from "../../server/secrets/leases/lease.ts";
import { LeaseManager, type LeaseBackend } from "../../server/secrets/leases/manager.ts";
import { MemoryStorage } from "../../server/secrets/store/storage.ts";

const T0 = Date.UTC(2026, 0, 1);

describe("calculateTtl", () => {
  const at = (increment: number, backendTtl: number, backendMaxTtl: number, elapsed = 0) =>
    calculateTtl({ now: T0 + elapsed * 1000, issueTime: T0, increment, backendTtl, backendMaxTtl });

  it("takes the increment, else the engine's TTL, else the mount's default", () => {
    expect(at(60, 3600, 0)).toEqual({ ttl: 60, warnings: [] });
    expect(at(0, 3600, 0)).toEqual({ ttl: 3600, warnings: [] });
    expect(at(0, 0, 0)).toEqual({ ttl: 768 * 3600, warnings: [] });
  });

  it("cuts the TTL to what is left of the maximum, with a warning", () => {
    expect(at(7200, 0, 3600, 1800)).toEqual({
      ttl: 1800,
      warnings: ['TTL of "2h" exceeded the effective max_ttl of "30m"; TTL value is capped accordingly'],
    });
    // An engine maximum above the mount's does not count.
    expect(at(0, 0, 10 * MOUNT_MAX_LEASE_TTL)).toEqual({ ttl: MOUNT_MAX_LEASE_TTL, warnings: [] });
  });

  it("refuses once the maximum is behind", () => {
    expect(at(0, 60, 3600, 3600)).toEqual({ error: "past the max TTL, cannot renew" });
  });

  it("prints durations as Go does, without zero parts", () => {
    expect([0, 45, 60, 3600, 5400, 3661, 90000].map(humanDuration)).toEqual(["0s", "45s", "1m", "1h", "1h30m", "1h1m1s", "25h"]);
  });
});

describe("renewProblem", () => {
  const entry = (over: Partial<LeaseEntry> = {}): LeaseEntry => ({
    lease_id: "x/creds/r/1",
    path: "x/creds/r",
    secret_type: "t",
    mount: "x",
    renewable: true,
    internal: {},
    ttl: 0,
    max_ttl: 0,
    issue_time: T0,
    expire_time: T0 + 1000,
    last_renewal_time: 0,
    revoke_err: "",
    revoke_attempts: 0,
    ...over,
  });
  it("names the first reason in the real system's order", () => {
    expect(renewProblem(undefined, T0)).toBe("lease not found");
    expect(renewProblem(entry({ revoke_err: "x", renewable: false }), T0)).toBe("lease is expired and has failed previous revocation attempts");
    expect(renewProblem(entry({ expire_time: 0 }), T0)).toBe("lease is not renewable");
    expect(renewProblem(entry({ renewable: false }), T0 + 2000)).toBe("lease expired");
    expect(renewProblem(entry({ renewable: false }), T0)).toBe("lease is not renewable");
    expect(renewProblem(entry(), T0)).toBeUndefined();
  });
});

describe("LeaseManager", () => {
  function setup(backend: Partial<LeaseBackend> = {}, storage = new MemoryStorage()) {
    const clock = new ManualClock(T0);
    const revoked: string[] = [];
    const backends = {
      test: {
        renew: async () => ({ ttl: 60, maxTtl: 600 }),
        revoke: async (entry: LeaseEntry) => void revoked.push(entry.lease_id),
        ...backend,
      },
    };
    const manager = new LeaseManager(storage, backends, clock);
    const register = (ttl = 60, maxTtl = 600) =>
      manager.register({ path: "m/creds/r", mount: "m", secretType: "test", renewable: true, ttl, maxTtl, internal: { user: "u" } });
    return { clock, manager, revoked, storage, register };
  }

  it("restores timers from storage: a new manager on the same storage revokes what is due", async () => {
    const first = setup();
    const lease = await first.register();
    first.manager.stop();
    const second = setup({}, first.storage);
    second.manager.restore();
    second.clock.advance(59_000);
    await second.manager.idle();
    expect(second.revoked).toEqual([]);
    second.clock.advance(1000);
    await second.manager.idle();
    expect(second.revoked).toEqual([lease.lease_id]);
    expect(first.storage.list("sys/expire/id/")).toEqual([]);
  });

  it("chains timers for leases longer than one timer can wait (768h)", async () => {
    const { clock, manager, revoked, register } = setup();
    const lease = await register(0, 0);
    expect(lease.lease_duration).toBe(768 * 3600);
    clock.advance(768 * 3600_000 - 1000);
    await manager.idle();
    expect(revoked).toEqual([]);
    clock.advance(1000);
    await manager.idle();
    expect(revoked).toEqual([lease.lease_id]);
  });

  it("retries a failing revocation with growing waits, then marks the lease irrevocable and keeps it", async () => {
    let attempts = 0;
    const { clock, manager, register } = setup({
      revoke: async () => {
        attempts++;
        throw new Error("provider down");
      },
    });
    const lease = await register();
    clock.advance(60_000);
    await manager.idle();
    expect(attempts).toBe(1);
    for (let i = 1; i < MAX_REVOKE_ATTEMPTS; i++) {
      clock.advance(2 ** i * 10_000 - 1);
      await manager.idle();
      expect(attempts).toBe(i);
      clock.advance(1);
      await manager.idle();
      expect(attempts).toBe(i + 1);
    }
    const entry = manager.entry(lease.lease_id)!;
    expect(entry.revoke_err).toBe("lease expired and revocation failed 6 times: provider down");
    await expect(manager.renew(lease.lease_id, 0)).rejects.toThrow("lease is expired and has failed previous revocation attempts");
    clock.advance(3600_000);
    await manager.idle();
    expect(attempts).toBe(MAX_REVOKE_ATTEMPTS);
  });

  it("leaves expiry to the primary while the cluster is a replication secondary, and revokes once it is not", async () => {
    const storage = new MemoryStorage();
    const clock = new ManualClock(T0);
    const revoked: string[] = [];
    let active = false;
    const manager = new LeaseManager(
      storage,
      { test: { renew: async () => ({ ttl: 60, maxTtl: 0 }), revoke: async (entry) => void revoked.push(entry.lease_id) } },
      clock,
      () => active,
    );
    const lease = await manager.register({ path: "m/creds/r", mount: "m", secretType: "test", renewable: true, ttl: 60, maxTtl: 0, internal: {} });
    clock.advance(120_000);
    await manager.idle();
    expect(revoked).toEqual([]);
    expect(manager.entry(lease.lease_id)!.revoke_attempts).toBe(0);
    active = true;
    clock.advance(60_000);
    await manager.idle();
    expect(revoked).toEqual([lease.lease_id]);
  });

  it("revokes a secret at once when its lease cannot be stored, and passes the refusal on", async () => {
    const storage = new MemoryStorage();
    const put = storage.put.bind(storage);
    storage.put = (key, value) => {
      if (key.startsWith("sys/expire/")) throw new Error("storage is full");
      put(key, value);
    };
    const { manager, revoked, register } = setup({}, storage);
    await expect(register()).rejects.toThrow("storage is full");
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatch(/^m\/creds\/r\//);
    expect(manager.list()).toEqual([]);
  });

  it("runs one operation of a lease at a time: a renewal during a revocation waits and finds no lease", async () => {
    let release!: () => void;
    const { manager, register } = setup({ revoke: () => new Promise<void>((resolve) => (release = resolve)) });
    const lease = await register();
    const revoking = manager.revoke(lease.lease_id);
    const renewing = manager.renew(lease.lease_id, 0);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await revoking;
    await expect(renewing).rejects.toThrow("lease not found");
  });
});
