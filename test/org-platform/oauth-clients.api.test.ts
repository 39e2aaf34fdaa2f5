// OAuth clients through the generated client: every operation as an owner, a member, a team token and
// the organization token; refusals (404), missing or unknown tokens (401) and bad input (422/400),
// each of which changes nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IDS, JSON_API, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";
import { MAX_ERRORS } from "../../server/org-platform/domain/errors.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
// Every case starts from the default world.
beforeEach(() => server.reset());
afterAll(() => server.close());

const ORG = { params: { path: { organization_name: "acme" } } };
const client = (id: string) => ({ params: { path: { oauth_client_id: id } } });

function createBody(attributes: Record<string, unknown> = {}, projects?: { id: string; type: string }[]) {
  return {
    data: {
      type: "oauth-clients",
      attributes: {
        "service-provider": "vcs_a",
        "http-url": "https://vcs-a.example",
        "api-url": "https://api.vcs-a.example",
        "oauth-token-string": "token-string-0123456789",
        ...attributes,
      },
      ...(projects && { relationships: { projects: { data: projects } } }),
    },
  } as never;
}

async function clientIds(token: string = TOKENS.alice): Promise<string[]> {
  const { data } = await server.as(token).GET("/organizations/{organization_name}/oauth-clients", ORG);
  return data!.data.map((c) => c.id);
}

async function readClient(id: string) {
  const { data } = await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", client(id));
  return data!.data;
}

function expectError(error: unknown, status: number, where?: { pointer?: string; parameter?: string }) {
  const errors = (error as { errors: { status: string; source?: object }[] }).errors;
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.map((e) => e.status)).toContain(String(status));
  if (where) expect(errors.map((e) => e.source)).toContainEqual(expect.objectContaining(where));
}

