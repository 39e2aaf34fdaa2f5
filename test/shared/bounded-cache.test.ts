// The cache of client-given keys (server/shared/bounded-cache.ts): its two bounds.
import { describe, expect, it } from "vitest";
import { BoundedCache } from "../../server/shared/bounded-cache.ts";

describe("BoundedCache", () => {
  it("starts empty again when a new key would pass its count", () => {
    const cache = new BoundedCache<number>(2, 100);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("b", 3); // a key it holds: replaced, nothing dropped
    expect(cache.size).toEqual({ entries: 2, chars: 2 });
    cache.set("c", 4);
    expect(cache.size).toEqual({ entries: 1, chars: 1 });
    expect([cache.get("a"), cache.get("c"), cache.has("b")]).toEqual([undefined, 4, false]);
  });

  it("starts empty again when a new key would pass its characters, and keeps one that fills them exactly", () => {
    const cache = new BoundedCache<string>(100, 10);
    cache.set("abcd", "x");
    cache.set("efghij", "y");
    expect(cache.size).toEqual({ entries: 2, chars: 10 });
    cache.set("k", "z");
    expect(cache.size).toEqual({ entries: 1, chars: 1 });
    expect(cache.get("abcd")).toBeUndefined();
  });

  it("holds undefined as a value it knows", () => {
    const cache = new BoundedCache<undefined>(10, 10);
    cache.set("a", undefined);
    expect(cache.has("a")).toBe(true);
  });
});
