// The expectations of go-tfe's integration tests (github.com/hashicorp/go-tfe, the platform's official
// client) for teams, team members and OAuth clients, ported case by case and run through the generated
// client against the reference server. Each case names the go-tfe test it follows (file, function,
// subtest; v1.23.0 of April 2023 unless another tag is named). Where go-tfe checks an option on the
// client side only (ErrRequiredName, ErrInvalidOrg...), the case checks that the server refuses the same
// request on its own. Differences from go-tfe's inputs are named in the case:
//   - team names: go-tfe updates a team to "foo bar"; the platform's rule here allows letters, digits,
//     "-" and "_" only, so "foo_bar" is used (a space is a 422, tested below);
//   - providers: go-tfe's github, bitbucket_server and ado_server are vcs_a, vcs_b_enterprise_edition
//     and vcs_c_server here (the neutral provider names);
//   - go-tfe creates a fresh organization per test; these cases use the default world's acme
//     (Business tier) and reset it between cases.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IDS, JSON_API, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const owner = () => server.as(TOKENS.alice);
const org = (organization_name: string) => ({ path: { organization_name } });
/** go-tfe's badIdentifier (helper_test.go), which its client refuses before sending. */
const BAD_IDENTIFIER = "! / nope";

/**
 * What go-tfe's checkResponseCode (tfe.go, v1.60.0) makes of an answer: the error value a go-tfe
 * caller would compare against.
 */
function goTfeError(status: number, body: unknown): string | undefined {
  if (status >= 200 && status <= 299) return undefined;
  if (status === 401) return "ErrUnauthorized";
  if (status === 404) return "ErrResourceNotFound";
  const errors = ((body as { errors?: { title?: string; detail?: string }[] })?.errors ?? []).map((e) => (e.detail ? `${e.title}\n\n${e.detail}` : e.title!));
  if (status === 400 && errors.some((e) => e.includes("Invalid include parameter"))) return "ErrInvalidIncludeValue";
  return errors.join("\n");
}

async function answer<T extends { response: Response; data?: unknown; error?: unknown }>(call: Promise<T>): Promise<{ status: number; err: string | undefined } & T> {
  const result = await call;
  return { ...result, status: result.response.status, err: goTfeError(result.response.status, result.error) };
}

/** What a go-tfe create helper returns: the created resource, once the answer is `status` (the helper fails the test otherwise). */
async function created<T>(call: Promise<{ data?: { data: T }; response: Response }>, status: number): Promise<T> {
  const { data, response } = await call;
  expect(response.status).toBe(status);
  return data!.data;
}

/** go-tfe's createTeam helper (helper_test.go): a random name and four organization permissions. */
function createTeam(name: string = randomUUID()) {
  const call = owner().POST("/organizations/{organization_name}/teams", {
    params: org("acme"),
    body: {
      data: {
        type: "teams",
        attributes: { name, "organization-access": { "manage-policies": true, "manage-policy-overrides": true, "manage-providers": true, "manage-modules": true } },
      },
    },
  });
  return created(call, 200);
}

const readTeam = (team_id: string, include?: ("users" | "organization-memberships")[]) =>
  answer(owner().GET("/teams/{team_id}", { params: { path: { team_id }, ...(include && { query: { include } }) } }));

