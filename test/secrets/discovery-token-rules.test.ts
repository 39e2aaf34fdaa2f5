// The discovery-token engine's pure rules: parameters by backend version, what a client role needs,
// which token API issues a role's tokens, durations, lists, base64, leases, and the access settings.
import { describe, expect, it } from "vitest";
import { checkAccess, isHostPort } from "../../server/secrets/engines/discovery-token/access.ts";
import {
  checkRole,
  clientRequirement,
  compareVersions,
  decodeBase64,
  leaseDuration,
  nameList,
  parameterAvailable,
  parseSeconds,
  parseVersion,
  PARAMETER_VERSIONS,
  roleView,
  tokenApiFor,
  type StoredRole,
} from "../../server/secrets/engines/discovery-token/role-rules.ts";
import { mountStoragePrefix, mountUuid } from "../../server/secrets/engines/mount-storage.ts";

const POLICY = Buffer.from('service "web" { policy = "read" }').toString("base64");
const v = (text: string) => parseVersion(text)!;

describe("versions", () => {
  it("reads release versions, with or without patch, prefix or suffix", () => {
    expect(parseVersion("1.16.0")).toEqual([1, 16, 0]);
    expect(parseVersion("1.4")).toEqual([1, 4, 0]);
    expect(parseVersion("v1.10.12+ent")).toEqual([1, 10, 12]);
    expect(parseVersion("1.14.0-rc1")).toEqual([1, 14, 0]);
    expect(parseVersion("one.two")).toBeUndefined();
    expect(compareVersions(v("1.10.0"), v("1.9.9"))).toBeGreaterThan(0);
    expect(compareVersions(v("1.4.0"), v("1.4"))).toBe(0);
  });

  // Each parameter at the versions around its limits: [version, accepted].
  const table: Record<string, [string, boolean][]> = {
    policy: [["1.3.0", true], ["1.4.0", true], ["1.10.12", true], ["1.11.0", false], ["1.16.0", false]],
    lease: [["1.3.9", true], ["1.4.0", false], ["1.16.0", false]],
    policies: [["1.3.9", false], ["1.4.0", true], ["1.16.0", true]],
    local: [["1.3.9", false], ["1.4.0", true]],
    catalog_roles: [["1.4.5", false], ["1.5.0", true]],
    catalog_namespace: [["1.6.9", false], ["1.7.0", true]],
    partition: [["1.10.12", false], ["1.11.0", true]],
    token_type: [["1.0.0", true], ["1.16.0", true]],
    ttl: [["1.0.0", true], ["1.16.0", true]],
  };
  for (const [parameter, rows] of Object.entries(table)) {
    it(`knows which versions accept ${parameter}`, () => {
      for (const [version, accepted] of rows) expect(parameterAvailable(parameter, v(version)), `${parameter} at ${version}`).toBe(accepted);
    });
  }

  it("lists exactly the seed's versioned parameters", () => {
    expect(Object.keys(PARAMETER_VERSIONS).sort()).toEqual(["catalog_namespace", "catalog_roles", "lease", "local", "partition", "policies", "policy"]);
  });

  it("needs policy below 1.4, policy or policies at 1.4, any of three to 1.10, policies or catalog_roles from 1.11", () => {
    expect(clientRequirement(v("1.3.0"))).toEqual(["policy"]);
    expect(clientRequirement(v("1.4.2"))).toEqual(["policy", "policies"]);
    expect(clientRequirement(v("1.5.0"))).toEqual(["policy", "policies", "catalog_roles"]);
    expect(clientRequirement(v("1.10.0"))).toEqual(["policy", "policies", "catalog_roles"]);
    expect(clientRequirement(v("1.11.0"))).toEqual(["policies", "catalog_roles"]);
  });
});

