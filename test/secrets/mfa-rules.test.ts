// Push-MFA's pure parts: namespace paths, the method checks, and the
// identity keys of the world file (namespaces, methods, login enforcements).
import { describe, expect, it } from "vitest";
import { canonicalNamespace, isAncestor, withParents } from "../../server/secrets/push-mfa/namespaces.ts";
import { checkPushMfaInput, methodView, pushMfaProblem } from "../../server/secrets/push-mfa/methods.ts";
import { parseWorld } from "../../server/secrets/world.ts";

const METHOD = "5d2c6c4e-8d4b-4a53-9f0e-2f1d8c7b6a59";
const keys = { api_hostname: "api.push.example", integration_key: "IKEY", secret_key: "SKEY" };

describe("namespaces", () => {
  it("reads paths in canonical form", () => {
    expect(canonicalNamespace(undefined)).toBe("");
    expect(canonicalNamespace("/")).toBe("");
    expect(canonicalNamespace("team-a")).toBe("team-a/");
    expect(canonicalNamespace("/team-a/dev/")).toBe("team-a/dev/");
    expect(canonicalNamespace("team a")).toEqual({ error: expect.stringContaining("a namespace path is names") });
    expect(canonicalNamespace("a//b")).toEqual({ error: expect.any(String) });
    expect(canonicalNamespace("a/../b")).toEqual({ error: expect.any(String) });
    // `.` alone is no name either, while a name may hold dots; whitespace around the path is not part of it
    // (Go's and Node's header parsers drop it; a world file's value is read the same way).
    expect(canonicalNamespace("a/./b")).toEqual({ error: expect.stringContaining("a namespace path is names") });
    expect(canonicalNamespace(".")).toEqual({ error: expect.any(String) });
    expect(canonicalNamespace("team.a/.dev")).toBe("team.a/.dev/");
    expect(canonicalNamespace(" team-a/ \t")).toBe("team-a/");
  });

  it("knows parents", () => {
    expect(withParents("team-a/dev/")).toEqual(["", "team-a/", "team-a/dev/"]);
    expect(isAncestor("", "team-a/")).toBe(true);
    expect(isAncestor("team-a/", "team-a/dev/")).toBe(true);
    expect(isAncestor("team-a/", "team-a/")).toBe(false);
    expect(isAncestor("team-a/", "team-ab/")).toBe(false);
    expect(isAncestor("team-a/dev/", "team-a/")).toBe(false);
  });
});

describe("method checks", () => {
  it("needs the three keys not empty, and refuses with the first one missing or empty in the real system's order", () => {
    expect(checkPushMfaInput({ secret_key: "", integration_key: "", api_hostname: "" })).toEqual({ problem: "secret_key is empty" });
    expect(checkPushMfaInput({ ...keys, integration_key: "", api_hostname: "" })).toEqual({ problem: "integration_key is empty" });
    expect(checkPushMfaInput({ ...keys, api_hostname: "" })).toEqual({ problem: "api_hostname is empty" });
    expect(pushMfaProblem({ api_hostname: "h" })).toBe("secret_key is empty");
    expect(pushMfaProblem({ secret_key: "s", api_hostname: "h" })).toBe("integration_key is empty");
    expect(pushMfaProblem({ secret_key: "s", integration_key: 7 })).toBe("integration_key is empty");
    expect(pushMfaProblem({ secret_key: "s", integration_key: "i" })).toBe("api_hostname is empty");
    expect(pushMfaProblem(keys)).toBeUndefined();
    expect(checkPushMfaInput(keys)).toEqual({ value: { ...keys, push_info: "", username_format: "", use_passcode: false } });
  });

  it("takes blanks as values and any username_format text: the template is rendered at login, not checked when written", () => {
    const blanks = { secret_key: " ", integration_key: "\t", api_hostname: " " };
    expect(checkPushMfaInput(blanks)).toEqual({ value: { ...blanks, push_info: "", username_format: "", use_passcode: false } });
    for (const username_format of ["{{x}}", "{{identity.entity.name", "}}{{", "{{identity.entity.email}}@example.com"]) {
      expect(checkPushMfaInput({ ...keys, username_format })).toMatchObject({ value: { username_format } });
    }
  });

  it("keeps the current username_format when an update leaves it out, and replaces the rest", () => {
    expect(checkPushMfaInput(keys, { username_format: "{{identity.entity.name}}" })).toMatchObject({ value: { username_format: "{{identity.entity.name}}", push_info: "" } });
    expect(checkPushMfaInput({ ...keys, username_format: "" }, { username_format: "{{identity.entity.name}}" })).toMatchObject({ value: { username_format: "" } });
  });

  it("reads back in the seed's shape, push_info as pushinfo", () => {
    const view = methodView({ id: METHOD, type: "pushmfa", namespace_path: "", ...keys, push_info: "a=b", username_format: "", use_passcode: true });
    expect(Object.keys(view).sort()).toEqual(["api_hostname", "id", "integration_key", "namespace_path", "pushinfo", "secret_key", "type", "use_passcode", "username_format"]);
    expect(view).toMatchObject({ pushinfo: "a=b", type: "pushmfa" });
  });
});

