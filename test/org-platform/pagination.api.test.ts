// Pagination of list teams and list OAuth clients: defaults, edges (empty page, last page, a page
// past the end, page sizes 1 and 100), bad page parameters, and the links.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorldFile } from "../../server/org-platform/domain/world.ts";
import { startOrgPlatform, type RunningOrgPlatform } from "../helpers/org-platform.ts";

const TOKEN = "big-owner-token";
const TEAM_NAMES = Array.from({ length: 45 }, (_, i) => `team-${String(i).padStart(2, "0")}`);
const WORLD: WorldFile = {
  users: [{ username: "owner", email: "owner@big.example", tokens: [TOKEN] }],
  organizations: [
    {
      name: "big",
      email: "admin@big.example",
      plan: "business",
      members: [{ user: "owner" }],
      projects: [{ id: "prj-BigProject000001", name: "Default Project" }],
      // With owners: 46 teams.
      teams: [{ name: "owners", members: ["owner"] }, ...TEAM_NAMES.map((name) => ({ name, visibility: "organization" as const }))],
      "oauth-clients": Array.from({ length: 25 }, (_, i) => ({
        id: `oc-BigClient${String(i).padStart(7, "0")}`,
        "service-provider": "vcs_a" as const,
        "http-url": "https://vcs-a.example",
        "api-url": "https://api.vcs-a.example",
        "created-at": new Date(Date.UTC(2023, 0, 1 + i)).toISOString(),
      })),
    },
    { name: "empty", email: "admin@empty.example", plan: "team", token: "empty-org-token" },
  ],
};

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform({ world: WORLD });
});
afterAll(() => server.close());

const client = () => server.as(TOKEN);
const ALL_TEAMS = ["owners", ...TEAM_NAMES].sort();

async function teams(page?: { number?: number; size?: number }, extra: Record<string, unknown> = {}) {
  const { data, response } = await client().GET("/organizations/{organization_name}/teams", {
    params: { path: { organization_name: "big" }, query: { ...(page && { page }), ...extra } },
  });
  expect(response.status).toBe(200);
  return data!;
}

