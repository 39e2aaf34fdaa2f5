// The world: the default one follows world.schema.json and the README; world files (JSON or YAML)
// load from ORG_PLATFORM_WORLD and are refused, with the place named, when they are wrong.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createOrgPlatformApp } from "../../server/org-platform/app.ts";
import { orgPlatformOptionsFromEnv, tokenSummary } from "../../server/org-platform/config.ts";
import { DEFAULT_WORLD } from "../../server/org-platform/default-world.ts";
import { loadWorld, type WorldFile } from "../../server/org-platform/domain/world.ts";
import { checkWorldFile } from "../../server/org-platform/world-file.ts";
import { TOKENS } from "../helpers/org-platform.ts";
import { tempFiles } from "../helpers/temp-files.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const { dir, file } = tempFiles("org-platform-world-");

const small = (): WorldFile => ({
  users: [
    { username: "ann", email: "ann@example.com", tokens: ["ann-user-token"] },
    { username: "ben", email: "ben@example.com" },
  ],
  organizations: [{ name: "org", email: "org@example.com", plan: "team", members: [{ user: "ann" }, { user: "ben", status: "invited" }] }],
});

describe("the default world", () => {
  it("follows world.schema.json", () => {
    expect(checkWorldFile(structuredClone(DEFAULT_WORLD), "default")).toBeDefined();
  });

  it("has what docs/org-platform.md documents: three plans, an owners team everywhere, invited users, every kind of token", () => {
    const state = loadWorld(DEFAULT_WORLD);
    expect(state.organizations.map((o) => [o.name, o.plan, o.selfHostedRelease])).toEqual([
      ["acme", "business", undefined],
      ["globex", "team", "v202204-1"],
      ["initech", "free", undefined],
    ]);
    for (const o of state.organizations) expect(state.teams.filter((t) => t.organization === o.name).map((t) => t.name)).toContain("owners");
    expect(state.memberships.filter((m) => m.status === "invited")).toHaveLength(1);
    expect(new Set(state.apiTokens.map((t) => t.kind))).toEqual(new Set(["user", "team", "organization"]));
    expect(state.projects.every((p) => /^prj-/.test(p.id))).toBe(true);
    const section = readFileSync(path.join(root, "docs", "org-platform.md"), "utf8");
    for (const token of state.apiTokens) expect(section, token.secret).toContain(token.secret);
    expect(Object.values(TOKENS).sort()).toEqual(state.apiTokens.map((t) => t.secret).sort());
  });

  it("prints every token with what it acts as", () => {
    const { service } = createOrgPlatformApp();
    const lines = tokenSummary(service.store);
    expect(lines[0]).toMatch(/API tokens/);
    expect(lines.find((l) => l.includes(TOKENS.alice))).toMatch(/user alice \[acme \(owner\)\]/);
    expect(lines.find((l) => l.includes(TOKENS.bob))).toMatch(/user bob \[acme, initech \(owner\)\]/);
    expect(lines.find((l) => l.includes(TOKENS.dave))).toMatch(/user dave \[acme \(invited\)\]/);
    expect(lines.find((l) => l.includes(TOKENS.acmeOwners))).toMatch(/team acme\/owners/);
    expect(lines.find((l) => l.includes(TOKENS.acme))).toMatch(/organization acme/);
  });
});