describe("listOAuthClients", () => {
  it("lists every client of the organization, oldest first and unpaginated, for an owner", async () => {
    const { data, response } = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/oauth-clients", ORG);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
    expect(data!.data.map((c) => c.id)).toEqual([IDS.clients.vcsA, IDS.clients.vcsB]);
    expect(data!.meta).toBeUndefined();
    expect(data!.links).toBeUndefined();
    expect(data!.included).toBeUndefined();
    const [vcsA, vcsB] = data!.data;
    expect(vcsA!.attributes).toMatchObject({
      "service-provider": "vcs_a",
      "service-provider-display-name": "VCS A",
      name: "Acme on VCS A",
      "organization-scoped": true,
      "callback-url": `${new URL(server.baseUrl).origin}/auth/5b8c1d2e-4f6a-4b3c-9d7e-1a2b3c4d5e6f/callback`,
      "connect-path": "/auth/5b8c1d2e-4f6a-4b3c-9d7e-1a2b3c4d5e6f?organization_id=org-Ud2mTq8xKw5nRb3J",
    });
    expect(vcsA!.relationships.organization).toEqual({ data: { id: "acme", type: "organizations" }, links: { related: "/api/v2/organizations/acme" } });
    expect(vcsA!.relationships["oauth-tokens"]).toEqual({
      data: [{ id: IDS.tokens.vcsA, type: "oauth-tokens" }],
      links: { related: `/api/v2/oauth-tokens/${IDS.tokens.vcsA}` },
    });
    expect(vcsB!.attributes["service-provider-display-name"]).toBe("VCS B");
    expect(vcsB!.relationships.projects.data).toEqual([{ id: IDS.projects.platform, type: "projects" }]);
  });

  it("is readable by any member and by the organization's tokens", async () => {
    for (const token of [TOKENS.bob, TOKENS.carol, TOKENS.acme, TOKENS.acmeOwners, TOKENS.acmeDevelopers]) {
      expect(await clientIds(token)).toEqual([IDS.clients.vcsA, IDS.clients.vcsB]);
    }
  });

  it("fills included with the requested tokens and projects", async () => {
    const { data } = await server.as(TOKENS.bob).GET("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" }, query: { include: ["oauth_tokens", "projects"] } },
    });
    const included = data!.included!;
    expect(included.map((r) => `${r.type}/${r.id}`).sort()).toEqual(
      [`oauth-tokens/${IDS.tokens.vcsA}`, `oauth-tokens/${IDS.tokens.vcsB}`, `projects/${IDS.projects.platform}`].sort(),
    );
    const token = included.find((r) => r.id === IDS.tokens.vcsB)!;
    expect(token).toMatchObject({
      type: "oauth-tokens",
      attributes: { "service-provider-user": "platform-bot", "has-ssh-key": false },
      relationships: { "oauth-client": { data: { id: IDS.clients.vcsB, type: "oauth-clients" } } },
      links: { self: `/api/v2/oauth-tokens/${IDS.tokens.vcsB}` },
    });
    const project = included.find((r) => r.type === "projects")!;
    expect(project).toMatchObject({ attributes: { name: "platform", description: "Shared platform infrastructure" } });
  });

  it("refuses an include value it does not offer with 400 naming the parameter", async () => {
    const { error, response } = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" }, query: { include: ["organization"] as never } },
    });
    expect(response.status).toBe(400);
    expectError(error, 400, { parameter: "include" });
  });

  it("answers 404 for an unknown organization and for callers outside the organization", async () => {
    const unknown = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/oauth-clients", { params: { path: { organization_name: "nope" } } });
    expect(unknown.response.status).toBe(404);
    expectError(unknown.error, 404);
    // erin is in globex only, dave is invited but has not accepted, the tokens belong to other organizations.
    for (const token of [TOKENS.erin, TOKENS.dave, TOKENS.globex, TOKENS.globexOwners]) {
      const { response } = await server.as(token).GET("/organizations/{organization_name}/oauth-clients", ORG);
      expect(response.status).toBe(404);
    }
  });

  it("answers 401 without a token or with an unknown one", async () => {
    for (const token of [undefined, "not-a-token.atlasv1.nope"]) {
      const { error, response } = await server.as(token).GET("/organizations/{organization_name}/oauth-clients", ORG);
      expect(response.status).toBe(401);
      expectError(error, 401);
    }
  });
});

describe("readOAuthClient", () => {
  it("shows one client to members and tokens of its organization", async () => {
    for (const token of [TOKENS.alice, TOKENS.bob, TOKENS.acme, TOKENS.acmeDevelopers]) {
      const { data, response } = await server.as(token).GET("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsB));
      expect(response.status).toBe(200);
      expect(data!.data).toMatchObject({ id: IDS.clients.vcsB, type: "oauth-clients", attributes: { key: "platform-app", name: null, "organization-scoped": false } });
      expect(data!.included).toBeUndefined();
    }
  });

  it("includes its OAuth tokens and projects on request", async () => {
    const { data } = await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: IDS.clients.vcsB }, query: { include: ["projects"] } },
    });
    expect(data!.included!.map((r) => r.id)).toEqual([IDS.projects.platform]);
    const tokens = await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: IDS.clients.vcsA }, query: { include: ["oauth_tokens"] } },
    });
    expect(tokens.data!.included!.map((r) => r.id)).toEqual([IDS.tokens.vcsA]);
  });

  it("answers 404 for an unknown client and for a caller outside its organization", async () => {
    expect((await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", client("oc-doesnotexist0000"))).response.status).toBe(404);
    for (const token of [TOKENS.erin, TOKENS.dave, TOKENS.globex]) {
      const { response, error } = await server.as(token).GET("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA));
      expect(response.status).toBe(404);
      expectError(error, 404);
    }
  });

  it("answers 401 without a token and 400 for an unknown include", async () => {
    expect((await server.as().GET("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA))).response.status).toBe(401);
    const { response } = await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: IDS.clients.vcsA }, query: { include: ["users"] as never } },
    });
    expect(response.status).toBe(400);
  });
});

