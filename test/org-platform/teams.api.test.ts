// Teams through the generated client: visibility of secret teams, permissions that reflect the
// caller, the cascade rules, the owners team, paid features, and every refusal and validation error.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { WorldFile } from "../../server/org-platform/domain/world.ts";
import { IDS, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
// Every case starts from the default world.
beforeEach(() => server.reset());
afterAll(() => server.close());

const org = (organization_name: string) => ({ params: { path: { organization_name } } });
const team = (team_id: string) => ({ params: { path: { team_id } } });
const ALL_FALSE = {
  "manage-policies": false,
  "manage-policy-overrides": false,
  "manage-run-tasks": false,
  "manage-workspaces": false,
  "manage-vcs-settings": false,
  "manage-providers": false,
  "manage-modules": false,
  "manage-projects": false,
  "read-projects": false,
  "read-workspaces": false,
  "manage-membership": false,
};
const ALL_PERMISSIONS = {
  "can-update-membership": true,
  "can-destroy": true,
  "can-update-organization-access": true,
  "can-update-api-token": true,
  "can-update-visibility": true,
};
const NO_PERMISSIONS = Object.fromEntries(Object.keys(ALL_PERMISSIONS).map((k) => [k, false]));

async function teamNames(token: string, organization = "acme"): Promise<string[]> {
  const { data, response } = await server.as(token).GET("/organizations/{organization_name}/teams", org(organization));
  expect(response.status).toBe(200);
  return data!.data.map((t) => t.attributes.name);
}

function createTeam(token: string, attributes: Record<string, unknown>, organization = "acme") {
  return server.as(token).POST("/organizations/{organization_name}/teams", { ...org(organization), body: { data: { type: "teams", attributes } } as never });
}

function updateTeam(token: string, id: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return server.as(token).PATCH("/teams/{team_id}", { ...team(id), body: { data: { type: "teams", attributes, ...extra } } as never });
}

async function readAsOwner(id: string) {
  const { data } = await server.as(TOKENS.alice).GET("/teams/{team_id}", team(id));
  return data!.data;
}

function expectError(error: unknown, status: number, pointer?: string) {
  const errors = (error as { errors: { status: string; detail?: string; source?: { pointer?: string } }[] }).errors;
  expect(errors.map((e) => e.status)).toContain(String(status));
  if (pointer !== undefined) expect(errors.map((e) => e.source?.pointer)).toContain(pointer);
  return errors;
}

/** A refusal with `status`, said in the platform's error envelope. */
async function expectRefusal(answer: Promise<{ response: Response; error?: unknown }>, status: number) {
  const { response, error } = await answer;
  expect(response.status).toBe(status);
  expectError(error, status);
}

describe("listTeams", () => {
  it("shows an owner every team, by name, in a page of 20", async () => {
    const { data, response } = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/teams", org("acme"));
    expect(response.status).toBe(200);
    expect(data!.data.map((t) => t.attributes.name)).toEqual(["developers", "owners", "platform", "security"]);
    expect(data!.meta.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 4 });
    expect(data!.links.self).toBe(`${server.baseUrl}/organizations/acme/teams?page%5Bnumber%5D=1&page%5Bsize%5D=20`);
  });

  it("lists every write at once, in name order (ignoring case): a created, a renamed and a deleted team", async () => {
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security"]);
    const created = await createTeam(TOKENS.alice, { name: "Alpha" });
    expect(created.response.status).toBe(200);
    expect(await teamNames(TOKENS.alice)).toEqual(["Alpha", "developers", "owners", "platform", "security"]);
    expect((await updateTeam(TOKENS.alice, created.data!.data.id, { name: "zeta" })).response.status).toBe(200);
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security", "zeta"]);
    expect((await updateTeam(TOKENS.alice, IDS.teams.platform, { name: "Dev" })).response.status).toBe(200);
    expect(await teamNames(TOKENS.alice)).toEqual(["Dev", "developers", "owners", "security", "zeta"]);
    expect((await server.as(TOKENS.alice).DELETE("/teams/{team_id}", team(IDS.teams.platform))).response.status).toBe(204);
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "security", "zeta"]);
    // A member's view of the same organization, after the owner's writes.
    expect(await teamNames(TOKENS.carol)).toEqual(["developers"]);
  });

  it("shows a member the visible teams and the secret teams they belong to", async () => {
    expect(await teamNames(TOKENS.bob)).toEqual(["developers"]);
    expect(await teamNames(TOKENS.carol)).toEqual(["developers", "platform"]);
  });

  it("shows a team token the visible teams and its own; the organization and owners-team tokens see all", async () => {
    expect(await teamNames(TOKENS.acmeDevelopers)).toEqual(["developers"]);
    expect(await teamNames(TOKENS.acmePlatform)).toEqual(["developers", "platform"]);
    expect(await teamNames(TOKENS.acme)).toEqual(["developers", "owners", "platform", "security"]);
    expect(await teamNames(TOKENS.acmeOwners)).toEqual(["developers", "owners", "platform", "security"]);
  });

  it("counts and lists only members who accepted (dave is invited to developers)", async () => {
    const { data } = await server.as(TOKENS.bob).GET("/organizations/{organization_name}/teams", org("acme"));
    const developers = data!.data[0]!;
    expect(developers.attributes["users-count"]).toBe(2);
    expect(developers.relationships.users.data).toEqual([
      { id: IDS.users.bob, type: "users" },
      { id: IDS.users.carol, type: "users" },
    ]);
    expect(developers.relationships["authentication-token"]).toEqual({ meta: {} });
    expect(developers.links.self).toBe(`/api/v2/teams/${IDS.teams.developers}`);
  });

  it("gives each team the permissions of the caller", async () => {
    const as = async (token: string) =>
      Object.fromEntries(
        (await server.as(token).GET("/organizations/{organization_name}/teams", org("acme"))).data!.data.map((t) => [t.attributes.name, t.attributes.permissions]),
      );
    const owner = await as(TOKENS.alice);
    expect(owner.developers).toEqual(ALL_PERMISSIONS);
    // The owners team can be neither destroyed nor given other permissions.
    expect(owner.owners).toEqual({ ...ALL_PERMISSIONS, "can-destroy": false, "can-update-organization-access": false });
    expect((await as(TOKENS.acme)).security).toEqual(ALL_PERMISSIONS);
    expect((await as(TOKENS.bob)).developers).toEqual(NO_PERMISSIONS);
    // carol's platform team has manage-membership.
    expect((await as(TOKENS.carol)).developers).toEqual({ ...NO_PERMISSIONS, "can-update-membership": true });
  });

  it("searches names with q, ignoring case", async () => {
    const search = async (q: string, token: string = TOKENS.alice) =>
      (await server.as(token).GET("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" }, query: { q } } })).data!.data.map(
        (t) => t.attributes.name,
      );
    expect(await search("DEV")).toEqual(["developers"]);
    expect(await search("r")).toEqual(["developers", "owners", "platform", "security"].filter((n) => n.includes("r")));
    expect(await search("cur")).toEqual(["security"]);
    expect(await search("cur", TOKENS.bob)).toEqual([]);
    expect(await search("nothing")).toEqual([]);
  });

  it("takes a q whose reserved characters are not percent-encoded, as the platform does", async () => {
    // encodeURIComponent (so the generated client) leaves !'()* as they are: q=dev's(*)! is sent.
    const quoted = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" }, query: { q: "dev's(*)!" } } });
    expect(quoted.response.status).toBe(200);
    expect(quoted.data!.data).toEqual([]);
    const raw = await server.fetch("/organizations/acme/teams?q=@:/$,;d", { token: TOKENS.alice });
    expect(raw.status).toBe(200);
    expect(((await raw.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it("filters by a comma-separated list of exact names, and combines it with q", async () => {
    const filter = async (names: string, q?: string, token: string = TOKENS.alice) =>
      (
        await server.as(token).GET("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" }, query: { filter: { names }, q } } })
      ).data!.data.map((t) => t.attributes.name);
    expect(await filter("owners,security,unknown")).toEqual(["owners", "security"]);
    expect(await filter("owner")).toEqual([]);
    expect(await filter("owners,developers", "dev")).toEqual(["developers"]);
    // Secret teams stay hidden from members whatever the filter says.
    expect(await filter("owners,security", undefined, TOKENS.bob)).toEqual([]);
  });

  it("accepts percent-encoded brackets", async () => {
    const response = await server.fetch("/organizations/acme/teams?filter%5Bnames%5D=owners%2Cplatform&page%5Bsize%5D=1&page%5Bnumber%5D=2", { token: TOKENS.alice });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { attributes: { name: string } }[]; meta: { pagination: object } };
    expect(body.data.map((t) => t.attributes.name)).toEqual(["platform"]);
    expect(body.meta.pagination).toMatchObject({ "current-page": 2, "page-size": 1, "total-count": 2 });
  });

  it("includes the full records of the members on request", async () => {
    const { data } = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/teams", {
      params: { path: { organization_name: "acme" }, query: { include: ["users", "organization-memberships"] } },
    });
    const included = data!.included!;
    expect(included.filter((r) => r.type === "users").map((r) => r.id)).toEqual([IDS.users.bob, IDS.users.carol, IDS.users.alice]);
    expect(included.filter((r) => r.type === "organization-memberships").map((r) => r.id)).toEqual([IDS.memberships.bob, IDS.memberships.carol, IDS.memberships.alice]);
    expect(included.map((r) => r.id)).not.toContain(IDS.users.dave);
    expect(included.map((r) => r.id)).not.toContain(IDS.memberships.dave);
  });

  it("refuses an include value it does not offer with 400", async () => {
    const { response, error } = await server.as(TOKENS.alice).GET("/organizations/{organization_name}/teams", {
      params: { path: { organization_name: "acme" }, query: { include: ["projects"] as never } },
    });
    expect(response.status).toBe(400);
    expect((error as { errors: { source: object }[] }).errors[0]!.source).toEqual({ parameter: "include" });
  });

  it("answers 404 for an unknown organization and for callers outside it, 401 without a valid token", async () => {
    expect((await server.as(TOKENS.alice).GET("/organizations/{organization_name}/teams", org("nope"))).response.status).toBe(404);
    for (const token of [TOKENS.erin, TOKENS.dave, TOKENS.globex, TOKENS.globexOwners]) {
      await expectRefusal(server.as(token).GET("/organizations/{organization_name}/teams", org("acme")), 404);
    }
    for (const token of [undefined, "unknown.atlasv1.token"]) {
      await expectRefusal(server.as(token).GET("/organizations/{organization_name}/teams", org("acme")), 401);
    }
  });
});

