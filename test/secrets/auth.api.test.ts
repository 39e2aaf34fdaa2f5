// Tokens and policies: no token or an unknown one is 403 `permission denied`; so is a token without
// `sudo` on the root-protected rekey paths, or without the capability the method needs. Tokens come
// from the world file (here given as options, as SECRETS_WORLD would give them).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWorld } from "../../server/secrets/world.ts";
import { startSecrets, submitShares, type RunningTestSecrets } from "../helpers/secrets.ts";

const world = parseWorld({
  policies: {
    "rekey-operator": { path: { "sys/rekey/*": { capabilities: ["read", "update", "delete", "sudo"] } } },
    "rekey-no-sudo": { path: { "sys/rekey/*": { capabilities: ["create", "read", "update", "delete", "list"] } } },
    "rekey-watcher": { path: { "sys/rekey/init": { capabilities: ["read", "sudo"] }, "sys/rekey/verify": { capabilities: ["read", "sudo"] } } },
    "no-backup": { path: { "sys/rekey/backup": { capabilities: ["deny"] } } },
  },
  tokens: [
    { id: "operator", policies: ["rekey-operator"], display_name: "operator" },
    { id: "no-sudo", policies: ["rekey-no-sudo"] },
    { id: "watcher", policies: ["rekey-watcher"] },
    { id: "operator-no-backup", policies: ["rekey-operator", "no-backup"] },
    { id: "nothing", policies: [] },
  ],
});

let secrets: RunningTestSecrets;
beforeAll(async () => {
  secrets = await startSecrets({ world });
});
afterAll(() => secrets.close());

const denied = { errors: ["permission denied"] };

async function everyOperation(token: string | undefined) {
  const c = secrets.clientWithToken(token);
  return Promise.all([
    c.GET("/sys/rekey/init"),
    c.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } }),
    c.DELETE("/sys/rekey/init"),
    c.GET("/sys/rekey/backup"),
    c.DELETE("/sys/rekey/backup"),
    c.POST("/sys/rekey/update", { body: { key: secrets.keys[0]!, nonce: "x" } }),
    c.GET("/sys/rekey/verify"),
    c.POST("/sys/rekey/verify", { body: { key: secrets.keys[0]!, nonce: "x" } }),
    c.DELETE("/sys/rekey/verify"),
  ]);
}

describe("refusals", () => {
  for (const [who, token] of [
    ["no token", undefined],
    ["an unknown token", "who-is-this"],
    ["a token whose policies grant nothing here", "nothing"],
    ["a token without sudo", "no-sudo"],
  ] as const) {
    it(`refuses ${who} on all nine operations with 403, changing nothing`, async () => {
      for (const answer of await everyOperation(token)) {
        expect(answer.response.status).toBe(403);
        expect(answer.error).toEqual(denied);
      }
      expect((await secrets.client.GET("/sys/rekey/init")).data).toMatchObject({ started: false });
    });
  }

  it("lets a read-only token with sudo read, and refuses its writes", async () => {
    const watcher = secrets.clientWithToken("watcher");
    expect((await watcher.GET("/sys/rekey/init")).response.status).toBe(200);
    expect((await watcher.GET("/sys/rekey/verify")).error).toEqual({ errors: ["no rekey configuration found"] });
    const write = await watcher.POST("/sys/rekey/init", { body: { secret_shares: 3, secret_threshold: 2 } });
    expect(write.response.status).toBe(403);
    expect((await watcher.DELETE("/sys/rekey/init")).response.status).toBe(403);
    expect((await watcher.GET("/sys/rekey/backup")).response.status).toBe(403);
  });

  it("lets deny beat the capabilities of another policy", async () => {
    const c = secrets.clientWithToken("operator-no-backup");
    expect((await c.GET("/sys/rekey/backup")).error).toEqual(denied);
    expect((await c.GET("/sys/rekey/init")).response.status).toBe(200);
  });
});

describe("a token with the rekey policy", () => {
  it("runs a whole rekey", async () => {
    const operator = secrets.clientWithToken("operator");
    const started = await operator.POST("/sys/rekey/init", { body: { secret_shares: 2, secret_threshold: 2 } });
    expect(started.response.status).toBe(200);
    const result = await submitShares(operator, started.data!.nonce, secrets.keys.slice(0, 3));
    expect(result).toMatchObject({ complete: true });
    // Another rekey with the new shares, by the root token, proves them.
    const again = await secrets.client.POST("/sys/rekey/init", { body: { secret_shares: 5, secret_threshold: 3 } });
    expect(await submitShares(secrets.client, again.data!.nonce, (result as { keys: string[] }).keys)).toMatchObject({ complete: true });
  });
});
