// Unit tests of the pure domain: the permission cascade, single sign-on availability, roles and
// team permissions, pagination arithmetic.
import { describe, expect, it } from "vitest";
import { canManageVcsSettings, canSeeTeam, roleIn, teamPermissions } from "../../server/org-platform/domain/access.ts";
import { ApiError } from "../../server/org-platform/domain/errors.ts";
import { allAccess, type Membership, type Organization, type Team, type User } from "../../server/org-platform/domain/model.ts";
import { paginate } from "../../server/org-platform/domain/pagination.ts";
import { parseRelease, resolveOrganizationAccess, ssoAvailable } from "../../server/org-platform/domain/teams.ts";

const NONE = allAccess(false);

describe("resolveOrganizationAccess", () => {
  it("turns on what a permission implies when it was not sent", () => {
    expect(resolveOrganizationAccess(NONE, { "manage-projects": true })).toEqual({
      ...NONE,
      "manage-projects": true,
      "manage-workspaces": true,
      "read-projects": true,
      "read-workspaces": true,
    });
    expect(resolveOrganizationAccess(NONE, { "read-projects": true })).toEqual({ ...NONE, "read-projects": true, "read-workspaces": true });
    expect(resolveOrganizationAccess(NONE, { "manage-workspaces": true })).toEqual({ ...NONE, "manage-workspaces": true, "read-workspaces": true });
  });

  it("refuses an implied permission sent as false, naming the rule and the member", () => {
    const attempt = () => resolveOrganizationAccess(NONE, { "manage-projects": true, "read-projects": false });
    expect(attempt).toThrow(ApiError);
    try {
      attempt();
    } catch (error) {
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).errors[0]).toMatchObject({
        source: { pointer: "/data/attributes/organization-access/read-projects" },
        detail: expect.stringContaining("manage-projects implies read-projects"),
      });
    }
  });

  it("keeps unsent permissions and checks the rules against them", () => {
    const previous = resolveOrganizationAccess(NONE, { "manage-projects": true });
    expect(resolveOrganizationAccess(previous, { "manage-policies": true })["manage-projects"]).toBe(true);
    expect(() => resolveOrganizationAccess(previous, { "manage-workspaces": false })).toThrow(/manage-workspaces cannot be false while manage-projects is true/);
    expect(resolveOrganizationAccess(previous, { "manage-projects": false })).toMatchObject({ "manage-projects": false, "manage-workspaces": true });
  });

  it("ignores unknown and non-boolean properties", () => {
    expect(resolveOrganizationAccess(NONE, { "manage-everything": true } as never)).toEqual(NONE);
    expect(resolveOrganizationAccess(NONE, { "manage-policies": "yes" } as never)).toEqual(NONE);
  });
});

describe("ssoAvailable", () => {
  const org = (plan: Organization["plan"], selfHostedRelease?: string): Organization => ({
    name: "o",
    externalId: "org-x",
    email: "o@example.com",
    createdAt: "2023-01-01T00:00:00.000Z",
    plan,
    ...(selfHostedRelease && { selfHostedRelease }),
  });

  it("is on for the Business tier and from self-hosted release 202204-1", () => {
    expect(ssoAvailable(org("business"))).toBe(true);
    expect(ssoAvailable(org("team"))).toBe(false);
    expect(ssoAvailable(org("free"))).toBe(false);
    expect(ssoAvailable(org("team", "v202204-1"))).toBe(true);
    expect(ssoAvailable(org("free", "202204-2"))).toBe(true);
    expect(ssoAvailable(org("team", "v202205-1"))).toBe(true);
    expect(ssoAvailable(org("team", "v202203-9"))).toBe(false);
    expect(ssoAvailable(org("team", "v202112-1"))).toBe(false);
  });

  it("reads releases with or without the v", () => {
    expect(parseRelease("v202204-1")).toEqual([202204, 1]);
    expect(parseRelease("202212-2")).toEqual([202212, 2]);
    expect(parseRelease("latest")).toBeUndefined();
  });
});

