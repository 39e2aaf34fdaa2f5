// The reference server as a user starts it: the entry prints its address and the tokens of its
// world, serves, loads ORG_PLATFORM_WORLD; `npm start` (server/main.ts) runs it and stops on Ctrl-C.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { orgPlatformEntry } from "../../server/org-platform/entry.ts";
import { TOKENS } from "../helpers/org-platform.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

describe("orgPlatformEntry", () => {
  it("starts on the given port, prints the address and every token of the default world", async () => {
    const running = await orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0" });
    try {
      const [address, world, ...tokens] = running.summary;
      const baseUrl = /(http:\/\/127\.0\.0\.1:\d+\/api\/v2)$/.exec(address!)?.[1];
      expect(baseUrl).toBeDefined();
      expect(world).toMatch(/world: default/);
      for (const token of Object.values(TOKENS)) expect(tokens.join("\n")).toContain(token);
      const response = await fetch(`${baseUrl}/organizations/acme/teams`, { headers: { Authorization: `Bearer ${TOKENS.alice}` } });
      expect(response.status).toBe(200);
    } finally {
      for (const server of running.servers) server.close();
    }
  });

  it("starts with the world of ORG_PLATFORM_WORLD and prints its tokens", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "org-platform-start-"));
    const file = path.join(dir, "world.yaml");
    writeFileSync(
      file,
      ["users:", "  - { username: zoe, email: zoe@example.com, tokens: [zoe-token-123] }", "organizations:", "  - { name: zorg, email: z@example.com, plan: team, token: zorg-token-123, members: [{ user: zoe }] }"].join("\n"),
    );
    const running = await orgPlatformEntry.start!("127.0.0.1", { ORG_PLATFORM_PORT: "0", ORG_PLATFORM_WORLD: file });
    try {
      const text = running.summary.join("\n");
      expect(text).toContain(`world: ${file}`);
      expect(text).toMatch(/user zoe \[zorg\]\s+zoe-token-123/);
      expect(text).toMatch(/organization zorg\s+zorg-token-123/);
      expect(text).not.toContain(TOKENS.alice);
    } finally {
      for (const server of running.servers) server.close();
    }
  });
});

describe("npm start", () => {
  it("prints the org-platform address and tokens, serves, and stops cleanly on SIGINT", async () => {
    const child = spawn(process.execPath, ["scripts/start.mjs"] /* what npm start runs */, {
      cwd: root,
      // Any free port for every service, so that this test runs beside others.
      env: { ...process.env, ORG_PLATFORM_PORT: "0", MESH_PORT: "0", SECRETS_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready.")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    });
    const baseUrl = /org-platform .*?(http:\/\/127\.0\.0\.1:\d+\/api\/v2)/.exec(output)?.[1];
    expect(baseUrl).toBeDefined();
    for (const token of Object.values(TOKENS)) expect(output).toContain(token);
    const response = await fetch(`${baseUrl}/oauth-clients/oc-V5sxDk9wuGzo1V2R`, { headers: { Authorization: `Bearer ${TOKENS.bob}` } });
    expect(response.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});
