// Policy evaluation as the real secrets service documents and tests it: the priority rules between
// path patterns (docs "Policies", section "Priority matching"; vault/acl.go, the `less` function of
// CheckAllowedFromNonExactPaths, whose comment gives one example per rule), the case tables of
// vault/acl_test.go (testACLSingle, testLayeredACL, testACLCapabilities) translated to
// capabilities, the root policy, and how a policy file is checked.
import { describe, expect, it } from "vitest";
import { Acl, CAPABILITIES, policyProblems, type Capability, type Policy } from "../../server/secrets/sys/policy.ts";

type Rules = Record<string, Capability[]>;
const policy = (name: string, rules: Rules): Policy => ({
  name,
  path: Object.fromEntries(Object.entries(rules).map(([p, capabilities]) => [p, { capabilities }])),
});
const acl = (...rules: Rules[]) => new Acl(rules.map((r, i) => policy(`p${i}`, r)));
const caps = (a: Acl, path: string) => [...a.capabilities(path)].sort();

// The `policy = "..."` shorthand of the real policy language, as capabilities.
const READ: Capability[] = ["read", "list"];
const WRITE: Capability[] = ["create", "read", "update", "delete", "list"];
const SUDO: Capability[] = [...WRITE, "sudo"];
const DENY: Capability[] = ["deny"];

describe("priority between matching patterns (each rule alone)", () => {
  // One pattern per side; both match the path; the winner grants "read", the loser "update".
  const winner = (win: string, lose: string, path: string) => {
    const a = acl({ [win]: ["read"], [lose]: ["update"] });
    const b = acl({ [lose]: ["update"], [win]: ["read"] });
    return [caps(a, path), caps(b, path)];
  };

  it("1. the pattern whose first wildcard comes later wins: foo/a* over foo/+, foo/bar/+/baz over foo/+/bar/baz", () => {
    expect(winner("foo/a*", "foo/+", "foo/abc")).toEqual([["read"], ["read"]]);
    expect(winner("foo/bar/+/baz", "foo/+/bar/baz", "foo/bar/bar/baz")).toEqual([["read"], ["read"]]);
    // A glob's wildcard is where its * stands: secret/foo* (at 10) beats secret/+/* (at 7).
    expect(winner("secret/foo*", "secret/+/*", "secret/foo/x")).toEqual([["read"], ["read"]]);
    // And an exact path has no wildcard at all: it beats everything.
    expect(winner("secret/foo/bar", "secret/foo/*", "secret/foo/bar")).toEqual([["read"], ["read"]]);
  });

  it("2. at the same position, the pattern that is not a prefix (no trailing *) wins: foo/+/bar over foo/+/ba*, foo/+ over foo/*", () => {
    expect(winner("foo/+/bar", "foo/+/ba*", "foo/x/bar")).toEqual([["read"], ["read"]]);
    expect(winner("foo/+", "foo/*", "foo/x")).toEqual([["read"], ["read"]]);
  });

  it("3. then the pattern with fewer + segments wins: foo/+/bar/baz over foo/+/+/baz", () => {
    expect(winner("foo/+/bar/baz", "foo/+/+/baz", "foo/x/bar/baz")).toEqual([["read"], ["read"]]);
    expect(winner("foo/+/bar/*", "foo/+/+/*", "foo/x/bar/y")).toEqual([["read"], ["read"]]);
    // It counts + segments, not segments: the winner here has more segments but fewer + ones.
    expect(winner("foo/+/a/b/*", "foo/+/+/*", "foo/x/a/b/c")).toEqual([["read"], ["read"]]);
  });

  it("4. then the longer pattern wins: foo/+/bar/ba* over foo/+/bar/b*", () => {
    expect(winner("foo/+/bar/ba*", "foo/+/bar/b*", "foo/x/bar/baz")).toEqual([["read"], ["read"]]);
    // Plain globs are the longest-prefix rule: secret/ab* over secret/a*.
    expect(winner("secret/ab*", "secret/a*", "secret/abc")).toEqual([["read"], ["read"]]);
    // Length decides before the text does: the longer pattern wins even where it sorts lower.
    expect(winner("kv/+/my app*", "kv/+/my*", "kv/x/my app/config")).toEqual([["read"], ["read"]]);
  });

  it("5. at last, the pattern that sorts higher wins (the real code sorts ascending and takes the last)", () => {
    // Same first wildcard (4), neither a prefix, two + segments each, 11 characters each.
    expect(winner("foo/+/bar/+", "foo/+/+/baz", "foo/x/bar/baz")).toEqual([["read"], ["read"]]);
  });

  it("an earlier rule decides before a later one looks: fewer + segments do not beat a later first wildcard", () => {
    // secret/a/+/+ has two + segments but its first wildcard (9) is later than secret/+/b/c's (7).
    expect(winner("secret/a/+/+", "secret/+/b/c", "secret/a/b/c")).toEqual([["read"], ["read"]]);
    // A longer glob loses to a shorter exact-shaped + pattern at the same first wildcard.
    expect(winner("foo/+", "foo/+*", "foo/x")).toEqual([["read"], ["read"]]);
  });

  it("the documentation's example: secret/* beats secret/+/+/foo/* (same first wildcard, both globs, fewer + segments)", () => {
    expect(winner("secret/*", "secret/+/+/foo/*", "secret/a/b/foo/c")).toEqual([["read"], ["read"]]);
  });
});

