// Input-only attributes (oauth-token-string, private-key, secret) are write-only in the description,
// stored by the server, and never returned by any endpoint.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../server/shared/openapi.ts";
import { IDS, INPUT_ONLY, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
afterAll(() => server.close());

type Schema = { properties?: Record<string, Schema & { writeOnly?: boolean }>; $ref?: string };
const bundle = loadBundle("org-platform") as unknown as { components: { schemas: Record<string, Schema> } };
const attributesOf = (schema: string) => bundle.components.schemas[schema]!.properties!.data!.properties!.attributes!.properties!;

describe("input-only attributes", () => {
  it("are writeOnly in the request schemas and absent from the resource", () => {
    const create = attributesOf("OAuthClientCreateRequest");
    for (const key of INPUT_ONLY) expect(create[key]?.writeOnly, key).toBe(true);
    expect(attributesOf("OAuthClientUpdateRequest").secret?.writeOnly).toBe(true);
    const returned = Object.keys(bundle.components.schemas.OAuthClient!.properties!.attributes!.properties!);
    for (const key of INPUT_ONLY) expect(returned).not.toContain(key);
  });

  it("are never in any answer, whatever was sent and asked for", async () => {
    const alice = server.as(TOKENS.alice);
    const values = { token: "oauth-token-string-SENTINEL-1", key: "private-key-SENTINEL-2", secret: "secret-SENTINEL-3", secret2: "secret-SENTINEL-4" };
    const created = [];
    for (const [provider, extra] of [
      ["vcs_a", { secret: values.secret, "rsa-public-key": "ssh-rsa PUBLIC" }],
      ["vcs_c_server", { "private-key": values.key }],
      ["vcs_b_enterprise_edition", { secret: values.secret, "private-key": values.key }],
    ] as const) {
      const { data, response } = await alice.POST("/organizations/{organization_name}/oauth-clients", {
        params: { path: { organization_name: "acme" } },
        body: {
          data: {
            type: "oauth-clients",
            attributes: { "service-provider": provider, "http-url": "https://vcs.example", "api-url": "https://vcs.example/api", "oauth-token-string": values.token, ...extra },
          },
        },
      });
      expect(response.status).toBe(201);
      created.push(data!.data.id);
    }
    await alice.PATCH("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: created[0]! } },
      body: { data: { type: "oauth-clients", attributes: { secret: values.secret2, "rsa-public-key": "ssh-rsa NEW" } } },
    });
    // A refused request echoes nothing either.
    await alice.PATCH("/oauth-clients/{oauth_client_id}", {
      params: { path: { oauth_client_id: created[0]! } },
      body: { data: { type: "oauth-clients", attributes: { secret: values.secret2, "organization-scoped": "maybe" } } } as never,
    });
    for (const token of [TOKENS.alice, TOKENS.bob, TOKENS.acme]) {
      await server.as(token).GET("/organizations/{organization_name}/oauth-clients", {
        params: { path: { organization_name: "acme" }, query: { include: ["oauth_tokens", "projects"] } },
      });
      for (const id of [...created, IDS.clients.vcsA]) {
        await server.as(token).GET("/oauth-clients/{oauth_client_id}", { params: { path: { oauth_client_id: id }, query: { include: ["oauth_tokens"] } } });
      }
    }
    // The server kept them.
    expect(server.service.store.oauthClient(created[0]!)?.secret).toBe(values.secret2);
    expect(server.service.store.oauthClient(created[1]!)?.privateKey).toBe(values.key);
    expect(server.service.store.oauthTokens(created[0]!)[0]?.tokenString).toBe(values.token);

    expect(server.seen.length).toBeGreaterThan(15);
    for (const { body, method, url } of server.seen) {
      for (const key of INPUT_ONLY) expect(body, `${method} ${url}`).not.toContain(`"${key}"`);
      for (const value of Object.values(values)) expect(body, `${method} ${url}`).not.toContain(value);
    }
  });
});