describe("readTeam", () => {
  it("shows a visible team to members and a secret team to its members and owners", async () => {
    for (const [token, id] of [
      [TOKENS.bob, IDS.teams.developers],
      [TOKENS.carol, IDS.teams.platform],
      [TOKENS.acmePlatform, IDS.teams.platform],
      [TOKENS.alice, IDS.teams.security],
      [TOKENS.acme, IDS.teams.security],
      [TOKENS.acmeOwners, IDS.teams.owners],
    ] as const) {
      const { data, response } = await server.as(token).GET("/teams/{team_id}", team(id));
      expect(response.status).toBe(200);
      expect(data!.data.id).toBe(id);
    }
  });

  it("answers 404 for a secret team the caller is not in, an unknown team, and outsiders", async () => {
    for (const [token, id] of [
      [TOKENS.bob, IDS.teams.platform],
      [TOKENS.bob, IDS.teams.owners],
      [TOKENS.acmeDevelopers, IDS.teams.security],
      [TOKENS.erin, IDS.teams.developers],
      [TOKENS.dave, IDS.teams.developers],
      [TOKENS.globex, IDS.teams.developers],
      [TOKENS.alice, "team-doesnotexist00"],
    ] as const) {
      await expectRefusal(server.as(token).GET("/teams/{team_id}", team(id)), 404);
    }
    expect((await server.as().GET("/teams/{team_id}", team(IDS.teams.developers))).response.status).toBe(401);
  });

  it("includes users and organization memberships, showing only teams the caller may see", async () => {
    const get = (token: string) =>
      server.as(token).GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers }, query: { include: ["users", "organization-memberships"] } } });
    const asBob = (await get(TOKENS.bob)).data!;
    const users = asBob.included!.filter((r) => r.type === "users");
    expect(users.map((u) => u.id)).toEqual([IDS.users.bob, IDS.users.carol]);
    const bob = users[0]!;
    expect(bob).toMatchObject({
      attributes: { username: "bob", "is-service-account": false, "v2-only": true, permissions: { "can-change-email": true, "can-change-username": true } },
      links: { self: `/api/v2/users/${IDS.users.bob}` },
    });
    expect((bob.attributes as { "avatar-url": string })["avatar-url"]).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/);
    expect(users[1]!.attributes).toMatchObject({ username: "carol", permissions: { "can-change-email": false } });
    const carolMembership = asBob.included!.find((r) => r.id === IDS.memberships.carol)!;
    expect(carolMembership).toEqual({
      id: IDS.memberships.carol,
      type: "organization-memberships",
      attributes: { status: "active", email: "carol@acme.example" },
      relationships: {
        // bob may not see the secret platform team carol is also in.
        teams: { data: [{ id: IDS.teams.developers, type: "teams" }] },
        user: { data: { id: IDS.users.carol, type: "users" } },
        organization: { data: { id: "acme", type: "organizations" }, links: { related: "/api/v2/organizations/acme" } },
      },
      links: { self: `/api/v2/organization-memberships/${IDS.memberships.carol}` },
    });
    const asAlice = (await get(TOKENS.alice)).data!;
    expect(((asAlice.included!.find((r) => r.id === IDS.memberships.carol) as { relationships: unknown }).relationships as { teams: { data: unknown[] } }).teams.data).toEqual([
      { id: IDS.teams.developers, type: "teams" },
      { id: IDS.teams.platform, type: "teams" },
    ]);
    const usersOnly = await server.as(TOKENS.bob).GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers }, query: { include: ["users"] } } });
    expect(usersOnly.data!.included!.every((r) => r.type === "users")).toBe(true);
  });

  it("refuses an unknown include with 400", async () => {
    const { response } = await server.as(TOKENS.alice).GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers }, query: { include: ["oauth_tokens"] as never } } });
    expect(response.status).toBe(400);
  });
});