describe("createOAuthClient", () => {
  it("creates a client with one OAuth token made from oauth-token-string (201)", async () => {
    const before = Date.now();
    const { data, response } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: createBody({ name: "Data on VCS A" }, [{ id: IDS.projects.data, type: "projects" }]),
    });
    expect(response.status).toBe(201);
    const created = data!.data;
    expect(created.id).toMatch(/^oc-[A-Za-z0-9]{16}$/);
    expect(created.attributes["created-at"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(created.attributes["created-at"])).toBeGreaterThanOrEqual(before - 1000);
    expect(created.attributes).toMatchObject({
      "service-provider": "vcs_a",
      "service-provider-display-name": "VCS A",
      name: "Data on VCS A",
      key: null,
      "rsa-public-key": null,
      // Defaults to true.
      "organization-scoped": true,
      "http-url": "https://vcs-a.example",
      "api-url": "https://api.vcs-a.example",
    });
    const uuid = /\/auth\/([0-9a-f-]{36})\/callback$/.exec(created.attributes["callback-url"])?.[1];
    expect(uuid).toBeDefined();
    expect(created.attributes["callback-url"]).toBe(`${new URL(server.baseUrl).origin}/auth/${uuid}/callback`);
    expect(created.attributes["connect-path"]).toBe(`/auth/${uuid}?organization_id=org-Ud2mTq8xKw5nRb3J`);
    expect(created.relationships.projects.data).toEqual([{ id: IDS.projects.data, type: "projects" }]);
    const tokens = created.relationships["oauth-tokens"].data;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.id).toMatch(/^ot-[A-Za-z0-9]{16}$/);
    expect(created.relationships["oauth-tokens"].links).toEqual({ related: `/api/v2/oauth-tokens/${tokens[0]!.id}` });

    expect(await clientIds()).toEqual([IDS.clients.vcsA, IDS.clients.vcsB, created.id]);
    const read = await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: created.id }, query: { include: ["oauth_tokens"] } },
    });
    expect(read.data!.included).toEqual([
      expect.objectContaining({ id: tokens[0]!.id, attributes: { "created-at": created.attributes["created-at"], "service-provider-user": null, "has-ssh-key": false } }),
    ]);
  });

  it("lets members and tokens with the manage-VCS-settings permission create clients", async () => {
    // carol and the platform team token through the platform team; the organization token and the owners-team token as owners.
    for (const token of [TOKENS.carol, TOKENS.acmePlatform, TOKENS.acme, TOKENS.acmeOwners]) {
      const { response } = await server.as(token).POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: createBody() });
      expect(response.status).toBe(201);
    }
    expect(await clientIds()).toHaveLength(6);
  });

  it("answers 404 to callers without the permission, and creates nothing", async () => {
    for (const token of [TOKENS.bob, TOKENS.acmeDevelopers, TOKENS.erin, TOKENS.dave, TOKENS.globex]) {
      const { response, error } = await server.as(token).POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: createBody() });
      expect(response.status).toBe(404);
      expectError(error, 404);
    }
    const unknown = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", { params: { path: { organization_name: "nope" } }, body: createBody() });
    expect(unknown.response.status).toBe(404);
    expect(await clientIds()).toEqual([IDS.clients.vcsA, IDS.clients.vcsB]);
  });

  it("answers 401 without a token, before looking at the body", async () => {
    const { response } = await server.as().POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: { data: {} } as never });
    expect(response.status).toBe(401);
  });

  const invalid: [string, Record<string, unknown>, string, { id: string; type: string }[]?][] = [
    ["a missing service-provider", { "service-provider": undefined }, "/data/attributes/service-provider"],
    ["an unknown service-provider", { "service-provider": "vcs_d_cloud" }, "/data/attributes/service-provider"],
    ["a provider that cannot be created here", { "service-provider": "bitbucket_hosted" }, "/data/attributes/service-provider"],
    ["a missing oauth-token-string", { "oauth-token-string": undefined }, "/data/attributes/oauth-token-string"],
    ["an empty oauth-token-string", { "oauth-token-string": "" }, "/data/attributes/oauth-token-string"],
    ["a missing http-url", { "http-url": undefined }, "/data/attributes/http-url"],
    ["a missing api-url", { "api-url": undefined }, "/data/attributes/api-url"],
    ["an http-url that is not a URL", { "http-url": "not a url" }, "/data/attributes/http-url"],
    ["a non-boolean organization-scoped", { "organization-scoped": "yes" }, "/data/attributes/organization-scoped"],
    ["a number as name", { name: 5 }, "/data/attributes/name"],
    ["vcs_c_server without private-key", { "service-provider": "vcs_c_server" }, "/data/attributes/private-key"],
    ["rsa-public-key without secret", { "rsa-public-key": "ssh-rsa AAAA" }, "/data/attributes/secret"],
    ["an unknown project", {}, "/data/relationships/projects/data/0/id", [{ id: "prj-doesnotexist0000", type: "projects" }]],
    ["a project of another organization", {}, "/data/relationships/projects/data/1/id", [{ id: IDS.projects.default, type: "projects" }, { id: IDS.projects.globex, type: "projects" }]],
    ["a project identifier of the wrong type", {}, "/data/relationships/projects/data/0/type", [{ id: IDS.projects.default, type: "workspaces" }]],
  ];
  for (const [name, attributes, pointer, projects] of invalid) {
    it(`refuses ${name} with 422 at ${pointer}, and creates nothing`, async () => {
      const { response, error } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: createBody(attributes, projects) });
      expect(response.status).toBe(422);
      expectError(error, 422, { pointer });
      expect(await clientIds()).toEqual([IDS.clients.vcsA, IDS.clients.vcsB]);
    });
  }

  it("refuses a wrong data.type and a document without data with 422", async () => {
    const wrongType = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: { data: { type: "teams", attributes: (createBody() as { data: { attributes: object } }).data.attributes } } as never,
    });
    expect(wrongType.response.status).toBe(422);
    expectError(wrongType.error, 422, { pointer: "/data/type" });
    const noData = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: {} as never });
    expect(noData.response.status).toBe(422);
    expectError(noData.error, 422, { pointer: "/data" });
    expect(await clientIds()).toHaveLength(2);
  });

  it("creates a vcs_c_server client when private-key is given, and never returns it", async () => {
    const { data, response } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: createBody({ "service-provider": "vcs_c_server", "private-key": "-----BEGIN KEY----- private-key-text" }),
    });
    expect(response.status).toBe(201);
    expect(data!.data.attributes["service-provider-display-name"]).toBe("VCS C Server");
    expect(server.service.store.oauthClient(data!.data.id)?.privateKey).toBe("-----BEGIN KEY----- private-key-text");
  });

  it("ignores private-key for providers that do not use it", async () => {
    const { data, response } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: createBody({ "service-provider": "vcs_b_community_edition", "private-key": "unused-private-key-text" }),
    });
    expect(response.status).toBe(201);
    expect(server.service.store.oauthClient(data!.data.id)?.privateKey).toBeUndefined();
  });

  it("stores secret with rsa-public-key, returning only the public key", async () => {
    const { data, response } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: createBody({ key: "consumer-key", secret: "client-secret-value-123", "rsa-public-key": "ssh-rsa AAAAB3Nza public" }),
    });
    expect(response.status).toBe(201);
    expect(data!.data.attributes).toMatchObject({ key: "consumer-key", "rsa-public-key": "ssh-rsa AAAAB3Nza public" });
    expect(server.service.store.oauthClient(data!.data.id)?.secret).toBe("client-secret-value-123");
  });

  it("scopes a client to projects when organization-scoped is false", async () => {
    const { data } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      ...ORG,
      body: createBody({ "organization-scoped": false }, [
        { id: IDS.projects.platform, type: "projects" },
        { id: IDS.projects.platform, type: "projects" },
        { id: IDS.projects.data, type: "projects" },
      ]),
    });
    expect(data!.data.attributes["organization-scoped"]).toBe(false);
    // A project named twice is attached once.
    expect(data!.data.relationships.projects.data.map((p) => p.id)).toEqual([IDS.projects.platform, IDS.projects.data]);
  });

  it("refuses malformed JSON and a missing body with 422, a body of another media type with 415, creating nothing", async () => {
    const post = (body: string | undefined, contentType?: string) =>
      server.fetch("/organizations/acme/oauth-clients", { method: "POST", token: TOKENS.alice, body, headers: contentType ? { "Content-Type": contentType } : {} });
    const valid = JSON.stringify(createBody());
    const cases: [Response, number, string | undefined][] = [
      [await post("{\"data\": {", JSON_API), 422, ""],
      [await post(valid, "text/plain"), 415, undefined],
      [await post(valid, "application/json"), 415, undefined],
      // fetch sends a string body as text/plain when no type is given.
      [await post(valid), 415, undefined],
      [await post(undefined, JSON_API), 422, "/data"],
      [await post(undefined), 422, "/data"],
      [await post("[]", JSON_API), 422, ""],
    ];
    for (const [response, status, pointer] of cases) {
      expect(response.status).toBe(status);
      expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
      const body = (await response.json()) as { errors: { status: string; source: { pointer: string } }[] };
      if (status === 422) expect(body.errors[0]).toMatchObject({ status: "422", source: { pointer } });
      else expect(body.errors[0]).toEqual({ status: "415", title: "invalid content type", detail: "content-type must be application/vnd.api+json" });
    }
    expect(await clientIds()).toHaveLength(2);
  });

});

