// Help on a path (`?help=1`): answered with the description's words about the operations at the
// path, and nothing runs: no role written, no credentials issued, no lease. As the real server:
// http/help.go wrapHelpHandler (a `help` query parameter that is not empty, whatever the method,
// before the request is read further), handleHelp (the backend's help written as it is,
// respondOk(w, resp.Data): `help`, `openapi`, `see_also`, outside the usual envelope), the token
// checked but no capability needed (vault/acl.go AllowOperation: "Help is always allowed").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { leasesOf } from "../../server/secrets/leases/index.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";
import { rewriteListRequestLine } from "../../server/secrets/http/list-method.ts";
import { parseRawResponses, rawExchange, ROOT_TOKEN } from "../helpers/secrets.ts";

const READONLY = "arn:aws:iam::aws:policy/ReadOnlyAccess";

let server: CloudTestServer;
beforeAll(async () => {
  const world = parseWorld({ policies: { nothing: { path: { "sys/rekey/init": { capabilities: ["read"] } } } }, tokens: [{ id: "no-capability-here", policies: ["nothing"] }] });
  server = await startCloudSecrets({ world });
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  ok(await server.client.POST("/aws/config/root", { body: STATIC_ROOT }));
  ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name: "app" } }, body: { credential_type: "iam_user", policy_arns: READONLY } }));
});

const request = (method: string, path: string, init: { token?: string; body?: unknown } = {}) =>
  fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { "X-Secrets-Token": init.token ?? ROOT_TOKEN },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

interface Help {
  help: string;
  openapi: { openapi: string; paths: Record<string, Record<string, unknown>>; components?: Record<string, Record<string, unknown>> };
  see_also: null;
}

async function help(response: Response): Promise<Help> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  const body = (await response.json()) as Help;
  expect(Object.keys(body)).toEqual(["help", "openapi", "see_also"]);
  return body;
}

describe("help on a path", () => {
  it("answers GET /aws/creds/<role>?help=1 with the path's operations, and issues nothing", async () => {
    const users = server.cloud.userNames().length;
    const answer = await help(await request("GET", "/aws/creds/app?help=1"));
    expect(answer.see_also).toBeNull();
    expect(answer.help).toContain("Request:        aws/creds/app\nMatching Route: /aws/creds/{name}\n");
    expect(answer.help).toContain("GET: Generate credentials from a role\n");
    expect(answer.help).toContain("## PARAMETERS\n\n    name (string)\n");
    expect(answer.help).toContain("## DESCRIPTION\n\nGET: Issues new credentials");
    expect(Object.keys(answer.openapi.paths)).toEqual(["/aws/creds/{name}"]);
    expect(answer.openapi.paths["/aws/creds/{name}"]!.get).toMatchObject({ operationId: "generateCloudCredentials" });
    // Every reference of the path's description resolves within the answer.
    for (const ref of JSON.stringify(answer.openapi).match(/"#\/components\/[^"]+"/g) ?? []) {
      const [kind, name] = JSON.parse(ref).slice("#/components/".length).split("/");
      expect(answer.openapi.components?.[kind]?.[name], ref).toBeDefined();
    }
    expect(server.cloud.userNames().length).toBe(users);
    expect(leasesOf(server.secrets.cluster).list()).toEqual([]);
  });

  it("runs no write: POST /aws/roles/<name>?help=1 writes no role, DELETE ?help=1 deletes nothing", async () => {
    await help(await request("POST", "/aws/roles/helped?help=1", { body: { credential_type: "iam_user", policy_arns: READONLY } }));
    expect((await server.client.GET("/aws/roles/{name}", { params: { path: { name: "helped" } } })).response.status).toBe(404);
    await help(await request("DELETE", "/aws/roles/app?help=1"));
    expect((await server.client.GET("/aws/roles/{name}", { params: { path: { name: "app" } } })).response.status).toBe(200);
    // The HTTP-layer rekey paths too: the attempt stays.
    ok(await server.client.POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } }));
    const rekeyHelp = await help(await request("DELETE", "/sys/rekey/init?help=1"));
    expect(rekeyHelp.help).toContain("Matching Route: /sys/rekey/init\n");
    expect(ok(await server.client.GET("/sys/rekey/init")).started).toBe(true);
    expect((await server.client.DELETE("/sys/rekey/init")).response.status).toBe(204);
  });

  it("takes any value that is not empty (help=0 too, as the real server only tests for empty); help= runs the operation", async () => {
    for (const value of ["0", "false", "yes"]) await help(await request("GET", `/aws/roles/app?help=${value}`));
    const run = await request("GET", "/aws/roles/app?help=");
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ data: { credential_type: "iam_user" } });
  });

  it("does not read the request further: a bad list value, a LIST, a body that is not JSON", async () => {
    await help(await request("GET", "/aws/roles?help=1&list=maybe"));
    const list = await help(await request("GET", "/aws/roles/?list=true&help=1"));
    expect(list.help).toContain("Matching Route: /aws/roles\n");
    expect(list.help).toContain("LIST: List the roles");
    const raw = await rawExchange(server.secrets.port, [`LIST /v1/sys/leases/lookup/?help=1 HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`]);
    expect(parseRawResponses(raw)[0]).toMatchObject({ status: 200, body: { help: expect.stringContaining("Matching Route: /sys/leases/lookup\n") } });
    const notJson = await fetch(`${server.baseUrl}/aws/roles/x?help=1`, { method: "POST", headers: { "X-Secrets-Token": ROOT_TOKEN }, body: "{not json" });
    await help(notJson);
  });

  it("answers the HELP method on the wire (Node's parser refuses it: the LIST rewrite takes it too)", async () => {
    expect(rewriteListRequestLine("HELP /v1/aws/roles/app?help=&x=1 HTTP/1.1\r\n")).toBe("GET /v1/aws/roles/app?x=1&help=1 HTTP/1.1\r\n");
    const head = (target: string) => `HELP ${target} HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\n\r\n`;
    const users = server.cloud.userNames().length;
    const raw = await rawExchange(server.secrets.port, ["HE", `LP /v1/aws/creds/app HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\n\r\n`, head("/v1/aws/roles/app?help=") + "GET /v1/aws/roles/app HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Secrets-Token: " + ROOT_TOKEN + "\r\n\r\n"]);
    const answers = parseRawResponses(raw);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers[0]!.body).toMatchObject({ help: expect.stringContaining("Matching Route: /aws/creds/{name}\n"), see_also: null });
    expect(answers[1]!.body).toMatchObject({ help: expect.stringContaining("Matching Route: /aws/roles/{name}\n") });
    expect(answers[2]!.body).toMatchObject({ data: { credential_type: "iam_user" } });
    expect(server.cloud.userNames().length).toBe(users);
  });

  it("checks the token (403) but needs no capability on the path; a path nothing serves is 404", async () => {
    for (const token of ["", "unknown-token"]) {
      const refused = await request("GET", "/aws/creds/app?help=1", { token });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ errors: ["permission denied"] });
    }
    await help(await request("GET", "/aws/creds/app?help=1", { token: "no-capability-here" }));
    const nowhere = await request("GET", "/nowhere/at/all?help=1");
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toEqual({ errors: ['no handler for route "nowhere/at/all". route entry not found.'] });
    // The token before the route, as for any request.
    expect((await request("GET", "/nowhere/at/all?help=1", { token: "unknown-token" })).status).toBe(403);
  });
});