describe("sso-team-id", () => {
  it("is returned in the Business tier", async () => {
    const platform = await readAsOwner(IDS.teams.platform);
    expect(platform.attributes["sso-team-id"]).toBe("platform-engineers");
    expect((await readAsOwner(IDS.teams.developers)).attributes["sso-team-id"]).toBeNull();
  });

  it("is returned on self-hosted release 202204-1 and later, and not on earlier releases or without the Business tier", async () => {
    const world = (release?: string): WorldFile => ({
      users: [{ username: "owner", email: "owner@example.com", tokens: ["owner-token-123"] }],
      organizations: [
        {
          name: "org",
          email: "org@example.com",
          plan: "team",
          ...(release && { "self-hosted-release": release }),
          members: [{ user: "owner" }],
          teams: [{ name: "owners", members: ["owner"], "sso-team-id": "saml-owners" }],
        },
      ],
    });
    for (const [release, shown] of [
      [undefined, false],
      ["v202203-1", false],
      ["v202204-1", true],
      ["202204-2", true],
      ["v202301-1", true],
    ] as const) {
      const other = await startOrgPlatform({ world: world(release) });
      try {
        const { data } = await other.as("owner-token-123").GET("/organizations/{organization_name}/teams", org("org"));
        const attributes = data!.data[0]!.attributes;
        expect("sso-team-id" in attributes, `release ${release}`).toBe(shown);
        if (shown) expect(attributes["sso-team-id"]).toBe("saml-owners");
        // Where it is not available, a sent value is ignored.
        const created = await other.as("owner-token-123").POST("/organizations/{organization_name}/teams", {
          ...org("org"),
          body: { data: { type: "teams", attributes: { name: "sso", "sso-team-id": "saml-sso" } } },
        });
        expect(created.response.status).toBe(200);
        expect(created.data!.data.attributes["sso-team-id"]).toBe(shown ? "saml-sso" : undefined);
      } finally {
        await other.close();
      }
    }
  });
});

