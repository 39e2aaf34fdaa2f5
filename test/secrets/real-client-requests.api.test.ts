// Requests as the real service's own clients send them, byte for byte: the CLI lists with a
// trailing slash (`LIST /v1/aws/roles/`, command/list.go adds it), client libraries put ARNs
// unencoded in query strings, the Go client sends `null` for a write without data (api/request.go
// encodes a nil Obj), and `Authorization: Bearer` is taken as a token (http/handler.go requestAuth).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRawResponses, rawExchange } from "../helpers/secrets.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { ROOT_TOKEN } from "../helpers/secrets.ts";

const DEPLOY = "arn:aws:iam::123456789012:role/deploy";
let server: CloudTestServer;
beforeAll(async () => {
  server = await startCloudSecrets({ cloud: { roles: [{ name: "deploy" }] } });
  ok(await server.client.POST("/aws/config/root", { body: { ...STATIC_ROOT, region: "eu-west-1" } }));
  ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "assumer" } }, body: { credential_type: "assumed_role", role_arns: [DEPLOY] } }));
  ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "other" } }, body: { credential_type: "assumed_role", role_arns: [DEPLOY] } }));
});
afterAll(() => server.close());

const head = (method: string, target: string) => `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\n\r\n`;

describe("requests of real clients", () => {
  it("lists with a trailing slash, as the CLI sends it, with LIST and with GET ?list=true", async () => {
    const raw = await rawExchange(server.secrets.port, [head("LIST", "/v1/aws/roles/"), head("GET", "/v1/aws/roles/?list=true"), head("LIST", "/v1/aws/roles")]);
    const answers = parseRawResponses(raw);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    for (const answer of answers) expect(answer.body).toMatchObject({ data: { keys: ["assumer", "other"] } });
  });

  it("takes an ARN unencoded in the query string", async () => {
    const response = await fetch(`${server.baseUrl}/aws/creds/assumer?role_arn=${DEPLOY}&role_session_name=ci:job/1`, { headers: { "X-Secrets-Token": ROOT_TOKEN } });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.data.arn).toContain("assumed-role/deploy/");
  });

  it("takes the body `null` for a write without data", async () => {
    const response = await fetch(`${server.baseUrl}/aws/config/rotate-root`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "null" });
    // Whatever the engine then says, the body was accepted as {}: never a decoding error.
    expect(JSON.stringify(await response.json())).not.toMatch(/parse JSON|must be object/);
    const deleted = await fetch(`${server.baseUrl}/aws/roles/other`, { method: "DELETE", headers: { Authorization: `Bearer ${ROOT_TOKEN}` }, body: "null" });
    expect(deleted.status).toBe(204);
  });
});
