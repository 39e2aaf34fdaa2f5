// Trimming a run of one character by a scan (server/shared/trim.ts), and the places that take it
// from a request: a namespace header, a provider endpoint.
import { describe, expect, it } from "vitest";
import { trimEndOf, trimStartOf } from "../../server/shared/trim.ts";
import { canonicalNamespace } from "../../server/secrets/push-mfa/namespaces.ts";

describe("trimStartOf and trimEndOf", () => {
  it("take off the run at their end only", () => {
    expect(trimEndOf("a//b///", "/")).toBe("a//b");
    expect(trimStartOf("///a//b/", "/")).toBe("a//b/");
    expect(trimEndOf("////", "/")).toBe("");
    expect(trimStartOf("", "/")).toBe("");
    expect(trimEndOf("abc", "/")).toBe("abc");
  });

  it("read a long run once: slashes and then a letter, as a hostile header sends them", () => {
    const run = `${"/".repeat(1 << 20)}x`;
    expect(trimEndOf(run, "/")).toBe(run);
    expect(trimStartOf(run, "/")).toBe("x");
    expect(trimEndOf(`x${"/".repeat(1 << 20)}`, "/")).toBe("x");
  });
});

describe("canonicalNamespace on a long run of slashes", () => {
  it("answers the namespace or its refusal, read once", () => {
    expect(canonicalNamespace(`${"/".repeat(1 << 16)}team-a${"/".repeat(1 << 16)}`)).toBe("team-a/");
    expect(canonicalNamespace(`a${"/".repeat(1 << 16)}x`)).toMatchObject({ error: expect.stringContaining("a namespace path is names") });
  });
});
