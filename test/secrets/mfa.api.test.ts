// Push-MFA methods through the generated client: create, update, read, delete, LIST; the required
// fields; login enforcements from the world file; the namespace rules
// (X-Secrets-Namespace); capabilities. `secret_key` comes back only from a method's read (the seed's
// read shape), not in a list's key_info, and is never logged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWorld } from "../../server/secrets/world.ts";
import { rawRequest } from "../helpers/raw-get.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";
import { expectEmptyList, recordOutput, startDiscoverySecrets, type DiscoverySecrets } from "./discovery-token.helpers.ts";

const ENFORCED = "5d2c6c4e-8d4b-4a53-9f0e-2f1d8c7b6a59";
const TEAM_A_METHOD = "0f6a3e2d-9c1b-4d7e-8a5f-3b2c1d0e9f84";
const ENFORCEMENT = "7d2f0a4e-3c1b-4e8a-9f6d-2b5c8e1a0f37";
const UNKNOWN = "11111111-2222-4333-8444-555555555555";
const SECRET = "HIGTHtrIigh2rPZQMbguugt8IUftWhMRCOBzbuyz";
const body = { api_hostname: "api-2b5c39f5.push.example", integration_key: "BIACEUEAXI20BNWTEYXT", secret_key: SECRET };

const world = parseWorld({
  namespaces: ["team-a/dev", "team-b"],
  mfa_methods: [
    { id: ENFORCED, ...body, secret_key: "world-secret-1" },
    { id: TEAM_A_METHOD, namespace: "team-a", ...body, secret_key: "world-secret-2", username_format: "{{identity.entity.name}}" },
  ],
  mfa_login_enforcements: [{ id: ENFORCEMENT, name: "require-push", mfa_method_ids: [ENFORCED], auth_method_types: ["userpass"] }],
  policies: {
    "mfa-admin": {
      path: {
        "identity/mfa/method/pushmfa": { capabilities: ["update"] },
        // A list is authorized on the path with a trailing slash.
        "identity/mfa/method/pushmfa/": { capabilities: ["list"] },
        "identity/mfa/method/pushmfa/*": { capabilities: ["read", "update", "delete"] },
      },
    },
    "mfa-reader": {
      path: {
        "identity/mfa/method/pushmfa/": { capabilities: ["list"] },
        "identity/mfa/method/pushmfa/*": { capabilities: ["read"] },
      },
    },
  },
  tokens: [
    { id: "mfa-admin", policies: ["mfa-admin"] },
    { id: "mfa-reader", policies: ["mfa-reader"] },
    { id: "nothing", policies: [] },
  ],
});

let secrets: DiscoverySecrets;
let output: ReturnType<typeof recordOutput>;
/** Answers of everything but a method's read: secret keys must not be in them. */
const nonReadAnswers: string[] = [];

beforeAll(async () => {
  output = recordOutput();
  secrets = await startDiscoverySecrets({ world });
});
afterAll(async () => {
  await secrets.close();
  output.restore();
  const logs = output.logs.join("\n");
  for (const secret of [SECRET, "world-secret-1", "world-secret-2", "other-secret"]) {
    expect(logs).not.toContain(secret);
    expect(nonReadAnswers.join("\n")).not.toContain(secret);
  }
});

const inNamespace = (namespace?: string, token: string = ROOT_TOKEN) => secrets.as(token, namespace === undefined ? {} : { "X-Secrets-Namespace": namespace });

async function create(fields: Record<string, unknown> = body, namespace?: string) {
  const answer = await inNamespace(namespace).POST("/identity/mfa/method/pushmfa", { body: fields as never });
  nonReadAnswers.push(JSON.stringify(answer.data ?? answer.error ?? null));
  return answer;
}

async function read(id: string, namespace?: string) {
  return inNamespace(namespace).GET("/identity/mfa/method/pushmfa/{id}", { params: { path: { id } } });
}

async function update(id: string, fields: Record<string, unknown>, namespace?: string) {
  const answer = await inNamespace(namespace).POST("/identity/mfa/method/pushmfa/{id}", { params: { path: { id } }, body: fields as never });
  nonReadAnswers.push(JSON.stringify(answer.data ?? answer.error ?? null));
  return answer;
}

async function remove(id: string, namespace?: string) {
  const answer = await inNamespace(namespace).DELETE("/identity/mfa/method/pushmfa/{id}", { params: { path: { id } } });
  nonReadAnswers.push(JSON.stringify(answer.error ?? null));
  return answer;
}

