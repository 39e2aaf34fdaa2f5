// Performance replication paths filters, as the real service documents them: a filter path is a
// mount or a namespace (written with a trailing slash, a leading one dropped); `allow` replicates
// only what a listed path covers, `deny` everything else; a namespace is covered by itself and its
// parents, and under `allow` a namespace also follows when a listed mount lives inside it; the root
// namespace and `sys/`/`identity/` are always replicated, so they cannot be listed. What is filtered
// now (the dynamic filter) is reported sorted, each path once.
import { describe, expect, it } from "vitest";
import {
  dynamicFilter,
  filterToJson,
  isMountReplicated,
  isNamespaceReplicated,
  namespacesOf,
  normalizeFilterPath,
  parsePathsFilter,
  type PathsFilter,
} from "../../server/secrets/replication/domain/filter.ts";

const parsed = (mode: string, paths: unknown): PathsFilter => {
  const result = parsePathsFilter(mode, paths);
  if ("problem" in result) throw new Error(result.problem);
  return result.filter;
};

describe("filter paths as written", () => {
  it("drops leading slashes and spaces around, and adds the trailing slash", () => {
    expect(normalizeFilterPath("//team-a")).toBe("team-a/");
    expect(normalizeFilterPath("  team-a/aws  ")).toBe("team-a/aws/");
    expect(parsed("allow", ["///consul", " consul/ "]).paths).toEqual(["consul/"]);
  });

  it("refuses dot segments", () => {
    for (const path of ["team-a/./aws", "./aws", "..", "team-a/.."]) {
      expect(parsePathsFilter("allow", [path])).toEqual({ problem: `paths: ${JSON.stringify(path)} is not a mount or namespace path (segments of letters, digits, ".", "_" and "-")` });
    }
    // Dots inside a name are fine.
    expect(parsed("allow", ["kv.v2", "team.a/..x"]).paths).toEqual(["kv.v2/", "team.a/..x/"]);
  });

  it("refuses sys/ and identity/ (always replicated), and only those", () => {
    for (const path of ["sys", "sys/mounts", "identity", "identity/entity"]) {
      expect(parsePathsFilter("deny", [path])).toEqual({ problem: `paths: ${JSON.stringify(path)} cannot be filtered: "sys/" and "identity/" are always replicated` });
    }
    expect(parsed("deny", ["mysys", "team-a/sys", "myidentity", "identity-store"]).paths).toEqual(["mysys/", "team-a/sys/", "myidentity/", "identity-store/"]);
  });

  it("is stored as plain JSON, a copy of the list", () => {
    const filter = parsed("deny", ["aws", "team-b"]);
    const json = filterToJson(filter) as { mode: string; paths: string[] };
    expect(json).toEqual({ mode: "deny", paths: ["aws/", "team-b/"] });
    json.paths.push("x/");
    expect(filter.paths).toEqual(["aws/", "team-b/"]);
  });
});

describe("what a filter covers", () => {
  it("mounts: the mount itself or a namespace containing it, not a mount that only starts alike", () => {
    const allow = parsed("allow", ["team-a", "consul"]);
    expect(isMountReplicated(allow, "team-a/aws")).toBe(true);
    expect(isMountReplicated(allow, "consul/")).toBe(true);
    expect(isMountReplicated(allow, "team-ab/aws")).toBe(false);
    expect(isMountReplicated(allow, "consul-2")).toBe(false);
    const deny = parsed("deny", ["team-a"]);
    expect(isMountReplicated(deny, "team-a/aws/")).toBe(false);
    expect(isMountReplicated(deny, "team-ab/aws")).toBe(true);
  });

  it("namespaces under allow: a listed one, its children, and the parents of a listed mount", () => {
    const allow = parsed("allow", ["team-a", "team-b/kv"]);
    expect(isNamespaceReplicated(allow, "team-a/")).toBe(true);
    expect(isNamespaceReplicated(allow, "team-a/sub/")).toBe(true);
    expect(isNamespaceReplicated(allow, "team-b")).toBe(true);
    expect(isNamespaceReplicated(allow, "team-c/")).toBe(false);
    expect(isNamespaceReplicated(allow, "team-a-2/")).toBe(false);
  });

  it("namespaces under deny: a listed one and its children are not replicated", () => {
    const deny = parsed("deny", ["team-a"]);
    expect(isNamespaceReplicated(deny, "team-a/sub")).toBe(false);
    expect(isNamespaceReplicated(deny, "team-b/")).toBe(true);
  });

  it("the root namespace always is, whatever the filter; without a filter everything is", () => {
    for (const filter of [parsed("allow", ["team-a"]), parsed("deny", ["team-a"]), parsed("allow", [])]) {
      expect(isNamespaceReplicated(filter, "")).toBe(true);
      expect(isNamespaceReplicated(filter, "/")).toBe(true);
    }
    expect(isNamespaceReplicated(undefined, "team-a/")).toBe(true);
    expect(isMountReplicated(undefined, "team-a/aws")).toBe(true);
  });
});

describe("the dynamic filter", () => {
  it("the namespaces mounts live in: every proper prefix, once, sorted", () => {
    expect(namespacesOf(["z/y/x/kv", "a/b/", "a/c", "top"])).toEqual(["a/", "z/", "z/y/", "z/y/x/"]);
    expect(namespacesOf([])).toEqual([]);
  });

  it("lists filtered mounts and namespaces sorted and once each, with nothing invented", () => {
    const mounts = ["team-b/kv", "aws/", "team-b/kv/", "consul", "aws"];
    expect(dynamicFilter(parsed("allow", ["consul"]), mounts)).toEqual({
      dynamic_filtered_mounts: ["aws/", "team-b/kv/"],
      dynamic_filtered_namespaces: ["team-b/"],
    });
    expect(dynamicFilter(parsed("deny", ["team-b"]), mounts, ["team-z", "team-b/deep"])).toEqual({
      dynamic_filtered_mounts: ["team-b/kv/"],
      dynamic_filtered_namespaces: ["team-b/", "team-b/deep/"],
    });
    expect(dynamicFilter(parsed("allow", ["consul"]), ["consul"], ["b-ns", "a-ns", "b-ns/"])).toEqual({
      dynamic_filtered_mounts: [],
      dynamic_filtered_namespaces: ["a-ns/", "b-ns/"],
    });
  });
});
