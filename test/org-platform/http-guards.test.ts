// The request guards on their own: the canonical path and the JSON depth scan (no parsing, strings
// skipped, escapes honoured).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepthExceeds, mediaType } from "../../server/org-platform/http/body.ts";
import type { NextFunction, Request, Response } from "express";
import { ApiError } from "../../server/org-platform/domain/errors.ts";
import { canonicalPath, canonicalRequestPath } from "../../server/org-platform/http/canonical.ts";

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

describe("canonicalRequestPath", () => {
  /** The request as the stage leaves it, and what it passed on (nothing, or the error). */
  function settle(url: string): { url: string; originalUrl: string; passed: unknown[] } {
    const req = { url, originalUrl: url } as Request;
    let passed: unknown[] | undefined;
    canonicalRequestPath(req, {} as Response, ((...args: unknown[]) => (passed = args)) as NextFunction);
    expect(passed, "next is called exactly once, at once").toBeDefined();
    return { url: req.url, originalUrl: req.originalUrl, passed: passed! };
  }

  it("leaves a canonical request as it came, query included", () => {
    expect(settle("/api/v2/organizations/acme/teams?page%5Bnumber%5D=2")).toEqual({ url: "/api/v2/organizations/acme/teams?page%5Bnumber%5D=2", originalUrl: "/api/v2/organizations/acme/teams?page%5Bnumber%5D=2", passed: [] });
    expect(settle("/api/v2/ping")).toEqual({ url: "/api/v2/ping", originalUrl: "/api/v2/ping", passed: [] });
  });

  it("rewrites the path to its canonical form on url and originalUrl (the validator routes on originalUrl), the query kept as sent", () => {
    expect(settle("/api/v2//teams/team-x/")).toEqual({ url: "/api/v2/teams/team-x", originalUrl: "/api/v2/teams/team-x", passed: [] });
    expect(settle("/api/v2//teams/team-x")).toEqual({ url: "/api/v2/teams/team-x", originalUrl: "/api/v2/teams/team-x", passed: [] });
    // Only the path is canonical: slashes and dots in the query are a value's, left alone.
    expect(settle("/api/v2//organizations/acme/teams/?q=a//b/../c&x")).toEqual({
      url: "/api/v2/organizations/acme/teams?q=a//b/../c&x",
      originalUrl: "/api/v2/organizations/acme/teams?q=a//b/../c&x",
      passed: [],
    });
    expect(settle("?q=1")).toEqual({ url: "/?q=1", originalUrl: "/?q=1", passed: [] });
  });

  it("passes on the platform's 404 for a path that names nothing, and changes nothing", () => {
    for (const url of ["/api/v2/teams/../x?q=1", "/api/v2/%2e%2e/teams", "/api/v2/teams/%zz"]) {
      const settled = settle(url);
      expect(settled.url, url).toBe(url);
      expect(settled.originalUrl, url).toBe(url);
      expect(settled.passed, url).toHaveLength(1);
      const [error] = settled.passed as [ApiError];
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(404);
      expect(error.errors).toEqual([{ status: "404", title: "not found" }]);
    }
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
