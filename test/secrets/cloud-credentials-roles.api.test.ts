// Roles of the cloud credentials engine through the generated client: every type and parameter, the
// rules (each refused with 400 and nothing changed), legacy roles, roles stored by earlier versions
// (invalid_data), 404s, LIST over the wire, several mounts.
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { storeLegacyRole } from "../../server/secrets/engines/cloud-credentials/engine.ts";
import { mountStoragePrefix } from "../../server/secrets/engines/mount-storage.ts";
import { goMultiErrorText, goQuote } from "../../server/shared/go-text.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";

const ROLE_ARN = "arn:aws:iam::123456789012:role/deploy";
const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";
const DOC = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}';

let server: CloudTestServer;
beforeAll(async () => {
  server = await startCloudSecrets({ mounts: [{ path: "aws", engine: "cloud-credentials" }, { path: "team-a/aws", engine: "cloud-credentials" }] });
  await server.client.POST("/aws/config/root", { body: STATIC_ROOT });
});
afterAll(() => server.close());

const name = (n: string) => ({ params: { path: { name: n } } });
const write = (n: string, body: Record<string, unknown>) => server.client.POST("/aws/roles/{name}", { ...name(n), body });
const read = (n: string) => server.client.GET("/aws/roles/{name}", name(n));
const remove = (n: string) => server.client.DELETE("/aws/roles/{name}", name(n));
const list = () => server.client.GET("/aws/roles", { params: { query: { list: "true" } } });

beforeEach(() => {
  for (const mount of ["aws", "team-a/aws"]) for (const role of server.engine.at(mount).listRoles()) server.engine.at(mount).deleteRole(role);
});

const EMPTY = {
  credential_type: "",
  credential_types: [],
  role_arns: [],
  policy_arns: [],
  policy_document: "",
  iam_groups: [],
  iam_tags: {},
  default_sts_ttl: 0,
  max_sts_ttl: 0,
  user_path: "",
  permissions_boundary_arn: "",
};

// The real handler (builtin/logical/aws/path_roles.go, pathRolesWrite) answers one message: the
// first value it cannot read or the first legacy mix, else every rule validate() finds as one
// go-multierror quoted with %q.
const validation = (...problems: string[]) => `error(s) validating supplied role data: ${goQuote(goMultiErrorText(problems))}`;

