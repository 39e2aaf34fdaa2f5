// What a request acts on, resolved and authorized from its path alone before its query and body are
// looked at (OrgPlatformService.authorize): every refusal is the endpoint's 404, whether the resource
// is missing or the caller may not act on it. The default world's callers: alice owns acme; bob is a
// member (developers: no VCS or team rights) and owns initech (free plan: no team management); carol
// is in developers and platform (manage-vcs-settings); erin owns globex only.
import { describe, expect, it } from "vitest";
import type { operations } from "../../generated/org-platform/schema.ts";
import { DEFAULT_WORLD } from "../../server/org-platform/default-world.ts";
import { ApiError } from "../../server/org-platform/domain/errors.ts";
import { loadWorld } from "../../server/org-platform/domain/world.ts";
import { OrgPlatformService } from "../../server/org-platform/service.ts";
import { MemoryOrgPlatformStore } from "../../server/org-platform/store/store.ts";

const service = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(DEFAULT_WORLD)));
const callers = {
  alice: service.authenticate("alice.atlasv1.dev-user-token"),
  bob: service.authenticate("bob.atlasv1.dev-user-token"),
  carol: service.authenticate("carol.atlasv1.dev-user-token"),
  erin: service.authenticate("erin.atlasv1.dev-user-token"),
  acme: service.authenticate("acme.atlasv1.dev-organization-token"),
  developersToken: service.authenticate("acme-developers.atlasv1.dev-team-token"),
  platformToken: service.authenticate("acme-platform.atlasv1.dev-team-token"),
};
type Who = keyof typeof callers;
const TEAMS = { owners: "team-Dv3LpQn8sWc4Xe2B", developers: "team-Mx7kRb2tYq9hWn5C", platform: "team-Pn4wXc8sLd2vQj6H", security: "team-Sb9tKv3nWp7mXr2F" };
const CLIENT = "oc-V5sxDk9wuGzo1V2R";

/** "ok" when the caller may go on to the request's input; "404" when refused, as the endpoint's 404. */
function outcome(who: Who, operationId: keyof operations, params: Record<string, string>): "ok" | "404" {
  try {
    service.authorize(callers[who], operationId, params);
    return "ok";
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errors).toEqual([{ status: "404", title: "not found" }]);
    return "404";
  }
}

describe("lists of an organization: any member, nobody else", () => {
  it.each(["listTeams", "listOAuthClients"] as const)("%s", (operationId) => {
    expect(outcome("bob", operationId, { organization_name: "acme" })).toBe("ok");
    expect(outcome("developersToken", operationId, { organization_name: "acme" })).toBe("ok");
    expect(outcome("erin", operationId, { organization_name: "acme" })).toBe("404");
    expect(outcome("alice", operationId, { organization_name: "no-such-org" })).toBe("404");
    expect(outcome("alice", operationId, {})).toBe("404");
  });
});

describe("creating an OAuth client: the VCS-settings permission", () => {
  it("owners, the organization token, a team with manage-vcs-settings and its token; not other members", () => {
    for (const who of ["alice", "acme", "carol", "platformToken"] as const) expect(outcome(who, "createOAuthClient", { organization_name: "acme" }), who).toBe("ok");
    for (const who of ["bob", "developersToken", "erin"] as const) expect(outcome(who, "createOAuthClient", { organization_name: "acme" }), who).toBe("404");
    expect(outcome("alice", "createOAuthClient", { organization_name: "globex" })).toBe("404");
  });
});

describe("creating a team: team management rights, in an organization that has the feature", () => {
  it("owners and the organization token; not members, not in a free organization even for its owner", () => {
    expect(outcome("alice", "createTeam", { organization_name: "acme" })).toBe("ok");
    expect(outcome("acme", "createTeam", { organization_name: "acme" })).toBe("ok");
    for (const who of ["bob", "carol", "developersToken", "erin"] as const) expect(outcome(who, "createTeam", { organization_name: "acme" }), who).toBe("404");
    expect(outcome("bob", "createTeam", { organization_name: "initech" })).toBe("404");
  });
});

