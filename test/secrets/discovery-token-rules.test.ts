// The discovery-token engine's pure rules: what a role write must hold, which token API issues a
// role's tokens, durations, lists, base64, leases, and the access settings.
import { describe, expect, it } from "vitest";
import { commaStringSlice } from "../../server/secrets/framework-fields.ts";
import { checkAccess, isHostPort } from "../../server/secrets/engines/discovery-token/access.ts";
import { BackendError } from "../../server/secrets/engines/discovery-token/backend.ts";
import { clientErrorText } from "../../server/secrets/engines/discovery-token/engine.ts";
import {
  checkRole,
  compareVersions,
  decodeBase64,
  leaseDuration,
  parseVersion,
  realEngineApi,
  roleView,
  tokenApiFor,
  type StoredRole,
} from "../../server/secrets/engines/discovery-token/role-rules.ts";
import { mountStoragePrefix, mountUuid } from "../../server/secrets/engines/mount-storage.ts";

const POLICY = Buffer.from('service "web" { policy = "read" }').toString("base64");
const v = (text: string) => parseVersion(text)!;
const CLIENT_NEEDS = "Use either a policy document, a list of policies, or a list of roles, depending on your Consul version";

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
});

// The real engine checks a role without any backend version (builtin/logical/consul/path_roles.go,
// pathRolesWrite): the client requirement, token_type, the policy's base64; the framework converts
// durations first (sdk/framework/field_data.go, Validate). One message, the first problem.
describe("role checks", () => {
  it("stores a role with lists from comma strings", () => {
    const checked = checkRole({ policies: " web-reader, api-reader,,web-reader", catalog_roles: ["readers"], local: true, ttl: "1h", max_ttl: 86400, catalog_namespace: "team-a", partition: "part-1" });
    expect(checked).toEqual({
      // As the framework reads a comma list and pathRolesWrite stores it: trimmed, empties and repeats kept.
      value: { token_type: "client", policy: "", policies: ["web-reader", "api-reader", "", "web-reader"], catalog_roles: ["readers"], local: true, ttl: 3600, max_ttl: 86400, catalog_namespace: "team-a", partition: "part-1" },
    });
  });

  it("stores a legacy role with its policy decoded, and lease as the ttl", () => {
    expect(checkRole({ policy: POLICY, lease: "90m" })).toMatchObject({ value: { policy: 'service "web" { policy = "read" }', ttl: 5400, token_type: "client" } });
  });

  it("accepts what only some backend versions have: the backend refuses it at token creation", () => {
    // Vault's own tests send lease to modern backends (backend_test.go); policy with policies,
    // partition, catalog_roles: all stored, whatever the backend runs.
    expect(checkRole({ policy: POLICY, policies: "a", catalog_roles: "r", local: true, lease: "1h", catalog_namespace: "team a", partition: "p" })).toMatchObject({
      value: { policies: ["a"], catalog_roles: ["r"], local: true, ttl: 3600, catalog_namespace: "team a", partition: "p" },
    });
  });

  it("lets ttl win over lease, and ttl above max_ttl pass", () => {
    expect(checkRole({ policies: "a", ttl: "2h", lease: "1h" })).toMatchObject({ value: { ttl: 7200 } });
    expect(checkRole({ policies: "a", ttl: 0, lease: "1h" })).toMatchObject({ value: { ttl: 0 } });
    expect(checkRole({ policies: "a", ttl: "2h", max_ttl: "1h" })).toMatchObject({ value: { ttl: 7200, max_ttl: 3600 } });
  });

  it("lets a management role go without policies, and refuses a client role without any", () => {
    expect(checkRole({ token_type: "management" })).toMatchObject({ value: { token_type: "management", policies: [] } });
    expect(checkRole({})).toEqual({ problem: CLIENT_NEEDS });
    expect(checkRole({ policy: "", policies: [], catalog_roles: "" })).toEqual({ problem: CLIENT_NEEDS });
    expect(checkRole({ catalog_roles: "readers" })).toMatchObject({ value: { catalog_roles: ["readers"] } });
    expect(checkRole({ policy: POLICY })).toMatchObject({ value: { policies: [] } });
  });

  it("refuses a token_type other than client or management, with the real engine's words", () => {
    expect(checkRole({ token_type: "admin" })).toEqual({ problem: 'token_type must be "client" or "management"' });
    expect(checkRole({ token_type: "admin", policies: "a" })).toEqual({ problem: 'token_type must be "client" or "management"' });
    expect(checkRole({ token_type: "" })).toEqual({ problem: 'token_type must be "client" or "management"' });
  });

  it("answers the first problem only, in the real engine's order", () => {
    expect(checkRole({ policy: "not base64!" })).toEqual({ problem: "Error decoding policy base64: illegal base64 data at input byte 3" });
    expect(checkRole({ token_type: "root", policy: "not base64!" })).toEqual({ problem: 'token_type must be "client" or "management"' });
    // The durations come read (LenientDuration, before the handler runs); their refusals: discovery-token.api.test.ts.
    expect(checkRole({ policies: "a", ttl: 90, max_ttl: 120, lease: 30 })).toMatchObject({ value: { ttl: 90, max_ttl: 120 } });
  });
});

describe("local, as the framework fields leave it", () => {
  it("is the boolean the framework read, false when absent", () => {
    expect(checkRole({ policies: "a", local: "t" })).toMatchObject({ value: { local: true } });
    expect(checkRole({ policies: "a", local: 0 })).toMatchObject({ value: { local: false } });
    expect(checkRole({ policies: "a" })).toMatchObject({ value: { local: false } });
  });
});

