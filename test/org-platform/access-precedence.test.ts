// Who acts as what in an organization, as the real platform documents it (organization and team
// tokens, the owners team, invitations): membership comes first (an invited user has not joined and
// has no role; another organization's token has none either), then the owners team (a member of it
// is an owner, whatever other teams it is in), then the permissions of the caller's own teams in
// that organization, added up.
import { describe, expect, it } from "vitest";
import { canManageTeams, canManageVcsSettings, roleIn } from "../../server/org-platform/domain/access.ts";
import { allAccess, type Membership, type Team, type User } from "../../server/org-platform/domain/model.ts";

const user: User = { id: "user-1", username: "ada", email: "ada@example.com", isServiceAccount: false };
const membership = (organization: string, status: Membership["status"], userId = user.id): Membership => ({
  id: `ou-${organization}-${userId}`,
  organization,
  userId,
  status,
  createdAt: "2024-01-01T00:00:00.000Z",
});
const team = (id: string, organization: string, name: string, userIds: string[], access: Partial<Record<string, boolean>> = {}): Team => ({
  id,
  organization,
  name,
  visibility: "organization",
  organizationAccess: { ...allAccess(false), ...access },
  ssoTeamId: null,
  userIds,
  createdAt: "2024-01-01T00:00:00.000Z",
});

describe("membership decides first", () => {
  const teams = [team("team-o", "acme", "owners", [user.id])];

  it("an invited user has not joined yet: no role, even in the owners team", () => {
    expect(roleIn({ kind: "user", user }, "acme", [membership("acme", "invited")], teams)).toBeUndefined();
  });

  it("a membership elsewhere, or another user's membership here, gives no role", () => {
    expect(roleIn({ kind: "user", user }, "acme", [membership("other", "active")], teams)).toBeUndefined();
    expect(roleIn({ kind: "user", user }, "acme", [membership("acme", "active", "user-2")], teams)).toBeUndefined();
  });

  it("an active member has a role", () => {
    expect(roleIn({ kind: "user", user }, "acme", [membership("acme", "active")], teams)).toMatchObject({ organization: "acme", owner: true, userId: user.id });
  });
});

describe("the owners team, then the caller's own teams", () => {
  const memberships = [membership("acme", "active")];

  it("a member of the owners team is an owner, whatever other teams it is in", () => {
    const teams = [team("team-d", "acme", "developers", [user.id]), team("team-o", "acme", "owners", [user.id])];
    const role = roleIn({ kind: "user", user }, "acme", memberships, teams)!;
    expect(role.owner).toBe(true);
    expect(canManageTeams(role)).toBe(true);
  });

  it("only the caller's teams in this organization count", () => {
    const teams = [
      team("team-d", "acme", "developers", [user.id], { "manage-vcs-settings": false, "read-projects": true }),
      team("team-v", "acme", "vcs", ["user-2"], { "manage-vcs-settings": true }),
      team("team-x", "other", "owners", [user.id], { "manage-vcs-settings": true }),
    ];
    const role = roleIn({ kind: "user", user }, "acme", memberships, teams)!;
    expect(role.owner).toBe(false);
    expect([...role.teamIds]).toEqual(["team-d"]);
    expect(role.access).toEqual({ ...allAccess(false), "read-projects": true });
    expect(canManageVcsSettings(role)).toBe(false);
    expect(canManageTeams(role)).toBe(false);
  });

  it("permissions of several own teams add up", () => {
    const teams = [team("team-a", "acme", "a", [user.id], { "manage-vcs-settings": true }), team("team-b", "acme", "b", [user.id], { "read-projects": true })];
    const role = roleIn({ kind: "user", user }, "acme", memberships, teams)!;
    expect(role.access).toEqual({ ...allAccess(false), "manage-vcs-settings": true, "read-projects": true });
    expect(canManageVcsSettings(role)).toBe(true);
    expect(canManageTeams(role)).toBe(false);
  });
});

describe("tokens", () => {
  it("the organization token acts as an owner with every organization permission, in its organization only", () => {
    const role = roleIn({ kind: "organization", organization: "acme" }, "acme", [], [])!;
    expect(role).toMatchObject({ owner: true, access: allAccess(true) });
    expect([...role.teamIds]).toEqual([]);
    expect(canManageTeams(role)).toBe(true);
    expect(roleIn({ kind: "organization", organization: "other" }, "acme", [], [])).toBeUndefined();
  });

  it("a team token has its team's role: owner for the owners team, its permissions otherwise", () => {
    const owners = team("team-o", "acme", "owners", []);
    const devs = team("team-d", "acme", "developers", [], { "manage-vcs-settings": true });
    expect(roleIn({ kind: "team", team: owners }, "acme", [], [])).toMatchObject({ owner: true });
    const role = roleIn({ kind: "team", team: devs }, "acme", [], [])!;
    expect(role).toMatchObject({ owner: false, access: { ...allAccess(false), "manage-vcs-settings": true } });
    expect([...role.teamIds]).toEqual(["team-d"]);
    expect(roleIn({ kind: "team", team: devs }, "other", [], [])).toBeUndefined();
  });
});
