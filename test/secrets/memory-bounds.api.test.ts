// Memory is bounded by bytes, not only by counts: the replication log, the storage as a whole and
// each stored value. The reproduction: 140 updates of a push-MFA method with a huge secret_key grew
// the process to 3.85 GB. Now a string over 1 MiB is refused before it is parsed, a value over
// 1 MiB is refused by the storage (413) and the log drops its oldest entries past its byte budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WAL_BYTES, WalLog } from "../../server/secrets/replication/domain/wal.ts";
import { MAX_ENTRY_BYTES, MemoryStorage, StorageLimitError } from "../../server/secrets/store/storage.ts";
import { ROOT_TOKEN, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
beforeAll(async () => {
  secrets = await startSecrets();
});
afterAll(() => secrets.close());

const method = (secret_key: string, extra: Record<string, string> = {}) => ({ secret_key, integration_key: "ik", api_hostname: "api.example.com", ...extra });
const post = (path: string, body: unknown) =>
  fetch(`${secrets.baseUrl}${path}`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN, "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("the reproduction: many updates of a method with a huge secret_key", () => {
  it("refuses a secret_key over 1 MiB before parsing it", async () => {
    const answer = await post("/identity/mfa/method/pushmfa", method("k".repeat(1024 * 1024 + 1)));
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ errors: ["failed to parse JSON input: JSON string of more than 1048576 bytes"] });
  });

  it("refuses a method whose stored value is over 1 MiB with 413, and stores nothing", async () => {
    const storage = secrets.secrets.cluster.storage as MemoryStorage;
    const before = storage.bytes;
    const half = "k".repeat(600 * 1024);
    const answer = await post("/identity/mfa/method/pushmfa", method(half, { push_info: half }));
    expect(answer.status).toBe(413);
    expect((await answer.json()).errors[0]).toMatch(/^put failed due to value being too large; got \d+ bytes, max: 1048576 bytes$/);
    expect(storage.bytes).toBe(before);
  });

  it("keeps memory flat over 40 updates with a 900 KB secret_key (36 MB written): the log holds at most its byte budget", async () => {
    const created = await post("/identity/mfa/method/pushmfa", method("start"));
    expect(created.status).toBe(200);
    const { data } = (await created.json()) as { data: { method_id: string } };
    const wal = secrets.secrets.cluster.replication.wal;
    for (let i = 0; i < 40; i++) {
      const updated = await post(`/identity/mfa/method/pushmfa/${data.method_id}`, method(`${i}`.padEnd(900 * 1024, "k")));
      expect(updated.status).toBe(204);
    }
    expect(wal.bytes).toBeLessThanOrEqual(DEFAULT_WAL_BYTES);
    expect((secrets.secrets.cluster.storage as MemoryStorage).bytes).toBeLessThan(2 * 1024 * 1024);
  });
});

describe("WalLog", () => {
  it("drops its oldest entries past the byte budget, and says so to a reader that needs them", () => {
    const wal = new WalLog(1000, 100);
    for (let i = 0; i < 10; i++) wal.append(`k${i}`, "x".repeat(28)); // 2 + 30 bytes each
    expect(wal.bytes).toBeLessThanOrEqual(100);
    expect(wal.last).toBe(10);
    expect(wal.since(7)).toEqual({ entries: [{ index: 8, key: "k7", value: "x".repeat(28) }, { index: 9, key: "k8", value: "x".repeat(28) }, { index: 10, key: "k9", value: "x".repeat(28) }] });
    expect(wal.since(6)).toEqual({ truncated: true });
  });

  it("keeps nothing of an entry larger than its whole budget, and counts it", () => {
    const wal = new WalLog(1000, 10);
    wal.append("big", "y".repeat(100));
    expect(wal.bytes).toBe(0);
    expect(wal.last).toBe(1);
    expect(wal.since(0)).toEqual({ truncated: true });
    expect(wal.since(1)).toEqual({ entries: [] });
  });

  it("numbers a skipped write and lets go of everything kept: a reader that needs it resyncs", () => {
    const wal = new WalLog();
    wal.append("a", 1);
    wal.append("b", 2);
    wal.advance();
    expect(wal.last).toBe(3);
    expect(wal.bytes).toBe(0);
    expect(wal.since(1)).toEqual({ truncated: true });
    expect(wal.since(3)).toEqual({ entries: [] });
    wal.append("c", 3);
    expect(wal.since(3)).toEqual({ entries: [{ index: 4, key: "c", value: 3 }] });
  });

  it("still keeps at most its count", () => {
    const wal = new WalLog(3);
    for (let i = 0; i < 5; i++) wal.append(`k${i}`, i);
    expect(wal.since(1)).toEqual({ truncated: true });
    expect(wal.since(2)).toMatchObject({ entries: [{ index: 3 }, { index: 4 }, { index: 5 }] });
  });
});

describe("MemoryStorage", () => {
  it("refuses a value over 1 MiB of JSON and a write past its budget, changing nothing", () => {
    const storage = new MemoryStorage(1000);
    expect(() => storage.put("big", "z".repeat(MAX_ENTRY_BYTES))).toThrow(StorageLimitError);
    storage.put("a", "x".repeat(500));
    expect(() => storage.put("b", "x".repeat(600))).toThrow(/storage is full/);
    expect(storage.get("b")).toBeUndefined();
    expect(storage.index()).toBe(1);
    // Replacing a value counts only the difference; deleting gives the bytes back.
    storage.put("a", "x".repeat(900));
    storage.delete("a");
    expect(storage.bytes).toBe(0);
    storage.put("b", "x".repeat(600));
  });

  it("keeps a copy of what was written, frozen: neither the writer nor a reader can change it afterwards", () => {
    const storage = new MemoryStorage();
    const written = { name: "r", arns: ["a"], nested: { n: 1 }, gone: undefined };
    storage.put("k", written as never);
    written.arns.push("b");
    written.nested.n = 2;
    const read = storage.get<{ name: string; arns: string[]; nested: { n: number } }>("k")!;
    expect(read).toEqual({ name: "r", arns: ["a"], nested: { n: 1 } });
    expect("gone" in read).toBe(false); // as JSON keeps it, and as a restart reads it back
    expect(() => read.arns.push("c")).toThrow(TypeError);
    expect(() => {
      read.nested.n = 3;
    }).toThrow(TypeError);
    expect(storage.get("k")).toEqual({ name: "r", arns: ["a"], nested: { n: 1 } });
  });
});
