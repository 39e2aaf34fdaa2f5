// `npm start` checks the environment before anything listens, names the variable of each problem,
// and prints no credential unless every service is listening (server/main.ts,
// server/shared/startup-checks.ts).
import { spawn } from "node:child_process";
import { readFileSync, statSync, utimesSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { environmentProblems, listenProblems, plannedPorts } from "../../server/shared/startup-checks.ts";

const root = path.resolve(import.meta.dirname, "../..");

describe("environmentProblems", () => {
  it("accepts the defaults, port 0 and real addresses", () => {
    expect(environmentProblems({})).toEqual([]);
    expect(environmentProblems({ HOST: "0.0.0.0", MESH_PORT: "0", SECRETS_PORT: "0", ORG_PLATFORM_PORT: "0" })).toEqual([]);
    expect(environmentProblems({ HOST: "::1", HOST_X: "nonsense" } as NodeJS.ProcessEnv)).toEqual([]);
    expect(environmentProblems({ HOST: "" })).toEqual([]);
  });

  it("names each bad variable", () => {
    expect(environmentProblems({ MESH_PORT: "abc" })).toEqual(["MESH_PORT=abc: not a port number (0-65535)"]);
    expect(environmentProblems({ HOST: "my host", SECRETS_PORT: "99999", CORS_ORIGINS: "localhost:3000" })).toEqual([
      "HOST=my host: not an IP address (or localhost)",
      'CORS_ORIGINS: "localhost:3000" is not an origin (scheme://host[:port], without a path)',
      "SECRETS_PORT=99999: not a port number (0-65535)",
    ]);
  });

  it("finds two services on one port, the secrets cluster port (API port + 1) included", () => {
    expect(environmentProblems({ MESH_PORT: "8080" })).toEqual(["MESH_PORT=8080: the same port as ORG_PLATFORM_PORT"]);
    expect(environmentProblems({ MESH_PORT: "8201" })).toEqual(["MESH_PORT=8201: the same port as SECRETS_CLUSTER_PORT (default SECRETS_PORT + 1)"]);
    expect(plannedPorts({ SECRETS_PORT: "0" }).find((p) => p.variable.startsWith("SECRETS_CLUSTER_PORT"))!.value).toBe("0");
  });
});

async function occupy(): Promise<{ server: Server; port: number }> {
  const server = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { server, port: (server.address() as { port: number }).port };
}

describe("listenProblems", () => {
  it("names the variable of a port in use, and a HOST that is not this machine's", async () => {
    const { server, port } = await occupy();
    try {
      const env = { ORG_PLATFORM_PORT: "0", SECRETS_PORT: "0", MESH_PORT: String(port) };
      expect(await listenProblems("127.0.0.1", env)).toEqual([`MESH_PORT=${port}: port ${port} on 127.0.0.1 is in use`]);
      expect(await listenProblems("192.0.2.1", { ...env, MESH_PORT: "0", SECRETS_PORT: "0", ORG_PLATFORM_PORT: String(port + 1) })).toEqual(["HOST=192.0.2.1: not an address of this machine"]);
    } finally {
      server.close();
    }
  });
});

function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["scripts/start.mjs"] /* what npm start runs */, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

describe("npm start with a bad environment", () => {
  it("stops before printing any credential: one line naming the variable", { timeout: 60_000 }, async () => {
    const { server, port } = await occupy();
    try {
      const inUse = await start({ ORG_PLATFORM_PORT: "0", SECRETS_PORT: "0", MESH_PORT: String(port) });
      expect(inUse.code).toBe(1);
      expect(inUse.output).toContain(`could not start: MESH_PORT=${port}: port ${port} on 127.0.0.1 is in use`);
      const nan = await start({ MESH_PORT: "abc", HOST: "not-a-host" });
      expect(nan.code).toBe(1);
      expect(nan.output).toContain("could not start: MESH_PORT=abc: not a port number (0-65535)");
      expect(nan.output).toContain("could not start: HOST=not-a-host: not an IP address (or localhost)");
      for (const { output } of [inUse, nan]) {
        expect(output).not.toMatch(/root token|Unseal Key|dev-user-token|Cannot read properties|NaN/);
      }
    } finally {
      server.close();
    }
  });
});

describe("npm start's bundle (scripts/start.mjs)", () => {
  const manifest = () => JSON.parse(readFileSync(path.join(root, ".build", "server.inputs.json"), "utf8")) as { root: string; inputs: Record<string, number> };

  it("is rebuilt when a file it was built from changed, and names every server module it holds", { timeout: 60_000 }, async () => {
    await start({ MESH_PORT: "abc" }); // refused at once, after the bundle is built or found up to date
    const before = manifest();
    expect(before.root).toBe(root);
    expect(Object.keys(before.inputs)).toEqual(expect.arrayContaining(["server/main.ts", "server/shared/openapi.ts", "server/secrets/app.ts"]));
    // A source changed since the build (its modification time moved): the next start rebuilds.
    const source = path.join(root, "server", "shared", "startup-checks.ts");
    const { atime } = statSync(source);
    const later = new Date(Math.ceil(before.inputs["server/shared/startup-checks.ts"]!) + 5_000);
    utimesSync(source, atime, later);
    const refused = await start({ MESH_PORT: "abc" });
    expect(refused.output).toContain("could not start: MESH_PORT=abc");
    expect(manifest().inputs["server/shared/startup-checks.ts"]).toBe(statSync(source).mtimeMs);
  });
});