describe("ORG_PLATFORM_WORLD", () => {
  it("loads the example world file of docs/org-platform.md", () => {
    const guide = readFileSync(path.join(root, "docs", "org-platform.md"), "utf8");
    const section = guide.slice(guide.indexOf("## A world file"));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const { service } = createOrgPlatformApp(orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: file("readme.yaml", yaml) }));
    const teams = service.store.teams("example");
    expect(teams.map((t) => t.name)).toEqual(["owners", "deployers"]);
    expect(teams[1]!.organizationAccess["read-workspaces"]).toBe(true);
    expect(service.store.oauthClients("example")[0]!.projectIds).toEqual(["prj-ExampleDefault01"]);
    expect(service.store.apiTokens().map((t) => t.secret).sort()).toEqual(["ann-dev-token", "ben-dev-token", "example-org-token", "example-owners-token"]);
  });

  it("loads a YAML world, adding the owners team and generating ids", async () => {
    const yaml = [
      "users:",
      "  - username: ann",
      "    email: ann@example.com",
      "    tokens: [ann-user-token]",
      "organizations:",
      "  - name: org",
      "    email: org@example.com",
      "    plan: business",
      "    members: [{ user: ann }]",
      "    projects: [{ name: Default Project }]",
      "    teams:",
      "      - name: builders",
      "        organization-access: { manage-projects: true }",
    ].join("\n");
    const options = orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: file("world.yaml", yaml), ORG_PLATFORM_PORT: "0" });
    expect(options.port).toBe(0);
    const { service } = createOrgPlatformApp(options);
    const teams = service.store.teams("org");
    expect(teams.map((t) => t.name)).toEqual(["owners", "builders"]);
    expect(teams[0]!.id).toMatch(/^team-[A-Za-z0-9]{16}$/);
    expect(teams[1]!.organizationAccess).toMatchObject({ "manage-workspaces": true, "read-workspaces": true, "read-projects": true });
    expect(service.store.projects("org")[0]!.id).toMatch(/^prj-[A-Za-z0-9]{16}$/);
    expect(service.store.organization("org")!.externalId).toMatch(/^org-/);
  });

  it("loads a JSON world", () => {
    const options = orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: file("world.json", JSON.stringify(small())) });
    expect(options.port).toBe(8080);
    expect(options.worldSource).toMatch(/world\.json$/);
    expect(createOrgPlatformApp(options).service.store.memberships("org")).toHaveLength(2);
  });

  it("refuses a file that does not follow the schema, naming every problem", () => {
    const bad = { users: [{ username: "ann" }], organizations: [{ name: "bad name", email: "x@example.com", plan: "enterprise", extra: 1 }] };
    const variable = file("bad.json", JSON.stringify(bad));
    expect(() => orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: variable })).toThrow(/does not follow world\.schema\.json/);
    try {
      orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: variable });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("/users/0 must have required property 'email'");
      expect(message).toContain("/organizations/0/name must match pattern");
      expect(message).toContain("/organizations/0/plan must be equal to one of the allowed values");
      expect(message).toContain("/organizations/0 must NOT have additional properties (extra)");
    }
    expect(() => orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: file("broken.yaml", "users: [") })).toThrow(/ORG_PLATFORM_WORLD=.*broken\.yaml/);
    expect(() => orgPlatformOptionsFromEnv({ ORG_PLATFORM_WORLD: path.join(dir, "missing.yaml") })).toThrow(/ORG_PLATFORM_WORLD/);
    expect(() => orgPlatformOptionsFromEnv({ ORG_PLATFORM_PORT: "http" })).toThrow(/ORG_PLATFORM_PORT/);
  });

  const broken: [string, (w: WorldFile) => void, RegExp][] = [
    ["an unknown member", (w) => w.organizations[0]!.members!.push({ user: "nobody" }), /members\[2\]: unknown user nobody/],
    ["a team member outside the organization", (w) => (w.organizations[0]!.teams = [{ name: "t", members: ["zed"] }]), /teams\[1\] \(t\): zed is not a member/],
    ["two teams with one name", (w) => (w.organizations[0]!.teams = [{ name: "Team" }, { name: "team" }]), /team name is used twice/],
    [
      "a permission breaking the cascade",
      (w) => (w.organizations[0]!.teams = [{ name: "t", "organization-access": { "manage-workspaces": true, "read-workspaces": false } }]),
      /organization-access: read-workspaces cannot be false while manage-workspaces is true/,
    ],
    ["a token used twice", (w) => (w.organizations[0]!.token = "ann-user-token"), /the token is used twice/],
    ["an id used twice", (w) => (w.organizations[0]!.projects = [{ id: "prj-Same", name: "a" }, { id: "prj-Same", name: "b" }]), /id prj-Same is used twice/],
    [
      "a client scoped to a project of another organization",
      (w) =>
        (w.organizations[0]!["oauth-clients"] = [{ "service-provider": "vcs_a", "http-url": "https://a.example", "api-url": "https://a.example", projects: ["prj-Elsewhere"] }]),
      /project prj-Elsewhere is not a project of org/,
    ],
    ["two users with one username", (w) => w.users.push({ username: "ann", email: "ann2@example.com" }), /username is used twice/],
  ];
  for (const [name, change, message] of broken) {
    it(`refuses ${name}`, () => {
      const world = small();
      change(world);
      expect(() => createOrgPlatformApp({ world })).toThrow(message);
    });
  }
});
