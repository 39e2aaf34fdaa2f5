// The configuration-entry store: structured keys and bounded tombstones.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { entryKey, MAX_TOMBSTONES, MemoryConfigEntryStore } from "../../server/mesh/store/config-entry-store.ts";

describe("tombstones (indexes of deleted keys)", () => {
  it("keeps at most MAX_TOMBSTONES; a reaped key reports the highest reaped index", () => {
    const store = new MemoryConfigEntryStore();
    const total = MAX_TOMBSTONES + 50;
    for (let i = 0; i < total; i++) {
      store.put({ Kind: "service-defaults", Name: `s${i}`, Namespace: "default" });
      store.delete("service-defaults", "default", `s${i}`);
    }
    const indexes = (store as unknown as { indexes: Map<string, number> }).indexes;
    expect(indexes.size).toBe(MAX_TOMBSTONES);
    // s49 was deleted at index 100 and is the last one reaped.
    expect(store.keyIndex(entryKey("service-defaults", "default", "s0"))).toBe(100);
    expect(store.keyIndex(entryKey("service-defaults", "default", "never"))).toBe(100);
    expect(store.keyIndex(entryKey("service-defaults", "default", `s${total - 1}`))).toBe(2 * total);
    // A list's index never goes back below what its readers saw.
    expect(store.maxKeyIndex(() => false)).toBe(100);
  });

  it("a key written again is no longer a tombstone", () => {
    const store = new MemoryConfigEntryStore();
    store.put({ Kind: "service-defaults", Name: "web", Namespace: "default" });
    store.delete("service-defaults", "default", "web");
    store.put({ Kind: "service-defaults", Name: "web", Namespace: "default" });
    expect((store as unknown as { tombstones: Map<string, number> }).tombstones.size).toBe(0);
    expect(store.get("service-defaults", "default", "web")?.CreateIndex).toBe(3);
  });
});

describe("entry keys", () => {
  it("are the JSON text of [kind, namespace, name], whatever characters they hold", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom('a"b', "a\\b", "a\u0000b", "a\u2028b", "\ud800", "web/api", ""));
    fc.assert(
      fc.property(text, text, text, (kind, namespace, name) => {
        expect(entryKey(kind as never, namespace, name)).toBe(JSON.stringify([kind, namespace, name]));
      }),
      { numRuns: 2_000 },
    );
  });
});