describe("which token API issues a role's tokens", () => {
  const role = (fields: Partial<StoredRole>): StoredRole => ({
    token_type: "client", policy: "", policies: [], catalog_roles: [], local: false, ttl: 0, max_ttl: 0, catalog_namespace: "", partition: "", ...fields,
  });

  it("decides client roles by their policy alone, and management roles by the backend's version", () => {
    expect(tokenApiFor(role({ policy: "rules" }))).toBe("legacy");
    expect(tokenApiFor(role({ policies: ["p"] }))).toBe("token");
    expect(tokenApiFor(role({ policy: "rules", policies: ["p"] }))).toBe("legacy");
    expect(tokenApiFor(role({ token_type: "management" }), "1.3.0")).toBe("legacy");
    expect(tokenApiFor(role({ token_type: "management" }), "1.4.0")).toBe("token");
    expect(tokenApiFor(role({ token_type: "management" }), "1.16.0")).toBe("token");
    expect(tokenApiFor(role({ token_type: "management" }), "latest")).toEqual({ problem: 'the discovery backend reported a version this engine cannot read: "latest"' });
    expect(tokenApiFor(role({ token_type: "management" }))).toEqual({ problem: 'the discovery backend reported a version this engine cannot read: ""' });
  });

  it("knows which API the real engine calls (path_token.go), for messages", () => {
    expect(realEngineApi(role({ policy: "rules" }))).toBe("legacy");
    expect(realEngineApi(role({ token_type: "management" }))).toBe("legacy");
    expect(realEngineApi(role({ policies: ["p"] }))).toBe("token");
    expect(realEngineApi(role({ token_type: "management", policy: "rules" }))).toBe("token");
  });

  it("words backend failures as the backend's Go client does", () => {
    const url = "http://127.0.0.1:1/v1/acl/token";
    expect(clientErrorText(new BackendError("connect ECONNREFUSED 127.0.0.1:1", undefined, undefined, "ECONNREFUSED"), url, "127.0.0.1:1")).toBe(
      'Put "http://127.0.0.1:1/v1/acl/token": dial tcp 127.0.0.1:1: connect: connection refused',
    );
    expect(clientErrorText(new BackendError("socket hang up", undefined, undefined, "ECONNRESET"), url, "127.0.0.1:1")).toBe('Put "http://127.0.0.1:1/v1/acl/token": socket hang up');
    expect(clientErrorText(new BackendError("403 ACL not found", 403, "ACL not found"), url, "127.0.0.1:1")).toBe("Unexpected response code: 403 (ACL not found)");
    expect(clientErrorText(new BackendError("200 an answer that is not JSON", 200), url, "127.0.0.1:1")).toBe("200 an answer that is not JSON");
  });
});

describe("small parts", () => {
  it("reads name lists", () => {
    // parseutil.ParseCommaStringSlice: split text at commas, trim; empties and repeats stay.
    expect(commaStringSlice("a, b,,a")).toEqual(["a", "b", "", "a"]);
    expect(commaStringSlice([" a ", "", "b,c"])).toEqual(["a", "", "b,c"]);
    expect(commaStringSlice("")).toEqual([]);
    expect(commaStringSlice(undefined)).toEqual([]);
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

  // path_roles.go, pathRolesRead: lease is int64 seconds; policy, policies and consul_roles only when set.
  it("reads roles back with a base64 policy, lease in seconds, and no empty lists", () => {
    const view = roleView({ token_type: "client", policy: 'service "web" { policy = "read" }', policies: [], catalog_roles: [], local: false, ttl: 5400, max_ttl: 0, catalog_namespace: "", partition: "" });
    expect(view).toEqual({ policy: POLICY, lease: 5400, ttl: 5400, max_ttl: 0, token_type: "client", local: false, catalog_namespace: "", partition: "" });
    const modern = roleView((checkRole({ policies: "p", catalog_roles: "r" }) as { value: StoredRole }).value);
    expect(modern).toMatchObject({ policies: ["p"], catalog_roles: ["r"], lease: 0 });
    expect(modern).not.toHaveProperty("policy");
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
    // A MiB of BEGIN lines without an END: found to hold no block in one scan (a lazy regular expression rescanned from each).
    const begins = "-----BEGIN CERTIFICATE-----\n".repeat(38_000);
    expect(checkAccess({ address: "h:1", token: "t", scheme: "https", ca_cert: begins })).toEqual({ problems: ["ca_cert must hold one or more PEM certificates"] });
    // Each block runs from its BEGIN to the first END after it; text around and between blocks is not read.
    const block = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----";
    const two = checkAccess({ address: "h:1", token: "t", scheme: "https", ca_cert: `junk ${block} junk -----BEGIN CERTIFICATE----- ${block}` });
    expect("problems" in two && two.problems).toEqual([expect.stringMatching(/^ca_cert \(certificate 1\): /), expect.stringMatching(/^ca_cert \(certificate 2\): /)]);
    const bad = checkAccess({ address: "h:1", token: "secret-token", scheme: "https", client_cert: "junk", client_key: "junk" });
    expect(JSON.stringify(bad)).not.toContain("secret-token");
    expect(bad).toEqual({ problems: ["client_cert must be a parsable x509 PEM certificate"] });
  });
});