async function list(namespace?: string) {
  const answer = await inNamespace(namespace).GET("/identity/mfa/method/pushmfa", { params: { query: { list: "true" } } });
  nonReadAnswers.push(JSON.stringify(answer.data ?? answer.error ?? null));
  return answer;
}

describe("push-MFA methods", () => {
  it("creates a method and answers with its id; the read has the seed's shape with type pushmfa", async () => {
    const created = await create({ ...body, username_format: "{{identity.entity.aliases.auth_userpass_6671d643.name}}@example.com", push_info: "from=secrets", use_passcode: true });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ lease_id: "", renewable: false, lease_duration: 0, data: { method_id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    const id = created.data!.data.method_id;
    const { response, data } = await read(id);
    expect(response.status).toBe(200);
    expect(data!.data).toEqual({
      id,
      type: "pushmfa",
      ...body,
      pushinfo: "from=secrets",
      username_format: "{{identity.entity.aliases.auth_userpass_6671d643.name}}@example.com",
      use_passcode: true,
      namespace_path: "",
    });
  });

  it("takes defaults for what is left out", async () => {
    const { data } = await create();
    expect((await read(data!.data.method_id)).data!.data).toMatchObject({ pushinfo: "", username_format: "", use_passcode: false });
  });

  it("refuses an empty or missing key with 400 and the real system's words for the first of them, creating nothing", async () => {
    const before = (await list()).data!.data.keys;
    const empty = await create({ secret_key: "", integration_key: "", api_hostname: "" });
    expect(empty.response.status).toBe(400);
    expect(empty.error).toEqual({ errors: ["secret_key is empty"] });
    const emptyHost = await create({ ...body, api_hostname: "" });
    expect(emptyHost.error).toEqual({ errors: ["api_hostname is empty"] });
    const missing = await create({ secret_key: "s" });
    expect(missing.response.status).toBe(400);
    expect(missing.error).toEqual({ errors: ["integration_key is empty"] });
    const missingAll = await create({});
    expect(missingAll.error).toEqual({ errors: ["secret_key is empty"] });
    // use_passcode is a TypeBool of the real framework: read before the handler, refused in its words.
    const typed = await create({ ...body, use_passcode: "yes" });
    expect(typed.response.status).toBe(400);
    expect(typed.error).toEqual({ errors: [`Field validation failed: error converting input yes for field "use_passcode": cannot parse '' as bool: strconv.ParseBool: parsing "yes": invalid syntax`] });
    const number = await create({ ...body, use_passcode: 2 } as unknown as typeof body);
    expect(number.error).toEqual({ errors: [`Field validation failed: error converting input 2 for field "use_passcode": cannot parse '' as bool: strconv.ParseBool: parsing "2": invalid syntax`] });
    const listed = await create({ ...body, use_passcode: ["true"] } as unknown as typeof body);
    expect(listed.response.status).toBe(400);
    const raw = await fetch(`${secrets.baseUrl}/identity/mfa/method/pushmfa`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "{" });
    expect(raw.status).toBe(400);
    expect((await list()).data!.data.keys).toEqual(before);
  });

  it("stores username_format as given and blanks as values, as the real system does (the template is rendered at login)", async () => {
    for (const username_format of ["{{identity.entity.email}}", "{{identity.entity.name}", "user-{{x}}@example.com"]) {
      const created = await create({ ...body, username_format });
      expect(created.response.status).toBe(200);
      expect((await read(created.data!.data.method_id)).data!.data.username_format).toBe(username_format);
    }
    const blanks = await create({ secret_key: " ", integration_key: " ", api_hostname: " " });
    expect(blanks.response.status).toBe(200);
    expect((await read(blanks.data!.data.method_id)).data!.data).toMatchObject({ secret_key: " ", integration_key: " ", api_hostname: " " });
  });

  it("updates by id: replaces the settings, keeps username_format when left out; a refused update changes nothing", async () => {
    const { data } = await create({ ...body, username_format: "{{identity.entity.name}}", push_info: "a=b", use_passcode: true });
    const id = data!.data.method_id;
    const updated = await update(id, { ...body, secret_key: "other-secret", api_hostname: "api-2.push.example" });
    expect(updated.response.status).toBe(204);
    expect((await read(id)).data!.data).toMatchObject({ secret_key: "other-secret", api_hostname: "api-2.push.example", username_format: "{{identity.entity.name}}", pushinfo: "", use_passcode: false });
    const refused = await update(id, { ...body, integration_key: "", username_format: "{{identity.entity.id}}" });
    expect(refused.response.status).toBe(400);
    expect(refused.error!.errors).toEqual(["integration_key is empty"]);
    expect((await read(id)).data!.data).toMatchObject({ secret_key: "other-secret", username_format: "{{identity.entity.name}}" });
  });

  // An update of an id that does not exist is 204 and writes nothing, as the real system answers
  // (vault/login_mfa.go handleMFAMethodUpdateCommon returns no response for it: 204 for a write).
  it("answers an unknown id with 404 and an empty error list on read, and with 204 and no change on update", async () => {
    const answer = await read(UNKNOWN);
    expect(answer.response.status).toBe(404);
    expect(answer.error).toEqual({ errors: [] });
    const before = (await list()).data?.data.keys;
    expect((await update(UNKNOWN, body)).response.status).toBe(204);
    expect((await update(UNKNOWN, { ...body, integration_key: "" })).response.status).toBe(204);
    // The description requires the three keys: a body without one is refused even for an unknown id.
    expect((await update(UNKNOWN, { secret_key: "s", integration_key: "i" })).error).toEqual({ errors: ["api_hostname is empty"] });
    expect((await read(UNKNOWN)).response.status).toBe(404);
    expect((await list()).data?.data.keys).toEqual(before);
    const notUuid = await read("not-a-uuid");
    expect(notUuid.response.status).toBe(400);
    expect(notUuid.error!.errors[0]).toMatch(/^path parameter "id": must match format "uuid"/);
  });

  it("deletes a method; deleting an unknown id succeeds", async () => {
    const { data } = await create();
    const id = data!.data.method_id;
    expect((await remove(id)).response.status).toBe(204);
    expect((await read(id)).response.status).toBe(404);
    expect((await list()).data!.data.keys).not.toContain(id);
    expect((await remove(id)).response.status).toBe(204);
    expect((await remove(UNKNOWN)).response.status).toBe(204);
  });

  it("refuses to delete a method a login enforcement uses, naming the enforcement", async () => {
    const refused = await remove(ENFORCED);
    expect(refused.response.status).toBe(400);
    expect(refused.error).toEqual({ errors: [`methodID is still used by an enforcement configuration with ID: ${ENFORCEMENT} (login enforcement "require-push")`] });
    expect((await read(ENFORCED)).data!.data).toMatchObject({ id: ENFORCED, secret_key: "world-secret-1" });
    // It can still be updated.
    expect((await update(ENFORCED, { ...body, secret_key: "world-secret-1" })).response.status).toBe(204);
  });

  it("lists sorted ids and each method's settings but its secret_key, through the client and with a real LIST on the wire", async () => {
    const { data } = await list();
    expect(data!.data.keys).toContain(ENFORCED);
    expect(data!.data.keys).toEqual([...data!.data.keys].sort());
    expect(Object.keys(data!.data.key_info).sort()).toEqual([...data!.data.keys].sort());
    const { secret_key, ...settings } = (await read(ENFORCED)).data!.data;
    expect(secret_key).toBe("world-secret-1");
    expect(data!.data.key_info[ENFORCED]).toEqual(settings);
    const wire = await rawRequest(`${secrets.baseUrl}/identity/mfa/method/pushmfa`, { method: "LIST", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(wire.status).toBe(200);
    expect(JSON.parse(wire.text).data.keys).toEqual(data!.data.keys);
    nonReadAnswers.push(wire.text);
  });

  it("answers an empty list with 404 and no message, as the real system does", async () => {
    const fresh = await startDiscoverySecrets();
    try {
      await expectEmptyList(fresh, "/identity/mfa/method/pushmfa");
    } finally {
      await fresh.close();
    }
  });
});

describe("namespaces", () => {
  let rootMethod: string;
  let teamB: string;
  beforeAll(async () => {
    rootMethod = (await create()).data!.data.method_id;
    teamB = (await create(body, "team-b")).data!.data.method_id;
  });

  it("creates in the request's namespace and lists a namespace's methods and its parents'", async () => {
    expect((await read(teamB, "team-b")).data!.data.namespace_path).toBe("team-b/");
    const fromRoot = (await list()).data!.data.keys;
    expect(fromRoot).toContain(rootMethod);
    expect(fromRoot).not.toContain(teamB);
    expect(fromRoot).not.toContain(TEAM_A_METHOD);
    const fromTeamA = (await list("team-a")).data!.data.keys;
    expect(fromTeamA).toEqual(expect.arrayContaining([rootMethod, ENFORCED, TEAM_A_METHOD]));
    expect(fromTeamA).not.toContain(teamB);
    const fromDev = (await list("/team-a/dev/")).data!.data.keys;
    expect(fromDev).toEqual(expect.arrayContaining([rootMethod, TEAM_A_METHOD]));
    expect((await list("team-b")).data!.data.keys).toEqual(expect.arrayContaining([rootMethod, teamB]));
  });

  it("reads a method from its namespace, its parents and its children, and not from elsewhere", async () => {
    for (const namespace of ["team-a", undefined, "team-a/dev"]) {
      const { response, data } = await read(TEAM_A_METHOD, namespace);
      expect(response.status, String(namespace)).toBe(200);
      expect(data!.data).toMatchObject({ namespace_path: "team-a/", secret_key: "world-secret-2" });
    }
    const elsewhere = await read(TEAM_A_METHOD, "team-b");
    expect(elsewhere.response.status).toBe(404);
    expect(elsewhere.error).toEqual({ errors: [] });
  });

  it("updates and deletes only in the method's own namespace, changing nothing otherwise", async () => {
    for (const namespace of [undefined, "team-a/dev"]) {
      const refusedUpdate = await update(TEAM_A_METHOD, { ...body, secret_key: "x" }, namespace);
      expect(refusedUpdate.response.status).toBe(400);
      expect(refusedUpdate.error).toEqual({ errors: ["request namespace does not match method namespace"] });
      const refusedDelete = await remove(TEAM_A_METHOD, namespace);
      expect(refusedDelete.error).toEqual({ errors: ["request namespace does not match method namespace"] });
    }
    // Not even visible from team-b: still the namespace mismatch, as the real system finds methods by id.
    const fromTeamB = await update(TEAM_A_METHOD, body, "team-b");
    expect(fromTeamB.response.status).toBe(400);
    expect(fromTeamB.error).toEqual({ errors: ["request namespace does not match method namespace"] });
    // Not visible from team-b: a delete there is a delete of nothing.
    expect((await remove(TEAM_A_METHOD, "team-b")).response.status).toBe(204);
    expect((await read(TEAM_A_METHOD, "team-a")).data!.data.secret_key).toBe("world-secret-2");
    expect((await update(TEAM_A_METHOD, { ...body, secret_key: "world-secret-2" }, "team-a")).response.status).toBe(204);
    expect((await remove(teamB, "team-b")).response.status).toBe(204);
    expect((await read(teamB, "team-b")).response.status).toBe(404);
  });

  it("refuses namespaces the server does not know, and malformed ones, with 400", async () => {
    for (const answer of [await list("team-x"), await create(body, "team-a/qa"), await read(rootMethod, "team-x")]) {
      expect(answer.response.status).toBe(400);
    }
    expect((await list("team-x")).error).toEqual({ errors: ['namespace "team-x/" does not exist'] });
    const malformed = await list("team x");
    expect(malformed.response.status).toBe(400);
    expect(malformed.error!.errors[0]).toMatch(/^header parameter "x-secrets-namespace": must match pattern/);
  });
});

describe("permissions", () => {
  it("refuses no token, an unknown token and a token without the capability on all five operations", async () => {
    for (const token of [undefined, "who-is-this", "nothing"]) {
      const c = secrets.as(token);
      const answers = await Promise.all([
        c.POST("/identity/mfa/method/pushmfa", { body }),
        c.POST("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: ENFORCED } }, body }),
        c.GET("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: ENFORCED } } }),
        c.DELETE("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: UNKNOWN } } }),
        c.GET("/identity/mfa/method/pushmfa", { params: { query: { list: "true" } } }),
      ]);
      for (const answer of answers) {
        expect(answer.response.status).toBe(403);
        expect(answer.error).toEqual({ errors: ["permission denied"] });
      }
    }
  });

  it("lets a reader read and list only, and an administrator do everything", async () => {
    const reader = secrets.as("mfa-reader");
    expect((await reader.GET("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: ENFORCED } } })).response.status).toBe(200);
    expect((await reader.GET("/identity/mfa/method/pushmfa", { params: { query: { list: "true" } } })).response.status).toBe(200);
    expect((await reader.POST("/identity/mfa/method/pushmfa", { body })).response.status).toBe(403);
    expect((await reader.DELETE("/identity/mfa/method/pushmfa/{id}", { params: { path: { id: UNKNOWN } } })).response.status).toBe(403);
    const admin = secrets.as("mfa-admin");
    const created = await admin.POST("/identity/mfa/method/pushmfa", { body });
    expect(created.response.status).toBe(200);
    const id = created.data!.data.method_id;
    expect((await admin.POST("/identity/mfa/method/pushmfa/{id}", { params: { path: { id } }, body })).response.status).toBe(204);
    expect((await admin.DELETE("/identity/mfa/method/pushmfa/{id}", { params: { path: { id } } })).response.status).toBe(204);
  });
});
