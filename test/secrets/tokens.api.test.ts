// The token store's lookups (GET|POST /auth/token/lookup-self, POST|PUT /auth/token/lookup), as
// vault/token_store.go handleLookupSelf and handleLookup answer them: the root token as the real
// system makes it (path auth/token/root, policies [root], no expiry), the world's tokens as orphans
// made at auth/token/create. Every token may read lookup-self (the real `default` policy's rule,
// vault/policy_store.go defaultPolicy); lookup needs `update` on its path; an unknown token looked
// up is 403 `bad token`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWorld } from "../../server/secrets/world.ts";
import { ROOT_TOKEN, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

const world = parseWorld({
  policies: {
    "rekey-operator": { path: { "sys/rekey/*": { capabilities: ["read", "update", "delete", "sudo"] } } },
    "a-reader": { path: { "sys/rekey/init": { capabilities: ["read"] } } },
    "token-lookup": { path: { "auth/token/lookup": { capabilities: ["update"] } } },
    "no-self": { path: { "auth/token/lookup-self": { capabilities: ["deny"] } } },
  },
  tokens: [
    { id: "operator-token", policies: ["rekey-operator", "a-reader", "rekey-operator"], display_name: "operator" },
    { id: "nothing", policies: [] },
    { id: "looker", policies: ["token-lookup"] },
    { id: "hidden", policies: ["no-self"] },
  ],
});

let secrets: RunningTestSecrets;
let before: number;
let after: number;
beforeAll(async () => {
  before = Math.floor(Date.now() / 1000);
  secrets = await startSecrets({ world });
  after = Math.floor(Date.now() / 1000);
});
afterAll(() => secrets.close());

const denied = { errors: ["permission denied"] };
/** The answer to a request the token may not make: 403 permission denied. */
async function expectDenied(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  expect(response.status).toBe(403);
  expect(error).toEqual(denied);
}
const ENVELOPE = { lease_id: "", renewable: false, lease_duration: 0, wrap_info: null, warnings: null, auth: null };

describe("GET /auth/token/lookup-self", () => {
  it("the root token: policies [root], path auth/token/root, no expiry, orphan, the fields of the real lookup", async () => {
    const { data, response } = await secrets.client.GET("/auth/token/lookup-self");
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ ...ENVELOPE, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(data!.data).toEqual({
      accessor: expect.any(String),
      creation_time: expect.any(Number),
      creation_ttl: 0,
      display_name: "root",
      entity_id: "",
      expire_time: null,
      explicit_max_ttl: 0,
      id: ROOT_TOKEN,
      meta: null,
      num_uses: 0,
      orphan: true,
      path: "auth/token/root",
      policies: ["root"],
      ttl: 0,
      type: "service",
    });
    expect(data!.data.creation_time).toBeGreaterThanOrEqual(before);
    expect(data!.data.creation_time).toBeLessThanOrEqual(after);
    expect(data!.data.accessor).not.toBe(ROOT_TOKEN);
  });

  it("a world token with no capability at all still looks itself up: policies sorted, once each; its display name; path auth/token/create", async () => {
    const { data, response } = await secrets.clientWithToken("operator-token").GET("/auth/token/lookup-self");
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ id: "operator-token", policies: ["a-reader", "rekey-operator"], display_name: "operator", path: "auth/token/create", orphan: true, ttl: 0, expire_time: null });
    const nothing = await secrets.clientWithToken("nothing").GET("/auth/token/lookup-self");
    expect(nothing.response.status).toBe(200);
    expect(nothing.data!.data).toMatchObject({ id: "nothing", policies: [], display_name: "token" });
  });

  it("each token has its own accessor, the same at each lookup", async () => {
    const root = (await secrets.client.GET("/auth/token/lookup-self")).data!.data;
    const again = (await secrets.client.GET("/auth/token/lookup-self")).data!.data;
    const other = (await secrets.clientWithToken("nothing").GET("/auth/token/lookup-self")).data!.data;
    expect(again.accessor).toBe(root.accessor);
    expect(other.accessor).not.toBe(root.accessor);
  });

  it("no token, an unknown token: 403 permission denied", async () => {
    for (const token of [undefined, "who-is-this", ""]) {
      await expectDenied(secrets.clientWithToken(token).GET("/auth/token/lookup-self"));
    }
  });

  it("a policy that denies lookup-self wins over the rule every token has", async () => {
    await expectDenied(secrets.clientWithToken("hidden").GET("/auth/token/lookup-self"));
  });
});