describe("the real service's case tables", () => {
  // vault/acl_test.go aclPolicy ("DeV"); operations become the capability they need.
  const dev: Rules = {
    "dev/*": SUDO,
    "stage/*": WRITE,
    "stage/aws/*": [...READ, "update", "sudo"],
    "stage/aws/policy/*": SUDO,
    "prod/*": READ,
    "prod/aws/*": DENY,
    "sys/*": DENY,
    "foo/bar": ["read", "create", "sudo"],
    "baz/quux": ["read", "create", "patch"],
    "test/+/segment": ["read"],
    "+/segment/at/front": ["read"],
    "test/segment/at/end/+": ["read"],
    "test/segment/at/end/v2/+/": ["read"],
    "test/+/wildcard/+/*": ["read"],
    "test/+/wildcardglob/+/end*": ["read"],
    "1/2/*": ["create"],
    "1/2/+": ["read"],
    "1/2/+/+": ["update"],
  };
  // aclPolicy2 ("OpS"), layered on top of it.
  const ops: Rules = {
    "dev/hide/*": DENY,
    "stage/aws/policy/*": DENY,
    "prod/*": WRITE,
    "sys/seal": SUDO,
    "foo/bar": DENY,
    "baz/quux": DENY,
  };
  type Case = [Capability, string, boolean, boolean];
  const check = (a: Acl, cases: Case[]) => {
    for (const [capability, path, allowed, sudo] of cases) {
      expect([path, capability, a.allows(path, [capability])]).toEqual([path, capability, allowed]);
      expect([path, "sudo", a.allows(path, ["sudo"])]).toEqual([path, "sudo", sudo]);
    }
  };

  it("one policy (testACLSingle)", () => {
    check(acl(dev), [
      ["read", "root", false, false],
      ["read", "dev/foo", true, true],
      ["update", "dev/foo", true, true],
      ["delete", "stage/foo", true, false],
      ["list", "stage/aws/foo", true, true],
      ["update", "stage/aws/foo", true, true],
      ["update", "stage/aws/policy/foo", true, true],
      ["delete", "prod/foo", false, false],
      ["update", "prod/foo", false, false],
      ["read", "prod/foo", true, false],
      ["list", "prod/foo", true, false],
      ["read", "prod/aws/foo", false, false],
      ["read", "foo/bar", true, true],
      ["list", "foo/bar", false, true],
      ["update", "foo/bar", false, true],
      ["create", "foo/bar", true, true],
      ["read", "baz/quux", true, false],
      ["create", "baz/quux", true, false],
      ["patch", "baz/quux", true, false],
      ["list", "baz/quux", false, false],
      ["update", "baz/quux", false, false],
      // Path segment wildcards
      ["read", "test/foo/bar/segment", false, false],
      ["read", "test/foo/segment", true, false],
      ["read", "test/bar/segment", true, false],
      ["read", "test/segment/at/frond", false, false],
      ["read", "test/segment/at/front", true, false],
      ["read", "test/segment/at/end/foo", true, false],
      ["read", "test/segment/at/end/foo/", false, false],
      ["read", "test/segment/at/end/v2/foo/", true, false],
      ["read", "test/segment/wildcard/at/foo/", true, false],
      ["read", "test/segment/wildcard/at/end", true, false],
      ["read", "test/segment/wildcard/at/end/", true, false],
      // Path segment wildcards vs glob
      ["read", "1/2/3/4", false, false],
      ["read", "1/2/3", true, false],
      ["update", "1/2/3", false, false],
      ["update", "1/2/3/4", true, false],
      ["create", "1/2/3/4/5", true, false],
    ]);
  });

  it("two policies layered (testLayeredACL): capabilities add up on the same pattern, deny wins", () => {
    check(acl(dev, ops), [
      ["read", "root", false, false],
      ["read", "dev/foo", true, true],
      ["update", "dev/foo", true, true],
      ["read", "dev/hide/foo", false, false],
      ["update", "dev/hide/foo", false, false],
      ["delete", "stage/foo", true, false],
      ["list", "stage/aws/foo", true, true],
      ["update", "stage/aws/foo", true, true],
      ["update", "stage/aws/policy/foo", false, false],
      ["delete", "prod/foo", true, false],
      ["update", "prod/foo", true, false],
      ["read", "prod/foo", true, false],
      ["list", "prod/foo", true, false],
      ["read", "prod/aws/foo", false, false],
      ["read", "sys/status", false, false],
      ["update", "sys/seal", true, true],
      ["read", "foo/bar", false, false],
      ["list", "foo/bar", false, false],
      ["update", "foo/bar", false, false],
      ["create", "foo/bar", false, false],
      ["read", "baz/quux", false, false],
      ["list", "baz/quux", false, false],
      ["update", "baz/quux", false, false],
      ["create", "baz/quux", false, false],
      ["patch", "baz/quux", false, false],
    ]);
    // The order of the policies does not matter.
    check(acl(ops, dev), [
      ["update", "stage/aws/policy/foo", false, false],
      ["update", "prod/foo", true, false],
      ["read", "foo/bar", false, false],
    ]);
  });

  it("capabilities of a path (testACLCapabilities): none on dev, everything the glob grants on dev/", () => {
    const a = acl(dev);
    expect(caps(a, "dev")).toEqual([]);
    expect(caps(a, "dev/")).toEqual(["create", "delete", "list", "read", "sudo", "update"]);
    expect(caps(a, "stage/aws/test")).toEqual(["list", "read", "sudo", "update"]);
    // A denied path answers no capability at all, not "deny" among others.
    expect(caps(a, "sys/anything")).toEqual([]);
    expect(caps(acl({ "a/*": ["read", "deny"] }), "a/b")).toEqual([]);
  });
});

