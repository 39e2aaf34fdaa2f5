// Headers the real services do not send are not sent: no ETag (each answer would be hashed for it)
// and no X-Powered-By, on all three reference servers.
import type { Server } from "node:http";
import { describe, expect, it } from "vitest";
import { createMeshApp } from "../../server/mesh/app.ts";
import { createOrgPlatformApp } from "../../server/org-platform/app.ts";
import { startSecretsServer } from "../../server/secrets/server.ts";
import { createAppServer } from "../../server/shared/app-server.ts";

async function answerOf(server: Server, path: string, headers: Record<string, string> = {}): Promise<Response> {
  if (!server.listening) await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as { port: number };
  return fetch(`http://127.0.0.1:${port}${path}`, { headers });
}

describe("answers of the reference servers", () => {
  it("carry no ETag and no X-Powered-By", async () => {
    const mesh = createAppServer(createMeshApp({ entries: [{ Kind: "service-defaults", Name: "web", Protocol: "http" }] }).app).listen(0, "127.0.0.1");
    const org = createAppServer(createOrgPlatformApp().app).listen(0, "127.0.0.1");
    const secrets = await startSecretsServer({ rootToken: "root" });
    try {
      const answers = [
        await answerOf(mesh, "/v1/discovery-chain/web"),
        await answerOf(org, "/api/v2/organizations/acme", { authorization: "Bearer alice.atlasv1.dev-user-token" }),
        await answerOf(secrets.server, "/v1/sys/rekey/init", { "x-secrets-token": "root" }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.headers.get("etag")).toBeNull();
        expect(answer.headers.get("x-powered-by")).toBeNull();
      }
    } finally {
      mesh.close();
      org.close();
      await secrets.close();
    }
  });
});
