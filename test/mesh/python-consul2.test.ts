// Conformance with a second real client (issue 24): Debian's python3-consul2 (python-consul2 0.1.5),
// unchanged, run by /usr/bin/python3 against a started mesh server. The only shim renames the token
// header (test/helpers/consul-shim.ts). test/mesh/fixtures/python_consul2.py makes every ACL and
// configuration-entry call the module has and prints each outcome; this file asserts on them. The
// expected statuses and texts are the real agent's (agent/acl_endpoint.go, agent/acl_endpoint_legacy.go,
// agent/consul/acl_endpoint.go, agent/http.go); where the module itself misreads an answer (a 404 read
// as `(index, None)`, a query string it escapes into the path), the real service gives it the same answer.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { shimmedMeshesPerTest } from "../helpers/mesh-consul.ts";
import type { RunningMesh } from "../helpers/mesh.ts";

const PYTHON = "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./fixtures/python_consul2.py", import.meta.url));
const MANAGEMENT = "a3f0c4d2-5b6e-4f70-8a91-b2c3d4e5f601";

type Outcome = { value: unknown } | { error: string; message: string };

const shimmedMesh = shimmedMeshesPerTest();
let mesh: RunningMesh | undefined;

beforeAll(() => {
  // Not a skip: without the client the suite cannot say anything, and CI installs it (scripts/system-deps.sh).
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: install the Debian packages python3 and python3-consul2 (scripts/system-deps.sh)`);
  const probe = spawnSync(PYTHON, ["-c", "import consul, consul.base; print(consul.__version__)"], { encoding: "utf8" });
  if (probe.status !== 0) {
    throw new Error(`${PYTHON} cannot import the consul module: install the Debian package python3-consul2 (scripts/system-deps.sh)\n${probe.stderr}`);
  }
  expect(probe.stdout.trim()).toBe("0.1.5");
});

/** Runs the script against a fresh server of the given version; the outcome of every step by name. */
async function run(version: string, mode: "full" | "modern"): Promise<Map<string, Outcome>> {
  const started = await shimmedMesh({ managementToken: MANAGEMENT, version });
  mesh = started.mesh;
  // A clean environment: no CONSUL_HTTP_* settings, no proxy for loopback.
  const child = spawn(PYTHON, [SCRIPT, String(started.shim.port), MANAGEMENT, mode], { env: { PATH: "/usr/bin:/bin", NO_PROXY: "127.0.0.1", LANG: "C.UTF-8" } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr, "the script wrote to stderr").toBe("");
  expect(code).toBe(0);
  const outcomes = new Map<string, Outcome>();
  for (const line of stdout.split("\n").filter(Boolean)) {
    const { step, ...outcome } = JSON.parse(line) as { step: string } & Outcome;
    expect(outcomes.has(step), `step ${step} twice`).toBe(false);
    outcomes.set(step, outcome);
  }
  return outcomes;
}

function valueOf(outcomes: Map<string, Outcome>, step: string): unknown {
  const outcome = outcomes.get(step);
  expect(outcome, `no outcome for ${step}`).toBeDefined();
  expect(outcome, step).toHaveProperty("value");
  return (outcome as { value: unknown }).value;
}

function errorOf(outcomes: Map<string, Outcome>, step: string): [string, string] {
  const outcome = outcomes.get(step);
  expect(outcome, step).toHaveProperty("error");
  const { error, message } = outcome as { error: string; message: string };
  return [error, message];
}

/** What CB.json makes of a 404: the tuple (X-Consul-Index, None). */
const NOT_FOUND_TUPLE = [null, null];

describe("python-consul2 0.1.5 against a server reporting 1.10.12 (token API and legacy API)", () => {
  it("runs every ACL and configuration-entry call of the module with the real service's answers", { timeout: 60_000 }, async () => {
    const out = await run("1.10.12", "full");
    expect(valueOf(out, "agent.self")).toBe("1.10.12");

    // Policies.
    const reader = valueOf(out, "policy.create") as { ID: string };
    expect(reader).toMatchObject({ Name: "web-reader", Description: "reads web", Rules: 'service "web" { policy = "read" }' });
    expect(errorOf(out, "policy.create taken")).toEqual(["ConsulException", '500 Invalid Policy: A Policy with Name "web-reader" already exists']);
    expect(errorOf(out, "policy.create bad rules")).toEqual(["ConsulException", '500 Failed to parse ACL rules: invalid policy "admin" for service']);
    // Before 1.11 every refusal is the bare acl.ErrPermissionDenied.
    expect(errorOf(out, "policy.create anonymous")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    expect(valueOf(out, "policy.get")).toEqual(reader);
    expect(valueOf(out, "policy.get by name")).toEqual(reader);
    expect(errorOf(out, "policy.get missing")).toEqual(["ACLPermissionDenied", "ACL not found"]);
    expect(valueOf(out, "policy.list")).toEqual(["global-management", "web-reader"]);
    expect(valueOf(out, "policy.update")).toMatchObject({ Name: "api-writer", Description: "writes api" });
    expect(errorOf(out, "policy.update missing")).toEqual(["ConsulException", "500 cannot find policy 6d5b1c40-0000-4000-8000-00000000dead"]);

    // Roles, with service and node identities.
    const role = valueOf(out, "roles.create") as { ID: string };
    expect(role).toMatchObject({
      Name: "readers",
      Policies: [{ ID: reader.ID, Name: "web-reader" }],
      ServiceIdentities: [{ ServiceName: "db" }],
      NodeIdentities: [{ NodeName: "node-1", Datacenter: "dc1" }],
    });
    expect(errorOf(out, "roles.create unknown policy")).toEqual(["ConsulException", '500 No such ACL policy with name "nope"']);
    expect(errorOf(out, "roles.create bad identity")).toEqual([
      "ConsulException",
      `500 Service identity "Bad Name" has an invalid name. Only alphanumeric characters, '-' and '_' are allowed`,
    ]);
    expect(valueOf(out, "roles.get")).toEqual(role);
    expect(valueOf(out, "roles.get_by_name")).toBe(true);
    expect(valueOf(out, "roles.get missing")).toEqual(NOT_FOUND_TUPLE); // 404 with an empty body
    expect(valueOf(out, "roles.update")).toMatchObject({ Description: "read web and api", Policies: [{ Name: "web-reader" }, { Name: "api-writer" }] });
    expect(valueOf(out, "roles.list")).toEqual(["readers"]);
    // The module escapes "?policy=" into the path (/v1/acl/roles%3Fpolicy=...), which no endpoint serves.
    expect(errorOf(out, "roles.list by policy")).toEqual(["TypeError", "'NoneType' object is not subscriptable"]);

    // Tokens.
    expect(valueOf(out, "acl.self")).toBe("Initial Management Token");
    expect(valueOf(out, "tokens.self")).toBe(true);
    const token = valueOf(out, "tokens.create") as { AccessorID: string; SecretID: string };
    expect(token).toMatchObject({ Description: "web reader", Policies: [{ Name: "web-reader" }], Roles: [{ Name: "readers" }], Local: false });
    expect(errorOf(out, "tokens.create bad accessor")).toEqual(["ConsulException", "500 Invalid Token: AccessorID is not a valid UUID"]);
    expect(valueOf(out, "tokens.self as the token")).toBe(true);
    expect(valueOf(out, "tokens.list by role")).toEqual(["web reader"]);
    expect(valueOf(out, "tokens.get")).toEqual(token);
    expect(errorOf(out, "tokens.get missing")).toEqual(["ACLPermissionDenied", "ACL not found"]);
    expect(errorOf(out, "tokens.get as the token")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    expect(valueOf(out, "tokens.update")).toMatchObject({ AccessorID: token.AccessorID, SecretID: token.SecretID, Description: "web reader, no role", Roles: [] });
    expect(errorOf(out, "tokens.update missing")).toEqual(["ConsulException", '500 Cannot find token "6d5b1c40-0000-4000-8000-00000000dead"']);
    const clone = valueOf(out, "tokens.clone") as { AccessorID: string; SecretID: string };
    expect(clone).toMatchObject({ Description: "second web reader", Policies: [{ Name: "web-reader" }] });
    expect(clone.AccessorID).not.toBe(token.AccessorID);
    expect(clone.SecretID).not.toBe(token.SecretID);
    expect(errorOf(out, "tokens.clone missing")).toEqual(["ACLPermissionDenied", "ACL not found"]);
    expect(valueOf(out, "tokens.list")).toEqual(["Anonymous Token", "Initial Management Token", "second web reader", "web reader, no role"]);
    expect(valueOf(out, "tokens.list by policy")).toEqual(["second web reader", "web reader, no role"]);
    expect(valueOf(out, "tokens.list by auth method")).toEqual([]);
    expect(errorOf(out, "tokens.list two filters")).toEqual(["ConsulException", "500 can only filter by one of policy, role, or authmethod at once"]);
    expect(errorOf(out, "tokens.list as the token")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    expect(valueOf(out, "tokens.delete")).toBe(true);
    expect(valueOf(out, "tokens.delete again")).toBe(true);
    expect(errorOf(out, "tokens.delete anonymous")).toEqual(["ConsulException", "500 Delete operation not permitted on the anonymous token"]);

    // Deletes: what does not exist is deleted already.
    for (const step of ["roles.delete", "roles.delete again", "policy.delete", "policy.delete again"]) expect(valueOf(out, step), step).toBe(true);
    expect(errorOf(out, "policy.delete builtin")).toEqual(["ConsulException", "500 Delete operation not permitted on the builtin global-management policy"]);

    // The legacy API, both styles of the module.
    const legacy = valueOf(out, "acl.create") as string;
    expect(valueOf(out, "acl.info")).toMatchObject({ ID: legacy, Name: "legacy reader", Type: "client", Rules: 'service "web" { policy = "read" }' });
    expect(valueOf(out, "acl.update")).toBe(legacy);
    expect(valueOf(out, "acl.clone")).toEqual(expect.any(String));
    expect(valueOf(out, "acl.list")).toEqual(["Anonymous Token", "Initial Management Token", "legacy writer", "legacy writer"]);
    expect(valueOf(out, "acl.destroy")).toBe(true);
    const query = valueOf(out, "legacy_tokens.create") as string;
    expect(valueOf(out, "legacy_tokens.info")).toMatchObject({ ID: query, Name: "query style", Type: "management" });
    expect(valueOf(out, "legacy_tokens.update")).toBe(query);
    expect(valueOf(out, "legacy_tokens.clone")).toEqual(expect.any(String));
    expect(errorOf(out, "legacy_tokens.clone missing")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    expect(valueOf(out, "legacy_tokens.list")).toBe(5);
    expect(valueOf(out, "legacy_tokens.destroy")).toBe(true);
    expect(errorOf(out, "legacy_tokens.list anonymous")).toEqual(["ACLPermissionDenied", "Permission denied"]);

    // Not served here (docs/mesh.md): the mux's 404, which the module reads as "nothing".
    for (const step of [
      "acl.bootstrap", "acl.replication", "acl.get_translate", "acl.login", "acl.logout",
      "auth_method.create", "auth_method.get", "auth_method.update", "auth_method.list",
      "binding_rule.create", "binding_rule.get", "binding_rule.update", "binding_rule.list",
    ]) {
      expect(valueOf(out, step), step).toEqual(NOT_FOUND_TUPLE);
    }
    // CB.binary gives any body back: the Index handler's (agent/http.go Index, 1.9 on).
    expect(valueOf(out, "acl.create_translate")).toBe("Invalid URL path: not a recognized HTTP API endpoint\n");
    expect(valueOf(out, "auth_method.delete")).toBe(false);
    expect(valueOf(out, "binding_rule.delete")).toBe(false);

    // Configuration entries.
    expect(valueOf(out, "config.put")).toBe(true);
    expect(valueOf(out, "config.put splitter")).toBe(true);
    expect(errorOf(out, "config.put bad weights")).toEqual(["ConsulException", "500 the sum of all split weights must be 100, not 90.000000"]);
    expect(errorOf(out, "config.put unknown key")).toEqual(["BadRequest", '400 Request decoding failed: 1 error occurred:\n\t* invalid config key "Timeout"\n\n']);
    expect(valueOf(out, "config.put dc")).toBe(true);
    expect(errorOf(out, "config.put other dc")).toEqual(["ConsulException", "500 No path to datacenter"]);
    expect(valueOf(out, "config.get")).toMatchObject({ Kind: "service-defaults", Name: "web", Protocol: "http" });
    expect(valueOf(out, "config.put cas stale")).toBe(false);
    expect(valueOf(out, "config.put cas")).toBe(true);
    // CB.json answers a 404 with (X-Consul-Index, None): the real agent sets the index headers before
    // it answers a missing entry 404 (agent/config_endpoint.go configGet), the entries' index here.
    expect(valueOf(out, "config.get missing")).toEqual(["4", null]);
    expect(errorOf(out, "config.get anonymous")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    expect(valueOf(out, "config.list")).toEqual(["api", "web"]);
    expect(valueOf(out, "config.list dc")).toBe(1);
    expect(valueOf(out, "config.delete")).toBe(true);
    expect(valueOf(out, "config.delete missing")).toBe(true);
    expect(errorOf(out, "config.delete anonymous")).toEqual(["ACLPermissionDenied", "Permission denied"]);
    // Weakly typed values (mapstructure WeaklyTypedInput in agent/structs/config_entry.go
    // DecodeConfigEntry): None is unset, numbers are text, "true"/0 are booleans; read back typed.
    expect(valueOf(out, "config.put weak")).toBe(true);
    expect(valueOf(out, "config.get weak")).toEqual({
      Kind: "service-resolver",
      Name: "db",
      Subsets: { v1: { OnlyPassing: true }, v2: { OnlyPassing: false } },
      Meta: { owner: "7", gen: "1.5" },
      Namespace: "default",
      CreateIndex: 6,
      ModifyIndex: 6,
    });
    expect(errorOf(out, "config.put weak refused")).toEqual([
      "BadRequest",
      `400 Request decoding failed: 1 error(s) decoding:\n\n* cannot parse 'Subsets[v1].OnlyPassing' as bool: strconv.ParseBool: parsing "maybe": invalid syntax`,
    ]);

    // What the module did is on the server: the stored entry carries the cas write.
    const stored = await mesh!.clientWithToken(MANAGEMENT).GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    expect(stored.data).toMatchObject({ ExternalSNI: "web.example" });
  });
});

describe("python-consul2 0.1.5 against a server reporting 1.16.0 (no legacy API)", () => {
  it("gets the token API and a 404 for every legacy call", { timeout: 60_000 }, async () => {
    const out = await run("1.16.0", "modern");
    expect(valueOf(out, "agent.self")).toBe("1.16.0");
    expect(valueOf(out, "tokens.list")).toEqual(["Anonymous Token", "Initial Management Token", "second web reader", "web reader, no role"]);
    for (const step of ["acl.create", "acl.list", "legacy_tokens.create", "legacy_tokens.clone missing", "legacy_tokens.list", "legacy_tokens.list anonymous"]) {
      expect(valueOf(out, step), step).toEqual(NOT_FOUND_TUPLE);
    }
  });
});
