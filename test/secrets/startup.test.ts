// The secrets server as a user starts it: settings from the environment, the world file, the keys
// and root token printed and written to SECRETS_INIT_FILE, and `npm start` serving and stopping.
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSecretsClient } from "../../generated/secrets/client.ts";
import { secretsOptionsFromEnv } from "../../server/secrets/config.ts";
import { secretsEntry } from "../../server/secrets/entry.ts";
import { rekey } from "../helpers/secrets.ts";
import { tempFiles } from "../helpers/temp-files.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const { dir, file } = tempFiles("secrets-start-");

const WORLD_YAML = `
policies:
  rekey-operator:
    path:
      "sys/rekey/*": { capabilities: [read, update, delete, sudo] }
tokens:
  - id: operator-token
    policies: [rekey-operator]
`;

describe("secretsOptionsFromEnv", () => {
  it("has the documented defaults", () => {
    const options = secretsOptionsFromEnv({});
    expect(options).toMatchObject({ port: 8200, seal: "shamir", shares: { secret_shares: 5, secret_threshold: 3 } });
    expect(options.rootToken).toBeUndefined();
    expect(options.world).toBeUndefined();
    expect(options.initFile).toBeUndefined();
  });

  it("reads every variable", () => {
    const world = file("world.yaml", WORLD_YAML);
    const options = secretsOptionsFromEnv({
      SECRETS_PORT: "0",
      SECRETS_ROOT_TOKEN: "r",
      SECRETS_WORLD: world,
      SECRETS_DEV_SHARES: "1",
      SECRETS_DEV_THRESHOLD: "1",
      SECRETS_INIT_FILE: "/tmp/x.json",
      SECRETS_SEAL: "stored",
      SECRETS_CLUSTER_PORT: "18201",
    });
    expect(options.replication).toEqual({ clusterPort: 18201 });
    expect(options).toMatchObject({ port: 0, rootToken: "r", seal: "stored", shares: { secret_shares: 1, secret_threshold: 1 }, initFile: "/tmp/x.json" });
    expect(options.world!.tokens).toEqual([{ id: "operator-token", policies: ["rekey-operator"] }]);
  });

  it("refuses bad settings, naming the variable", () => {
    expect(() => secretsOptionsFromEnv({ SECRETS_SEAL: "hsm" })).toThrow("SECRETS_SEAL=hsm: expected one of shamir, stored");
    expect(() => secretsOptionsFromEnv({ SECRETS_DEV_SHARES: "2", SECRETS_DEV_THRESHOLD: "3" })).toThrow(/threshold cannot be larger than shares/);
    expect(() => secretsOptionsFromEnv({ SECRETS_DEV_SHARES: "4", SECRETS_DEV_THRESHOLD: "1" })).toThrow(/threshold must be greater than one/);
    expect(() => secretsOptionsFromEnv({ SECRETS_DEV_SHARES: "five" })).toThrow("SECRETS_DEV_SHARES=five: expected a whole number");
    const bad = file("bad-world.yaml", "tokens:\n  - id: t\n    policies: [missing]\n");
    expect(() => secretsOptionsFromEnv({ SECRETS_WORLD: bad })).toThrow(`SECRETS_WORLD=${bad}: token [0]: unknown policy "missing"`);
    expect(() => secretsOptionsFromEnv({ SECRETS_WORLD: path.join(dir, "absent.yaml") })).toThrow(/SECRETS_WORLD=.*absent\.yaml: ENOENT/);
  });
});

describe("secretsEntry", () => {
  it("prints the address, root token and shares, and writes the init file", async () => {
    const initFile = path.join(dir, "init.json");
    const running = await secretsEntry.start!("127.0.0.1", { SECRETS_PORT: "0", SECRETS_INIT_FILE: initFile, SECRETS_DEV_SHARES: "4", SECRETS_DEV_THRESHOLD: "2" });
    try {
      const summary = running.summary.join("\n");
      const url = /secrets .*?(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(summary)![1]!;
      const token = /root token \(X-Secrets-Token\): (s\.[0-9A-Za-z]{24})/.exec(summary)![1]!;
      expect(summary).toMatch(/cluster id [0-9a-f-]{36}; seal shamir, 4 unseal key shares, threshold 2/);
      expect(summary).toMatch(/cluster address \(replication between clusters\) http:\/\/127\.0\.0\.1:\d+/);
      expect(running.servers).toHaveLength(2);
      const printed = [...summary.matchAll(/Unseal Key \d: (\S+)/g)].map((m) => m[1]);
      expect(printed).toHaveLength(4);

      const init = JSON.parse(readFileSync(initFile, "utf8"));
      expect(Object.keys(init)).toEqual(["keys", "keys_base64", "root_token"]);
      expect(init.root_token).toBe(token);
      expect(init.keys_base64).toEqual(printed);
      expect(init.keys.map((hex: string) => Buffer.from(hex, "hex").toString("base64"))).toEqual(init.keys_base64);
      expect(statSync(initFile).mode & 0o777).toBe(0o600);

      // The written shares and token are the real ones: they rekey the server.
      const client = createSecretsClient({ baseUrl: url, headers: { "X-Secrets-Token": token } });
      expect((await rekey(client, [init.keys[3], init.keys_base64[1]], { secret_shares: 3, secret_threshold: 2 })).keys).toHaveLength(3);
    } finally {
      await close(running.servers);
    }
  });

  it("with SECRETS_SEAL=stored, hands out recovery keys", async () => {
    const initFile = path.join(dir, "init-stored.json");
    const running = await secretsEntry.start!("127.0.0.1", { SECRETS_PORT: "0", SECRETS_INIT_FILE: initFile, SECRETS_SEAL: "stored", SECRETS_ROOT_TOKEN: "r" });
    try {
      expect(running.summary.join("\n")).toMatch(/seal stored, 5 recovery key shares, threshold 3/);
      expect(running.summary.filter((line) => line.includes("Recovery Key"))).toHaveLength(5);
      const init = JSON.parse(readFileSync(initFile, "utf8"));
      expect(init).toMatchObject({ keys: [], keys_base64: [], root_token: "r" });
      expect(init.recovery_keys).toHaveLength(5);
      expect(init.recovery_keys_base64).toHaveLength(5);
    } finally {
      await close(running.servers);
    }
  });
});

describe("npm start", () => {
  it("serves the secrets API with the world's tokens, and stops cleanly on SIGINT", async () => {
    const world = file("start-world.yaml", WORLD_YAML);
    const child = spawn(process.execPath, ["scripts/start.mjs"] /* what npm start runs */, {
      cwd: root,
      env: { ...process.env, SECRETS_PORT: "0", MESH_PORT: "0", ORG_PLATFORM_PORT: "0", SECRETS_ROOT_TOKEN: "start-root", SECRETS_WORLD: world },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
      child.stdout.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready.")) resolve();
      });
    });
    expect(output).toMatch(/root token \(X-Secrets-Token\): start-root/);
    expect(output).toMatch(/1 tokens and 1 policies from SECRETS_WORLD=/);
    const baseUrl = /secrets .*?(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output)![1]!;
    const operator = createSecretsClient({ baseUrl, headers: { "X-Secrets-Token": "operator-token" } });
    expect((await operator.GET("/sys/rekey/init")).data).toMatchObject({ started: false, required: 3 });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});

function close(servers: Server[]): Promise<void[]> {
  return Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}