describe("an OAuth client: any member reads it, the VCS-settings permission changes it", () => {
  const changes = ["updateOAuthClient", "deleteOAuthClient", "attachOAuthClientProjects", "detachOAuthClientProjects"] as const;
  it("reads", () => {
    for (const who of ["alice", "bob", "carol", "developersToken"] as const) expect(outcome(who, "readOAuthClient", { oauth_client_id: CLIENT }), who).toBe("ok");
    expect(outcome("erin", "readOAuthClient", { oauth_client_id: CLIENT })).toBe("404");
    expect(outcome("alice", "readOAuthClient", { oauth_client_id: "oc-doesNotExist000" })).toBe("404");
  });
  it.each(changes)("%s", (operationId) => {
    for (const who of ["alice", "carol", "platformToken", "acme"] as const) expect(outcome(who, operationId, { oauth_client_id: CLIENT }), who).toBe("ok");
    for (const who of ["bob", "developersToken", "erin"] as const) expect(outcome(who, operationId, { oauth_client_id: CLIENT }), who).toBe("404");
    expect(outcome("alice", operationId, { oauth_client_id: "oc-doesNotExist000" })).toBe("404");
  });
});

describe("a team: seen by who may see it, changed by owners only", () => {
  it("reads: a visible team by any member, a secret one by its members and owners", () => {
    expect(outcome("bob", "readTeam", { team_id: TEAMS.developers })).toBe("ok");
    expect(outcome("bob", "readTeam", { team_id: TEAMS.platform })).toBe("404");
    expect(outcome("carol", "readTeam", { team_id: TEAMS.platform })).toBe("ok");
    expect(outcome("alice", "readTeam", { team_id: TEAMS.security })).toBe("ok");
    expect(outcome("erin", "readTeam", { team_id: TEAMS.developers })).toBe("404");
    expect(outcome("alice", "readTeam", { team_id: "team-doesNotExist00" })).toBe("404");
  });
  it.each(["updateTeam", "deleteTeam"] as const)("%s", (operationId) => {
    expect(outcome("alice", operationId, { team_id: TEAMS.developers })).toBe("ok");
    expect(outcome("acme", operationId, { team_id: TEAMS.developers })).toBe("ok");
    // Seeing a team is not changing it.
    expect(outcome("bob", operationId, { team_id: TEAMS.developers })).toBe("404");
    expect(outcome("carol", operationId, { team_id: TEAMS.platform })).toBe("404");
    expect(outcome("alice", operationId, { team_id: "team-doesNotExist00" })).toBe("404");
  });
});

describe("operations that act on nothing named by their path, or check for themselves", () => {
  it.each(["ping", "readOrganization", "readUser", "readProject", "readOAuthToken", "readOrganizationMembership"] as const)("%s goes on", (operationId) => {
    expect(outcome("erin", operationId, { organization_name: "acme", user_id: "x", project_id: "x", oauth_token_id: "x", organization_membership_id: "x" })).toBe("ok");
  });
});

describe("a caller's role follows every write at once", () => {
  it("a team given the VCS-settings permission lets its members create OAuth clients on the next request, and no longer once it is taken back", () => {
    const own = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(DEFAULT_WORLD)));
    const [alice, bob] = [own.authenticate("alice.atlasv1.dev-user-token"), own.authenticate("bob.atlasv1.dev-user-token")];
    const mayCreate = () => {
      try {
        own.authorize(bob, "createOAuthClient", { organization_name: "acme" });
        return true;
      } catch {
        return false;
      }
    };
    expect(mayCreate()).toBe(false);
    own.updateTeam(alice, TEAMS.developers, { "organization-access": { "manage-vcs-settings": true } }, []);
    expect(mayCreate()).toBe(true);
    // Alice's role (an owner) was asked at the same state: bob's is his own.
    own.authorize(alice, "createTeam", { organization_name: "acme" });
    expect(mayCreate()).toBe(true);
    own.updateTeam(alice, TEAMS.developers, { "organization-access": { "manage-vcs-settings": false } }, []);
    expect(mayCreate()).toBe(false);
  });

  it("a role worked out for one caller is never another's: each organization's token, each user, each team token", () => {
    const own = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(DEFAULT_WORLD)));
    const mayCreateTeam = (token: string, organization: string) => {
      try {
        own.authorize(own.authenticate(token), "createTeam", { organization_name: organization });
        return true;
      } catch {
        return false;
      }
    };
    // acme's own token owns acme; globex's token, asking next at the same state, has no role there.
    expect(mayCreateTeam("acme.atlasv1.dev-organization-token", "acme")).toBe(true);
    expect(mayCreateTeam("globex.atlasv1.dev-organization-token", "acme")).toBe(false);
    expect(mayCreateTeam("alice.atlasv1.dev-user-token", "acme")).toBe(true);
    expect(mayCreateTeam("bob.atlasv1.dev-user-token", "acme")).toBe(false);
    expect(mayCreateTeam("acme-developers.atlasv1.dev-team-token", "acme")).toBe(false);
  });
});
