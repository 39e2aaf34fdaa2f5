// ACL decisions as the real mesh server makes them: acl/policy_authorizer.go (an exact rule beats
// every prefix rule; among prefixes the longest matching one decides; no rule means the default
// policy, deny), acl/policy_merger.go (when policies are merged, deny takes precedence over write,
// write over read, whatever order the policies come in), acl/errors.go (the permission-denied
// message), and the rule language's errors, which name the problem and its line.
import { describe, expect, it } from "vitest";
import { describePermission, isAllowed, mergeRules, type AclRules, type Authorizer } from "../../server/mesh/domain/acl.ts";
import { AclRulesError, parseAclRules } from "../../server/mesh/domain/acl-rules.ts";

const token = (rules: AclRules | string, namespace = "default"): Authorizer => ({
  management: false,
  namespace,
  rules: typeof rules === "string" ? parseAclRules(rules) : rules,
});
const service = (authorizer: Authorizer, name: string) => ({
  read: isAllowed(authorizer, "default", { type: "service", name }, "read"),
  write: isAllowed(authorizer, "default", { type: "service", name }, "write"),
});
const NONE = { read: false, write: false };
const READ = { read: true, write: false };
const WRITE = { read: true, write: true };

describe("which rule decides (policy_authorizer.go)", () => {
  it("an exact rule beats every prefix rule, whether it grants more or less", () => {
    const t = token('service_prefix "" { policy = "write" }\nservice "web" { policy = "deny" }\nservice_prefix "api" { policy = "deny" }\nservice "api-v2" { policy = "read" }');
    expect(service(t, "web")).toEqual(NONE);
    expect(service(t, "api-v2")).toEqual(READ);
    expect(service(t, "api")).toEqual(NONE);
    expect(service(t, "db")).toEqual(WRITE);
  });

  it("an exact rule matches the whole name only", () => {
    const t = token('service "web" { policy = "write" }');
    expect(service(t, "web")).toEqual(WRITE);
    expect(service(t, "web2")).toEqual(NONE);
    expect(service(t, "we")).toEqual(NONE);
  });

  it("among prefix rules, the longest matching prefix decides, whatever order they are written in", () => {
    const rules = ['service_prefix "" { policy = "read" }', 'service_prefix "pay" { policy = "deny" }', 'service_prefix "payments-" { policy = "write" }'];
    for (const order of [rules, [...rules].reverse()]) {
      const t = token(order.join("\n"));
      expect(service(t, "web")).toEqual(READ);
      expect(service(t, "payroll")).toEqual(NONE);
      expect(service(t, "payments-ui")).toEqual(WRITE);
    }
  });

  it("no matching rule is the default policy: deny", () => {
    expect(service(token('service "web" { policy = "write" }'), "api")).toEqual(NONE);
    expect(service(token('service_prefix "web" { policy = "write" }'), "api")).toEqual(NONE);
    expect(service(token(""), "api")).toEqual(NONE);
    expect(isAllowed(token(""), "default", { type: "operator" }, "read")).toBe(false);
  });

  it("write grants read too; read does not grant write; deny grants nothing", () => {
    expect(isAllowed(token('operator = "write"'), "default", { type: "operator" }, "read")).toBe(true);
    expect(isAllowed(token('operator = "read"'), "default", { type: "operator" }, "write")).toBe(false);
    expect(isAllowed(token('acl = "deny"'), "default", { type: "acl" }, "read")).toBe(false);
    expect(isAllowed(token('acl = "write"'), "default", { type: "acl" }, "write")).toBe(true);
  });

  it("agent rules follow the same rules as service rules", () => {
    const t = token('agent_prefix "" { policy = "read" }\nagent "node-1" { policy = "write" }');
    expect(isAllowed(t, "default", { type: "agent", name: "node-1" }, "write")).toBe(true);
    expect(isAllowed(t, "default", { type: "agent", name: "node-2" }, "write")).toBe(false);
    expect(isAllowed(t, "default", { type: "agent", name: "node-2" }, "read")).toBe(true);
  });

  it("names are data, not object keys: a service called like a property of every object has no rule of its own", () => {
    const prefixOnly = token('service_prefix "" { policy = "read" }');
    for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) expect(service(prefixOnly, name)).toEqual(READ);
    expect(service(token('service "web" { policy = "write" }'), "constructor")).toEqual(NONE);
  });

  it("a management token may do everything, in every namespace; other tokens only in their own", () => {
    const management: Authorizer = { management: true, namespace: "default", rules: {} };
    expect(isAllowed(management, "team-a", { type: "acl" }, "write")).toBe(true);
    expect(isAllowed(management, "default", { type: "service", name: "x" }, "write")).toBe(true);
    const t = token('service_prefix "" { policy = "write" }', "team-a");
    expect(isAllowed(t, "team-a", { type: "service", name: "web" }, "write")).toBe(true);
    expect(isAllowed(t, "default", { type: "service", name: "web" }, "read")).toBe(false);
  });
});