describe("paths are literal apart from + and a trailing *", () => {
  it("characters that mean something in patterns elsewhere match only themselves", () => {
    const a = acl({ "secret/a.b": ["read"], "secret/(x)|y": ["read"], "secret/c?d": ["read"], "secret/e$^[f]{2}\\g": ["read"] });
    expect(a.allows("secret/a.b", ["read"])).toBe(true);
    expect(a.allows("secret/axb", ["read"])).toBe(false);
    expect(a.allows("secret/(x)|y", ["read"])).toBe(true);
    expect(a.allows("secret/x", ["read"])).toBe(false);
    expect(a.allows("secret/c?d", ["read"])).toBe(true);
    expect(a.allows("secret/d", ["read"])).toBe(false);
    expect(a.allows("secret/e$^[f]{2}\\g", ["read"])).toBe(true);
    expect(a.allows("secret/eff\\g", ["read"])).toBe(false);
  });

  it("a + inside a segment is a plus sign, and + matches exactly one whole segment", () => {
    const a = acl({ "secret/a+b": ["read"], "kv/+": ["read"] });
    expect(a.allows("secret/a+b", ["read"])).toBe(true);
    expect(a.allows("secret/aab", ["read"])).toBe(false);
    expect(a.allows("kv/x", ["read"])).toBe(true);
    expect(a.allows("kv/x/y", ["read"])).toBe(false);
    expect(a.allows("kv/", ["read"])).toBe(false);
    // A pattern without wildcards matches that path only, not longer ones.
    expect(acl({ "kv/x": ["read"] }).allows("kv/x/y", ["read"])).toBe(false);
    expect(acl({ "kv/x": ["read"] }).allows("kv/xy", ["read"])).toBe(false);
    expect(acl({ "kv/x": ["read"] }).allows("a/kv/x", ["read"])).toBe(false);
  });
});