describe("roles and team permissions", () => {
  const user = (id: string): User => ({ id, username: id, email: `${id}@example.com`, isServiceAccount: false });
  const team = (id: string, name: string, userIds: string[], extra: Partial<Team> = {}): Team => ({
    id,
    organization: "acme",
    name,
    visibility: "secret",
    organizationAccess: NONE,
    ssoTeamId: null,
    userIds,
    createdAt: "2023-01-01T00:00:00.000Z",
    ...extra,
  });
  const owners = team("team-o", "owners", ["user-a"], { organizationAccess: allAccess(true) });
  const membership = team("team-m", "membership", ["user-m"], { organizationAccess: { ...NONE, "manage-membership": true }, visibility: "organization" });
  const vcs = team("team-v", "vcs", ["user-v"], { organizationAccess: { ...NONE, "manage-vcs-settings": true } });
  const teams = [owners, membership, vcs];
  const memberships: Membership[] = ["user-a", "user-m", "user-v", "user-i"].map((userId, i) => ({
    id: `ou-${i}`,
    organization: "acme",
    userId,
    status: userId === "user-i" ? "invited" : "active",
    createdAt: "2023-01-01T00:00:00.000Z",
  }));

  it("gives no role to invited users and to tokens of other organizations", () => {
    expect(roleIn({ kind: "user", user: user("user-i") }, "acme", memberships, teams)).toBeUndefined();
    expect(roleIn({ kind: "user", user: user("user-x") }, "acme", memberships, teams)).toBeUndefined();
    expect(roleIn({ kind: "organization", organization: "other" }, "acme", memberships, teams)).toBeUndefined();
    expect(roleIn({ kind: "team", team: { ...vcs, organization: "other" } }, "acme", memberships, teams)).toBeUndefined();
  });

  it("makes owners of the owners team's members, the organization token and the owners-team token", () => {
    expect(roleIn({ kind: "user", user: user("user-a") }, "acme", memberships, teams)?.owner).toBe(true);
    expect(roleIn({ kind: "organization", organization: "acme" }, "acme", memberships, teams)?.owner).toBe(true);
    expect(roleIn({ kind: "team", team: owners }, "acme", memberships, teams)?.owner).toBe(true);
    expect(roleIn({ kind: "team", team: vcs }, "acme", memberships, teams)?.owner).toBe(false);
  });

  it("grants VCS management through a team's permission, and shows secret teams to their members only", () => {
    const v = roleIn({ kind: "user", user: user("user-v") }, "acme", memberships, teams)!;
    const m = roleIn({ kind: "user", user: user("user-m") }, "acme", memberships, teams)!;
    expect(canManageVcsSettings(v)).toBe(true);
    expect(canManageVcsSettings(m)).toBe(false);
    expect(canSeeTeam(v, vcs)).toBe(true);
    expect(canSeeTeam(m, vcs)).toBe(false);
    expect(canSeeTeam(v, membership)).toBe(true);
  });

  it("computes the permissions object from the caller", () => {
    const owner = roleIn({ kind: "user", user: user("user-a") }, "acme", memberships, teams)!;
    const m = roleIn({ kind: "user", user: user("user-m") }, "acme", memberships, teams)!;
    expect(teamPermissions(owner, vcs)).toEqual({
      "can-update-membership": true,
      "can-destroy": true,
      "can-update-organization-access": true,
      "can-update-api-token": true,
      "can-update-visibility": true,
    });
    expect(teamPermissions(owner, owners)).toMatchObject({ "can-destroy": false, "can-update-organization-access": false });
    expect(teamPermissions(m, vcs)).toEqual({
      "can-update-membership": true,
      "can-destroy": false,
      "can-update-organization-access": false,
      "can-update-api-token": false,
      "can-update-visibility": false,
    });
    expect(teamPermissions(m, owners)["can-update-membership"]).toBe(false);
  });
});

describe("paginate", () => {
  const location = { url: "http://h/api/v2/x", query: [["q", "a b"]] as [string, string][] };
  const items = Array.from({ length: 5 }, (_, i) => i);

  it("cuts pages and links them", () => {
    const page = paginate(items, { number: 2, size: 2 }, location);
    expect(page.items).toEqual([2, 3]);
    expect(page.meta).toEqual({ "current-page": 2, "page-size": 2, "prev-page": 1, "next-page": 3, "total-pages": 3, "total-count": 5 });
    expect(page.links.self).toBe("http://h/api/v2/x?q=a%20b&page%5Bnumber%5D=2&page%5Bsize%5D=2");
  });

  it("has one page for an empty list and empty pages past the end", () => {
    expect(paginate([], { number: 1, size: 20 }, location).meta).toMatchObject({ "total-pages": 1, "next-page": null, "prev-page": null });
    const past = paginate(items, { number: 7, size: 2 }, location);
    expect(past.items).toEqual([]);
    expect(past.meta).toMatchObject({ "current-page": 7, "prev-page": 6, "next-page": null, "total-pages": 3 });
  });
});