describe("createTeam", () => {
  it("creates a team and answers 200 with the defaults", async () => {
    const { data, response } = await createTeam(TOKENS.alice, { name: "release-engineers" });
    expect(response.status).toBe(200);
    const created = data!.data;
    expect(created.id).toMatch(/^team-[A-Za-z0-9]{16}$/);
    expect(created).toEqual({
      id: created.id,
      type: "teams",
      attributes: {
        name: "release-engineers",
        "sso-team-id": null,
        "users-count": 0,
        visibility: "secret",
        permissions: ALL_PERMISSIONS,
        "organization-access": ALL_FALSE,
      },
      relationships: { users: { data: [] }, "organization-memberships": { data: [] }, "authentication-token": { meta: {} } },
      links: { self: `/api/v2/teams/${created.id}` },
    });
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "release-engineers", "security"]);
    // Secret by default: members do not see it.
    expect(await teamNames(TOKENS.bob)).toEqual(["developers"]);
  });

  it("stores visibility, sso-team-id and organization access, turning on what the cascade implies", async () => {
    const { data } = await createTeam(TOKENS.alice, {
      name: "Project_Admins-1",
      visibility: "organization",
      "sso-team-id": "cb265c8e41bddf3f9926b2cf3d190f0e1627daa4",
      "organization-access": { "manage-projects": true, "manage-policies": true },
    });
    expect(data!.data.attributes).toMatchObject({
      name: "Project_Admins-1",
      visibility: "organization",
      "sso-team-id": "cb265c8e41bddf3f9926b2cf3d190f0e1627daa4",
      "organization-access": { ...ALL_FALSE, "manage-projects": true, "manage-workspaces": true, "read-projects": true, "read-workspaces": true, "manage-policies": true },
    });
    expect(await teamNames(TOKENS.bob)).toEqual(["developers", "Project_Admins-1"]);
    const workspaces = await createTeam(TOKENS.alice, { name: "ws", "organization-access": { "manage-workspaces": true } });
    expect(workspaces.data!.data.attributes["organization-access"]).toEqual({ ...ALL_FALSE, "manage-workspaces": true, "read-workspaces": true });
    const readers = await createTeam(TOKENS.alice, { name: "readers", "organization-access": { "read-projects": true } });
    expect(readers.data!.data.attributes["organization-access"]).toEqual({ ...ALL_FALSE, "read-projects": true, "read-workspaces": true });
  });

  it("includes the (empty) members on request", async () => {
    const { data } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/teams", {
      params: { path: { organization_name: "acme" }, query: { include: ["users", "organization-memberships"] } },
      body: { data: { type: "teams", attributes: { name: "with-include" } } },
    });
    expect(data!.included).toEqual([]);
  });

  it("lets the organization token and the owners-team token create teams", async () => {
    expect((await createTeam(TOKENS.acme, { name: "by-org-token" })).response.status).toBe(200);
    expect((await createTeam(TOKENS.acmeOwners, { name: "by-owners-token" })).response.status).toBe(200);
    expect((await createTeam(TOKENS.erin, { name: "globex-team" }, "globex")).response.status).toBe(200);
  });

  it("answers 404 to members, other team tokens and outsiders, creating nothing", async () => {
    for (const token of [TOKENS.bob, TOKENS.carol, TOKENS.acmeDevelopers, TOKENS.acmePlatform, TOKENS.erin, TOKENS.dave, TOKENS.globex]) {
      await expectRefusal(createTeam(token, { name: "not-allowed" }), 404);
    }
    expect((await createTeam(TOKENS.alice, { name: "x" }, "nope")).response.status).toBe(404);
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security"]);
  });

  it("answers 404 in an organization without the team management feature, even to its owner", async () => {
    for (const token of [TOKENS.bob, TOKENS.initech]) {
      const { response } = await createTeam(token, { name: "not-on-free" }, "initech");
      expect(response.status).toBe(404);
    }
    expect(await teamNames(TOKENS.bob, "initech")).toEqual(["owners"]);
  });

  it("answers 401 without a token", async () => {
    expect((await createTeam("", { name: "x" })).response.status).toBe(401);
  });

  const invalid: [string, Record<string, unknown>, string, RegExp?][] = [
    ["a missing name", {}, "/data/attributes/name"],
    ["a name with a space", { name: "release engineers" }, "/data/attributes/name"],
    ["a name with a dot", { name: "release.engineers" }, "/data/attributes/name"],
    ["an empty name", { name: "" }, "/data/attributes/name"],
    ["a name already taken", { name: "developers" }, "/data/attributes/name", /already been taken/],
    ["a name already taken in other letter case", { name: "Developers" }, "/data/attributes/name", /already been taken/],
    ["the owners name", { name: "OWNERS" }, "/data/attributes/name", /already been taken/],
    ["a number as name", { name: 7 }, "/data/attributes/name"],
    ["an unknown visibility", { name: "t", visibility: "public" }, "/data/attributes/visibility"],
    ["a non-boolean permission", { name: "t", "organization-access": { "manage-policies": "yes" } }, "/data/attributes/organization-access/manage-policies"],
    [
      "read-workspaces false with manage-workspaces true",
      { name: "t", "organization-access": { "manage-workspaces": true, "read-workspaces": false } },
      "/data/attributes/organization-access/read-workspaces",
      /read-workspaces cannot be false while manage-workspaces is true/,
    ],
    [
      "manage-workspaces false with manage-projects true",
      { name: "t", "organization-access": { "manage-projects": true, "manage-workspaces": false } },
      "/data/attributes/organization-access/manage-workspaces",
      /manage-workspaces cannot be false while manage-projects is true/,
    ],
    [
      "read-workspaces false with read-projects true",
      { name: "t", "organization-access": { "read-projects": true, "read-workspaces": false } },
      "/data/attributes/organization-access/read-workspaces",
      /read-workspaces cannot be false while read-projects is true/,
    ],
  ];
  for (const [name, attributes, pointer, detail] of invalid) {
    it(`refuses ${name} with 422 at ${pointer}, creating nothing`, async () => {
      const { response, error } = await createTeam(TOKENS.alice, attributes);
      expect(response.status).toBe(422);
      const errors = expectError(error, 422, pointer);
      if (detail) expect(errors.map((e) => e.detail).join(" ")).toMatch(detail);
      expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security"]);
    });
  }

  it("refuses a wrong type, a missing body and malformed JSON with 422, a wrong content type with 415", async () => {
    const wrongType = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/teams", { ...org("acme"), body: { data: { type: "oauth-clients", attributes: { name: "t" } } } as never });
    expect(wrongType.response.status).toBe(422);
    expectError(wrongType.error, 422, "/data/type");
    for (const [body, contentType, status] of [
      [undefined, "application/vnd.api+json", 422],
      ["{", "application/vnd.api+json", 422],
      [JSON.stringify({ data: { type: "teams", attributes: { name: "t" } } }), "text/plain", 415],
    ] as const) {
      const response = await server.fetch("/organizations/acme/teams", { method: "POST", token: TOKENS.alice, body, headers: { "Content-Type": contentType } });
      expect(response.status).toBe(status);
    }
    expect(await teamNames(TOKENS.alice)).toHaveLength(4);
  });

  it("refuses an unknown include with 400 and creates nothing", async () => {
    const { response } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/teams", {
      params: { path: { organization_name: "acme" }, query: { include: ["projects"] as never } },
      body: { data: { type: "teams", attributes: { name: "include-test" } } },
    });
    expect(response.status).toBe(400);
    expect(await teamNames(TOKENS.alice)).toHaveLength(4);
  });
});