describe("updateOAuthClient", () => {
  const patch = (token: string, id: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    server.as(token).PATCH("/oauth-clients/{oauth_client_id}", { ...client(id), body: { data: { type: "oauth-clients", attributes, ...extra } } as never });

  it("changes what is sent and keeps everything else", async () => {
    const { data, response } = await patch(TOKENS.alice, IDS.clients.vcsB, { name: "Platform on VCS B", key: "platform-app-2" });
    expect(response.status).toBe(200);
    expect(data!.data.attributes).toMatchObject({
      name: "Platform on VCS B",
      key: "platform-app-2",
      "organization-scoped": false,
      "service-provider": "vcs_b_hosted",
      "http-url": "https://vcs-b.example",
      "created-at": "2023-03-15T14:30:00.000Z",
    });
    expect(data!.data.relationships.projects.data).toEqual([{ id: IDS.projects.platform, type: "projects" }]);
    expect(data!.data.relationships["oauth-tokens"].data).toEqual([{ id: IDS.tokens.vcsB, type: "oauth-tokens" }]);
    expect((await readClient(IDS.clients.vcsB)).attributes.name).toBe("Platform on VCS B");
  });

  it("resets the display name with name: null and toggles organization-scoped", async () => {
    const { data } = await patch(TOKENS.alice, IDS.clients.vcsA, { name: null, "organization-scoped": false });
    expect(data!.data.attributes).toMatchObject({ name: null, "organization-scoped": false, "service-provider-display-name": "VCS A" });
  });

  it("replaces the projects, and an empty list clears them", async () => {
    const replaced = await patch(TOKENS.alice, IDS.clients.vcsB, {}, { relationships: { projects: { data: [{ id: IDS.projects.data, type: "projects" }] } } });
    expect(replaced.data!.data.relationships.projects.data).toEqual([{ id: IDS.projects.data, type: "projects" }]);
    const cleared = await patch(TOKENS.alice, IDS.clients.vcsB, {}, { relationships: { projects: { data: [] } } });
    expect(cleared.data!.data.relationships.projects.data).toEqual([]);
    expect((await readClient(IDS.clients.vcsB)).relationships.projects.data).toEqual([]);
  });

  it("stores secret and rsa-public-key together and returns only the public key", async () => {
    const { data } = await patch(TOKENS.alice, IDS.clients.vcsA, { secret: "new-client-secret-456", "rsa-public-key": "ssh-rsa AAAA new" });
    expect(data!.data.attributes["rsa-public-key"]).toBe("ssh-rsa AAAA new");
    expect(server.service.store.oauthClient(IDS.clients.vcsA)?.secret).toBe("new-client-secret-456");
  });

  it("ignores attributes that cannot be changed, and accepts data.id when it is the client's", async () => {
    const { data, response } = await patch(TOKENS.alice, IDS.clients.vcsA, { "service-provider": "vcs_c_server", "http-url": "https://elsewhere.example" }, { id: IDS.clients.vcsA });
    expect(response.status).toBe(200);
    expect(data!.data.attributes).toMatchObject({ "service-provider": "vcs_a", "http-url": "https://vcs-a.example" });
  });

  it("lets the manage-VCS-settings holders and the organization token update", async () => {
    for (const [token, name] of [[TOKENS.carol, "by-carol"], [TOKENS.acmePlatform, "by-platform"], [TOKENS.acme, "by-org"], [TOKENS.acmeOwners, "by-owners"]] as const) {
      const { response } = await patch(token, IDS.clients.vcsA, { name });
      expect(response.status).toBe(200);
      expect((await readClient(IDS.clients.vcsA)).attributes.name).toBe(name);
    }
  });

  it("answers 404 to callers who may read but not change it, and to outsiders; nothing changes", async () => {
    for (const token of [TOKENS.bob, TOKENS.acmeDevelopers, TOKENS.erin, TOKENS.dave, TOKENS.globex]) {
      const { response, error } = await patch(token, IDS.clients.vcsA, { name: "hijacked" });
      expect(response.status).toBe(404);
      expectError(error, 404);
    }
    expect((await patch(TOKENS.alice, "oc-doesnotexist0000", { name: "x" })).response.status).toBe(404);
    expect((await readClient(IDS.clients.vcsA)).attributes.name).toBe("Acme on VCS A");
  });

  it("answers 401 without a token", async () => {
    expect((await server.as().PATCH("/oauth-clients/{oauth_client_id}", { ...client(IDS.clients.vcsA), body: { data: { type: "oauth-clients" } } })).response.status).toBe(401);
  });

  const invalid: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ["a wrong data.type", {}, { type: "teams" }, "/data/type"],
    ["rsa-public-key without secret", { "rsa-public-key": "ssh-rsa AAAA" }, {}, "/data/attributes/secret"],
    ["a non-boolean organization-scoped", { "organization-scoped": "no" }, {}, "/data/attributes/organization-scoped"],
    ["a number as key", { key: 42 }, {}, "/data/attributes/key"],
    ["a data.id that is another client's", {}, { id: IDS.clients.vcsB }, "/data/id"],
    ["an unknown project", {}, { relationships: { projects: { data: [{ id: "prj-doesnotexist0000", type: "projects" }] } } }, "/data/relationships/projects/data/0/id"],
  ];
  for (const [name, attributes, extra, pointer] of invalid) {
    it(`refuses ${name} with 422 at ${pointer}, and changes nothing`, async () => {
      const { response, error } = await server.as(TOKENS.alice).PATCH("/oauth-clients/{oauth_client_id}", {
        ...client(IDS.clients.vcsA),
        body: { data: { type: "oauth-clients", attributes: { name: "changed", ...attributes }, ...extra } } as never,
      });
      expect(response.status).toBe(422);
      expectError(error, 422, { pointer });
      const after = await readClient(IDS.clients.vcsA);
      expect(after.attributes.name).toBe("Acme on VCS A");
      expect(after.relationships.projects.data).toEqual([]);
    });
  }
});