describe("POST|PUT /auth/token/lookup-self", () => {
  it("the root token (update granted): the same answer; a token in the body is ignored", async () => {
    const { data, response } = await secrets.client.POST("/auth/token/lookup-self", { body: { token: "operator-token" } });
    expect(response.status).toBe(200);
    expect(data!.data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"] });
    const put = await fetch(`${secrets.baseUrl}/auth/token/lookup-self`, { method: "PUT", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: { id: string } }).data.id).toBe(ROOT_TOKEN);
  });

  it("a world token: 403, as the default rule grants only read", async () => {
    await expectDenied(secrets.clientWithToken("operator-token").POST("/auth/token/lookup-self", { body: {} }));
  });
});

describe("POST|PUT /auth/token/lookup", () => {
  it("the root token looks up a world token", async () => {
    const { data, response } = await secrets.client.POST("/auth/token/lookup", { body: { token: "operator-token" } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject(ENVELOPE);
    expect(data!.data).toEqual({
      accessor: expect.any(String),
      creation_time: expect.any(Number),
      creation_ttl: 0,
      display_name: "operator",
      entity_id: "",
      expire_time: null,
      explicit_max_ttl: 0,
      id: "operator-token",
      meta: null,
      num_uses: 0,
      orphan: true,
      path: "auth/token/create",
      policies: ["a-reader", "rekey-operator"],
      ttl: 0,
      type: "service",
    });
  });

  it("no token in the body, an empty one, or no body: the caller's own token", async () => {
    for (const body of [{}, { token: "" }, undefined]) {
      const { data, response } = await secrets.clientWithToken("looker").POST("/auth/token/lookup", body === undefined ? {} : { body });
      expect(response.status).toBe(200);
      expect(data!.data.id).toBe("looker");
    }
  });

  it("PUT is the same operation", async () => {
    const answer = await fetch(`${secrets.baseUrl}/auth/token/lookup`, { method: "PUT", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: JSON.stringify({ token: "nothing" }) });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(((await answer.json()) as { data: { id: string } }).data.id).toBe("nothing");
  });

  it("a token the store does not have: 403 bad token", async () => {
    const { error, response } = await secrets.client.POST("/auth/token/lookup", { body: { token: "no-such-token" } });
    expect(response.status).toBe(403);
    expect(error).toEqual({ errors: ["bad token"] });
  });

  it("without update on the path: 403 permission denied, whatever the body", async () => {
    for (const token of ["operator-token", "nothing", "hidden"]) {
      for (const body of [{ token: ROOT_TOKEN }, { token: "no-such-token" }, { token: 5 as unknown as string }]) {
        await expectDenied(secrets.clientWithToken(token).POST("/auth/token/lookup", { body }));
      }
    }
    await expectDenied(secrets.clientWithToken(undefined).POST("/auth/token/lookup", { body: { token: ROOT_TOKEN } }));
  });

  it("a token with update on the path looks up another token, the root token included", async () => {
    const { data } = await secrets.clientWithToken("looker").POST("/auth/token/lookup", { body: { token: ROOT_TOKEN } });
    expect(data!.data).toMatchObject({ id: ROOT_TOKEN, policies: ["root"], path: "auth/token/root" });
  });

  it("a body that is not the schema: 400 in the service's envelope", async () => {
    const { error, response } = await secrets.client.POST("/auth/token/lookup", { body: { token: 5 as unknown as string } });
    expect(response.status).toBe(400);
    expect(error).toEqual({ errors: [expect.stringMatching(/token/)] });
  });

  it("hostile bodies: null token is the caller's own; too long, an array, broken JSON are 400; nothing is looked up", async () => {
    const send = (body: string) => fetch(`${secrets.baseUrl}/auth/token/lookup`, { method: "POST", headers: { "X-Secrets-Token": "looker" }, body });
    const own = await send('{"token": null}');
    expect(own.status).toBe(200);
    expect(((await own.json()) as { data: { id: string } }).data.id).toBe("looker");
    for (const body of [JSON.stringify({ token: "x".repeat(1024 * 1024 + 1) }), "[1]", '{"token":', '"operator-token"', '{"token": ["operator-token"]}']) {
      const answer = await send(body);
      expect(answer.status).toBe(400);
      const text = await answer.text();
      expect(JSON.parse(text)).toEqual({ errors: [expect.any(String)] });
      expect(text).not.toContain("auth/token/create");
    }
  });

  it("DELETE is not served on the path: 405 with Allow", async () => {
    const answer = await fetch(`${secrets.baseUrl}/auth/token/lookup`, { method: "DELETE", headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toMatch(/POST/);
  });

  it("lookup takes no token in the path (auth/token/lookup/<token> is not a route): 404", async () => {
    const answer = await fetch(`${secrets.baseUrl}/auth/token/lookup/operator-token`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(answer.status).toBe(404);
  });
});