describe("updateTeam", () => {
  it("changes what is sent and keeps the rest, permissions included", async () => {
    const { data, response } = await updateTeam(TOKENS.alice, IDS.teams.platform, { visibility: "organization", "organization-access": { "manage-policies": true } });
    expect(response.status).toBe(200);
    expect(data!.data.attributes).toMatchObject({
      name: "platform",
      visibility: "organization",
      "sso-team-id": "platform-engineers",
      "users-count": 1,
      "organization-access": { ...ALL_FALSE, "manage-vcs-settings": true, "manage-workspaces": true, "read-workspaces": true, "manage-membership": true, "manage-policies": true },
    });
    expect(await teamNames(TOKENS.bob)).toEqual(["developers", "platform"]);
  });

  it("renames a team (also to another letter case of its own name) and clears sso-team-id with null", async () => {
    expect((await updateTeam(TOKENS.alice, IDS.teams.security, { name: "SecOps" })).data!.data.attributes.name).toBe("SecOps");
    expect((await updateTeam(TOKENS.alice, IDS.teams.security, { name: "secops" })).data!.data.attributes.name).toBe("secops");
    expect((await updateTeam(TOKENS.alice, IDS.teams.platform, { "sso-team-id": null })).data!.data.attributes["sso-team-id"]).toBeNull();
  });

  it("applies the cascade to the resulting permissions", async () => {
    const { data } = await updateTeam(TOKENS.alice, IDS.teams.developers, { "organization-access": { "manage-projects": true } });
    expect(data!.data.attributes["organization-access"]).toMatchObject({ "manage-projects": true, "manage-workspaces": true, "read-projects": true, "read-workspaces": true });
    // Turning manage-projects off keeps what it turned on.
    const off = await updateTeam(TOKENS.alice, IDS.teams.developers, { "organization-access": { "manage-projects": false } });
    expect(off.data!.data.attributes["organization-access"]).toMatchObject({ "manage-projects": false, "manage-workspaces": true });
  });

  it("refuses a permission that contradicts one kept from before, naming the rule", async () => {
    // platform has manage-workspaces: read-workspaces cannot be turned off alone.
    const { response, error } = await updateTeam(TOKENS.alice, IDS.teams.platform, { "organization-access": { "read-workspaces": false } });
    expect(response.status).toBe(422);
    const errors = expectError(error, 422, "/data/attributes/organization-access/read-workspaces");
    expect(errors[0]!.detail).toMatch(/manage-workspaces implies read-workspaces/);
    expect((await readAsOwner(IDS.teams.platform)).attributes["organization-access"]["read-workspaces"]).toBe(true);
    const both = await updateTeam(TOKENS.alice, IDS.teams.platform, { "organization-access": { "read-workspaces": false, "manage-workspaces": false } });
    expect(both.response.status).toBe(200);
  });

  it("keeps the owners team's name and permissions, but lets its visibility change", async () => {
    const rename = await updateTeam(TOKENS.alice, IDS.teams.owners, { name: "admins" });
    expect(rename.response.status).toBe(422);
    expectError(rename.error, 422, "/data/attributes/name");
    const access = await updateTeam(TOKENS.alice, IDS.teams.owners, { "organization-access": { "manage-policies": false } });
    expect(access.response.status).toBe(422);
    expectError(access.error, 422, "/data/attributes/organization-access");
    const same = await updateTeam(TOKENS.alice, IDS.teams.owners, { name: "owners", visibility: "organization", "organization-access": { "manage-policies": true } });
    expect(same.response.status).toBe(200);
    expect(same.data!.data.attributes.visibility).toBe("organization");
    expect(Object.values(same.data!.data.attributes["organization-access"]).every(Boolean)).toBe(true);
  });

  it("lets the organization token and the owners-team token update; permissions follow the caller", async () => {
    const byOrg = await updateTeam(TOKENS.acme, IDS.teams.developers, { visibility: "secret" });
    expect(byOrg.response.status).toBe(200);
    expect(byOrg.data!.data.attributes.permissions).toEqual(ALL_PERMISSIONS);
    expect((await updateTeam(TOKENS.acmeOwners, IDS.teams.developers, { name: "devs" })).response.status).toBe(200);
  });

  it("includes members on request", async () => {
    const { data } = await server.as(TOKENS.alice).PATCH("/teams/{team_id}", {
      params: { path: { team_id: IDS.teams.developers }, query: { include: ["users"] } },
      body: { data: { type: "teams", attributes: { visibility: "organization" } } },
    });
    expect(data!.included!.map((r) => r.id)).toEqual([IDS.users.bob, IDS.users.carol]);
  });

  it("answers 404 to members, even of a team they see, and to outsiders; nothing changes", async () => {
    for (const [token, id] of [
      [TOKENS.bob, IDS.teams.developers],
      [TOKENS.carol, IDS.teams.platform],
      [TOKENS.acmeDevelopers, IDS.teams.developers],
      [TOKENS.acmePlatform, IDS.teams.platform],
      [TOKENS.erin, IDS.teams.developers],
      [TOKENS.globex, IDS.teams.developers],
      [TOKENS.alice, "team-doesnotexist00"],
    ] as const) {
      await expectRefusal(updateTeam(token, id, { name: "hijacked" }), 404);
    }
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security"]);
    expect((await updateTeam("", IDS.teams.developers, { name: "x" })).response.status).toBe(401);
  });

  const invalid: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ["a taken name", { name: "Platform" }, {}, "/data/attributes/name"],
    ["an invalid name", { name: "a/b" }, {}, "/data/attributes/name"],
    ["a wrong type", {}, { type: "projects" }, "/data/type"],
    ["a data.id of another team", {}, { id: IDS.teams.platform }, "/data/id"],
    ["an unknown visibility", { visibility: "everyone" }, {}, "/data/attributes/visibility"],
    ["a non-boolean permission", { "organization-access": { "read-projects": 1 } }, {}, "/data/attributes/organization-access/read-projects"],
  ];
  for (const [name, attributes, extra, pointer] of invalid) {
    it(`refuses ${name} with 422 at ${pointer}, changing nothing`, async () => {
      const { response, error } = await updateTeam(TOKENS.alice, IDS.teams.developers, { visibility: "secret", ...attributes }, extra);
      expect(response.status).toBe(422);
      expectError(error, 422, pointer);
      expect((await readAsOwner(IDS.teams.developers)).attributes).toMatchObject({ name: "developers", visibility: "organization" });
    });
  }
});