describe("the world file's identity keys", () => {
  const enforcement = { name: "require-push", mfa_method_ids: [METHOD], auth_method_types: ["userpass"] };

  it("reads namespaces (with parents), methods and enforcements", () => {
    const world = parseWorld({
      namespaces: ["team-a/dev"],
      mfa_methods: [{ id: METHOD.toUpperCase(), namespace: "team-a", ...keys, use_passcode: true }],
      mfa_login_enforcements: [{ ...enforcement, namespace: "team-a/dev" }],
    });
    expect(world.identity).toEqual({
      namespaces: ["team-a/", "team-a/dev/"],
      methods: [{ id: METHOD, namespace_path: "team-a/", ...keys, use_passcode: true }],
      enforcements: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: "require-push",
          namespace_path: "team-a/dev/",
          mfa_method_ids: [METHOD],
          auth_method_types: ["userpass"],
          auth_method_accessors: [],
          identity_group_ids: [],
          identity_entity_ids: [],
        },
      ],
    });
    expect(parseWorld({}).identity).toEqual({ namespaces: [], methods: [], enforcements: [] });
  });

  it("refuses what cannot work, naming the entry", () => {
    const method = { id: METHOD, ...keys };
    for (const [world, message] of [
      [{ namespaces: ["bad name"] }, /namespace \[0\]: .*a namespace path is names/],
      [{ namespaces: ["/"] }, /namespace \[0\]: the root namespace always exists/],
      [{ mfa_methods: [{ ...method, id: "m1" }] }, /mfa_methods \[0\]: "id" must be a UUID/],
      [{ mfa_methods: [{ ...method, secret_key: "" }] }, /mfa_methods \[0\]: secret_key is empty/],
      [{ mfa_methods: [{ ...method, integration_key: "" }] }, /mfa_methods \[0\]: integration_key is empty/],
      [{ mfa_methods: [{ ...method, api_hostname: 5 }] }, /mfa_methods \[0\]: "api_hostname" must be a string/],
      [{ mfa_methods: [{ ...method, colour: "blue" }] }, /mfa_methods \[0\]: unknown keys "colour"/],
      [{ mfa_methods: [method, method] }, /mfa_methods \[1\]: id .* is declared twice/],
      [{ mfa_methods: [{ ...method, namespace: "team-b" }] }, /mfa_methods \[0\]: namespace "team-b\/" is not listed in "namespaces"/],
      [{ mfa_methods: [method], mfa_login_enforcements: [{ ...enforcement, mfa_method_ids: [] }] }, /must name at least one method/],
      [{ mfa_methods: [method], mfa_login_enforcements: [{ ...enforcement, mfa_method_ids: ["7d2f0a4e-3c1b-4e8a-9f6d-2b5c8e1a0f37"] }] }, /is not declared in "mfa_methods"/],
      [{ mfa_methods: [method], mfa_login_enforcements: [{ name: "e", mfa_method_ids: [METHOD] }] }, /needs at least one of auth_method_accessors, auth_method_types/],
      [{ mfa_methods: [method], mfa_login_enforcements: [enforcement, enforcement] }, /name "require-push" is used twice/],
      [
        { namespaces: ["team-a"], mfa_methods: [{ ...method, namespace: "team-a" }], mfa_login_enforcements: [enforcement] },
        /belongs to namespace "team-a\/", neither the enforcement's nor a parent of it/,
      ],
    ] as const) {
      expect(() => parseWorld(world), JSON.stringify(world)).toThrow(message);
    }
  });
});
