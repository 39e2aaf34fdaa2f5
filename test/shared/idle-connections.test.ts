// The servers as npm start runs them keep an idle keep-alive connection for 5 minutes, as the real
// services' HTTP servers do (Node's own default is 5 s): a client reusing a connection does not race
// its close, and answers say so (Keep-Alive: timeout=300, which clients such as undici follow).
import type { Server } from "node:http";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { meshEntry } from "../../server/mesh/entry.ts";
import { orgPlatformEntry } from "../../server/org-platform/entry.ts";
import { secretsEntry } from "../../server/secrets/entry.ts";
import { REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve()))))));

function keepAliveHeader(port: number, path: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { connection: "keep-alive" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.headers["keep-alive"] as string | undefined));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("idle keep-alive connections", () => {
  it.each([
    ["mesh", meshEntry, { MESH_PORT: "0" }, "/v1/agent/self"],
    ["org-platform", orgPlatformEntry, { ORG_PLATFORM_PORT: "0" }, "/api/v2/ping"],
    ["secrets", secretsEntry, { SECRETS_PORT: "0" }, "/v1/sys/health"],
  ] as const)("are kept 5 minutes by the %s server as npm start runs it, its cluster listener included", async (_name, entry, env, path) => {
    const running = await entry.start!("127.0.0.1", { ...env } as NodeJS.ProcessEnv);
    servers.push(...running.servers);
    for (const server of running.servers) expect(server.keepAliveTimeout).toBe(300_000);
    expect(await keepAliveHeader((running.servers[0]!.address() as AddressInfo).port, path)).toBe("timeout=300");
  });

  it("are kept 5 minutes by the reference servers npm run conformance is tested against", async () => {
    for (const reference of REFERENCE_SERVERS) {
      const running = await reference.start();
      try {
        expect(await keepAliveHeader(Number(new URL(running.baseUrl).port), new URL(running.baseUrl).pathname)).toBe("timeout=300");
      } finally {
        await running.close();
      }
    }
  });
});
