// Prism, the stateless mock, answers every org-platform operation from the description's examples,
// and those answers follow the description.
import { beforeAll, describe, expect, it } from "vitest";
import { createOrgPlatformClient } from "../../generated/org-platform/client.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { responseChecker } from "../helpers/contract.ts";
import { IDS, JSON_API, TOKENS } from "../helpers/org-platform.ts";
import { sharedMock } from "../helpers/shared-mock.ts";

const bundle = loadBundle("org-platform");
const check = responseChecker(bundle);
let prismUrl: string;
let client: ReturnType<typeof createOrgPlatformClient>;

beforeAll(async () => {
  // Prism itself (not the front of `npm run mock`): the run's shared one (test/setup/shared-mocks.ts).
  ({ prismUrl } = await sharedMock("org-platform"));
  client = createOrgPlatformClient({
    baseUrl: prismUrl,
    headers: { Authorization: `Bearer ${TOKENS.alice}`, "Content-Type": JSON_API },
    querySerializer: { array: { style: "form", explode: false } },
  });
}, 60_000);

type Call = Promise<{ response: Response; data?: unknown; error?: unknown }>;

async function expectValid(template: string, method: string, status: number, call: Call) {
  const { response, data, error } = await call;
  expect(response.status).toBe(status);
  const body = data ?? error;
  if (status === 204) {
    expect(body).toBeUndefined();
  } else {
    expect(check(template, method, response.status, response.headers.get("content-type") ?? "", body)).toEqual([]);
  }
  return body as Record<string, unknown>;
}

const ORG = { params: { path: { organization_name: "acme" } } };
const CLIENT = { params: { path: { oauth_client_id: IDS.clients.vcsA } } };
const TEAM = { params: { path: { team_id: IDS.teams.developers } } };
const examples = (bundle.components as { examples: Record<string, { value: never }> }).examples;

describe("Prism mock of the org-platform API", () => {
  it("answers listOAuthClients, readOAuthClient and createOAuthClient", async () => {
    const list = await expectValid(
      "/organizations/{organization_name}/oauth-clients",
      "get",
      200,
      client.GET("/organizations/{organization_name}/oauth-clients", { params: { path: { organization_name: "acme" }, query: { page: { number: 1, size: 20 }, include: ["projects"] } } }),
    );
    expect(list.data).toHaveLength(2);
    await expectValid("/oauth-clients/{oauth_client_id}", "get", 200, client.GET("/oauth-clients/{oauth_client_id}", CLIENT));
    await expectValid(
      "/organizations/{organization_name}/oauth-clients",
      "post",
      201,
      client.POST("/organizations/{organization_name}/oauth-clients", { ...ORG, body: examples.CreateOAuthClientRequest!.value }),
    );
  });

  it("answers updateOAuthClient, deleteOAuthClient, attach and detach", async () => {
    await expectValid("/oauth-clients/{oauth_client_id}", "patch", 200, client.PATCH("/oauth-clients/{oauth_client_id}", { ...CLIENT, body: examples.UpdateOAuthClientRequest!.value }));
    await expectValid("/oauth-clients/{oauth_client_id}", "delete", 204, client.DELETE("/oauth-clients/{oauth_client_id}", CLIENT));
    const projects = { ...CLIENT, body: examples.ProjectsRequest!.value };
    await expectValid("/oauth-clients/{oauth_client_id}/relationships/projects", "post", 204, client.POST("/oauth-clients/{oauth_client_id}/relationships/projects", projects));
    await expectValid("/oauth-clients/{oauth_client_id}/relationships/projects", "delete", 204, client.DELETE("/oauth-clients/{oauth_client_id}/relationships/projects", projects));
  });

  it("answers listTeams, createTeam (200), readTeam, updateTeam and deleteTeam", async () => {
    const list = await expectValid(
      "/organizations/{organization_name}/teams",
      "get",
      200,
      client.GET("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" }, query: { q: "dev", filter: { names: "owners,developers" } } } }),
    );
    expect(list).toHaveProperty("meta.pagination");
    await expectValid("/organizations/{organization_name}/teams", "post", 200, client.POST("/organizations/{organization_name}/teams", { ...ORG, body: examples.CreateTeamRequest!.value }));
    const team = await expectValid("/teams/{team_id}", "get", 200, client.GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers }, query: { include: ["users"] } } }));
    expect(team).toHaveProperty("included");
    await expectValid("/teams/{team_id}", "patch", 200, client.PATCH("/teams/{team_id}", { ...TEAM, body: examples.UpdateTeamRequest!.value }));
    await expectValid("/teams/{team_id}", "delete", 204, client.DELETE("/teams/{team_id}", TEAM));
  });

  it("answers a request without a token with the documented 401", async () => {
    const anonymous = createOrgPlatformClient({ baseUrl: prismUrl });
    const error = await expectValid("/organizations/{organization_name}/teams", "get", 401, anonymous.GET("/organizations/{organization_name}/teams", ORG));
    expect(error).toEqual(examples.Unauthorized!.value);
  });

  it("refuses an include value the description does not offer, as the reference server does (the front of npm run mock: Prism is given no parameters)", async () => {
    const { url } = await sharedMock("org-platform");
    const front = createOrgPlatformClient({ baseUrl: url, headers: { Authorization: `Bearer ${TOKENS.alice}` }, querySerializer: { array: { style: "form", explode: false } } });
    const { response } = await front.GET("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: IDS.clients.vcsA }, query: { include: ["users"] as never } } });
    expect(response.status).toBe(400);
  });

  it("refuses a body the description forbids with a 422, as the reference server does", async () => {
    const { response, error } = await client.POST("/organizations/{organization_name}/teams", { ...ORG, body: { data: { type: "teams", attributes: { name: "bad name" } } } });
    expect(response.status).toBe(422);
    expect(check("/organizations/{organization_name}/teams", "post", 422, response.headers.get("content-type") ?? "", error)).toEqual([]);
  });
});