describe("writing and reading roles", () => {
  it("stores an IAM-user role with every parameter and reads it back", async () => {
    const written = await write("iam", {
      credential_type: "iam_user",
      policy_arns: `${READONLY},arn:aws:iam::123456789012:policy/deploy-tools`,
      policy_document: '{ "Version": "2012-10-17", "Statement": [ { "Effect": "Allow", "Action": "s3:GetObject", "Resource": "*" } ] }',
      iam_groups: ["developers", "operators"],
      iam_tags: ["team=platform", "env=dev"],
      user_path: "/secrets/",
      permissions_boundary_arn: "arn:aws:iam::123456789012:policy/secrets-boundary",
    });
    expect(written.response.status).toBe(204);
    expect(ok(await read("iam")).data).toEqual({
      ...EMPTY,
      credential_type: "iam_user",
      credential_types: ["iam_user"],
      policy_arns: [READONLY, "arn:aws:iam::123456789012:policy/deploy-tools"],
      policy_document: DOC,
      iam_groups: ["developers", "operators"],
      iam_tags: { team: "platform", env: "dev" },
      user_path: "/secrets/",
      permissions_boundary_arn: "arn:aws:iam::123456789012:policy/secrets-boundary",
    });
  });

  it("stores assumed-role and federation-token roles with STS TTLs as seconds", async () => {
    await write("assumed", { credential_type: "assumed_role", role_arns: [ROLE_ARN, "arn:aws:iam::123456789012:role/readonly"], default_sts_ttl: "15m", max_sts_ttl: 7200, policy_document: DOC });
    expect(ok(await read("assumed")).data).toEqual({
      ...EMPTY,
      credential_type: "assumed_role",
      credential_types: ["assumed_role"],
      role_arns: [ROLE_ARN, "arn:aws:iam::123456789012:role/readonly"],
      policy_document: DOC,
      default_sts_ttl: 900,
      max_sts_ttl: 7200,
    });
    await write("fed", { credential_type: "federation_token", policy_arns: READONLY, iam_groups: "developers", iam_tags: { a: "1" }, max_sts_ttl: "36h" });
    expect(ok(await read("fed")).data).toMatchObject({ credential_type: "federation_token", policy_arns: [READONLY], iam_groups: ["developers"], iam_tags: { a: "1" }, max_sts_ttl: 129600 });
  });

  it("updates only the fields sent", async () => {
    await write("r", { credential_type: "assumed_role", role_arns: ROLE_ARN, max_sts_ttl: 3600 });
    expect((await write("r", { default_sts_ttl: 1800 })).response.status).toBe(204);
    expect(ok(await read("r")).data).toMatchObject({ credential_types: ["assumed_role"], role_arns: [ROLE_ARN], default_sts_ttl: 1800, max_sts_ttl: 3600 });
    // A duration sent as null is one not sent (the framework's getPrimitive): the stored value stays.
    expect((await write("r", { default_sts_ttl: null, max_sts_ttl: "2h" })).response.status).toBe(204);
    expect(ok(await read("r")).data).toMatchObject({ default_sts_ttl: 1800, max_sts_ttl: 7200 });
    await write("r", { credential_type: "federation_token", role_arns: [], policy_arns: [READONLY] });
    expect(ok(await read("r")).data).toMatchObject({ credential_type: "federation_token", role_arns: [], policy_arns: [READONLY] });
  });


  it("refuses broken rules with 400 and one message, and changes nothing", async () => {
    await write("keep", { credential_type: "assumed_role", role_arns: ROLE_ARN });
    const before = ok(await read("keep")).data;
    const index = server.secrets.cluster.storage.index();
    expect((await write("new", {})).error).toEqual({ errors: ['error(s) validating supplied role data: "1 error occurred:\\n\\t* did not supply credential_type\\n\\n"'] });
    const cases: [string, Record<string, unknown>, string][] = [
      ["new", { credential_type: "session_token" }, validation("unrecognized credential type: session_token")],
      ["new", { credential_type: "iam_user", role_arns: ROLE_ARN, policy_arns: READONLY }, validation("cannot supply role_arns when credential_type isn't assumed_role")],
      ["new", { credential_type: "federation_token", role_arns: ROLE_ARN, policy_document: DOC }, validation("cannot supply role_arns when credential_type isn't assumed_role")],
      ["new", { credential_type: "assumed_role" }, validation("must specify at least one of role_arns with assumed_role credential_type")],
      ["new", { credential_type: "iam_user", iam_groups: "developers" }, validation("must specify at least one of policy_arns or policy_document with iam_user credential_type")],
      ["new", { credential_type: "federation_token" }, validation("must specify at least one of policy_arns or policy_document with federation_token credential_type")],
      [
        "new",
        { credential_type: "iam_user", policy_arns: READONLY, default_sts_ttl: 60, max_sts_ttl: 30 },
        validation(
          "default_sts_ttl parameter only valid for assumed_role and federation_token credential types",
          "max_sts_ttl parameter only valid for assumed_role and federation_token credential types",
          '"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value',
        ),
      ],
      ["keep", { default_sts_ttl: "2h", max_sts_ttl: "1h" }, validation('"default_sts_ttl" value must be less than or equal to "max_sts_ttl" value')],
      ["keep", { user_path: "/x/" }, validation("user_path parameter only valid for iam_user credential type")],
      ["keep", { permissions_boundary_arn: "arn:aws:iam::aws:policy/ReadOnlyAccess" }, validation("cannot supply permissions_boundary_arn when credential_type isn't iam_user")],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, user_path: "x" }, validation('the specified value for user_path is invalid. It must match "^\\\\/([\\\\x21-\\\\x7F]{0,510}\\\\/)?$" regexp')],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, permissions_boundary_arn: "arn:aws:s3:::b" }, validation("invalid permissions_boundary_arn parameter: expected a service of iam but got s3")],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, permissions_boundary_arn: "boundary" }, validation("invalid permissions_boundary_arn parameter: arn: invalid prefix")],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, permissions_boundary_arn: "arn:aws:iam::123456789012:user/x" }, validation("invalid permissions_boundary_arn parameter: expected a resource type of policy but got user/x")],
      // An unreadable boundary replaces the problems found before it, as the real validate() does.
      ["keep", { user_path: "x", permissions_boundary_arn: "arn:aws:s3:::b" }, validation("invalid permissions_boundary_arn parameter: expected a service of iam but got s3")],
      ["new", { credential_type: "iam_user", policy_document: "{not json" }, 'cannot parse policy document: "{not json"'],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, iam_tags: ["novalue"] }, 'Field validation failed: error converting input [novalue] for field "iam_tags": invalid key pair "novalue"'],
      ["new", { credential_type: "iam_user", policy_arns: READONLY, iam_tags: ["a=b", "c"] }, 'Field validation failed: error converting input [a=b c] for field "iam_tags": invalid key pair "c"'],
      ["keep", { max_sts_ttl: "forever" }, 'Field validation failed: error converting input forever for field "max_sts_ttl": time: invalid duration "forever"'],
      ["keep", { default_sts_ttl: -1 }, "Field validation failed: error converting input -1 for field \"default_sts_ttl\": cannot provide negative value '-1'"],
      ["keep", { default_sts_ttl: " 1h" }, 'Field validation failed: error converting input  1h for field "default_sts_ttl": time: invalid duration " 1h"'],
      ["new", { arn: ROLE_ARN, role_arns: ROLE_ARN }, "cannot supply deprecated role or policy parameters with role_arns"],
      ["new", { arn: ROLE_ARN, credential_type: "assumed_role" }, "cannot supply deprecated role or policy parameters with an explicit credential_type"],
      ["new", { policy: DOC, iam_groups: "developers" }, "cannot supply deprecated role or policy parameters with iam_groups"],
      ["new", { arn: "arn:aws:s3:::bucket" }, 'unable to parse supplied data: "arn:aws:s3:::bucket"'],
      ["new", { policy: "not json" }, 'unable to parse supplied data: "not json"'],
    ];
    for (const [role, body, message] of cases) {
      const { response, error } = await write(role, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error, JSON.stringify(body)).toEqual({ errors: [message] });
    }
    // Both legacy parameters: a plain error of the real handler (legacyRoleData), 500.
    const both = await write("new", { policy: DOC, arn: ROLE_ARN });
    expect(both.response.status).toBe(500);
    expect(both.error).toEqual({ errors: ["1 error occurred:\n\t* only one of policy or arn should be provided\n\n"] });
    // Bodies the schema refuses.
    for (const body of [{ credential_type: 5 }, { role_arns: [1] }, { iam_tags: 5 }, { default_sts_ttl: true }, { policy_document: {} }]) {
      const { response, error } = await write("keep", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((error as { errors: string[] }).errors.length).toBeGreaterThan(0);
    }
    expect(server.secrets.cluster.storage.index()).toBe(index);
    expect(ok(await read("keep")).data).toEqual(before);
    expect((await read("new")).response.status).toBe(404);
  });

  // The real engine's validate() (builtin/logical/aws/path_roles.go) checks no ARN form in role_arns
  // or policy_arns, and of permissions_boundary_arn only the service and resource type
  // (validateAWSManagedPolicy): the provider refuses the rest when credentials are requested.
  it("takes role_arns and policy_arns of any form; the provider refuses them when credentials are requested", async () => {
    expect((await write("any-arns", { credential_type: "assumed_role", role_arns: "arn:aws:iam::123456789012:user/bob,deploy" })).response.status).toBe(204);
    expect(ok(await read("any-arns")).data.role_arns).toEqual(["arn:aws:iam::123456789012:user/bob", "deploy"]);
    expect((await write("any-policies", { credential_type: "iam_user", policy_arns: "ReadOnlyAccess" })).response.status).toBe(204);
    expect(ok(await read("any-policies")).data.policy_arns).toEqual(["ReadOnlyAccess"]);
    // A trailing comma is an entry "", kept as the framework read it; the provider refuses it.
    expect((await write("trailing", { credential_type: "iam_user", policy_arns: `${READONLY},` })).response.status).toBe(204);
    expect(ok(await read("trailing")).data.policy_arns).toEqual([READONLY, ""]);
    // Of a boundary, the account and the name are not checked either.
    expect((await write("any-boundary", { credential_type: "iam_user", policy_arns: READONLY, permissions_boundary_arn: "arn:aws:iam::x:policy/" })).response.status).toBe(204);
  });

  it("refuses role names outside the pattern with 400", async () => {
    for (const bad of ["-lead", "trail-", "sp ace"]) {
      const response = await fetch(`${server.baseUrl}/aws/roles/${encodeURIComponent(bad)}`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
      expect(response.status, bad).toBe(400);
      expect(((await response.json()) as { errors: string[] }).errors[0]).toMatch(/path parameter "name"/);
    }
    expect((await write("a.b@c-d_e", { credential_type: "iam_user", policy_arns: READONLY })).response.status).toBe(204);
  });
});