describe("deleteOAuthClient", () => {
  it("deletes the client and its OAuth tokens (204)", async () => {
    const { response, data } = await server.as(TOKENS.alice).DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA));
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    expect(await clientIds()).toEqual([IDS.clients.vcsB]);
    expect((await server.as(TOKENS.alice).GET("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA))).response.status).toBe(404);
    expect(server.service.store.oauthTokens(IDS.clients.vcsA)).toEqual([]);
    // Deleting it again: it is gone.
    expect((await server.as(TOKENS.alice).DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA))).response.status).toBe(404);
  });

  it("lets the organization token and a manage-VCS-settings member delete", async () => {
    expect((await server.as(TOKENS.acme).DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA))).response.status).toBe(204);
    expect((await server.as(TOKENS.carol).DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsB))).response.status).toBe(204);
    expect(await clientIds()).toEqual([]);
  });

  it("answers 404 to callers without the permission and 401 without a token; nothing is deleted", async () => {
    for (const token of [TOKENS.bob, TOKENS.acmeDevelopers, TOKENS.erin, TOKENS.globex]) {
      const { response, error } = await server.as(token).DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA));
      expect(response.status).toBe(404);
      expectError(error, 404);
    }
    expect((await server.as().DELETE("/oauth-clients/{oauth_client_id}", client(IDS.clients.vcsA))).response.status).toBe(401);
    expect((await server.as(TOKENS.alice).DELETE("/oauth-clients/{oauth_client_id}", client("oc-doesnotexist0000"))).response.status).toBe(404);
    expect(await clientIds()).toEqual([IDS.clients.vcsA, IDS.clients.vcsB]);
    expect(server.service.store.oauthTokens(IDS.clients.vcsA)).toHaveLength(1);
  });
});

