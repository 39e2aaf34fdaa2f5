// The ACL store finds a token by its secret in one lookup (every authenticated request does), and
// that lookup follows every write: a new secret, a deleted token, a restart on the data directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataDirectory } from "../../server/shared/data-dir.ts";
import { MemoryAclStore, type AclTokenRecord } from "../../server/mesh/store/acl-store.ts";

const ROOT = mkdtempSync(join(tmpdir(), "mesh-acl-store-"));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

function token(AccessorID: string, SecretID: string): Omit<AclTokenRecord, "CreateIndex" | "ModifyIndex"> {
  return { AccessorID, SecretID, Description: "", Policies: [], Roles: [], Local: false, Namespace: "default", CreateTime: "2026-01-01T00:00:00Z" };
}

describe("tokens by secret", () => {
  it("finds a token by its secret, and nothing for a secret no token has", () => {
    const store = new MemoryAclStore();
    store.tokens.put("a1", token("a1", "s1"));
    store.tokens.put("a2", token("a2", "s2"));
    expect(store.tokens.getBy("s1")?.AccessorID).toBe("a1");
    expect(store.tokens.getBy("s2")?.AccessorID).toBe("a2");
    expect(store.tokens.getBy("s3")).toBeUndefined();
    expect(store.tokens.getBy("a1")).toBeUndefined(); // an accessor is not a secret
  });

  it("follows a token written again with another secret, and a deleted token", () => {
    const store = new MemoryAclStore();
    store.tokens.put("a1", token("a1", "s1"));
    store.tokens.put("a2", token("a2", "s2"));
    store.tokens.put("a1", token("a1", "s1-new"));
    expect(store.tokens.getBy("s1")).toBeUndefined();
    expect(store.tokens.getBy("s1-new")?.AccessorID).toBe("a1");
    // Written again, a token keeps its place among the others.
    expect(store.tokens.all().map((t) => t.AccessorID)).toEqual(["a1", "a2"]);
    expect(store.tokens.delete("a1")).toBe(true);
    expect(store.tokens.getBy("s1-new")).toBeUndefined();
    expect(store.tokens.getBy("s2")?.AccessorID).toBe("a2");
    const index = store.currentIndex();
    expect(store.tokens.delete("a1")).toBe(false);
    expect(store.currentIndex()).toBe(index); // deleting nothing is no write
  });

  it("gives a secret to the token written with it last, whatever then happens to the one that had it", () => {
    // The service refuses a secret already in use; the store keeps its lookup right regardless.
    const store = new MemoryAclStore();
    store.tokens.put("a1", token("a1", "s1"));
    store.tokens.put("a2", token("a2", "s1"));
    expect(store.tokens.getBy("s1")?.AccessorID).toBe("a2");
    store.tokens.put("a1", token("a1", "s9"));
    expect(store.tokens.getBy("s1")?.AccessorID).toBe("a2");
    store.tokens.delete("a1");
    expect(store.tokens.getBy("s1")?.AccessorID).toBe("a2");
  });

  it("keeps a token's creation index when it is written again, and moves its modification index", () => {
    const store = new MemoryAclStore();
    const created = store.tokens.put("a1", token("a1", "s1"));
    store.policies.put("p1", { ID: "p1", Name: "p", Description: "", Rules: "" });
    const written = store.tokens.put("a1", token("a1", "s1"));
    expect([created.CreateIndex, created.ModifyIndex]).toEqual([1, 1]);
    expect([written.CreateIndex, written.ModifyIndex]).toEqual([1, 3]);
    expect(store.currentIndex()).toBe(3);
    store.tokens.delete("a1");
    expect(store.currentIndex()).toBe(4);
  });

  it("finds the tokens of a data directory after a restart, without those deleted", () => {
    const path = join(ROOT, "restart");
    const first = DataDirectory.open(path, "mesh");
    const before = new MemoryAclStore(first);
    before.tokens.put("a1", token("a1", "s1"));
    before.tokens.put("a2", token("a2", "s2"));
    before.tokens.delete("a2");
    first.close();
    const again = DataDirectory.open(path, "mesh");
    try {
      const after = new MemoryAclStore(again);
      expect(after.tokens.getBy("s1")?.AccessorID).toBe("a1");
      expect(after.tokens.getBy("s2")).toBeUndefined();
      expect(after.currentIndex()).toBe(3);
    } finally {
      again.close();
    }
  });
});
