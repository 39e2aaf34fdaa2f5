// `npm run mock`: readable logs (the formatter, on Prism's real output), and the script itself
// starting every API's mock, logging requests, and stopping cleanly on Ctrl-C.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { operationsOf, type OpenApiDoc } from "../../scripts/contract/document.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { prismLogFormatter } from "../../scripts/mock/prism-log.ts";
import { mockEnvironmentProblems } from "../../scripts/mock.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

// Prism 5.14.2's log for: start-up, a good request, a refused one, and an unknown path.
const PRISM_LOG = `[6:11:27 PM] › [CLI] …  awaiting  Starting Prism…
[6:11:27 PM] › [CLI] ℹ  info      GET        http://127.0.0.1:4931/discovery-chain/web
[6:11:27 PM] › [CLI] ℹ  info      PUT        http://127.0.0.1:4931/config
[6:11:27 PM] › [CLI] ▶  start     Prism is listening on http://127.0.0.1:4931
[6:11:30 PM] › [HTTP SERVER] get /discovery-chain/web ℹ  info      Request received
[6:11:30 PM] ›     [NEGOTIATOR] ℹ  info      Request contains an accept header: */*
[6:11:30 PM] ›     [VALIDATOR] ✔  success   The request passed the validation rules. Looking for the best response
[6:11:30 PM] ›     [NEGOTIATOR] ✔  success   Found a compatible content for */*
[6:11:30 PM] ›     [NEGOTIATOR] ✔  success   Responding with the requested status code 200
[6:11:30 PM] ›     [NEGOTIATOR] ℹ  info      > Responding with "200"
[6:11:30 PM] › [HTTP SERVER] put /config ℹ  info      Request received
[6:11:30 PM] ›     [NEGOTIATOR] ℹ  info      Request contains an accept header: */*
[6:11:30 PM] ›     [VALIDATOR] ⚠  warning   Request did not pass the validation rules
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Request body must NOT have additional properties; found 'Protocol'
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Request body property Kind must be equal to constant
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Request body must NOT have additional properties; found 'Protocol'
[6:11:30 PM] ›     [NEGOTIATOR] ✔  success   Found response 400. I'll try with it.
[6:11:30 PM] ›     [NEGOTIATOR] ✔  success   The response 400 has an example. I'll keep going with this one
[6:11:30 PM] ›     [NEGOTIATOR] ✔  success   Responding with the requested status code 400
[6:11:30 PM] ›     [NEGOTIATOR] ℹ  info      > Responding with "400"
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Violation: request.body Request body must NOT have additional properties; found 'Protocol'
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Violation: request.body.Kind Request body property Kind must be equal to constant
[6:11:30 PM] ›     [VALIDATOR] ✖  error     Violation: response.body.Chain Response body must have required property 'Nodes'
[6:11:30 PM] › [HTTP SERVER] get /nope ℹ  info      Request received
[6:11:30 PM] › [HTTP SERVER] get /nope ✖  error     Request terminated with error: https://stoplight.io/prism/errors#NO_PATH_MATCHED_ERROR: Route not resolved, no path matched
TypeError: something Prism did not expect
    at somewhere (file.js:1:1)`;