describe("list teams pagination", () => {
  it("answers the first page of 20 when no page parameter is given", async () => {
    const page = await teams();
    expect(page.data.map((t) => t.attributes.name)).toEqual(ALL_TEAMS.slice(0, 20));
    expect(page.meta.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": 2, "total-pages": 3, "total-count": 46 });
    const url = `${server.baseUrl}/organizations/big/teams`;
    expect(page.links).toEqual({
      self: `${url}?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
      first: `${url}?page%5Bnumber%5D=1&page%5Bsize%5D=20`,
      prev: null,
      next: `${url}?page%5Bnumber%5D=2&page%5Bsize%5D=20`,
      last: `${url}?page%5Bnumber%5D=3&page%5Bsize%5D=20`,
    });
  });

  it("answers a middle page and the (shorter) last page", async () => {
    const middle = await teams({ number: 2 });
    expect(middle.data.map((t) => t.attributes.name)).toEqual(ALL_TEAMS.slice(20, 40));
    expect(middle.meta.pagination).toMatchObject({ "current-page": 2, "prev-page": 1, "next-page": 3 });
    const last = await teams({ number: 3 });
    expect(last.data.map((t) => t.attributes.name)).toEqual(ALL_TEAMS.slice(40));
    expect(last.meta.pagination).toEqual({ "current-page": 3, "page-size": 20, "prev-page": 2, "next-page": null, "total-pages": 3, "total-count": 46 });
    expect(last.links.next).toBeNull();
    expect(last.links.prev).toBe(`${server.baseUrl}/organizations/big/teams?page%5Bnumber%5D=2&page%5Bsize%5D=20`);
  });

  it("answers an empty page past the end", async () => {
    const past = await teams({ number: 9 });
    expect(past.data).toEqual([]);
    expect(past.meta.pagination).toEqual({ "current-page": 9, "page-size": 20, "prev-page": 8, "next-page": null, "total-pages": 3, "total-count": 46 });
    expect(past.links.last).toBe(`${server.baseUrl}/organizations/big/teams?page%5Bnumber%5D=3&page%5Bsize%5D=20`);
  });

  it("answers an empty list as one empty page", async () => {
    const empty = await teams(undefined, { q: "no-such-team" });
    expect(empty.data).toEqual([]);
    expect(empty.meta.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 0 });
    expect(empty.links.self).toBe(`${server.baseUrl}/organizations/big/teams?q=no-such-team&page%5Bnumber%5D=1&page%5Bsize%5D=20`);
  });

  it("answers pages of 1 and of 100", async () => {
    const one = await teams({ size: 1, number: 46 });
    expect(one.data.map((t) => t.attributes.name)).toEqual([ALL_TEAMS[45]]);
    expect(one.meta.pagination).toEqual({ "current-page": 46, "page-size": 1, "prev-page": 45, "next-page": null, "total-pages": 46, "total-count": 46 });
    const hundred = await teams({ size: 100 });
    expect(hundred.data).toHaveLength(46);
    expect(hundred.meta.pagination).toEqual({ "current-page": 1, "page-size": 100, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 46 });
  });

  it("keeps the other query parameters in the links", async () => {
    const page = await teams({ size: 2 }, { q: "team-1", filter: { names: "team-10,team-11,team-12" }, include: ["users"] });
    expect(page.data.map((t) => t.attributes.name)).toEqual(["team-10", "team-11"]);
    expect(page.links.next).toBe(
      `${server.baseUrl}/organizations/big/teams?q=team-1&filter%5Bnames%5D=team-10%2Cteam-11%2Cteam-12&include=users&page%5Bnumber%5D=2&page%5Bsize%5D=2`,
    );
    // The links work.
    const next = await server.fetch(page.links.next!.slice(server.baseUrl.length), { token: TOKEN });
    expect(((await next.json()) as { data: { attributes: { name: string } }[] }).data.map((t) => t.attributes.name)).toEqual(["team-12"]);
  });

  it("accepts percent-encoded and raw brackets alike", async () => {
    for (const query of ["page%5Bnumber%5D=2&page%5Bsize%5D=5", "page[number]=2&page[size]=5", "page%5Bnumber%5D=2&page[size]=5"]) {
      const response = await server.fetch(`/organizations/big/teams?${query}`, { token: TOKEN });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { attributes: { name: string } }[]; meta: { pagination: Record<string, number> } };
      expect(body.data.map((t) => t.attributes.name)).toEqual(ALL_TEAMS.slice(5, 10));
      expect(body.meta.pagination["page-size"]).toBe(5);
    }
  });

  it("refuses page parameters out of range or of the wrong type with the platform's 422 naming the parameter", async () => {
    for (const [query, parameter] of [
      ["page%5Bsize%5D=101", "page[size]"],
      ["page[size]=0", "page[size]"],
      ["page[number]=0", "page[number]"],
      ["page[number]=-1", "page[number]"],
      ["page[number]=two", "page[number]"],
      ["page[size]=1.5", "page[size]"],
    ]) {
      const response = await server.fetch(`/organizations/big/teams?${query}`, { token: TOKEN });
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as { errors: unknown[] };
      const detail = parameter === "page[size]" ? "page[size] must be between 1 and 100" : "page[number] must be a positive integer";
      expect(body.errors, query).toEqual([{ status: "422", title: "invalid attribute", detail }]);
    }
  });

  it("ignores query parameters it does not know, page[offset] included", async () => {
    for (const query of ["page[offset]=3", "unknown=1", "show_affected_workspaces=true", "q=", "filter[names]="]) {
      const response = await server.fetch(`/organizations/big/teams?${query}`, { token: TOKEN });
      expect(response.status, query).toBe(200);
    }
  });
});

describe("list OAuth clients pagination", () => {
  const clients = async (query?: { page?: { number?: number; size?: number } }, organization = "big", token = TOKEN) => {
    const { data, response } = await server.as(token).GET("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: organization }, query },
    });
    expect(response.status).toBe(200);
    return data!;
  };

  it("returns every client unpaginated when neither page parameter is given", async () => {
    const all = await clients();
    expect(all.data).toHaveLength(25);
    expect(all.meta).toBeUndefined();
    expect(all.links).toBeUndefined();
  });

  it("paginates by 20 when only page[number] is given, and from page 1 when only page[size] is", async () => {
    const second = await clients({ page: { number: 2 } });
    expect(second.data.map((c) => c.id)).toEqual(Array.from({ length: 5 }, (_, i) => `oc-BigClient${String(i + 20).padStart(7, "0")}`));
    expect(second.meta!.pagination).toEqual({ "current-page": 2, "page-size": 20, "prev-page": 1, "next-page": null, "total-pages": 2, "total-count": 25 });
    const sized = await clients({ page: { size: 10 } });
    expect(sized.data).toHaveLength(10);
    expect(sized.meta!.pagination).toMatchObject({ "current-page": 1, "page-size": 10, "next-page": 2, "total-pages": 3 });
    expect(sized.links!.last).toBe(`${server.baseUrl}/organizations/big/oauth-clients?page%5Bnumber%5D=3&page%5Bsize%5D=10`);
  });

  it("answers page sizes 1 and 100, a page past the end, and an empty organization", async () => {
    const one = await clients({ page: { size: 1, number: 25 } });
    expect(one.data.map((c) => c.id)).toEqual(["oc-BigClient0000024"]);
    expect(one.meta!.pagination).toMatchObject({ "total-pages": 25, "next-page": null, "prev-page": 24 });
    expect((await clients({ page: { size: 100 } })).data).toHaveLength(25);
    const past = await clients({ page: { number: 3 } });
    expect(past.data).toEqual([]);
    expect(past.meta!.pagination).toMatchObject({ "current-page": 3, "next-page": null, "total-pages": 2, "total-count": 25 });
    const empty = await clients({ page: { number: 1 } }, "empty", "empty-org-token");
    expect(empty.data).toEqual([]);
    expect(empty.meta!.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 0 });
    expect((await clients(undefined, "empty", "empty-org-token")).data).toEqual([]);
  });

  it("refuses a page size above 100 with 422", async () => {
    const response = await server.fetch("/organizations/big/oauth-clients?page%5Bsize%5D=500", { token: TOKEN });
    expect(response.status).toBe(422);
  });
});