describe("teams (team_integration_test.go)", () => {
  it("TestTeamsList/without list options: the created teams are in the list as created", async () => {
    const [t1, t2] = [await createTeam(), await createTeam()];
    const { data, status } = await answer(owner().GET("/organizations/{organization_name}/teams", { params: org("acme") }));
    expect(status).toBe(200);
    expect(data!.data).toContainEqual(t1);
    expect(data!.data).toContainEqual(t2);
    // Skipped in go-tfe ("paging not supported yet in API"); served here.
    expect(data!.meta.pagination["current-page"]).toBe(1);
  });

  it("TestTeamsList/with list options: a page out of range is an empty page that says which page it is", async () => {
    await createTeam();
    await createTeam();
    const { data, status } = await answer(owner().GET("/organizations/{organization_name}/teams", { params: { ...org("acme"), query: { page: { number: 999, size: 100 } } } }));
    expect(status).toBe(200);
    expect(data!.data).toEqual([]);
    expect(data!.meta.pagination["current-page"]).toBe(999);
    expect(data!.meta.pagination["total-count"]).toBe(6);
  });

  it("TestTeamsList/with list options: filter[names] returns the named teams", async () => {
    const [, t2, t3] = [await createTeam(), await createTeam(), await createTeam()];
    const { data } = await answer(owner().GET("/organizations/{organization_name}/teams", { params: { ...org("acme"), query: { filter: { names: `${t2.attributes.name},${t3.attributes.name}` } } } }));
    expect(data!.data).toHaveLength(2);
    expect(data!.data).toContainEqual(t2);
    expect(data!.data).toContainEqual(t3);
  });

  it("TestTeamsList/without a valid organization: the server answers the bad identifier with 404", async () => {
    const { err } = await answer(owner().GET("/organizations/{organization_name}/teams", { params: org(BAD_IDENTIFIER) }));
    expect(err).toBe("ErrResourceNotFound");
  });

  it("TestTeamsCreate/with valid options: the answer and a fresh read agree", async () => {
    const created = await createTeam("foo");
    const { data } = await readTeam(created.id);
    expect(created.id).not.toBe("");
    expect(created.attributes.name).toBe("foo");
    expect(data!.data.attributes.name).toBe("foo");
  });

  it("TestTeamsCreate/with sso-team-id: the SSO team id is returned", async () => {
    const { data, status } = await answer(
      owner().POST("/organizations/{organization_name}/teams", { params: org("acme"), body: { data: { type: "teams", attributes: { name: "rockettes", "sso-team-id": "7dddb675-73e0-4858-a8ad-0e597064301b" } } } }),
    );
    expect(status).toBe(200);
    expect(data!.data.attributes.name).toBe("rockettes");
    expect(data!.data.attributes["sso-team-id"]).toBe("7dddb675-73e0-4858-a8ad-0e597064301b");
  });

  it("TestTeamsCreate/when options is missing name (ErrRequiredName in go-tfe): the server refuses it with 422", async () => {
    const { status, err } = await answer(owner().POST("/organizations/{organization_name}/teams", { params: org("acme"), body: { data: { type: "teams", attributes: {} } } as never }));
    expect(status).toBe(422);
    expect(err).toMatch(/name is required/);
  });

  it("TestTeamsCreate/when options has an invalid organization: 404", async () => {
    const { err } = await answer(owner().POST("/organizations/{organization_name}/teams", { params: org(BAD_IDENTIFIER), body: { data: { type: "teams", attributes: { name: "foo" } } } }));
    expect(err).toBe("ErrResourceNotFound");
  });

  it("TestTeamsRead/when the team exists: equal to the created team; secret by default; permissions and organization access decoded", async () => {
    const created = await createTeam();
    const sso = await answer(
      owner().POST("/organizations/{organization_name}/teams", {
        params: org("acme"),
        body: { data: { type: "teams", attributes: { name: randomUUID(), "sso-team-id": "sso-id-1", "organization-access": { "manage-policies": true } } } },
      }),
    );
    const { data } = await readTeam(created.id);
    expect(data!.data).toEqual(created);
    expect(data!.data.attributes.visibility).toBe("secret");
    expect(data!.data.attributes.permissions["can-destroy"]).toBe(true);
    expect(sso.data!.data.attributes["organization-access"]["manage-policies"]).toBe(true);
    expect(sso.data!.data.attributes["sso-team-id"]).toBe("sso-id-1");
  });

  it("TestTeamsRead/when the team does not exist: ErrResourceNotFound; without a valid team ID: 404 too", async () => {
    expect((await readTeam("nonexisting")).err).toBe("ErrResourceNotFound");
    expect((await readTeam(BAD_IDENTIFIER)).err).toBe("ErrResourceNotFound");
  });

  it("TestTeamsUpdate/with valid options: name, visibility and organization access change, and a read agrees", async () => {
    const team = await createTeam();
    const access = { "manage-policies": false, "manage-vcs-settings": true, "manage-policy-overrides": true, "manage-providers": true, "manage-modules": false };
    const { data, status } = await answer(
      owner().PATCH("/teams/{team_id}", { params: { path: { team_id: team.id } }, body: { data: { type: "teams", attributes: { name: "foo_bar", "organization-access": access, visibility: "organization" } } } }),
    );
    expect(status).toBe(200);
    const refreshed = (await readTeam(team.id)).data!.data;
    for (const item of [data!.data, refreshed]) {
      expect(item.attributes.name).toBe("foo_bar");
      expect(item.attributes.visibility).toBe("organization");
      expect(item.attributes["organization-access"]).toMatchObject(access);
    }
  });

  it("TestTeamsUpdate: go-tfe's own name \"foo bar\" breaks the name rule (letters, digits, - and _): 422, nothing changes", async () => {
    const team = await createTeam();
    const { status, err } = await answer(owner().PATCH("/teams/{team_id}", { params: { path: { team_id: team.id } }, body: { data: { type: "teams", attributes: { name: "foo bar" } } } }));
    expect(status).toBe(422);
    expect(err).toMatch(/name must match pattern/);
    expect((await readTeam(team.id)).data!.data).toEqual(team);
  });

  it("TestTeamsUpdate/when the team does not exist: ErrResourceNotFound", async () => {
    const { err } = await answer(owner().PATCH("/teams/{team_id}", { params: { path: { team_id: "nonexisting" } }, body: { data: { type: "teams", attributes: { name: "foo_bar" } } } }));
    expect(err).toBe("ErrResourceNotFound");
  });

  it("TestTeamsDelete/with valid options: deleted, then ErrResourceNotFound on read", async () => {
    const team = await createTeam();
    expect((await owner().DELETE("/teams/{team_id}", { params: { path: { team_id: team.id } } })).response.status).toBe(204);
    expect((await readTeam(team.id)).err).toBe("ErrResourceNotFound");
  });

  it("TestTeamsUpdateRunTasks/with valid options: manage-run-tasks", async () => {
    const team = await createTeam();
    const { data } = await answer(
      owner().PATCH("/teams/{team_id}", { params: { path: { team_id: team.id } }, body: { data: { type: "teams", attributes: { name: "foo_bar", "organization-access": { "manage-run-tasks": true }, visibility: "organization" } } } }),
    );
    expect(data!.data.attributes["organization-access"]["manage-run-tasks"]).toBe(true);
    expect((await readTeam(team.id)).data!.data.attributes["organization-access"]["manage-run-tasks"]).toBe(true);
  });

  it("TestTeamsUpdateManageProjects/with valid options: manage-projects with manage-workspaces", async () => {
    const team = await createTeam();
    const { data, status } = await answer(
      owner().PATCH("/teams/{team_id}", {
        params: { path: { team_id: team.id } },
        body: { data: { type: "teams", attributes: { name: "foo_bar", "organization-access": { "manage-workspaces": true, "manage-projects": true }, visibility: "organization" } } },
      }),
    );
    expect(status).toBe(200);
    expect(data!.data.attributes["organization-access"]["manage-projects"]).toBe(true);
    expect((await readTeam(team.id)).data!.data.attributes["organization-access"]["manage-projects"]).toBe(true);
  });

  it("TestTeamsUpdateManageManageMembership: manage-membership false by default, true after the update, nothing else changed", async () => {
    const team = await createTeam();
    const original = (await readTeam(team.id)).data!.data.attributes["organization-access"];
    expect(original["manage-membership"]).toBe(false);
    const { data } = await answer(owner().PATCH("/teams/{team_id}", { params: { path: { team_id: team.id } }, body: { data: { type: "teams", attributes: { "organization-access": { "manage-membership": true } } } } }));
    expect(data!.data.attributes["organization-access"]["manage-membership"]).toBe(true);
    expect((await readTeam(team.id)).data!.data.attributes["organization-access"]).toEqual({ ...original, "manage-membership": true });
  });

  it("TestTeamCreateOptions_Marshal: the exact bytes go-tfe sends are taken", async () => {
    // go-tfe's expected body, with the name made valid here ("team name" has a space).
    const body = `{"data":{"type":"teams","attributes":{"name":"team_name","organization-access":{"manage-policies":true},"visibility":"organization"}}}\n`;
    const response = await server.fetch("/organizations/acme/teams", { method: "POST", token: TOKENS.alice, headers: { "Content-Type": JSON_API, Accept: JSON_API }, body });
    expect(response.status).toBe(200);
    const team = ((await response.json()) as { data: { attributes: { name: string; visibility: string; "organization-access": Record<string, boolean> } } }).data;
    expect(team.attributes).toMatchObject({ name: "team_name", visibility: "organization" });
    expect(team.attributes["organization-access"]["manage-policies"]).toBe(true);
  });

  it("validateTeamIncludeParams (team.go) and checkResponseCode (tfe.go v1.60.0): an include the endpoint does not offer is ErrInvalidIncludeValue", async () => {
    const { status, err } = await answer(owner().GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers }, query: { include: ["projects" as never] } } }));
    expect(status).toBe(400);
    expect(err).toBe("ErrInvalidIncludeValue");
    const list = await answer(owner().GET("/organizations/{organization_name}/teams", { params: { ...org("acme"), query: { include: ["workspaces" as never] } } }));
    expect(list.err).toBe("ErrInvalidIncludeValue");
  });
});

