// The request guards on their own: the canonical path and the JSON depth scan (no parsing, strings
// skipped, escapes honoured).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepthExceeds, mediaType } from "../../server/org-platform/http/body.ts";
import { canonicalPath } from "../../server/org-platform/http/canonical.ts";

describe("canonicalPath", () => {
  it("collapses repeated slashes and drops a trailing one", () => {
    expect(canonicalPath("/api/v2//teams///team-x/")).toBe("/api/v2/teams/team-x");
    expect(canonicalPath("/")).toBe("/");
  });

  it("names nothing with dot segments, raw or encoded, or undecodable escapes", () => {
    for (const path of ["/api/v2/teams/../x", "/api/v2/./teams", "/api/v2/%2e%2E/x", "/api/v2/%2E/x", "/api/v2/teams/%zz", "/api/v2/teams/%E0%A4%A"]) {
      expect(canonicalPath(path), path).toBeUndefined();
    }
  });

  it("keeps encoded segments as they are: they are decoded once, by the router", () => {
    expect(canonicalPath("/api/v2/teams/team-a%2Fb")).toBe("/api/v2/teams/team-a%2Fb");
    expect(canonicalPath("/api/v2/teams/%2574eam")).toBe("/api/v2/teams/%2574eam");
  });
});

describe("jsonDepthExceeds", () => {
  it("agrees with the depth of parsed JSON", () => {
    const depth = (v: unknown): number => (v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v as object).map(depth)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, max) => {
        expect(jsonDepthExceeds(JSON.stringify(value), max)).toBe(depth(value) > max);
      }),
      { numRuns: 300 },
    );
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(jsonDepthExceeds(JSON.stringify({ a: "[[[[[[\\\"{{{{" }), 1)).toBe(false);
    expect(jsonDepthExceeds("[".repeat(33) + "]".repeat(33), 32)).toBe(true);
  });
});

describe("mediaType", () => {
  it("is the type without parameters, lower-cased", () => {
    expect(mediaType("Application/VND.API+JSON; charset=utf-8")).toBe("application/vnd.api+json");
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType("")).toBeUndefined();
  });
});