describe("legacy roles", () => {
  it("writes a role from a legacy policy document or ARN, answering 200 with a warning", async () => {
    const legacy = await write("legacy-policy", { policy: DOC });
    expect(legacy.response.status).toBe(200);
    expect(ok(legacy)).toMatchObject({ data: null, warnings: ["Detected use of legacy role or policy parameter. Please upgrade to use the new parameters."] });
    expect(ok(await read("legacy-policy")).data).toMatchObject({ credential_type: "iam_user,federation_token", credential_types: ["iam_user", "federation_token"], policy_document: DOC });
    await write("legacy-role", { arn: ROLE_ARN });
    expect(ok(await read("legacy-role")).data).toMatchObject({ credential_type: "assumed_role", role_arns: [ROLE_ARN] });
    await write("legacy-managed", { arn: READONLY });
    expect(ok(await read("legacy-managed")).data).toMatchObject({ credential_type: "iam_user", policy_arns: [READONLY] });
    // A legacy write replaces the whole role.
    await write("replaced", { credential_type: "iam_user", policy_arns: READONLY, iam_groups: "developers", user_path: "/x/" });
    await write("replaced", { arn: ROLE_ARN });
    expect(ok(await read("replaced")).data).toEqual({ ...EMPTY, credential_type: "assumed_role", credential_types: ["assumed_role"], role_arns: [ROLE_ARN] });
  });

  it("reads entries stored by an earlier version, showing invalid_data for what cannot be read as a role", async () => {
    const storage = server.secrets.cluster.storage;
    storeLegacyRole(storage, "aws", "old-doc", DOC);
    storeLegacyRole(storage, "aws", "old-role", ROLE_ARN);
    storeLegacyRole(storage, "aws", "old-broken", "arn:aws:s3:::not-a-policy");
    expect(ok(await list()).data.keys).toEqual(["old-broken", "old-doc", "old-role"]);
    expect(ok(await read("old-doc")).data).toMatchObject({ credential_types: ["iam_user", "federation_token"], policy_document: DOC });
    expect(ok(await read("old-role")).data).toMatchObject({ credential_types: ["assumed_role"], role_arns: [ROLE_ARN] });
    const broken = ok(await read("old-broken")).data;
    expect(broken).toEqual({ ...EMPTY, invalid_data: "arn:aws:s3:::not-a-policy" });

    // Such a role issues nothing until it is written again; the write clears the invalid data.
    expect((await server.client.GET("/aws/creds/{name}", { params: { path: { name: "old-broken" }, query: {} } })).error).toEqual({ errors: ['unknown credential_type: ""'] });
    expect((await write("old-broken", { policy_arns: READONLY })).error).toEqual({ errors: [validation("did not supply credential_type")] });
    const fixed = await write("old-broken", { credential_type: "iam_user", policy_arns: READONLY });
    expect(fixed.response.status).toBe(200);
    expect(ok(fixed).warnings).toEqual(['Invalid data of "arn:aws:s3:::not-a-policy" cleared out of role']);
    expect(ok(await read("old-broken")).data).not.toHaveProperty("invalid_data");
    const prefix = mountStoragePrefix("cloud-credentials", "aws");
    expect(storage.get(`${prefix}policy/old-broken`)).toBeUndefined();
    expect(storage.get(`${prefix}role/old-broken`)).toMatchObject({ credential_types: ["iam_user"] });
    expect(ok(await list()).data.keys).toEqual(["old-broken", "old-doc", "old-role"]);
  });

  it("shows invalid_data of a stored role entry as it is", async () => {
    const prefix = mountStoragePrefix("cloud-credentials", "aws");
    server.secrets.cluster.storage.put(`${prefix}role/stored`, { credential_types: [], invalid_data: "{{garbage", version: 1 });
    expect(ok(await read("stored")).data).toEqual({ ...EMPTY, invalid_data: "{{garbage" });
  });
});

