// The request path the secrets service authorizes, step by step and in the real order: Go's
// url.PathUnescape first (every %XX decoded exactly once, a bad escape refused with Go's words),
// then Go's ServeMux cleanPath (path.Clean keeping a trailing slash; cases from Go's
// path/path_test.go), then `/v1/` stripped and a list's trailing `/` added (http/logical.go).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { posix } from "node:path";
import { canonicalPath, cleanPath, encodePath, percentDecode } from "../../server/secrets/http/canonical-path.ts";

describe("percentDecode (url.PathUnescape)", () => {
  it("decodes every escape exactly once, in either case of hex digit", () => {
    const cases: [string, string][] = [
      ["/v1/adm%69n", "/v1/admin"],
      ["/v1/a%2Fb", "/v1/a/b"],
      ["/v1/a%2fb", "/v1/a/b"],
      ["/v1/%2569", "/v1/%69"],
      ["%41%42%43", "ABC"],
      ["/v1/caf%C3%A9", "/v1/café"],
      ["/v1/plain", "/v1/plain"],
    ];
    for (const [path, decoded] of cases) expect(percentDecode(path), path).toBe(decoded);
  });

  it("keeps characters that were not escaped as they are, escapes or not around them", () => {
    expect(percentDecode("/v1/é%20x")).toBe("/v1/é x");
    expect(percentDecode("/v1/a+b%21")).toBe("/v1/a+b!");
  });

  it("refuses a bad escape, quoting it as Go does", () => {
    expect(percentDecode("/v1/%zz")).toEqual({ error: 'invalid URL escape "%zz"' });
    expect(percentDecode("/v1/a%4")).toEqual({ error: 'invalid URL escape "%4"' });
    expect(percentDecode("/v1/a%")).toEqual({ error: 'invalid URL escape "%"' });
    expect(percentDecode("/v1/%4g%41")).toEqual({ error: 'invalid URL escape "%4g"' });
  });

  it("refuses bytes that are not UTF-8", () => {
    expect(percentDecode("/v1/%ff")).toEqual({ error: "invalid URL escape: the decoded path is not UTF-8" });
    expect(percentDecode("/v1/%C3")).toEqual({ error: "invalid URL escape: the decoded path is not UTF-8" });
  });
});

describe("cleanPath (ServeMux: path.Clean, trailing slash kept)", () => {
  it("agrees with the rooted path.Clean for any path of '/', '.' and letters", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("/", ".", "a", "b") , maxLength: 12 }), (path) => {
        const clean = posix.resolve("/", path);
        expect(cleanPath(path)).toBe(path.endsWith("/") && clean !== "/" ? `${clean}/` : clean);
      }),
      { numRuns: 3_000 },
    );
  });

  // Go's path/path_test.go cleantests, rooted as ServeMux roots them.
  const cases: [string, string][] = [
    ["", "/"],
    ["abc", "/abc"],
    ["abc/def", "/abc/def"],
    ["a/b/c", "/a/b/c"],
    [".", "/"],
    ["..", "/"],
    ["../..", "/"],
    ["../../abc", "/abc"],
    ["/abc", "/abc"],
    ["/", "/"],
    ["abc/", "/abc/"],
    ["abc/def/", "/abc/def/"],
    ["a/b/c/", "/a/b/c/"],
    ["./", "/"],
    ["../", "/"],
    ["abc//def//ghi", "/abc/def/ghi"],
    ["//abc", "/abc"],
    ["///abc", "/abc"],
    ["//abc//", "/abc/"],
    ["abc//", "/abc/"],
    ["abc/./def", "/abc/def"],
    ["/./abc/def", "/abc/def"],
    ["abc/.", "/abc"],
    ["abc/def/ghi/../jkl", "/abc/def/jkl"],
    ["abc/def/../ghi/../jkl", "/abc/jkl"],
    ["abc/def/..", "/abc"],
    ["abc/def/../..", "/"],
    ["/abc/def/../..", "/"],
    ["abc/def/../../..", "/"],
    ["/abc/def/../../..", "/"],
    ["abc/def/../../../ghi/jkl/../../../mno", "/mno"],
    ["abc/./../def", "/def"],
    ["abc//./../def", "/def"],
    ["abc/../../././../def", "/def"],
    ["/abc/def/../", "/abc/"],
  ];
  it.each(cases)("%j -> %j", (input, expected) => {
    expect(cleanPath(input)).toBe(expected);
    // A clean path is its own clean form.
    expect(cleanPath(expected)).toBe(expected);
  });
});

describe("encodePath", () => {
  it("percent-encodes each segment and keeps the slashes", () => {
    expect(encodePath("/v1/a b/c%d")).toBe("/v1/a%20b/c%25d");
    expect(encodePath("/v1/café/")).toBe("/v1/caf%C3%A9/");
    expect(encodePath("/")).toBe("/");
  });
});

describe("canonicalPath: decode, then clean, then strip the base", () => {
  it("decodes before cleaning: an encoded dot segment is a dot segment, redirected to the clean form", () => {
    expect(canonicalPath("/v1/secret/%2e%2e/sys/seal", "/v1", false)).toEqual({ kind: "redirect", location: "/v1/sys/seal" });
    expect(canonicalPath("/v1/secret%2F..%2Fsys/seal", "/v1", false)).toEqual({ kind: "redirect", location: "/v1/sys/seal" });
    expect(canonicalPath("/v1//sys/seal", "/v1", false)).toEqual({ kind: "redirect", location: "/v1/sys/seal" });
    expect(canonicalPath("/v1/a b/./c", "/v1", false)).toEqual({ kind: "redirect", location: "/v1/a%20b/c" });
  });

  it("a bad escape is invalid before anything else", () => {
    expect(canonicalPath("/v1/../%zz", "/v1", false)).toEqual({ kind: "invalid", message: 'invalid URL escape "%zz"' });
  });

  it("gives the path relative to the base, split in segments", () => {
    expect(canonicalPath("/v1/sys/rekey/init", "/v1", false)).toEqual({ kind: "path", path: "sys/rekey/init", segments: ["sys", "rekey", "init"] });
    expect(canonicalPath("/v1/adm%69n/x", "/v1", false)).toEqual({ kind: "path", path: "admin/x", segments: ["admin", "x"] });
    // A trailing slash is another path (not a list): its last segment is empty.
    expect(canonicalPath("/v1/secret/", "/v1", false)).toEqual({ kind: "path", path: "secret/", segments: ["secret", ""] });
  });

  it("a list adds the trailing slash policies see, and routes without it", () => {
    expect(canonicalPath("/v1/secret/roles", "/v1", true)).toEqual({ kind: "path", path: "secret/roles/", segments: ["secret", "roles"] });
    expect(canonicalPath("/v1/secret/roles/", "/v1", true)).toEqual({ kind: "path", path: "secret/roles/", segments: ["secret", "roles"] });
  });

  it("a path outside the base has no path there", () => {
    expect(canonicalPath("/v2/sys/seal", "/v1", false)).toEqual({ kind: "path", path: "", segments: [] });
    expect(canonicalPath("/v1", "/v1", false)).toEqual({ kind: "path", path: "", segments: [] });
    expect(canonicalPath("/v1x/a", "/v1", false)).toEqual({ kind: "path", path: "", segments: [] });
    expect(canonicalPath("/v1/", "/v1", false)).toEqual({ kind: "path", path: "", segments: [] });
  });
});