describe("merging several policies (policy_merger.go)", () => {
  const levels = ["read", "write", "deny"] as const;
  const strongest = { "read,read": "read", "read,write": "write", "read,deny": "deny", "write,write": "write", "write,deny": "deny", "deny,deny": "deny" } as Record<string, string>;

  it("deny takes precedence over write, and write over read, in either order", () => {
    for (const a of levels) {
      for (const b of levels) {
        const expected = strongest[[a, b].sort((x, y) => levels.indexOf(x) - levels.indexOf(y)).join(",")];
        const merged = mergeRules([parseAclRules(`operator = "${a}"\nservice "web" { policy = "${a}" }`), parseAclRules(`operator = "${b}"\nservice "web" { policy = "${b}" }`)]);
        expect([a, b, merged.operator, merged.service?.web]).toEqual([a, b, expected, expected]);
      }
    }
  });

  it("a rule present in one policy only is kept as it is, on either side", () => {
    const withService = parseAclRules('service "web" { policy = "write" }\nacl = "read"');
    const withPrefix = parseAclRules('service_prefix "" { policy = "read" }\nagent "n" { policy = "read" }');
    for (const merged of [mergeRules([withService, withPrefix]), mergeRules([withPrefix, withService])]) {
      expect(merged).toEqual({ service: { web: "write" }, service_prefix: { "": "read" }, agent: { n: "read" }, acl: "read" });
    }
    expect(mergeRules([withService, {}])).toEqual({ service: { web: "write" }, acl: "read" });
    expect(mergeRules([])).toEqual({});
  });

  it("rules for different names stay apart", () => {
    const merged = mergeRules([parseAclRules('service "a" { policy = "deny" }'), parseAclRules('service "b" { policy = "write" }\nservice_prefix "a" { policy = "write" }')]);
    expect(merged.service).toEqual({ a: "deny", b: "write" });
    expect(service(token(merged), "a")).toEqual(NONE);
    expect(service(token(merged), "ab")).toEqual(WRITE);
  });
});

describe("the permission-denied message (acl/errors.go PermissionDeniedError, 1.11 on)", () => {
  const A = "6a1253d2-1785-24fd-91c2-f8e78c745511";
  it("names the token's accessor, the resource, the access level and the resource's name", () => {
    expect(describePermission(A, { type: "service", name: "web" }, "write")).toBe(`token with AccessorID '${A}' lacks permission 'service:write' on "web"`);
    expect(describePermission(A, { type: "agent", name: "node-1" }, "read")).toBe(`token with AccessorID '${A}' lacks permission 'agent:read' on "node-1"`);
    expect(describePermission(A, { type: "operator" }, "read")).toBe(`token with AccessorID '${A}' lacks permission 'operator:read'`);
    expect(describePermission(A, { type: "acl" }, "write")).toBe(`token with AccessorID '${A}' lacks permission 'acl:write'`);
  });

  it("says 'provided token' when the accessor is not known, and quotes the name as Go's %q does", () => {
    expect(describePermission(undefined, { type: "service", name: 'we"b' }, "read")).toBe(`provided token lacks permission 'service:read' on "we\\"b"`);
  });
});

