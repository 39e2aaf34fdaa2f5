// Raw HTTP: authentication before anything else, the JSON:API error envelope for every kind of
// failure (unknown paths and methods included), media types.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawGet } from "../helpers/raw-get.ts";
import { IDS, JSON_API, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
afterAll(() => server.close());

async function errorsOf(response: Response) {
  expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
  return ((await response.json()) as { errors: { status: string; title: string; detail?: string; source?: Record<string, string> }[] }).errors;
}

describe("authentication", () => {
  it("answers 401 with a JSON:API error without a token, with an unknown one, or with another scheme", async () => {
    for (const authorization of [undefined, "Bearer nope.atlasv1.unknown", "Basic YWxpY2U6cGFzcw==", "Bearer", `Token ${TOKENS.alice}`]) {
      const response = await server.fetch("/organizations/acme/teams", { headers: authorization ? { Authorization: authorization } : {} });
      expect(response.status, authorization).toBe(401);
      // The platform's document, byte for byte.
      expect(await response.text()).toBe('{"errors":[{"status":"401","title":"unauthorized"}]}');
    }
  });

  it("accepts the scheme in any letter case", async () => {
    const response = await server.fetch("/organizations/acme/teams", { headers: { Authorization: `bearer ${TOKENS.alice}` } });
    expect(response.status).toBe(200);
  });

  it("checks the token before the path and the body", async () => {
    expect((await server.fetch("/no/such/path")).status).toBe(401);
    expect((await server.fetch("/organizations/acme/teams", { method: "POST", body: "{", headers: { "Content-Type": JSON_API } })).status).toBe(401);
    expect((await server.fetch("/organizations/acme/teams", { method: "PUT" })).status).toBe(401);
  });
});

describe("GET /ping", () => {
  it("answers 204 with the API version and rate limit, without a token and with one", async () => {
    for (const client of [server.as(), server.as(TOKENS.alice), server.as("nobody.atlasv1.unknown")]) {
      const { response } = await client.GET("/ping");
      expect(response.status).toBe(204);
      expect(response.headers.get("TFP-API-Version")).toBe("2.5");
      expect(response.headers.get("X-RateLimit-Limit")).toBe("30");
      expect(await response.text()).toBe("");
    }
  });

  it("every other answer carries the same headers, errors included", async () => {
    for (const response of [await server.fetch("/organizations/acme/teams", { token: TOKENS.alice }), await server.fetch("/organizations/acme/teams")]) {
      expect(response.headers.get("TFP-API-Version")).toBe("2.5");
      expect(response.headers.get("X-RateLimit-Limit")).toBe("30");
    }
  });

  it("answers a method the path does not have with 405 and the methods it has in Allow", async () => {
    const ping = await server.fetch("/ping", { method: "POST", token: TOKENS.alice });
    expect(ping.status).toBe(405);
    expect(ping.headers.get("Allow")).toBe("GET, HEAD");
    const team = await server.fetch("/teams/team-x", { method: "PUT", token: TOKENS.alice });
    expect(team.status).toBe(405);
    expect(team.headers.get("Allow")).toBe("DELETE, GET, HEAD, PATCH");
  });
});

describe("the error envelope", () => {
  it("answers an unknown path with a JSON:API 404", async () => {
    const response = await server.fetch("/workspaces/ws-123", { token: TOKENS.alice });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('{"errors":[{"status":"404","title":"not found"}]}');
    const outside = await server.fetch("/../../health", { token: TOKENS.alice });
    expect(outside.status).toBe(404);
  });

  it("answers a method the path does not have with a JSON:API 405", async () => {
    const response = await server.fetch(`/teams/${IDS.teams.developers}`, { method: "PUT", token: TOKENS.alice, body: "{}", headers: { "Content-Type": JSON_API } });
    expect(response.status).toBe(405);
    expect(await errorsOf(response)).toEqual([{ status: "405", title: "method not allowed", detail: "PUT is not allowed on this path." }]);
  });

  it("reports every problem of a body, each with a pointer", async () => {
    const response = await server.fetch("/organizations/acme/oauth-clients", {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": JSON_API },
      body: JSON.stringify({ data: { type: "oauth-clients", attributes: { "service-provider": "vcs_z", "http-url": "https://x.example", "organization-scoped": 1 } } }),
    });
    expect(response.status).toBe(422);
    const errors = await errorsOf(response);
    expect(errors.map((e) => e.source?.pointer).sort()).toEqual(
      ["/data/attributes/api-url", "/data/attributes/oauth-token-string", "/data/attributes/organization-scoped", "/data/attributes/service-provider"].sort(),
    );
    for (const error of errors) expect(error).toMatchObject({ status: "422", title: "invalid attribute", detail: expect.stringContaining(error.source!.pointer!.split("/").pop()!) });
  });

  it("answers 400 with parameter errors and 422 with body errors in one document when both are wrong", async () => {
    const response = await server.fetch("/organizations/acme/teams?include=bogus", {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": JSON_API },
      body: JSON.stringify({ data: { type: "teams", attributes: {} } }),
    });
    expect(response.status).toBe(400);
    const errors = await errorsOf(response);
    expect(errors).toContainEqual(expect.objectContaining({ status: "400", source: { parameter: "include" } }));
    expect(errors).toContainEqual(expect.objectContaining({ status: "422", source: { pointer: "/data/attributes/name" } }));
  });

  it("answers a body of another media type with 415, in the platform's words", async () => {
    const response = await server.fetch("/organizations/acme/teams", {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "data=1",
    });
    expect(response.status).toBe(415);
    expect(await errorsOf(response)).toEqual([
      { status: "415", title: "invalid content type", detail: "content-type must be application/vnd.api+json" },
    ]);
  });

  it("answers a body that is JSON but not an object with 422", async () => {
    for (const body of ["null", "42", '"text"', "[1]"]) {
      const response = await server.fetch("/organizations/acme/teams", { method: "POST", token: TOKENS.alice, headers: { "Content-Type": JSON_API }, body });
      expect(response.status, body).toBe(422);
    }
  });

  it("answers a body over 1 MB with 413 in the envelope", async () => {
    const response = await server.fetch("/organizations/acme/teams", {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": JSON_API },
      body: JSON.stringify({ data: { type: "teams", attributes: { name: "x".repeat(1_100_000) } } }),
    });
    expect(response.status).toBe(413);
    expect((await errorsOf(response))[0]).toMatchObject({ status: "413" });
  });
});

describe("media types", () => {
  it("answers documents as application/vnd.api+json", async () => {
    const response = await server.fetch(`/teams/${IDS.teams.developers}`, { token: TOKENS.alice });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
  });

  it("answers a conditional request as any other: it sends no ETag or Last-Modified, so nothing is ever not modified", async () => {
    const conditions: Record<string, string>[] = [{ "if-none-match": "*" }, { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() }];
    for (const condition of conditions) {
      const answer = await rawGet(`${server.baseUrl}/teams/${IDS.teams.developers}`, { authorization: `Bearer ${TOKENS.alice}`, ...condition });
      expect(answer.status).toBe(200);
      expect((JSON.parse(answer.body) as { data: { id: string } }).data.id).toBe(IDS.teams.developers);
    }
  });

  it("answers 204 with no body and no content type", async () => {
    const response = await server.fetch(`/oauth-clients/${IDS.clients.vcsB}/relationships/projects`, {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": JSON_API },
      body: JSON.stringify({ data: [] }),
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
  });
});

describe("query parameters", () => {
  it("ignores query parameters an operation does not take, on every kind of operation", async () => {
    for (const [method, path, status] of [
      ["GET", "/organizations/acme/oauth-clients?show_affected_workspaces=true", 200],
      ["GET", `/oauth-clients/${IDS.clients.vcsA}?show_affected_workspaces=true`, 200],
      ["GET", `/teams/${IDS.teams.security}?force=true`, 200],
      ["PATCH", `/oauth-clients/${IDS.clients.vcsA}?force=true`, 200],
      ["POST", `/oauth-clients/${IDS.clients.vcsA}/relationships/projects?q=x`, 204],
      ["DELETE", `/oauth-clients/${IDS.clients.vcsA}/relationships/projects?q=x`, 204],
    ] as const) {
      const body = method === "PATCH" ? JSON.stringify({ data: { type: "oauth-clients", attributes: { name: "renamed" } } }) : method === "GET" ? undefined : JSON.stringify({ data: [{ id: IDS.projects.data, type: "projects" }] });
      const response = await server.fetch(path, { method, token: TOKENS.alice, headers: { "Content-Type": JSON_API }, body });
      expect(response.status, `${method} ${path}`).toBe(status);
    }
    // Those the operation does take are still checked.
    const response = await server.fetch(`/teams/${IDS.teams.security}?include=projects`, { token: TOKENS.alice });
    expect(response.status).toBe(400);
    expect((await errorsOf(response))[0]).toMatchObject({ status: "400", title: "Invalid include parameter", source: { parameter: "include" } });
  });

});