describe("attachOAuthClientProjects and detachOAuthClientProjects", () => {
  const projects = (...ids: string[]) => ({ data: ids.map((id) => ({ id, type: "projects" as const })) });
  const attach = (token: string, id: string, body: unknown) =>
    server.as(token).POST("/oauth-clients/{oauth_client_id}/relationships/projects", { ...client(id), body: body as never });
  const detach = (token: string, id: string, body: unknown) =>
    server.as(token).DELETE("/oauth-clients/{oauth_client_id}/relationships/projects", { ...client(id), body: body as never });
  const projectIds = async (id: string) => (await readClient(id)).relationships.projects.data.map((p) => p.id);

  it("attaches projects (204), once each", async () => {
    const { response, data } = await attach(TOKENS.alice, IDS.clients.vcsB, projects(IDS.projects.default, IDS.projects.platform, IDS.projects.data));
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform, IDS.projects.default, IDS.projects.data]);
  });

  it("detaches projects (204); a project that is not attached changes nothing", async () => {
    await attach(TOKENS.alice, IDS.clients.vcsB, projects(IDS.projects.data));
    const { response } = await detach(TOKENS.alice, IDS.clients.vcsB, projects(IDS.projects.platform, IDS.projects.default));
    expect(response.status).toBe(204);
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.data]);
  });

  it("lets manage-VCS-settings holders and the organization token attach and detach", async () => {
    expect((await attach(TOKENS.carol, IDS.clients.vcsA, projects(IDS.projects.default))).response.status).toBe(204);
    expect((await attach(TOKENS.acme, IDS.clients.vcsA, projects(IDS.projects.data))).response.status).toBe(204);
    expect((await detach(TOKENS.acmePlatform, IDS.clients.vcsA, projects(IDS.projects.default))).response.status).toBe(204);
    expect(await projectIds(IDS.clients.vcsA)).toEqual([IDS.projects.data]);
  });

  it("refuses an unknown project or one of another organization with 422 and attaches none of the list", async () => {
    for (const [body, pointer] of [
      [projects(IDS.projects.default, "prj-doesnotexist0000"), "/data/1/id"],
      [projects(IDS.projects.globex), "/data/0/id"],
    ] as const) {
      const { response, error } = await attach(TOKENS.alice, IDS.clients.vcsB, body);
      expect(response.status).toBe(422);
      expectError(error, 422, { pointer });
    }
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform]);
    const detached = await detach(TOKENS.alice, IDS.clients.vcsB, projects(IDS.projects.platform, "prj-doesnotexist0000"));
    expect(detached.response.status).toBe(422);
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform]);
  });

  it("refuses a wrong type and a malformed document with 422", async () => {
    for (const send of [attach, detach]) {
      const wrongType = await send(TOKENS.alice, IDS.clients.vcsB, { data: [{ id: IDS.projects.platform, type: "workspaces" }] });
      expect(wrongType.response.status).toBe(422);
      expectError(wrongType.error, 422, { pointer: "/data/0/type" });
      const notAList = await send(TOKENS.alice, IDS.clients.vcsB, { data: { id: IDS.projects.platform, type: "projects" } });
      expect(notAList.response.status).toBe(422);
      expectError(notAList.error, 422, { pointer: "/data" });
      const missingId = await send(TOKENS.alice, IDS.clients.vcsB, { data: [{ type: "projects" }] });
      expect(missingId.response.status).toBe(422);
      expectError(missingId.error, 422, { pointer: "/data/0/id" });
    }
    const noBody = await server.fetch(`/oauth-clients/${IDS.clients.vcsB}/relationships/projects`, { method: "POST", token: TOKENS.alice });
    expect(noBody.status).toBe(422);
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform]);
  });

  it("lists the first 100 problems of a document with more: 1 MiB of wrong items is not answered with 500,000 errors", async () => {
    const wrong = Array.from({ length: 400_000 }, (_, i) => (i === 3 ? { id: IDS.projects.data, type: "projects" } : 1));
    const { response, error } = await attach(TOKENS.alice, IDS.clients.vcsB, { data: wrong });
    expect(response.status).toBe(422);
    const errors = (error as { errors: { status: string; detail: string; source: { pointer: string } }[] }).errors;
    expect(errors).toHaveLength(MAX_ERRORS);
    // The first ones, in order (the one valid item names no problem).
    expect(errors.map((e) => e.source.pointer)).toEqual([0, 1, 2, ...Array.from({ length: 97 }, (_, i) => i + 4)].map((i) => `/data/${i}`));
    expect(errors[0]).toEqual({ status: "422", title: "invalid attribute", detail: "data must be object", source: { pointer: "/data/0" } });
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform]);
    // Fewer than the limit: every one.
    const few = await attach(TOKENS.alice, IDS.clients.vcsB, { data: [1, { id: IDS.projects.data, type: "projects" }, "x"] });
    expect((few.error as { errors: { source: { pointer: string } }[] }).errors.map((e) => e.source.pointer)).toEqual(["/data/0", "/data/2"]);
  });

  it("answers 404 to callers without the permission, for unknown clients, and 401 without a token", async () => {
    for (const token of [TOKENS.bob, TOKENS.acmeDevelopers, TOKENS.erin, TOKENS.globex]) {
      expect((await attach(token, IDS.clients.vcsB, projects(IDS.projects.default))).response.status).toBe(404);
      expect((await detach(token, IDS.clients.vcsB, projects(IDS.projects.platform))).response.status).toBe(404);
    }
    expect((await attach(TOKENS.alice, "oc-doesnotexist0000", projects(IDS.projects.default))).response.status).toBe(404);
    expect((await detach(TOKENS.alice, "oc-doesnotexist0000", projects(IDS.projects.default))).response.status).toBe(404);
    expect((await attach("", IDS.clients.vcsB, projects(IDS.projects.default))).response.status).toBe(401);
    expect((await detach("", IDS.clients.vcsB, projects(IDS.projects.default))).response.status).toBe(401);
    expect(await projectIds(IDS.clients.vcsB)).toEqual([IDS.projects.platform]);
  });
});