describe("missing roles, deleting, listing", () => {
  it("answers 404 with no message when reading or deleting a role that does not exist", async () => {
    for (const answer of [await read("ghost"), await remove("ghost")]) {
      expect(answer.response.status).toBe(404);
      expect(answer.error).toEqual({ errors: [] });
    }
    await write("r", { credential_type: "iam_user", policy_arns: READONLY });
    expect((await remove("r")).response.status).toBe(204);
    expect((await read("r")).response.status).toBe(404);
    expect((await remove("r")).response.status).toBe(404);
    storeLegacyRole(server.secrets.cluster.storage, "aws", "old", DOC);
    expect((await remove("old")).response.status).toBe(204);
    expect((await read("old")).response.status).toBe(404);
  });

  it("lists roles sorted, with LIST on the wire or GET list=true, and 404 when there are none", async () => {
    const empty = await list();
    expect(empty.response.status).toBe(404);
    expect(empty.error).toEqual({ errors: [] });
    for (const role of ["b", "a", "c.d"]) await write(role, { credential_type: "iam_user", policy_arns: READONLY });
    expect(ok(await list()).data).toEqual({ keys: ["a", "b", "c.d"] });
    const wire = await fetch(`${server.baseUrl}/aws/roles`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(wire.status).toBe(200);
    expect(((await wire.json()) as { data: unknown }).data).toEqual({ keys: ["a", "b", "c.d"] });
    const plainGet = await fetch(`${server.baseUrl}/aws/roles`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(plainGet.status).toBe(405);
    expect(plainGet.headers.get("Allow")).toBe("LIST");
    // A LIST is routed with its trailing slash (roles/a/), which only a list's route takes.
    const listOnRole = await fetch(`${server.baseUrl}/aws/roles/a`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(listOnRole.status).toBe(404);
    expect(await listOnRole.text()).toBe('{"errors":["1 error occurred:\\n\\t* unsupported path\\n\\n"]}\n');
  });

  it("answers a repeated read with a request id of its own each time, and with every write since", async () => {
    await write("a", { credential_type: "iam_user", policy_arns: READONLY });
    const answers = [ok(await list()), ok(await list()), ok(await list())];
    const ids = answers.map((a) => a.request_id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const a of answers) expect(a).toMatchObject({ data: { keys: ["a"] }, lease_id: "", renewable: false });
    await write("b", { credential_type: "iam_user", policy_arns: READONLY });
    expect(ok(await list()).data).toEqual({ keys: ["a", "b"] });
    const before = ok(await read("b")).data;
    await write("b", { policy_arns: `${READONLY},arn:aws:iam::123456789012:policy/more` });
    expect(ok(await read("b")).data.policy_arns).toEqual([...before.policy_arns, "arn:aws:iam::123456789012:policy/more"]);
    await remove("a");
    expect(ok(await list()).data).toEqual({ keys: ["b"] });
  });

  it("keeps each mount's roles apart, under the mount's own storage prefix", async () => {
    await write("shared-name", { credential_type: "iam_user", policy_arns: READONLY });
    const teamA = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/team-a/aws${path}`, { ...init, headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect((await teamA("/roles/shared-name")).status).toBe(404);
    expect((await teamA("/roles/shared-name", { method: "POST", body: JSON.stringify({ credential_type: "assumed_role", role_arns: ROLE_ARN }) })).status).toBe(204);
    expect(((await (await teamA("/roles/shared-name")).json()) as { data: { credential_type: string } }).data.credential_type).toBe("assumed_role");
    expect(ok(await read("shared-name")).data.credential_type).toBe("iam_user");
    const keys = server.secrets.cluster.storage.list("logical/");
    expect(keys).toContain(`${mountStoragePrefix("cloud-credentials", "team-a/aws")}role/shared-name`);
    expect(keys).toContain(`${mountStoragePrefix("cloud-credentials", "aws")}role/shared-name`);
    await teamA("/roles/shared-name", { method: "DELETE" });
  });
});

describe("any input", () => {
  it("is answered with a documented status, never a 500, and refusals change nothing", async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer({ min: -100_000, max: 100_000 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }),
      fc.constantFrom("iam_user", "assumed_role", "federation_token", ROLE_ARN, READONLY, DOC, "1h", "developers", "/x/", "k=v"),
    );
    const keys = ["credential_type", "role_arns", "policy_arns", "policy_document", "iam_groups", "iam_tags", "default_sts_ttl", "max_sts_ttl", "user_path", "permissions_boundary_arn", "policy", "arn", "role_arn", "role_session_name", "ttl", "lease", "lease_max", "access_key", "region", "max_retries"];
    const body = fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 5 });
    await fc.assert(
      fc.asyncProperty(body, async (input) => {
        const headers = { "X-Secrets-Token": ROOT_TOKEN };
        const index = server.secrets.cluster.storage.index();
        const written = await fetch(`${server.baseUrl}/aws/roles/fuzz`, { method: "POST", headers, body: JSON.stringify(input) });
        // A 500 only for both legacy parameters (the real handler's plain error), as described.
        const bothLegacy = [input.policy, input.arn].every((v) => typeof v === "string" && v !== "");
        expect(bothLegacy ? [400, 500] : [200, 204, 400]).toContain(written.status);
        if (written.status === 500) expect(await written.json()).toEqual({ errors: ["1 error occurred:\n\t* only one of policy or arn should be provided\n\n"] });
        if (written.status >= 400) expect(server.secrets.cluster.storage.index()).toBe(index);
        const lease = await fetch(`${server.baseUrl}/aws/config/lease`, { method: "POST", headers, body: JSON.stringify(input) });
        expect([204, 400]).toContain(lease.status);
        const issued = await fetch(`${server.baseUrl}/aws/sts/fuzz`, { method: "PUT", headers, body: JSON.stringify(input) });
        expect([200, 400]).toContain(issued.status);
        const query = new URLSearchParams(Object.entries(input).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));
        const viaQuery = await fetch(`${server.baseUrl}/aws/creds/fuzz?${query}`, { headers });
        expect([200, 400]).toContain(viaQuery.status);
        expect([200, 400]).toContain((await fetch(`${server.baseUrl}/aws/sts/fuzz?${query}`, { headers })).status);
        expect([200, 400]).toContain((await fetch(`${server.baseUrl}/aws/creds/fuzz`, { method: "POST", headers, body: JSON.stringify(input) })).status);
      }),
      { numRuns: 60 },
    );
    server.engine.at("aws").deleteRole("fuzz");
    await server.client.POST("/aws/config/root", { body: STATIC_ROOT });
  });
});
