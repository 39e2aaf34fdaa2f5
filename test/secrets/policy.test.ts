// Policies: path patterns, the real system's priority rules, merging, deny, root; and the world file.
import { describe, expect, it } from "vitest";
import { Acl, policyProblems, type Policy } from "../../server/secrets/sys/policy.ts";
import { parseWorld } from "../../server/secrets/world.ts";

const acl = (...policies: Policy[]) => new Acl(policies);
const policy = (name: string, path: Record<string, string[]>): Policy => ({
  name,
  path: Object.fromEntries(Object.entries(path).map(([p, capabilities]) => [p, { capabilities: capabilities as never }])),
});

describe("Acl", () => {
  it("matches exact paths, globs (also inside a segment) and + segments", () => {
    const a = acl(policy("p", { "sys/rekey/init": ["read"], "secret/*": ["list"], "sys/rek*": ["sudo"], "team/+/roles": ["update"] }));
    expect([...a.capabilities("sys/rekey/init")]).toEqual(["read"]);
    expect([...a.capabilities("sys/rekey/update")]).toEqual(["sudo"]);
    expect([...a.capabilities("secret/a/b")]).toEqual(["list"]);
    expect([...a.capabilities("team/x/roles")]).toEqual(["update"]);
    expect([...a.capabilities("team/x/y/roles")]).toEqual([]);
    expect([...a.capabilities("other")]).toEqual([]);
  });

  it("lets the most specific pattern win, by the real system's priority rules", () => {
    const a = acl(
      policy("p", {
        "secret/*": ["read"],
        "secret/foo*": ["update"],
        "secret/+/bar": ["delete"],
        "secret/foo/bar": ["list"],
        "secret/+/*": ["create"],
      }),
    );
    expect([...a.capabilities("secret/foo/bar")]).toEqual(["list"]); // exact beats every wildcard
    expect([...a.capabilities("secret/foo/baz")]).toEqual(["update"]); // the later first wildcard wins
    expect([...a.capabilities("secret/zzz/bar")]).toEqual(["delete"]); // + before * at the same place: not a glob wins
    expect([...a.capabilities("secret/zzz/qux")]).toEqual(["read"]); // fewer + segments beat more
    const b = acl(policy("p", { "secret/a*": ["read"], "secret/ab*": ["update"] }));
    expect([...b.capabilities("secret/abc")]).toEqual(["update"]); // longer beats shorter
  });

  it("adds up the capabilities of several policies on the same pattern; deny wins", () => {
    expect(acl(policy("a", { "sys/rekey/*": ["read"] }), policy("b", { "sys/rekey/*": ["sudo"] })).allows("sys/rekey/init", ["read", "sudo"])).toBe(true);
    const denied = acl(policy("a", { "sys/rekey/*": ["read", "sudo"] }), policy("b", { "sys/rekey/*": ["deny"] }));
    expect(denied.allows("sys/rekey/init", ["read"])).toBe(false);
    expect([...denied.capabilities("sys/rekey/init")]).toEqual([]);
  });

  it("gives the root policy everything", () => {
    expect(acl({ name: "root", path: {} }).allows("anything/at/all", ["create", "read", "update", "patch", "delete", "list", "sudo"])).toBe(true);
  });

  it("reports bad policies", () => {
    expect(policyProblems("root", { path: {} })).toEqual(['policy "root" is built in and cannot be declared']);
    expect(policyProblems("p", { path: { "/sys/x": { capabilities: ["read", "fly"] }, "a*b": { capabilities: [] } } })).toEqual([
      'policy "p": path "/sys/x" must be relative to /v1 (no leading slash)',
      'policy "p": path "/sys/x": unknown capability "fly" (known: create, read, update, patch, delete, list, sudo, deny)',
      'policy "p": path "a*b" may only end in "*"',
    ]);
    expect(policyProblems("p", { paths: {} })).toContain('policy "p": unknown keys "paths"');
  });
});

describe("parseWorld", () => {
  const world = {
    policies: { ops: { path: { "sys/rekey/*": { capabilities: ["read", "update", "delete", "sudo"] } } } },
    tokens: [{ id: "t1", policies: ["ops"], display_name: "operator" }],
  };

  it("reads policies and tokens", () => {
    const parsed = parseWorld(world, "world.yaml");
    expect(parsed.policies).toEqual([{ name: "ops", path: { "sys/rekey/*": { capabilities: ["read", "update", "delete", "sudo"] } } }]);
    expect(parsed.tokens).toEqual([{ id: "t1", policies: ["ops"], display_name: "operator" }]);
    expect(parseWorld(null)).toEqual({ policies: [], tokens: [] });
  });

  it("refuses mistakes, naming them", () => {
    expect(() => parseWorld({ ...world, users: [] }, "w")).toThrow('w: unknown keys "users" (known: policies, tokens, ');
    expect(() => parseWorld({ ...world, tokens: [{ id: "t1", policies: ["nope"] }] }, "w")).toThrow('w: token [0]: unknown policy "nope"');
    expect(() => parseWorld({ ...world, tokens: [{ policies: [] }] }, "w")).toThrow('w: token [0] needs an "id"');
    expect(() => parseWorld({ ...world, tokens: [{ id: "a" }, { id: "a" }] }, "w")).toThrow('w: token [1]: id "a" is declared twice');
    expect(() => parseWorld({ ...world, tokens: [{ id: "a", policies: ["root"] }] }, "w")).toThrow(/only for the root token/);
    expect(() => parseWorld({ policies: { p: { path: { x: { capabilities: ["jump"] } } } } }, "w")).toThrow(/unknown capability "jump"/);
    expect(() => parseWorld([1], "w")).toThrow('w: expected a map with "policies" and "tokens"');
  });
});
