// Teams rendered once per state version and caller role (OrgPlatformService.renderTeam): the same
// unchanging resource is given to every read of a team at one state version and role, a write or
// another role gets it rendered anew, and what is kept is bounded (a team with more members than the
// bound allows is never kept).
import { describe, expect, it } from "vitest";
import { DEFAULT_WORLD } from "../../server/org-platform/default-world.ts";
import { loadWorld, type WorldFile } from "../../server/org-platform/domain/world.ts";
import { OrgPlatformService } from "../../server/org-platform/service.ts";
import { MemoryOrgPlatformStore } from "../../server/org-platform/store/store.ts";

const ALICE = "alice.atlasv1.dev-user-token";
const BOB = "bob.atlasv1.dev-user-token";
const DEVELOPERS = "team-Mx7kRb2tYq9hWn5C";

function serviceOf(world: WorldFile = DEFAULT_WORLD) {
  const service = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(world)));
  const teamAs = (token: string) => service.readTeam(service.authenticate(token), DEVELOPERS, []).data;
  return { service, teamAs };
}

describe("teams rendered once per state version and role", () => {
  it("gives every read at one state version and role the same unchanging resource", () => {
    const { service, teamAs } = serviceOf();
    const first = teamAs(ALICE);
    expect(teamAs(ALICE)).toBe(first);
    expect(Object.isFrozen(first.attributes.permissions)).toBe(true);
    const page = service.listTeams(service.authenticate(ALICE), "acme", {}, { page: { number: 1, size: 20 }, include: [], location: { url: "/", query: [] } });
    expect(page.data.find((t) => t.id === DEVELOPERS)).toBe(first);
  });

  it("renders a team anew for another role, and after a write", () => {
    const { service, teamAs } = serviceOf();
    const owner = teamAs(ALICE);
    const member = teamAs(BOB);
    expect(member).not.toBe(owner);
    expect(member.attributes.permissions["can-destroy"]).toBe(false);
    expect(owner.attributes.permissions["can-destroy"]).toBe(true);
    service.updateTeam(service.authenticate(ALICE), DEVELOPERS, { visibility: "secret" }, []);
    const after = teamAs(ALICE);
    expect(after).not.toBe(owner);
    expect(after.attributes.visibility).toBe("secret");
  });

  it("keeps no team whose members pass the bound: it is rendered anew at every read", () => {
    const world = structuredClone(DEFAULT_WORLD);
    const acme = world.organizations.find((o) => o.name === "acme")!;
    const users = Array.from({ length: 17_000 }, (_, i) => `member-${i}`);
    world.users.push(...users.map((username) => ({ username, email: `${username}@acme.example` })));
    acme.members!.push(...users.map((user) => ({ user })));
    acme.teams!.push({ name: "everyone", visibility: "organization", members: users, "created-at": "2024-01-01T00:00:00.000Z" });
    const service = new OrgPlatformService(new MemoryOrgPlatformStore(loadWorld(world)));
    const caller = service.authenticate(ALICE);
    const everyone = () => service.listTeams(caller, "acme", { q: "everyone" }, { page: { number: 1, size: 20 }, include: [], location: { url: "/", query: [] } }).data[0]!;
    const first = everyone();
    expect(first.attributes["users-count"]).toBe(17_000);
    expect(everyone()).not.toBe(first);
    expect(everyone()).toEqual(first);
    // A small team is kept again once the big one is gone from what is kept.
    const small = () => service.readTeam(caller, DEVELOPERS, []).data;
    expect(small()).toBe(small());
  });
});