describe("allows, root, and no policy", () => {
  it("allows needs every capability asked for", () => {
    const a = acl({ "kv/*": ["read"] });
    expect(a.allows("kv/x", ["read"])).toBe(true);
    expect(a.allows("kv/x", ["read", "update"])).toBe(false);
    expect(a.allows("kv/x", ["update", "read"])).toBe(false);
    expect(a.allows("kv/x", [])).toBe(true);
  });

  it("the root policy grants every capability on every path, and it is never a deny", () => {
    const root = new Acl([{ name: "root", path: {} }]);
    expect(caps(root, "any/path")).toEqual(CAPABILITIES.filter((c) => c !== "deny").sort());
    expect(caps(root, "")).toEqual(["create", "delete", "list", "patch", "read", "sudo", "update"]);
  });

  it("a token without policies, or with policies that grant nothing here, is denied (default deny)", () => {
    expect(caps(new Acl([]), "kv/x")).toEqual([]);
    expect(new Acl([]).allows("kv/x", ["read"])).toBe(false);
    expect(caps(new Acl([policy("default", {})]), "kv/x")).toEqual([]);
    // A policy named like root in another case is an ordinary policy.
    expect(caps(new Acl([policy("Root", { "kv/*": ["read"] })]), "sys/seal")).toEqual([]);
  });
});

describe("policyProblems (a policy file as read from the world file)", () => {
  it("a policy must be a map", () => {
    for (const raw of [null, [], "read", 3]) expect(policyProblems("p", raw)).toEqual(['policy "p" must be a map with a "path" map']);
  });

  it("its path must be a map of patterns", () => {
    for (const path of [undefined, null, [], "kv/*"]) {
      expect(policyProblems("p", { path })).toEqual(['policy "p" must have a "path" map of path patterns to capabilities']);
    }
    expect(policyProblems("p", { path: [], extra: 1, more: 2 })).toEqual([
      'policy "p": unknown keys "extra", "more"',
      'policy "p" must have a "path" map of path patterns to capabilities',
    ]);
  });

  it("each pattern needs a list of known capabilities, and the next pattern is still checked", () => {
    expect(policyProblems("p", { path: { "kv/*": {}, "a/*": null, "b/*": { capabilities: "read" }, "c/*": { capabilities: ["read", 1] } } })).toEqual([
      'policy "p": path "kv/*" needs a "capabilities" list',
      'policy "p": path "a/*" needs a "capabilities" list',
      'policy "p": path "b/*" needs a "capabilities" list',
      'policy "p": path "c/*": unknown capability 1 (known: create, read, update, patch, delete, list, sudo, deny)',
    ]);
    expect(policyProblems("p", { path: { "kv/*": { capabilities: ["read"] }, "kv/x": { capabilities: [] } } })).toEqual([]);
  });
});
