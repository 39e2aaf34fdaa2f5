// Prism, the stateless mock, answers every secrets operation from the description's examples, and
// those answers follow the description.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsClient } from "../../generated/secrets/client.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { responseChecker } from "../helpers/contract.ts";
import { startPrism } from "../helpers/prism.ts";

const bundle = loadBundle("secrets");
const check = responseChecker(bundle);
let prism: Awaited<ReturnType<typeof startPrism>>;
let client: ReturnType<typeof createSecretsClient>;

beforeAll(async () => {
  prism = await startPrism("secrets");
  client = createSecretsClient({ baseUrl: prism.baseUrl, headers: { "X-Secrets-Token": "any-token" } });
});
afterAll(() => prism?.close());

async function expectValid(template: string, method: string, status: number, call: Promise<{ response: Response; data?: unknown; error?: unknown }>) {
  const { response, data, error } = await call;
  expect(response.status).toBe(status);
  if (status !== 204) expect(check(template, method, response.status, response.headers.get("content-type") ?? "", data ?? error)).toEqual([]);
  return data ?? error;
}

const share = { key: "ab".repeat(33), nonce: "53406f77-23d6-4f4d-8b48-fbcfa23172a3" };

describe("Prism mock of the secrets API", () => {
  it("answers every rekey operation from the examples", async () => {
    expect(await expectValid("/sys/rekey/init", "get", 200, client.GET("/sys/rekey/init"))).toHaveProperty("started");
    expect(await expectValid("/sys/rekey/init", "post", 200, client.POST("/sys/rekey/init", { body: { secret_shares: 5, secret_threshold: 3 } }))).toHaveProperty("nonce");
    await expectValid("/sys/rekey/init", "delete", 204, client.DELETE("/sys/rekey/init"));
    expect(await expectValid("/sys/rekey/backup", "get", 200, client.GET("/sys/rekey/backup"))).toHaveProperty("data.keys");
    await expectValid("/sys/rekey/backup", "delete", 204, client.DELETE("/sys/rekey/backup"));
    await expectValid("/sys/rekey/update", "post", 200, client.POST("/sys/rekey/update", { body: share }));
    expect(await expectValid("/sys/rekey/verify", "get", 200, client.GET("/sys/rekey/verify"))).toHaveProperty("progress");
    await expectValid("/sys/rekey/verify", "post", 200, client.POST("/sys/rekey/verify", { body: share }));
    expect(await expectValid("/sys/rekey/verify", "delete", 200, client.DELETE("/sys/rekey/verify"))).toHaveProperty("nonce");
  });

  it("answers with a named example on request, e.g. the completed update", async () => {
    const data = await expectValid(
      "/sys/rekey/update",
      "post",
      200,
      client.POST("/sys/rekey/update", { body: share, headers: { Prefer: "example=completePgpBackup" } }),
    );
    expect(data).toMatchObject({ complete: true, backup: true });
  });

  it("answers documented errors in the envelope", async () => {
    const error = await expectValid(
      "/sys/rekey/update",
      "post",
      400,
      client.POST("/sys/rekey/update", { body: share, headers: { Prefer: "code=400, example=wrongNonce" } }),
    );
    expect((error as { errors: string[] }).errors[0]).toMatch(/^incorrect nonce supplied/);
    await expectValid("/sys/rekey/init", "get", 403, client.GET("/sys/rekey/init", { headers: { Prefer: "code=403" } }));
  });

  it("refuses a request the description forbids with the documented 400, as the reference server does", async () => {
    const { response, error } = await client.POST("/sys/rekey/init", { body: { secret_shares: "five", secret_threshold: 3 } as never });
    expect(response.status).toBe(400);
    expect(check("/sys/rekey/init", "post", 400, response.headers.get("content-type") ?? "", error)).toEqual([]);
  });
});