describe("deleteTeam", () => {
  it("deletes a team and its token (204); its members stay in the organization", async () => {
    const { response, data } = await server.as(TOKENS.alice).DELETE("/teams/{team_id}", team(IDS.teams.developers));
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    expect((await server.as(TOKENS.alice).GET("/teams/{team_id}", team(IDS.teams.developers))).response.status).toBe(404);
    expect(await teamNames(TOKENS.alice)).toEqual(["owners", "platform", "security"]);
    expect(await teamNames(TOKENS.bob)).toEqual([]);
    expect((await server.as(TOKENS.acmeDevelopers).GET("/organizations/{organization_name}/teams", org("acme"))).response.status).toBe(401);
    expect((await server.as(TOKENS.alice).DELETE("/teams/{team_id}", team(IDS.teams.developers))).response.status).toBe(404);
  });

  it("lets the organization token and the owners-team token delete", async () => {
    expect((await server.as(TOKENS.acme).DELETE("/teams/{team_id}", team(IDS.teams.security))).response.status).toBe(204);
    expect((await server.as(TOKENS.acmeOwners).DELETE("/teams/{team_id}", team(IDS.teams.platform))).response.status).toBe(204);
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners"]);
  });

  it("refuses to delete the owners team with 422", async () => {
    const { response, error } = await server.as(TOKENS.alice).DELETE("/teams/{team_id}", team(IDS.teams.owners));
    expect(response.status).toBe(422);
    expect(expectError(error, 422, "")[0]!.detail).toMatch(/owners team cannot be deleted/);
    expect(await teamNames(TOKENS.alice)).toContain("owners");
  });

  it("answers 404 to members and outsiders, 401 without a token; nothing is deleted", async () => {
    for (const [token, id] of [
      [TOKENS.bob, IDS.teams.developers],
      [TOKENS.carol, IDS.teams.platform],
      [TOKENS.acmeDevelopers, IDS.teams.developers],
      [TOKENS.erin, IDS.teams.security],
      [TOKENS.globex, IDS.teams.security],
      [TOKENS.alice, "team-doesnotexist00"],
    ] as const) {
      await expectRefusal(server.as(token).DELETE("/teams/{team_id}", team(id)), 404);
    }
    expect((await server.as().DELETE("/teams/{team_id}", team(IDS.teams.security))).response.status).toBe(401);
    expect(await teamNames(TOKENS.alice)).toEqual(["developers", "owners", "platform", "security"]);
  });
});