describe("team members (team_member_integration_test.go, team_member.go)", () => {
  it("TestTeamMembersList/with valid options: ListUsers reads the team with include=users and finds its members", async () => {
    // team_member.go ListUsers: GET teams/<id>?include=users, then Team.Users.
    const { data, status } = await readTeam(IDS.teams.developers, ["users"]);
    expect(status).toBe(200);
    const userIds = data!.data.relationships.users.data.map((u) => u.id);
    expect(userIds).toEqual([IDS.users.bob, IDS.users.carol]);
    const included = data!.included!.filter((r) => r.type === "users");
    expect(included.map((u) => u.id)).toEqual(userIds);
    expect(included.map((u) => (u.attributes as { username: string }).username)).toEqual(["bob", "carol"]);
  });

  it("ListOrganizationMemberships: the team names its members' organization memberships, included with include=organization-memberships", async () => {
    // team_member.go ListOrganizationMemberships: GET teams/<id>?include=organization-memberships, then
    // Team.OrganizationMemberships (the relationship `organization-memberships` of the team).
    const { data } = await readTeam(IDS.teams.developers, ["organization-memberships"]);
    const ids = data!.data.relationships["organization-memberships"].data.map((m) => m.id);
    expect(ids).toEqual([IDS.memberships.bob, IDS.memberships.carol]);
    expect(data!.included!.map((r) => r.id)).toEqual(ids);
  });

  it("TestTeamMembersList/when the team ID is invalid: 404", async () => {
    expect((await readTeam(BAD_IDENTIFIER, ["users"])).err).toBe("ErrResourceNotFound");
  });

  it("organization_membership_integration_test.go (v1.60.0) ReadWithOptions/with invalid include option: include=users is ErrInvalidIncludeValue", async () => {
    const { err } = await answer(
      owner().GET("/organization-memberships/{organization_membership_id}", { params: { path: { organization_membership_id: IDS.memberships.bob }, query: { include: ["users" as never] } } }),
    );
    expect(err).toBe("ErrInvalidIncludeValue");
    const ok = await answer(owner().GET("/organization-memberships/{organization_membership_id}", { params: { path: { organization_membership_id: IDS.memberships.bob }, query: { include: ["user"] } } }));
    expect(ok.status).toBe(200);
    expect(ok.data!.included!.map((r) => r.id)).toEqual([IDS.users.bob]);
    expect((await answer(owner().GET("/organization-memberships/{organization_membership_id}", { params: { path: { organization_membership_id: "nonexisting" } } }))).err).toBe("ErrResourceNotFound");
  });
});