describe("role checks", () => {
  it("stores a modern role with lists from comma strings", () => {
    const checked = checkRole({ policies: " web-reader, api-reader,,web-reader", catalog_roles: ["readers"], local: true, ttl: "1h", max_ttl: 86400, catalog_namespace: "team-a", partition: "part-1" }, "1.16.0");
    expect(checked).toEqual({
      value: { token_type: "client", policy: "", policies: ["web-reader", "api-reader"], catalog_roles: ["readers"], local: true, ttl: 3600, max_ttl: 86400, catalog_namespace: "team-a", partition: "part-1" },
    });
  });

  it("stores a legacy role with its policy decoded, and lease as the ttl", () => {
    const checked = checkRole({ policy: POLICY, lease: "90m" }, "1.3.0");
    expect(checked).toMatchObject({ value: { policy: 'service "web" { policy = "read" }', ttl: 5400, token_type: "client" } });
  });

  it("refuses every parameter the version does not have, naming versions", () => {
    const checked = checkRole({ policies: ["a"], local: true, catalog_roles: "r", catalog_namespace: "ns", partition: "p", policy: POLICY }, "1.3.0");
    expect(checked).toEqual({
      problems: [
        "policies needs backend version 1.4 or later (the backend runs 1.3.0)",
        "local needs backend version 1.4 or later (the backend runs 1.3.0)",
        "catalog_roles needs backend version 1.5 or later (the backend runs 1.3.0)",
        "catalog_namespace needs backend version 1.7 or later (the backend runs 1.3.0)",
        "partition needs backend version 1.11 or later (the backend runs 1.3.0)",
      ],
    });
    expect(checkRole({ policy: POLICY, lease: "1h" }, "1.16.0")).toEqual({
      problems: [
        "policy was removed in backend version 1.11 (the backend runs 1.16.0): use policies or catalog_roles",
        "lease is for backend versions below 1.4 (the backend runs 1.16.0): use ttl",
        "a client token needs policies or catalog_roles (backend version 1.16.0); only token_type management needs none",
      ],
    });
  });

  it("treats empty values as not given", () => {
    expect(checkRole({ policy: POLICY, policies: [], local: false, catalog_namespace: "", partition: "", lease: 0 }, "1.3.0")).toMatchObject({ value: { local: false } });
  });

  it("lets a management role go without policies, and token_type on every version", () => {
    expect(checkRole({ token_type: "management" }, "1.16.0")).toMatchObject({ value: { token_type: "management", policies: [] } });
    expect(checkRole({ token_type: "management" }, "1.2.0")).toMatchObject({ value: { token_type: "management" } });
    expect(checkRole({}, "1.4.0")).toEqual({ problems: ["a client token needs policy or policies (backend version 1.4.0); only token_type management needs none"] });
    // The description refuses it before the engine sees it; the engine refuses it too (a body read as JSON, unchecked).
    expect(checkRole(JSON.parse('{"token_type":"admin"}'), "1.16.0")).toEqual({ problems: ['token_type must be "client" or "management"'] });
  });

  it("refuses bad base64, durations, ttl above max_ttl, lease with ttl, and bad names", () => {
    expect(checkRole({ policy: "not base64!" }, "1.3.0")).toMatchObject({ problems: ["error decoding policy base64: illegal base64 data at input byte 3", expect.any(String)] });
    expect(checkRole({ policies: "a", ttl: "soon" }, "1.16.0")).toEqual({ problems: ['ttl: time: invalid duration "soon"'] });
    expect(checkRole({ policies: "a", ttl: "-5m" }, "1.16.0")).toEqual({ problems: ['ttl: must not be negative, not "-5m"'] });
    expect(checkRole({ policies: "a", ttl: "2h", max_ttl: "1h" }, "1.16.0")).toEqual({ problems: ["ttl (2h0m0s) is greater than max_ttl (1h0m0s)"] });
    expect(checkRole({ policy: POLICY, ttl: "1h", lease: "1h" }, "1.3.0")).toEqual({ problems: ["lease is the old name of ttl: send one of them"] });
    expect(checkRole({ policies: "a", catalog_namespace: "team a" }, "1.16.0")).toEqual({
      problems: ['catalog_namespace must be a name of letters, digits, "-" and "_" (at most 64), not "team a"'],
    });
    expect(checkRole({ policies: "a" }, "latest")).toEqual({ problems: ['the discovery backend reported a version this engine cannot read: "latest"'] });
  });
});

describe("which token API issues a role's tokens", () => {
  const role = (fields: Partial<StoredRole>): StoredRole => ({
    token_type: "client", policy: "", policies: [], catalog_roles: [], local: false, ttl: 0, max_ttl: 0, catalog_namespace: "", partition: "", ...fields,
  });

  it("uses the legacy API below 1.4 and for legacy policies before 1.11, else the token API", () => {
    expect(tokenApiFor(role({ policy: "rules" }), "1.3.0")).toBe("legacy");
    expect(tokenApiFor(role({ token_type: "management" }), "1.3.0")).toBe("legacy");
    expect(tokenApiFor(role({ policy: "rules" }), "1.10.0")).toBe("legacy");
    expect(tokenApiFor(role({ policies: ["p"] }), "1.4.0")).toBe("token");
    expect(tokenApiFor(role({ token_type: "management" }), "1.16.0")).toBe("token");
    expect(tokenApiFor(role({ policy: "rules" }), "1.11.0")).toEqual({ problem: expect.stringContaining("no longer accepts") });
    expect(tokenApiFor(role({ policies: ["p"] }), "1.3.0")).toEqual({ problem: expect.stringContaining("has no legacy policy") });
  });
});

