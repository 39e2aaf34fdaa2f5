// The reference server as a user starts it: settings from the environment, entries loaded from
// MESH_CONFIG_FILE (YAML or JSON, either key style), addresses printed, Ctrl-C stops it cleanly.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMeshApp } from "../../server/mesh/app.ts";
import { meshOptionsFromEnv } from "../../server/mesh/config.ts";
import { tempFiles } from "../helpers/temp-files.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const { file } = tempFiles("mesh-config-");

describe("MESH_CONFIG_FILE", () => {
  it("loads a YAML list of entries in either key style", () => {
    const config = file(
      "entries.yaml",
      ["- kind: service-defaults", "  name: web", "  protocol: http", "- Kind: service-resolver", "  Name: web", "  ConnectTimeout: 2s"].join("\n"),
    );
    const { service } = createMeshApp(meshOptionsFromEnv({ MESH_CONFIG_FILE: config }));
    const chain = service.readChain({ namespace: "default" }, "web", undefined, {}).value;
    expect(chain.Protocol).toBe("http");
    expect(chain.Nodes["resolver:web.default.dc1"]?.Resolver?.ConnectTimeout).toBe("2s");
  });

  it("refuses to start on an invalid entry, naming it and the field", () => {
    const config = file("bad.json", JSON.stringify([{ Kind: "service-splitter", Name: "web", Splits: [{ Weight: 60 }] }]));
    expect(() => createMeshApp(meshOptionsFromEnv({ MESH_CONFIG_FILE: config }))).toThrow(
      "configuration entry [0] (service-splitter web): the sum of all split weights must be 100, not 60.000000",
    );
  });

  it("refuses a file that is not a list", () => {
    const config = file("map.yaml", "kind: service-defaults\n");
    expect(() => meshOptionsFromEnv({ MESH_CONFIG_FILE: config })).toThrow(/expected a list of configuration entries/);
  });
});

describe("npm start", () => {
  it("prints its address and credentials, serves, and stops cleanly on SIGINT", async () => {
    const config = file("start.yaml", "- Kind: service-resolver\n  Name: web\n  ConnectTimeout: 3s\n");
    const child = spawn(process.execPath, ["scripts/start.mjs"] /* what npm start runs */, {
      cwd: root,
      env: { ...process.env, MESH_PORT: "0", SECRETS_PORT: "0", ORG_PLATFORM_PORT: "0", MESH_CONFIG_FILE: config, MESH_MANAGEMENT_TOKEN: "start-test-token" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr.on("data", (chunk) => (output += chunk));
    const ready = new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready.")) resolve();
      }),
    );
    await ready;
    expect(output).toMatch(/management token \(X-Mesh-Token\): start-test-token/);
    expect(output).toMatch(/1 configuration entries loaded/);
    const baseUrl = /mesh .*?(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output)?.[1];
    const response = await fetch(`${baseUrl}/discovery-chain/web`, { headers: { "X-Mesh-Token": "start-test-token" } });
    expect((await response.json()).Chain.Nodes["resolver:web.default.dc1"].Resolver.ConnectTimeout).toBe("3s");
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  });
});
