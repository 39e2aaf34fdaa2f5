// Parses ACL policy rules in the real system's language: HCL such as
//   service "web" { policy = "read" }
//   service_prefix "" { policy = "write" }
//   operator = "read"
// or the same structure as JSON. Every resource kind of the real system is accepted; the ones this
// server has endpoints for (service, agent, their _prefix forms, operator, acl) are kept and enforced.
import type { AccessLevel, AclRules } from "./acl.ts";

export class AclRulesError extends Error {
  override name = "AclRulesError";
}

const LABELED_KINDS = new Set([
  "service", "service_prefix", "node", "node_prefix", "key", "key_prefix", "agent", "agent_prefix",
  "event", "event_prefix", "query", "query_prefix", "session", "session_prefix", "identity", "identity_prefix",
]);
const UNLABELED_KINDS = new Set(["acl", "operator", "keyring", "mesh", "peering"]);
const POLICIES = new Set(["read", "write", "deny", "list"]);

interface Rule {
  kind: string;
  label?: string;
  policy: string;
}

export function parseAclRules(source: string | Record<string, unknown>): AclRules {
  const rules =
    typeof source === "string"
      ? source.trim().startsWith("{")
        ? rulesFromJson(parseJson(source))
        : rulesFromHcl(source)
      : rulesFromJson(source);
  return toAclRules(rules);
}

function fail(message: string): never {
  throw new AclRulesError(`Failed to parse ACL rules: ${message}`);
}

function parseJson(source: string): Record<string, unknown> {
  try {
    return JSON.parse(source) as Record<string, unknown>;
  } catch (error) {
    return fail((error as Error).message);
  }
}

function rulesFromJson(json: Record<string, unknown>): Rule[] {
  const rules: Rule[] = [];
  for (const [kind, value] of Object.entries(json)) {
    if (typeof value === "string") {
      rules.push({ kind, policy: value });
    } else if (value && typeof value === "object") {
      for (const [label, body] of Object.entries(value)) {
        const policy: unknown = typeof body === "object" && body !== null && "policy" in body ? body.policy : undefined;
        if (typeof policy !== "string") fail(`${kind} "${label}" needs a policy`);
        rules.push({ kind, label, policy });
      }
    } else {
      fail(`${kind} must be a policy or a block`);
    }
  }
  return rules;
}

type Token = { type: "ident" | "string" | "punct"; value: string; line: number };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][A-Za-z0-9_-]*)|([{}=,])|(.)/g;
  let line = 1;
  for (const match of source.matchAll(pattern)) {
    const [text, str, ident, punct, other] = match;
    if (str !== undefined) tokens.push({ type: "string", value: JSON.parse(`"${str}"`) as string, line });
    else if (ident !== undefined) tokens.push({ type: "ident", value: ident, line });
    else if (punct !== undefined) tokens.push({ type: "punct", value: punct, line });
    else if (other !== undefined) fail(`line ${line}: unexpected ${JSON.stringify(other)}`);
    line += text.split("\n").length - 1;
  }
  return tokens;
}

function rulesFromHcl(source: string): Rule[] {
  const tokens = tokenize(source);
  let at = 0;
  const next = (): Token => tokens[at++] ?? fail("unexpected end of rules");
  const expect = (type: Token["type"], value?: string): Token => {
    const token = next();
    if (token.type !== type || (value !== undefined && token.value !== value)) {
      fail(`line ${token.line}: expected ${value ?? type}, found ${JSON.stringify(token.value)}`);
    }
    return token;
  };

  const rules: Rule[] = [];
  while (at < tokens.length) {
    const kind = expect("ident").value;
    const token = next();
    if (token.type === "punct" && token.value === "=") {
      rules.push({ kind, policy: expect("string").value });
      continue;
    }
    if (token.type !== "string") fail(`line ${token.line}: expected a label or = after ${kind}`);
    expect("punct", "{");
    let policy: string | undefined;
    for (let t = next(); !(t.type === "punct" && t.value === "}"); t = next()) {
      if (t.type === "punct" && t.value === ",") continue;
      if (t.type !== "ident") fail(`line ${t.line}: expected an attribute, found ${JSON.stringify(t.value)}`);
      expect("punct", "=");
      const value = expect("string").value;
      if (t.value === "policy") policy = value;
    }
    if (policy === undefined) fail(`${kind} "${token.value}" needs a policy`);
    rules.push({ kind, label: token.value, policy });
  }
  return rules;
}

function toAclRules(rules: Rule[]): AclRules {
  const result: AclRules = {};
  for (const { kind, label, policy } of rules) {
    if (!POLICIES.has(policy)) fail(`invalid policy ${JSON.stringify(policy)} for ${kind}`);
    if (label === undefined ? !UNLABELED_KINDS.has(kind) : !LABELED_KINDS.has(kind)) {
      fail(`unknown resource ${JSON.stringify(kind)}${label === undefined ? "" : " with a label"}`);
    }
    const level = (policy === "list" ? "read" : policy) as AccessLevel;
    if (kind === "service" || kind === "service_prefix" || kind === "agent" || kind === "agent_prefix") {
      result[kind] = { ...result[kind], [label!]: level };
    } else if (kind === "operator" || kind === "acl") {
      result[kind] = level;
    }
  }
  return result;
}
