// Push-MFA's pure parts: username_format templates, namespace paths, the method checks, and the
// identity keys of the world file (namespaces, methods, login enforcements).
import { describe, expect, it } from "vitest";
import { canonicalNamespace, isAncestor, withParents } from "../../server/secrets/push-mfa/namespaces.ts";
import { checkPushMfaInput, methodView } from "../../server/secrets/push-mfa/methods.ts";
import { isKnownDirective, usernameFormatProblems } from "../../server/secrets/push-mfa/username-template.ts";
import { parseWorld } from "../../server/secrets/world.ts";

const METHOD = "5d2c6c4e-8d4b-4a53-9f0e-2f1d8c7b6a59";
const keys = { api_hostname: "api.push.example", integration_key: "IKEY", secret_key: "SKEY" };

describe("username_format templates", () => {
  it("accepts the identity directives, with spaces inside the braces and text around", () => {
    for (const template of [
      "",
      "plain-name",
      "{{identity.entity.name}}",
      "{{ identity.entity.id }}@example.com",
      "{{identity.entity.metadata.email}}",
      "{{identity.entity.metadata.a.b}}",
      "{{identity.entity.aliases.auth_userpass_6671d643.name}}@corp",
      "{{identity.entity.aliases.auth_ldap_1a2b.id}}",
      "{{identity.entity.aliases.auth_ldap_1a2b.metadata.uid}}",
      "{{identity.entity.aliases.auth_ldap_1a2b.custom_metadata.dept}}",
      "{{identity.groups.ids.6bd6c7d4.name}}-{{identity.groups.names.ops.id}}",
      "{{identity.groups.names.ops.metadata.team}}",
    ]) {
      expect(usernameFormatProblems(template), template).toEqual([]);
    }
  });

  it("refuses unbalanced braces and unknown directives, naming them", () => {
    for (const template of ["{{identity.entity.name", "identity.entity.name}}", "{{a{{identity.entity.name}}", "{{identity.entity.name}}}}"]) {
      expect(usernameFormatProblems(template), template).toEqual(["username_format: unbalanced templating characters"]);
    }
    expect(usernameFormatProblems("{{identity.entity.email}}-{{entity.name}}")).toEqual([
      expect.stringMatching(/^username_format: unknown template directive "identity.entity.email" \(known: identity.entity.id, /),
      expect.stringMatching(/^username_format: unknown template directive "entity.name" /),
    ]);
    for (const directive of [
      "",
      "identity.entity.metadata.",
      "identity.entity.aliases.acc.email",
      "identity.entity.aliases..name",
      "identity.entity.aliases.acc",
      "identity.groups.ids.g.id",
      "identity.groups.names.g.name",
      "identity.groups.byname.g.id",
      "time.now",
    ]) {
      expect(isKnownDirective(directive), directive).toBe(false);
    }
  });
});

describe("namespaces", () => {
  it("reads paths in canonical form", () => {
    expect(canonicalNamespace(undefined)).toBe("");
    expect(canonicalNamespace("/")).toBe("");
    expect(canonicalNamespace("team-a")).toBe("team-a/");
    expect(canonicalNamespace("/team-a/dev/")).toBe("team-a/dev/");
    expect(canonicalNamespace("team a")).toEqual({ error: expect.stringContaining("a namespace path is names") });
    expect(canonicalNamespace("a//b")).toEqual({ error: expect.any(String) });
    expect(canonicalNamespace("a/../b")).toEqual({ error: expect.any(String) });
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
  it("needs the three keys, not empty, and a valid template", () => {
    expect(checkPushMfaInput({ secret_key: "", integration_key: " ", api_hostname: "" })).toEqual({
      problems: ["secret_key is empty", "integration_key is empty", "api_hostname is empty"],
    });
    expect(checkPushMfaInput({ ...keys, username_format: "{{x}}" })).toEqual({ problems: [expect.stringMatching(/unknown template directive "x"/)] });
    expect(checkPushMfaInput(keys)).toEqual({ value: { ...keys, push_info: "", username_format: "", use_passcode: false } });
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
      [{ mfa_methods: [{ ...method, username_format: "{{nope}}" }] }, /mfa_methods \[0\]: username_format: unknown template directive "nope"/],
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