const GITHUB = { "service-provider": "vcs_a", "api-url": "https://api.github.com", "http-url": "https://github.com" } as const;

/** go-tfe's createOAuthClient helper (helper_test.go): a github client made from a token string. */
function createOAuthClient(projects: string[] = []) {
  const call = owner().POST("/organizations/{organization_name}/oauth-clients", {
    params: org("acme"),
    body: {
      data: {
        type: "oauth-clients",
        attributes: { ...GITHUB, "oauth-token-string": `gh-token-${randomUUID()}` },
        ...(projects.length > 0 && { relationships: { projects: { data: projects.map((id) => ({ id, type: "projects" as const })) } } }),
      },
    },
  });
  return created(call, 201);
}

const readClient = (oauth_client_id: string, include?: ("oauth_tokens" | "projects")[]) =>
  answer(owner().GET("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id }, ...(include && { query: { include } }) } }));

describe("OAuth clients (oauth_client_integration_test.go)", () => {
  it("TestOAuthClientsList/without list options: every client has one OAuth token; the created ones are listed", async () => {
    const [c1, c2] = [await createOAuthClient(), await createOAuthClient()];
    const { data, status } = await answer(owner().GET("/organizations/{organization_name}/oauth-clients", { params: org("acme") }));
    expect(status).toBe(200);
    for (const client of data!.data) expect(client.relationships["oauth-tokens"].data).toHaveLength(1);
    expect(data!.data).toContainEqual(c1);
    expect(data!.data).toContainEqual(c2);
  });

  it("TestOAuthClientsList/with list options: a page out of range is empty and names its page", async () => {
    await createOAuthClient();
    const { data } = await answer(owner().GET("/organizations/{organization_name}/oauth-clients", { params: { ...org("acme"), query: { page: { number: 999, size: 100 } } } }));
    expect(data!.data).toEqual([]);
    expect(data!.meta!.pagination["current-page"]).toBe(999);
    expect(data!.meta!.pagination["total-count"]).toBe(3);
  });

  it("TestOAuthClientsList/with Include options: include=oauth_tokens includes the tokens the clients name", async () => {
    const { data } = await answer(owner().GET("/organizations/{organization_name}/oauth-clients", { params: { ...org("acme"), query: { include: ["oauth_tokens"] } } }));
    expect(data!.data.length).toBeGreaterThan(0);
    const tokenId = data!.data[0]!.relationships["oauth-tokens"].data[0]!.id;
    expect(tokenId).not.toBe("");
    expect(data!.included!.map((r) => r.id)).toContain(tokenId);
  });

  it("TestOAuthClientsList/without a valid organization: 404", async () => {
    expect((await answer(owner().GET("/organizations/{organization_name}/oauth-clients", { params: org(BAD_IDENTIFIER) }))).err).toBe("ErrResourceNotFound");
  });

  it("TestOAuthClientsCreate/with valid options: no name, the URLs, one OAuth token, the provider, the organization relationship", async () => {
    const oc = await createOAuthClient();
    expect(oc.id).not.toBe("");
    expect(oc.attributes.name).toBeNull();
    expect(oc.attributes["api-url"]).toBe("https://api.github.com");
    expect(oc.attributes["http-url"]).toBe("https://github.com");
    expect(oc.relationships["oauth-tokens"].data).toHaveLength(1);
    expect(oc.attributes["service-provider"]).toBe("vcs_a");
    expect(oc.relationships.organization.data).toEqual({ id: "acme", type: "organizations" });
  });

  it("TestOAuthClientsCreate/without an valid organization: 404", async () => {
    const { err } = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", { params: org(BAD_IDENTIFIER), body: { data: { type: "oauth-clients", attributes: { ...GITHUB, "oauth-token-string": "x-token-value" } } } }),
    );
    expect(err).toBe("ErrResourceNotFound");
  });

  for (const [name, missing] of [
    ["without an API URL (ErrRequiredAPIURL)", "api-url"],
    ["without a HTTP URL (ErrRequiredHTTPURL)", "http-url"],
    ["without an OAuth token (ErrRequiredOauthToken)", "oauth-token-string"],
    ["without a service provider (ErrRequiredServiceProvider)", "service-provider"],
  ] as const) {
    it(`TestOAuthClientsCreate/${name}: the server refuses it with 422 naming the attribute, creating nothing`, async () => {
      const attributes: Record<string, string> = { ...GITHUB, "oauth-token-string": "x-token-value" };
      delete attributes[missing];
      const { status, err } = await answer(owner().POST("/organizations/{organization_name}/oauth-clients", { params: org("acme"), body: { data: { type: "oauth-clients", attributes } } as never }));
      expect(status).toBe(422);
      expect(err).toContain(`${missing} is required`);
      expect((await owner().GET("/organizations/{organization_name}/oauth-clients", { params: org("acme") })).data!.data).toHaveLength(2);
    });
  }

  it("TestOAuthClientsCreate_rsaKeyPair/with key, rsa public/private key options: key and public key returned, the private key never", async () => {
    const publicKey = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAoKizy4xbN6qZFAwIJV24\n-----END PUBLIC KEY-----\n";
    const privateKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAoKizy4xbN6qZFAwIJV24liz/vYBSvR3SjEiUzhpp0uMAmICN\n-----END RSA PRIVATE KEY-----\n";
    const key = randomUUID();
    // go-tfe's bitbucket_server creates without a token string; every provider here needs one.
    const { data, status } = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", {
        params: org("acme"),
        body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_b_enterprise_edition", "api-url": "https://bbs.com", "http-url": "https://bbs.com", "oauth-token-string": "bbs-token-value", key, secret: privateKey, "rsa-public-key": publicKey } } },
      }),
    );
    expect(status).toBe(201);
    expect(data!.data.attributes).toMatchObject({ "api-url": "https://bbs.com", "http-url": "https://bbs.com", "service-provider": "vcs_b_enterprise_edition", "rsa-public-key": publicKey, key });
  });

  it("TestOAuthClientsUpdate_rsaKeyPair/updates a new key: the key changes, the public key stays", async () => {
    const publicKey = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n";
    const created = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", {
        params: org("acme"),
        body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_b_enterprise_edition", "api-url": "https://bbs.com", "http-url": "https://bbs.com", "oauth-token-string": "bbs-token-value", key: "original", secret: "private-key-text-0123456789", "rsa-public-key": publicKey } } },
      }),
    );
    const original = created.data!.data;
    const newKey = randomUUID();
    const { data } = await answer(owner().PATCH("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: original.id } }, body: { data: { type: "oauth-clients", attributes: { key: newKey } } } }));
    expect(data!.data.attributes["service-provider"]).toBe("vcs_b_enterprise_edition");
    expect(data!.data.attributes["rsa-public-key"]).toBe(original.attributes["rsa-public-key"]);
    expect(data!.data.attributes.key).toBe(newKey);
  });

  it("TestOAuthClientsCreateOptionsValid/with valid options including private key (ado_server): created", async () => {
    const { status } = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", {
        params: org("acme"),
        body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_c_server", "api-url": "https://ado.example.com", "http-url": "https://ado.example.com", "oauth-token-string": "NOTHING", "private-key": "NOTHING" } } },
      }),
    );
    expect(status).toBe(201);
  });

  it("TestOAuthClientsCreateOptionsValid/with private key and not ado_server options (ErrUnsupportedPrivateKey in go-tfe): the server ignores the key", async () => {
    const { data, status } = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", { params: org("acme"), body: { data: { type: "oauth-clients", attributes: { ...GITHUB, "oauth-token-string": "NOTHING", "private-key": "NOTHING" } } } }),
    );
    expect(status).toBe(201);
    expect(JSON.stringify(data)).not.toContain("private-key");
  });

  it("TestOAuthClientsRead/when the OAuth client exists: the same fields as created", async () => {
    const created = await createOAuthClient();
    const { data } = await readClient(created.id);
    const read = data!.data;
    expect(read.id).toBe(created.id);
    for (const key of ["api-url", "callback-url", "connect-path", "http-url", "service-provider", "service-provider-display-name"] as const) {
      expect(read.attributes[key]).toBe(created.attributes[key]);
    }
    expect(read.relationships["oauth-tokens"]).toEqual(created.relationships["oauth-tokens"]);
  });

  it("TestOAuthClientsRead/when the OAuth client does not exist, or the id is invalid: ErrResourceNotFound", async () => {
    expect((await readClient("nonexisting")).err).toBe("ErrResourceNotFound");
    expect((await readClient(BAD_IDENTIFIER)).err).toBe("ErrResourceNotFound");
  });

  it("TestOAuthClientsReadWithOptions (v1.60.0)/when the OAuth client exists: include=projects gives the projects it was created with", async () => {
    const created = await createOAuthClient([IDS.projects.platform]);
    const { data } = await readClient(created.id, ["projects"]);
    expect(data!.data.relationships.projects).toEqual(created.relationships.projects);
    expect(data!.included!.map((r) => r.id)).toEqual([IDS.projects.platform]);
  });

  it("TestOAuthClientsDelete: deleted, then read and delete again are ErrResourceNotFound", async () => {
    const created = await createOAuthClient();
    expect((await owner().DELETE("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: created.id } } })).response.status).toBe(204);
    expect((await readClient(created.id)).err).toBe("ErrResourceNotFound");
    expect((await answer(owner().DELETE("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: created.id } } }))).err).toBe("ErrResourceNotFound");
    expect((await answer(owner().DELETE("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: BAD_IDENTIFIER } } }))).err).toBe("ErrResourceNotFound");
  });

  it("TestOAuthClientsAddProjects (v1.60.0)/with projects provided: both projects on a fresh read", async () => {
    const created = await createOAuthClient();
    const { status } = await answer(
      owner().POST("/oauth-clients/{oauth_client_id}/relationships/projects", {
        params: { path: { oauth_client_id: created.id } },
        body: { data: [{ id: IDS.projects.platform, type: "projects" }, { id: IDS.projects.data, type: "projects" }] },
      }),
    );
    expect(status).toBe(204);
    const ids = (await readClient(created.id)).data!.data.relationships.projects.data.map((p) => p.id);
    expect(ids).toHaveLength(2);
    expect(ids).toContain(IDS.projects.platform);
    expect(ids).toContain(IDS.projects.data);
    expect((await answer(owner().POST("/oauth-clients/{oauth_client_id}/relationships/projects", { params: { path: { oauth_client_id: BAD_IDENTIFIER } }, body: { data: [{ id: IDS.projects.data, type: "projects" }] } }))).err).toBe(
      "ErrResourceNotFound",
    );
  });

  it("TestOAuthClientsRemoveProjects (v1.60.0)/with projects provided: no projects left", async () => {
    const created = await createOAuthClient([IDS.projects.platform, IDS.projects.data]);
    const { status } = await answer(
      owner().DELETE("/oauth-clients/{oauth_client_id}/relationships/projects", {
        params: { path: { oauth_client_id: created.id } },
        body: { data: [{ id: IDS.projects.platform, type: "projects" }, { id: IDS.projects.data, type: "projects" }] },
      }),
    );
    expect(status).toBe(204);
    expect((await readClient(created.id)).data!.data.relationships.projects.data).toEqual([]);
  });

  it("TestOAuthClientsUpdate (v1.60.0)/updates organization scoped: true at creation, false after the update", async () => {
    const { data: created } = await answer(
      owner().POST("/organizations/{organization_name}/oauth-clients", { params: org("acme"), body: { data: { type: "oauth-clients", attributes: { ...GITHUB, "oauth-token-string": "bbdc-token", "organization-scoped": true } } } }),
    );
    const { data } = await answer(owner().PATCH("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: created!.data.id } }, body: { data: { type: "oauth-clients", attributes: { "organization-scoped": false } } } }));
    expect(data!.data.attributes["organization-scoped"]).not.toBe(created!.data.attributes["organization-scoped"]);
  });

  it("go-tfe's request headers (tfe.go NewRequest): JSON:API content type and accept on every request, a GET included", async () => {
    const response = await server.fetch(`/oauth-clients/${IDS.clients.vcsA}?include=oauth_tokens`, { token: TOKENS.alice, headers: { "Content-Type": JSON_API, Accept: JSON_API } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
  });
});