describe("the rule language", () => {
  const error = (source: string | Record<string, unknown>) => {
    try {
      parseAclRules(source);
    } catch (e) {
      expect(e).toBeInstanceOf(AclRulesError);
      expect((e as Error).name).toBe("AclRulesError");
      return (e as Error).message;
    }
    return "no error";
  };

  it("accepts every resource kind of the real language, keeping the ones this server enforces", () => {
    const all = [
      ...["service", "node", "key", "agent", "event", "query", "session", "identity"].flatMap((k) => [`${k} "x" { policy = "read" }`, `${k}_prefix "" { policy = "read" }`]),
      ...["acl", "operator", "keyring", "mesh", "peering"].map((k) => `${k} = "read"`),
    ];
    expect(parseAclRules(all.join("\n"))).toEqual({ service: { x: "read" }, service_prefix: { "": "read" }, agent: { x: "read" }, agent_prefix: { "": "read" }, acl: "read", operator: "read" });
    expect(parseAclRules('key_prefix "" { policy = "list" }')).toEqual({});
    expect(parseAclRules('service "web" { policy = "list" }')).toEqual({ service: { web: "read" } });
  });

  it("reads several attributes in a block, with or without commas, and keeps the policy", () => {
    expect(parseAclRules('service "web" { intentions = "read", policy = "write" }')).toEqual({ service: { web: "write" } });
    expect(parseAclRules('service "web" { policy = "write", intentions = "deny" }')).toEqual({ service: { web: "write" } });
    expect(parseAclRules('service "web" {\n  policy = "read"\n  intentions = "read"\n}')).toEqual({ service: { web: "read" } });
    expect(parseAclRules('service "a\\"b" { policy = "read" }')).toEqual({ service: { 'a"b': "read" } });
    expect(parseAclRules("   ")).toEqual({});
  });

  it("reads the JSON form: a block per label, a string for the others", () => {
    expect(parseAclRules({ service_prefix: { "": { policy: "read" } }, acl: "write" })).toEqual({ service_prefix: { "": "read" }, acl: "write" });
    expect(parseAclRules('  {"operator": "read"}')).toEqual({ operator: "read" });
  });

  it("names what is wrong in the JSON form", () => {
    expect(error({ service: { web: {} } })).toBe('Failed to parse ACL rules: service "web" needs a policy');
    expect(error({ service: { web: null } })).toBe('Failed to parse ACL rules: service "web" needs a policy');
    expect(error({ service: { web: { policy: 1 } } })).toBe('Failed to parse ACL rules: service "web" needs a policy');
    expect(error({ service: { web: "read" } })).toBe('Failed to parse ACL rules: service "web" needs a policy');
    expect(error({ operator: 3 })).toBe("Failed to parse ACL rules: operator must be a policy or a block");
    expect(error({ operator: null })).toBe("Failed to parse ACL rules: operator must be a policy or a block");
    expect(error({ operator: true })).toBe("Failed to parse ACL rules: operator must be a policy or a block");
    expect(error("{ nope")).toMatch(/^Failed to parse ACL rules: .*JSON/);
  });

  it("names what is wrong in the HCL form, with its line", () => {
    for (const [rules, message] of [
      ['service "web" {\n  policy = "read"\n}\n\noperator = read', 'Failed to parse ACL rules: line 5: expected string, found "read"'],
      ['service "web" {\n  policy = "read" ;\n}', 'Failed to parse ACL rules: line 2: unexpected ";"'],
      ["# comment\n/* a\nb */ service", "Failed to parse ACL rules: unexpected end of rules"],
      ['service { policy = "read" }', 'Failed to parse ACL rules: line 1: expected a label or = after service'],
      ['service "web" policy', 'Failed to parse ACL rules: line 1: expected {, found "policy"'],
      ['service "web" { "policy" = "read" }', 'Failed to parse ACL rules: line 1: expected an attribute, found "policy"'],
      ['service "web" { = "read" }', 'Failed to parse ACL rules: line 1: expected an attribute, found "="'],
      ['service "web" { policy "read" }', 'Failed to parse ACL rules: line 1: expected =, found "read"'],
      ['service "web" { policy = "read"', "Failed to parse ACL rules: unexpected end of rules"],
      ['"service" = "read"', 'Failed to parse ACL rules: line 1: expected ident, found "service"'],
      ['service "web" { intentions = "read" }', 'Failed to parse ACL rules: service "web" needs a policy'],
      // Punctuation is only punctuation when it is not quoted, and each place wants its own.
      ['service "web" { "," policy = "read" }', 'Failed to parse ACL rules: line 1: expected an attribute, found ","'],
      ['service "web" { "}"', 'Failed to parse ACL rules: line 1: expected an attribute, found "}"'],
      ['service "web" } policy = "read" }', 'Failed to parse ACL rules: line 1: expected {, found "}"'],
      ['service "web" { policy , "read" }', 'Failed to parse ACL rules: line 1: expected =, found ","'],
      // A quoted "=" is a label, not the equals sign: `operator "=" "write"` grants nothing, it is refused.
      ['operator "=" "write"', 'Failed to parse ACL rules: line 1: expected {, found "write"'],
    ] as const) {
      expect(error(rules), rules).toBe(message);
    }
  });

  it("refuses unknown policies and resources, saying whether a label was given", () => {
    for (const [rules, message] of [
      ['operator = "admin"', 'Failed to parse ACL rules: invalid policy "admin" for operator'],
      ['service "web" { policy = "" }', 'Failed to parse ACL rules: invalid policy "" for service'],
      ['service = "read"', 'Failed to parse ACL rules: unknown resource "service"'],
      ['operator "x" { policy = "read" }', 'Failed to parse ACL rules: unknown resource "operator" with a label'],
      ['database = "read"', 'Failed to parse ACL rules: unknown resource "database"'],
    ] as const) {
      expect(error(rules), rules).toBe(message);
    }
  });
});
