// The description's examples are real: each response example is what the reference server answers
// for the default world (origin http://127.0.0.1:8080), to the request its summary describes; ids
// and timestamps the server makes up are the only things allowed to differ.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../server/shared/openapi.ts";
import { IDS, JSON_API, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

const ORIGIN = "http://127.0.0.1:8080";
const examples = (loadBundle("org-platform").components as { examples: Record<string, { value: unknown }> }).examples;
const example = (name: string) => structuredClone(examples[name]!.value) as Record<string, unknown>;

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
afterAll(() => server.close());

/** The answer, with the test server's origin written as the documented one. */
async function answer(method: string, path: string, token: string, body?: unknown) {
  const response = await server.fetch(path, {
    method,
    token,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { "Content-Type": JSON_API } }),
  });
  const text = await response.text();
  const origin = new URL(server.baseUrl).origin;
  return { status: response.status, json: text ? JSON.parse(text.split(origin).join(ORIGIN)) : undefined };
}

/** Replaces made-up values (ids, uuids, timestamps) of `actual` by those of `expected`, where both exist. */
function adopt(actual: unknown, expected: unknown, keys = /^(id|created-at|callback-url|connect-path|related|self)$/): unknown {
  if (Array.isArray(actual) && Array.isArray(expected)) return actual.map((a, i) => adopt(a, expected[i], keys));
  if (actual && expected && typeof actual === "object" && typeof expected === "object") {
    return Object.fromEntries(
      Object.entries(actual).map(([k, v]) => [k, keys.test(k) && typeof v === "string" && k in expected ? (expected as Record<string, unknown>)[k] : adopt(v, (expected as Record<string, unknown>)[k], keys)]),
    );
  }
  return actual;
}

describe("response examples", () => {
  it("OAuthClientList is acme's unpaginated list", async () => {
    expect((await answer("GET", "/organizations/acme/oauth-clients", TOKENS.alice)).json).toEqual(example("OAuthClientList"));
  });

  it("OAuthClientPage is page 2 of one, with projects", async () => {
    expect((await answer("GET", "/organizations/acme/oauth-clients?include=projects&page%5Bnumber%5D=2&page%5Bsize%5D=1", TOKENS.alice)).json).toEqual(
      example("OAuthClientPage"),
    );
  });

  it("OAuthClientWithTokens is one client with its tokens", async () => {
    expect((await answer("GET", `/oauth-clients/${IDS.clients.vcsA}?include=oauth_tokens`, TOKENS.alice)).json).toEqual(example("OAuthClientWithTokens"));
  });

  it("OAuthClientCreated answers CreateOAuthClientRequest", async () => {
    const { status, json } = await answer("POST", "/organizations/acme/oauth-clients", TOKENS.alice, example("CreateOAuthClientRequest"));
    expect(status).toBe(201);
    expect(adopt(json, example("OAuthClientCreated"))).toEqual(example("OAuthClientCreated"));
  });

  it("CreateOAuthClientVcsCServer is accepted", async () => {
    expect((await answer("POST", "/organizations/acme/oauth-clients", TOKENS.alice, example("CreateOAuthClientVcsCServer"))).status).toBe(201);
  });

  it("OAuthClientUpdated answers UpdateOAuthClientRequest on the VCS B client", async () => {
    const { status, json } = await answer("PATCH", `/oauth-clients/${IDS.clients.vcsB}`, TOKENS.alice, example("UpdateOAuthClientRequest"));
    expect(status).toBe(200);
    expect(json).toEqual(example("OAuthClientUpdated"));
  });

  it("ProjectsRequest attaches and detaches", async () => {
    expect((await answer("POST", `/oauth-clients/${IDS.clients.vcsA}/relationships/projects`, TOKENS.alice, example("ProjectsRequest"))).status).toBe(204);
    expect((await answer("DELETE", `/oauth-clients/${IDS.clients.vcsA}/relationships/projects`, TOKENS.alice, example("ProjectsRequest"))).status).toBe(204);
  });

  it("TeamPage is what alice sees of owners and developers", async () => {
    expect((await answer("GET", "/organizations/acme/teams?filter%5Bnames%5D=owners%2Cdevelopers", TOKENS.alice)).json).toEqual(example("TeamPage"));
  });

  it("TeamWithMembers is the developers team as bob sees it, with its members", async () => {
    expect((await answer("GET", `/teams/${IDS.teams.developers}?include=users%2Corganization-memberships`, TOKENS.bob)).json).toEqual(example("TeamWithMembers"));
  });

  it("the related-resource examples are what their links answer", async () => {
    expect((await answer("GET", "/organizations/acme", TOKENS.alice)).json).toEqual(example("OrganizationShown"));
    expect((await answer("GET", `/oauth-tokens/${IDS.tokens.vcsA}`, TOKENS.alice)).json).toEqual(example("OAuthTokenShown"));
    expect((await answer("GET", `/projects/${IDS.projects.platform}`, TOKENS.alice)).json).toEqual(example("ProjectShown"));
    expect((await answer("GET", `/users/${IDS.users.carol}`, TOKENS.bob)).json).toEqual(example("UserShown"));
    expect((await answer("GET", `/organization-memberships/${IDS.memberships.carol}?include=user`, TOKENS.bob)).json).toEqual(example("MembershipWithUser"));
  });

  it("TeamCreated answers CreateTeamRequest, and TeamUpdated answers UpdateTeamRequest on it", async () => {
    const created = await answer("POST", "/organizations/acme/teams", TOKENS.alice, example("CreateTeamRequest"));
    expect(created.status).toBe(200);
    expect(adopt(created.json, example("TeamCreated"))).toEqual(example("TeamCreated"));
    const id = (created.json as { data: { id: string } }).data.id;
    const updated = await answer("PATCH", `/teams/${id}`, TOKENS.alice, example("UpdateTeamRequest"));
    expect(updated.status).toBe(200);
    expect(adopt(updated.json, example("TeamUpdated"))).toEqual(example("TeamUpdated"));
  });
});