describe("small parts", () => {
  it("reads durations as seconds", () => {
    expect(parseSeconds(90)).toBe(90);
    expect(parseSeconds("90")).toBe(90);
    expect(parseSeconds("1h30m")).toBe(5400);
    expect(parseSeconds("1.5s")).toBe(1);
    expect(parseSeconds(1.5)).toEqual({ error: "must be a whole number of seconds, not 1.5" });
  });

  it("reads name lists", () => {
    expect(nameList("a, b,,a")).toEqual(["a", "b"]);
    expect(nameList([" a ", ""])).toEqual(["a"]);
    expect(nameList(undefined)).toEqual([]);
  });

  it("decodes strict base64 only", () => {
    expect(decodeBase64(POLICY)).toBe('service "web" { policy = "read" }');
    expect(decodeBase64("abc")).toEqual({ error: "illegal base64 data at input byte 0" });
    expect(decodeBase64("ab=c")).toEqual({ error: "illegal base64 data at input byte 2" });
    expect(decodeBase64("")).toBe("");
  });

  it("gives leases the role's ttl, else the mount's 768h, capped by max_ttl", () => {
    expect(leaseDuration({ ttl: 3600, max_ttl: 0 })).toBe(3600);
    expect(leaseDuration({ ttl: 0, max_ttl: 0 })).toBe(2_764_800);
    expect(leaseDuration({ ttl: 0, max_ttl: 600 })).toBe(600);
  });

  it("reads roles back with a base64 policy and the lease in long form", () => {
    const view = roleView({ token_type: "client", policy: 'service "web" { policy = "read" }', policies: [], catalog_roles: [], local: false, ttl: 5400, max_ttl: 0, catalog_namespace: "", partition: "" });
    expect(view).toMatchObject({ policy: POLICY, lease: "1h30m0s", ttl: 5400 });
    expect(roleView({ ...(checkRole({ policies: "p" }, "1.16.0") as { value: StoredRole }).value })).not.toHaveProperty("policy");
  });

  it("places each mount's data under logical/<uuid>/, the same uuid for the same engine and path", () => {
    expect(mountUuid("discovery-token", "consul")).toBe(mountUuid("discovery-token", "consul"));
    expect(mountUuid("discovery-token", "consul")).not.toBe(mountUuid("discovery-token", "consul2"));
    expect(mountUuid("discovery-token", "consul")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(mountStoragePrefix("discovery-token", "consul")).toBe(`logical/${mountUuid("discovery-token", "consul")}/`);
  });
});

describe("access settings", () => {
  it("knows host:port", () => {
    for (const good of ["127.0.0.1:8500", "mesh.example:8501", "localhost:1", "[::1]:8500", "[2001:db8::1]:65535"]) expect(isHostPort(good), good).toBe(true);
    for (const bad of ["mesh.example", "127.0.0.1", ":8500", "host:0", "host:65536", "http://host:8500", "[::1:8500", "a b:80", "1.2.3:80"]) expect(isHostPort(bad), bad).toBe(false);
  });

  it("defaults the scheme and refuses what does not fit together, never naming the token", () => {
    expect(checkAccess({ address: "127.0.0.1:8500", token: "t" })).toEqual({
      value: { address: "127.0.0.1:8500", scheme: "http", token: "t", ca_cert: "", client_cert: "", client_key: "" },
    });
    const checked = checkAccess({ address: "nope", token: "", scheme: "http", client_cert: "x" });
    expect(checked).toEqual({
      problems: [
        'address must be host:port (e.g. 127.0.0.1:8500), not "nope"',
        "token is required: a management token of the backend",
        "ca_cert, client_cert and client_key need scheme https",
        "client_cert and client_key must be given together",
      ],
    });
    expect(checkAccess({ address: "h:1", token: "secret-token", scheme: "https", ca_cert: "junk" })).toEqual({ problems: ["ca_cert must hold one or more PEM certificates"] });
    const bad = checkAccess({ address: "h:1", token: "secret-token", scheme: "https", client_cert: "junk", client_key: "junk" });
    expect(JSON.stringify(bad)).not.toContain("secret-token");
    expect(bad).toEqual({ problems: ["client_cert must be a parsable x509 PEM certificate"] });
  });
});
