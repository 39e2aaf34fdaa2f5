// The ACL rule language: HCL and JSON forms, merging, and the errors that name the problem.
import { describe, expect, it } from "vitest";
import { isAllowed, mergeRules } from "../../server/mesh/domain/acl.ts";
import { parseAclRules } from "../../server/mesh/domain/acl-rules.ts";

describe("parseAclRules", () => {
  it("reads labeled blocks, plain assignments and comments", () => {
    const rules = parseAclRules(`
      # web is read-only
      service "web" { policy = "read" }
      service_prefix "" {
        policy = "write" // everything else
        intentions = "read"
      }
      /* operators */ operator = "read"
      node_prefix "" { policy = "read" }
      acl = "deny"
    `);
    expect(rules).toEqual({ service: { web: "read" }, service_prefix: { "": "write" }, operator: "read", acl: "deny" });
  });

  it("reads the JSON form, as text or as a structure", () => {
    const json = { service: { web: { policy: "write" } }, operator: "write" };
    expect(parseAclRules(JSON.stringify(json))).toEqual({ service: { web: "write" }, operator: "write" });
    expect(parseAclRules(json)).toEqual({ service: { web: "write" }, operator: "write" });
  });

  it("names what is wrong", () => {
    expect(() => parseAclRules('service "web" { }')).toThrow('Failed to parse ACL rules: service "web" needs a policy');
    expect(() => parseAclRules('operator = "admin"')).toThrow('invalid policy "admin" for operator');
    expect(() => parseAclRules('service = "read"')).toThrow('unknown resource "service"');
    expect(() => parseAclRules('service "web" { policy = "read" } }')).toThrow("line 1: expected ident");
    expect(() => parseAclRules("{ nope")).toThrow(/^Failed to parse ACL rules: /);
  });
});

describe("merging and deciding", () => {
  const authorizer = (rules: ReturnType<typeof mergeRules>) => ({ management: false, namespace: "default", rules });

  it("lets deny win, then write over read", () => {
    const merged = mergeRules([parseAclRules('service "a" { policy = "read" }'), parseAclRules('service "a" { policy = "deny" }'), parseAclRules('service "b" { policy = "read" }'), parseAclRules('service "b" { policy = "write" }')]);
    expect(merged.service).toEqual({ a: "deny", b: "write" });
  });

  it("prefers an exact rule and then the longest prefix", () => {
    const rules = parseAclRules('service_prefix "" { policy = "read" }\nservice_prefix "pay" { policy = "deny" }\nservice "payments-ui" { policy = "write" }');
    const can = (name: string, access: "read" | "write") => isAllowed(authorizer(rules), "default", { type: "service", name }, access);
    expect(can("web", "read")).toBe(true);
    expect(can("web", "write")).toBe(false);
    expect(can("payments", "read")).toBe(false);
    expect(can("payments-ui", "write")).toBe(true);
  });

  it("applies a token's rules only in its namespace", () => {
    const rules = parseAclRules('service_prefix "" { policy = "write" }');
    expect(isAllowed(authorizer(rules), "team-a", { type: "service", name: "web" }, "read")).toBe(false);
  });
});
