// Prism, the stateless mock, answers every secrets operation from the description's examples, and
// those answers follow the description.
import { beforeAll, describe, expect, it } from "vitest";
import { createSecretsClient } from "../../generated/secrets/client.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { responseChecker } from "../helpers/contract.ts";
import { sharedMock } from "../helpers/shared-mock.ts";

const bundle = loadBundle("secrets");
const check = responseChecker(bundle);
let client: ReturnType<typeof createSecretsClient>;

beforeAll(async () => {
  // Prism itself (not the front of `npm run mock`): the run's shared one (test/setup/shared-mocks.ts).
  const { prismUrl } = await sharedMock("secrets");
  client = createSecretsClient({ baseUrl: prismUrl, headers: { "X-Secrets-Token": "any-token" } });
}, 60_000);

async function expectValid(template: string, method: string, status: number, call: Promise<{ response: Response; data?: unknown; error?: unknown }>) {
  const { response, data, error } = await call;
  expect(response.status).toBe(status);
  if (status !== 204) expect(check(template, method, response.status, response.headers.get("content-type") ?? "", data ?? error)).toEqual([]);
  return data ?? error;
}

const share = { key: "ab".repeat(33), nonce: "53406f77-23d6-4f4d-8b48-fbcfa23172a3" };
/** Submits `share` asking Prism, by Prefer, for one answer of the update (a named example, a status). */
const updateWith = (status: number, prefer: string) =>
  expectValid("/sys/rekey/update", "post", status, client.POST("/sys/rekey/update", { body: share, headers: { Prefer: prefer } }));

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

  it("answers every discovery-token and push-MFA operation from the examples", async () => {
    const name = { params: { path: { name: "web-reader" } } };
    const id = { params: { path: { id: "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d" } } };
    const list = { params: { query: { list: "true" as const } } };
    const method = { api_hostname: "api.push.example", integration_key: "IKEY", secret_key: "SKEY" };
    await expectValid("/consul/config/access", "post", 204, client.POST("/consul/config/access", { body: { address: "127.0.0.1:8500", token: "t" } }));
    expect(await expectValid("/consul/config/access", "get", 200, client.GET("/consul/config/access"))).toHaveProperty("data.scheme", "http");
    await expectValid("/consul/roles/{name}", "post", 204, client.POST("/consul/roles/{name}", { ...name, body: { policies: ["web-reader"] } }));
    expect(await expectValid("/consul/roles/{name}", "get", 200, client.GET("/consul/roles/{name}", name))).toHaveProperty("data.token_type");
    expect(await expectValid("/consul/roles", "get", 200, client.GET("/consul/roles", list))).toHaveProperty("data.keys");
    await expectValid("/consul/roles/{name}", "delete", 204, client.DELETE("/consul/roles/{name}", name));
    expect(await expectValid("/consul/creds/{name}", "get", 200, client.GET("/consul/creds/{name}", name))).toHaveProperty("data.token");
    expect(await expectValid("/identity/mfa/method/pushmfa", "post", 200, client.POST("/identity/mfa/method/pushmfa", { body: method }))).toHaveProperty("data.method_id");
    await expectValid("/identity/mfa/method/pushmfa/{id}", "post", 204, client.POST("/identity/mfa/method/pushmfa/{id}", { ...id, body: method }));
    expect(await expectValid("/identity/mfa/method/pushmfa/{id}", "get", 200, client.GET("/identity/mfa/method/pushmfa/{id}", id))).toHaveProperty("data.type", "pushmfa");
    await expectValid("/identity/mfa/method/pushmfa/{id}", "delete", 204, client.DELETE("/identity/mfa/method/pushmfa/{id}", id));
    expect(await expectValid("/identity/mfa/method/pushmfa", "get", 200, client.GET("/identity/mfa/method/pushmfa", list))).toHaveProperty("data.keys");
    const refused = await expectValid("/consul/creds/{name}", "get", 400, client.GET("/consul/creds/{name}", { ...name, headers: { Prefer: "code=400, example=unreachable" } }));
    expect((refused as { errors: string[] }).errors[0]).toMatch(/^Put "http:\/\/127\.0\.0\.1:8500\/v1\/acl\/token": /);
  });

  it("answers every cloud credentials operation from the examples", async () => {
    const name = { params: { path: { name: "deploy" } } };
    await expectValid("/aws/config/root", "post", 204, client.POST("/aws/config/root", { body: { access_key: "AKIAIOSFODNN7EXAMPLE", secret_key: "s" } }));
    expect(await expectValid("/aws/config/root", "get", 200, client.GET("/aws/config/root"))).not.toHaveProperty("data.secret_key");
    expect(await expectValid("/aws/config/rotate-root", "post", 200, client.POST("/aws/config/rotate-root"))).toHaveProperty("data.access_key");
    await expectValid("/aws/config/lease", "post", 204, client.POST("/aws/config/lease", { body: { lease: "30m", lease_max: "12h" } }));
    expect(await expectValid("/aws/config/lease", "get", 200, client.GET("/aws/config/lease"))).toHaveProperty("data.lease", "30m0s");
    await expectValid("/aws/roles/{name}", "post", 200, client.POST("/aws/roles/{name}", { ...name, body: { credential_type: "assumed_role", role_arns: ["arn:aws:iam::123456789012:role/deploy"] } }));
    expect(await expectValid("/aws/roles/{name}", "get", 200, client.GET("/aws/roles/{name}", name))).toHaveProperty("data.credential_types");
    expect(await expectValid("/aws/roles", "get", 200, client.GET("/aws/roles", { params: { query: { list: "true" } } }))).toHaveProperty("data.keys");
    await expectValid("/aws/roles/{name}", "delete", 204, client.DELETE("/aws/roles/{name}", name));
    expect(await expectValid("/aws/creds/{name}", "get", 200, client.GET("/aws/creds/{name}", { params: { path: { name: "deploy" }, query: {} } }))).toHaveProperty("data.security_token");
    expect(await expectValid("/aws/sts/{name}", "put", 200, client.PUT("/aws/sts/{name}", { ...name, body: {} }))).toHaveProperty("lease_id");
    const refused = await expectValid("/aws/config/rotate-root", "post", 500, client.POST("/aws/config/rotate-root", { headers: { Prefer: "code=500, example=anotherKey" } }));
    expect((refused as { errors: string[] }).errors[0]).toMatch(/AccessKeysPerUser: 2/);
    await expectValid("/aws/roles/{name}", "get", 404, client.GET("/aws/roles/{name}", { ...name, headers: { Prefer: "code=404" } }));
  });

  it("answers with a named example on request, e.g. the completed update", async () => {
    const data = await updateWith(200, "example=completePgpBackup");
    expect(data).toMatchObject({ complete: true, backup: true });
  });

  it("answers documented errors in the envelope", async () => {
    const error = await updateWith(400, "code=400, example=wrongNonce");
    expect((error as { errors: string[] }).errors[0]).toMatch(/^incorrect nonce supplied/);
    await expectValid("/sys/rekey/init", "get", 403, client.GET("/sys/rekey/init", { headers: { Prefer: "code=403" } }));
  });

  it("refuses a request the description forbids with the documented 400, as the reference server does", async () => {
    const { response, error } = await client.POST("/sys/rekey/init", { body: { secret_shares: "five", secret_threshold: 3 } as never });
    expect(response.status).toBe(400);
    expect(check("/sys/rekey/init", "post", 400, response.headers.get("content-type") ?? "", error)).toEqual([]);
  });
});
