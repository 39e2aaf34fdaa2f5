// ORG_PLATFORM_DATA_DIR: everything the server acknowledged is there after kill -9 and a restart;
// the world only seeds an empty directory; a foreign or damaged directory is a clear start error.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOrgPlatformClient } from "../../generated/org-platform/client.ts";
import { orgPlatformEntry } from "../../server/org-platform/entry.ts";
import { DataDirectory } from "../../server/shared/data-dir.ts";
import { entryScript, killHard as killChild, startChildServer } from "../helpers/child-server.ts";
import { IDS, JSON_API, TOKENS } from "../helpers/org-platform.ts";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

interface Child {
  process: ChildProcess;
  baseUrl: string;
}

/** Starts the server in a child process on the data directory; resolves once it serves. */
async function startChild(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Child> {
  const started = await startChildServer(entryScript("org-platform"), { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: dataDir, ...extraEnv });
  children.push(started.process);
  return { process: started.process, baseUrl: /(http:\/\/\S+\/api\/v2)/.exec(started.stdout)![1]! };
}

const killHard = (child: Child) => killChild(child.process);

const client = (baseUrl: string, token: string) =>
  createOrgPlatformClient({ baseUrl, headers: { "Content-Type": JSON_API, Authorization: `Bearer ${token}` }, querySerializer: { array: { style: "form", explode: false } } });

describe("ORG_PLATFORM_DATA_DIR", () => {
  it("keeps every acknowledged write across kill -9 and a restart", async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "org-platform-data-")), "data");
    const first = await startChild(dataDir);
    const alice = client(first.baseUrl, TOKENS.alice);

    // Teams: created, changed, one deleted (with its team token).
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { data, response } = await alice.POST("/organizations/{organization_name}/teams", {
        params: { path: { organization_name: "acme" } },
        body: { data: { type: "teams", attributes: { name: `crash-team-${i}`, visibility: "organization" } } },
      });
      expect(response.status).toBe(200);
      created.push(data!.data.id);
    }
    expect(
      (await alice.PATCH("/teams/{team_id}", { params: { path: { team_id: created[0]! } }, body: { data: { type: "teams", attributes: { "organization-access": { "manage-modules": true } } } } })).response.status,
    ).toBe(200);
    expect((await alice.DELETE("/teams/{team_id}", { params: { path: { team_id: IDS.teams.platform } } })).response.status).toBe(204);

    // OAuth clients: one created (with its token), one changed, one deleted, projects attached.
    const secret = "crash-test-oauth-token-string-0123456789";
    const oc = await alice.POST("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" } },
      body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_a", "http-url": "https://vcs-a.example", "api-url": "https://api.vcs-a.example", "oauth-token-string": secret, name: "kept" } } },
    });
    expect(oc.response.status).toBe(201);
    const newClient = oc.data!.data;
    expect((await alice.PATCH("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: IDS.clients.vcsB } }, body: { data: { type: "oauth-clients", attributes: { key: "changed-key" } } } })).response.status).toBe(200);
    expect((await alice.DELETE("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: IDS.clients.vcsA } } })).response.status).toBe(204);
    expect(
      (await alice.POST("/oauth-clients/{oauth_client_id}/relationships/projects", { params: { path: { oauth_client_id: newClient.id } }, body: { data: [{ id: IDS.projects.data, type: "projects" }] } })).response.status,
    ).toBe(204);

    await killHard(first);
    // The directory and its files are private: they hold tokens and secrets.
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dataDir, "state.db")).mode & 0o777).toBe(0o600);

    const second = await startChild(dataDir);
    const again = client(second.baseUrl, TOKENS.alice);
    const teams = (await again.GET("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" }, query: { page: { size: 100 } } } })).data!.data;
    expect(teams.map((t) => t.attributes.name)).toEqual(["crash-team-0", "crash-team-1", "crash-team-2", "crash-team-3", "crash-team-4", "developers", "owners", "security"]);
    expect(teams.find((t) => t.id === created[0])!.attributes["organization-access"]["manage-modules"]).toBe(true);
    // The deleted team's token is gone with it.
    expect((await client(second.baseUrl, TOKENS.acmePlatform).GET("/teams/{team_id}", { params: { path: { team_id: IDS.teams.developers } } })).response.status).toBe(401);

    const clients = (await again.GET("/organizations/{organization_name}/oauth-clients", { params: { path: { organization_name: "acme" }, query: { include: ["oauth_tokens"] } } })).data!;
    // Creation order survives: the world's client first, then the new one.
    expect(clients.data.map((c) => c.id)).toEqual([IDS.clients.vcsB, newClient.id]);
    expect(clients.data[0]!.attributes.key).toBe("changed-key");
    expect(clients.data[1]!.relationships.projects.data).toEqual([{ id: IDS.projects.data, type: "projects" }]);
    expect(clients.data[1]!.relationships["oauth-tokens"].data).toEqual(newClient.relationships["oauth-tokens"].data);
    expect((await again.GET("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: IDS.clients.vcsA } } })).response.status).toBe(404);
    // The input-only value was kept on disk (the directory is private) and is still never answered.
    expect(JSON.stringify(clients)).not.toContain(secret);
    await killHard(second);
    const db = DataDirectory.open(dataDir, "org-platform");
    try {
      expect(JSON.stringify(db.table("oauth_tokens").entries())).toContain(secret);
    } finally {
      db.close();
    }
  }, 60_000);

  it("seeds an empty directory from ORG_PLATFORM_WORLD and ignores the world once it holds data", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "org-platform-seed-"));
    const dataDir = path.join(base, "data");
    const world = path.join(base, "world.yaml");
    writeFileSync(world, ["users:", "  - { username: zoe, email: zoe@example.com, tokens: [zoe-token-123] }", "organizations:", "  - { name: zorg, email: z@example.com, plan: team, token: zorg-token-123, members: [{ user: zoe }] }"].join("\n"));
    const first = await orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: dataDir, ORG_PLATFORM_WORLD: world });
    try {
      expect(first.summary.join("\n")).toMatch(/data: .*\(new, seeded from the world/);
    } finally {
      for (const server of first.servers) server.close();
    }
    // Another world later: the data directory wins, and the summary says so.
    const second = await orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: dataDir });
    try {
      const text = second.summary.join("\n");
      expect(text).toMatch(/data: .*kept state/);
      expect(text).toContain("zoe-token-123");
      expect(text).not.toContain(TOKENS.alice);
    } finally {
      for (const server of second.servers) server.close();
    }
  });

  it("refuses to start on a foreign or damaged directory, naming the variable and the directory", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "org-platform-bad-"));
    const foreign = path.join(base, "foreign");
    const other = DataDirectory.open(foreign, "mesh");
    other.close();
    await expect(orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: foreign })).rejects.toThrow(
      new RegExp(`ORG_PLATFORM_DATA_DIR=${foreign}: data directory ${foreign} belongs to the mesh service`),
    );
    const strangers = path.join(base, "strangers");
    const mine = DataDirectory.open(strangers, "org-platform");
    mine.close();
    writeFileSync(path.join(strangers, "notes.txt"), "not ours");
    await expect(orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: strangers })).rejects.toThrow(/holds files that are not/);
    const damaged = path.join(base, "damaged");
    const fresh = DataDirectory.open(damaged, "org-platform");
    fresh.close();
    const file = path.join(damaged, "state.db");
    writeFileSync(file, Buffer.concat([Buffer.from("garbage, not SQLite "), readFileSync(file).subarray(20)]));
    await expect(orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_DATA_DIR: damaged })).rejects.toThrow(/ORG_PLATFORM_DATA_DIR=.*not a readable database/);
    // As a process: a clear message and a failing exit status, never an empty server.
    await expect(startChild(foreign)).rejects.toThrow(/exited with 1: could not start: ORG_PLATFORM_DATA_DIR=.*belongs to the mesh service/);
  }, 30_000);
});