describe("Prism log formatter", () => {
  it("prints start-up as one line, one line per request, and the problems under it", () => {
    const format = prismLogFormatter();
    expect(PRISM_LOG.split("\n").flatMap((line) => format.push(line))).toEqual([
      "listening on http://127.0.0.1:4931 (2 operations)",
      "GET /discovery-chain/web → 200",
      "PUT /config → 400",
      "  ✖ Request body must NOT have additional properties; found 'Protocol'",
      "  ✖ Request body property Kind must be equal to constant",
      "  ✖ response.body.Chain: Response body must have required property 'Nodes'",
      "GET /nope → error: Route not resolved, no path matched",
      "TypeError: something Prism did not expect",
      "    at somewhere (file.js:1:1)",
    ]);
  });

  it("reads colored output too", () => {
    const format = prismLogFormatter();
    format.push("[6:11:30 PM] › [HTTP SERVER] get /x \x1b[34mℹ\x1b[39m  \x1b[34minfo\x1b[39m      Request received");
    expect(format.push('[6:11:30 PM] ›     [NEGOTIATOR] \x1b[34mℹ\x1b[39m  info      > Responding with "204"')).toEqual(["GET /x → 204"]);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("npm run mock", () => {
  // A minute, and more for a clone with many APIs: Prisms start one per core at a time (about 3 s each here).
  const perApi = 4_000 * Math.ceil(APIS.length / availableParallelism());
  it("starts every API's mock with prefixed, readable logs and stops on Ctrl-C", { timeout: 60_000 + perApi }, async () => {
    const ports = await Promise.all(APIS.map(() => freePort()));
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    APIS.forEach((api, i) => (env[`${api.name.toUpperCase().replace(/-/g, "_")}_MOCK_PORT`] = String(ports[i])));
    delete env.MOCK_LOG;
    // Its own process group, like a terminal's foreground job: Ctrl-C is SIGINT to the whole group.
    // What `npm run mock` runs (scripts/run.mjs: node itself, no tsx parent process, whose signal
    // relay gave the child 30 ms to answer and SIGKILLed it otherwise, orphaning Prism).
    const child = spawn(process.execPath, ["scripts/run.mjs", "scripts/mock.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const group = -child.pid!;
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const until = async (what: () => boolean) => {
        for (let i = 0; i < 300 + perApi / 100 && !what(); i++) await new Promise((r) => setTimeout(r, 100));
        if (!what()) throw new Error(`timed out; output so far:\n${output}`);
      };
      // An API of webhooks only (a clone may have added one) has nothing to mock, and says so.
      const mocked = APIS.filter((api) => operationsOf(loadBundle(api.name) as OpenApiDoc).length > 0);
      await until(() => mocked.every((api) => output.includes(`[${api.name}] ${api.title}: listening on http://127.0.0.1:${ports[APIS.indexOf(api)]} (`)));
      for (const api of APIS.filter((a) => !mocked.includes(a))) expect(output).toContain(`mock: ${api.name} describes no paths (only webhooks, or nothing): nothing to mock`);
      for (const api of mocked) expect((await fetch(`http://127.0.0.1:${ports[APIS.indexOf(api)]}/no/such/path`)).status).toBe(404);
      await until(() => mocked.every((api) => output.includes(`[${api.name}] GET /no/such/path → 404`)));
      // Nothing but our own lines: no Prism timestamps, no negotiation chatter.
      expect(output).not.toMatch(/NEGOTIATOR|Request received|\[\d+:\d+:\d+ [AP]M\]/);
    } finally {
      // Still running: stopped as a terminal stops it. Gone already: what failed above is the error to see.
      if (child.exitCode === null && child.signalCode === null) process.kill(group, "SIGINT");
    }
    const code = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 15_000))]);
    if (code === "hung") process.kill(group, "SIGKILL");
    expect(code, output).toBe(0);
    for (const port of ports) await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});

describe("npm run mock: the environment is checked first", () => {
  it("names each bad variable", () => {
    expect(mockEnvironmentProblems({})).toEqual([]);
    expect(mockEnvironmentProblems({ HOST: "0.0.0.0", MESH_MOCK_PORT: "0", SECRETS_MOCK_PORT: "4020" })).toEqual([]);
    expect(mockEnvironmentProblems({ HOST: "not a host", MESH_MOCK_PORT: "abc", SECRETS_MOCK_PORT: "70000", ORG_PLATFORM_MOCK_PORT: "4030", MESH_MOCK_PORT_X: "1" })).toEqual([
      "HOST=not a host: not an IP address (or localhost)",
      "SECRETS_MOCK_PORT=70000: not a port number (0-65535)",
      "MESH_MOCK_PORT=abc: not a port number (0-65535)",
    ]);
    expect(mockEnvironmentProblems({ ORG_PLATFORM_MOCK_PORT: "4500", MESH_MOCK_PORT: "4500" })).toEqual(["MESH_MOCK_PORT=4500: the same port as ORG_PLATFORM_MOCK_PORT"]);
  });

  it("a port in use is one line naming its variable, not Prism's --help", { timeout: 60_000 }, async () => {
    const busy = createServer().listen(0, "127.0.0.1");
    await new Promise((r) => busy.once("listening", r));
    const port = (busy.address() as { port: number }).port;
    try {
      const env: Record<string, string> = { ...(process.env as Record<string, string>), MESH_MOCK_PORT: String(port), ORG_PLATFORM_MOCK_PORT: "0", SECRETS_MOCK_PORT: "0" };
      const child = spawn(process.execPath, ["scripts/run.mjs", "scripts/mock.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (c: Buffer) => (output += c));
      child.stderr.on("data", (c: Buffer) => (output += c));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code, output).toBe(2);
      expect(output).toContain(`mock: MESH_MOCK_PORT=${port}: port ${port} on 127.0.0.1 is in use`);
      expect(output).not.toMatch(/--help|Options:|Positionals:/);
    } finally {
      busy.close();
    }
  });
});