describe("error examples", () => {
  const cases: [string, () => Promise<{ status: number; json: unknown }>][] = [
    ["Unauthorized", () => answer("GET", "/organizations/acme/teams", "")],
    ["NotFound", () => answer("GET", "/teams/team-doesnotexist00", TOKENS.alice)],
    ["InvalidInclude", () => answer("GET", "/organizations/acme/oauth-clients?include=organization", TOKENS.alice)],
    [
      "MissingAttribute",
      () => {
        const body = example("CreateOAuthClientRequest") as { data: { attributes: Record<string, unknown> } };
        delete body.data.attributes["oauth-token-string"];
        return answer("POST", "/organizations/acme/oauth-clients", TOKENS.alice, body);
      },
    ],
    ["UnknownProject", () => answer("POST", `/oauth-clients/${IDS.clients.vcsA}/relationships/projects`, TOKENS.alice, { data: [{ id: "prj-doesnotexist0000", type: "projects" }] })],
    ["NameTaken", () => answer("POST", "/organizations/acme/teams", TOKENS.alice, { data: { type: "teams", attributes: { name: "developers" } } })],
    [
      "CascadeViolation",
      () => answer("POST", "/organizations/acme/teams", TOKENS.alice, { data: { type: "teams", attributes: { name: "t", "organization-access": { "manage-workspaces": true, "read-workspaces": false } } } }),
    ],
    ["OwnersTeamFixed", () => answer("DELETE", `/teams/${IDS.teams.owners}`, TOKENS.alice)],
    ["PayloadTooLarge", () => answer("POST", "/organizations/acme/teams", TOKENS.alice, { data: { type: "teams", attributes: { name: "x".repeat(1_100_000) } } })],
  ];
  for (const [name, request] of cases) {
    it(`${name} is the server's answer`, async () => {
      const value = example(name) as { errors: { status: string }[] };
      const { status, json } = await request();
      expect(String(status)).toBe(value.errors[0]!.status);
      expect(json).toEqual(value);
    });
  }
});
