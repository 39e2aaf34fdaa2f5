// Raw HTTP: the LIST method on a real socket, the error envelope for every kind of refusal, bodies
// without a JSON content type, PUT for POST, unknown paths and methods.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_MARK } from "../../server/secrets/http/list-method.ts";
import { parseRawResponses, rawExchange, ROOT_TOKEN, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

let secrets: RunningTestSecrets;
beforeAll(async () => {
  secrets = await startSecrets();
});
afterAll(() => secrets.close());

const auth = { "X-Secrets-Token": ROOT_TOKEN };
const request = (method: string, path: string, init: RequestInit = {}) =>
  fetch(`${secrets.baseUrl}${path}`, { method, ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });

describe("the LIST method", () => {
  const port = () => secrets.secrets.port;
  const head = (method: string, target: string, token = ROOT_TOKEN) =>
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Secrets-Token: ${token}\r\n\r\n`;

  it("is accepted on a raw socket and answered like GET ?list=true (no list operation at this path: 405)", async () => {
    const raw = await rawExchange(port(), [head("LIST", "/v1/sys/rekey/init"), head("LIST", "/v1/sys/leases/lookup/nothing")]);
    const [answer, logical] = parseRawResponses(raw);
    // sys/rekey/init is answered by the real server's HTTP layer: 405 with no message.
    expect(answer).toMatchObject({ status: 405, body: { errors: [] } });
    expect(answer!.headers["content-type"]).toBe("application/json");
    expect(answer!.headers["allow"]).toBe("DELETE, GET, POST, PUT");
    // A path of the logical layer answers LIST and GET ?list=true alike.
    const viaGet = await request("GET", "/sys/leases/lookup/nothing?list=true");
    expect({ status: viaGet.status, body: await viaGet.json() }).toEqual({ status: logical!.status, body: logical!.body });
  });

  it("goes through the token check and the routing like any request", async () => {
    const raw = await rawExchange(port(), [head("LIST", "/v1/sys/rekey/init", "wrong"), head("LIST", "/v1/sys/nothing/here"), head("GET", "/v1/sys/rekey/init")]);
    expect(parseRawResponses(raw).map(({ status, body }) => ({ status, body }))).toEqual([
      { status: 403, body: { errors: ["permission denied"] } },
      // Under the sys mount: its backend's refusal, wrapped as the request handling wraps it.
      { status: 404, body: { errors: ["1 error occurred:\n\t* unsupported path\n\n"] } },
      { status: 200, body: expect.objectContaining({ started: false }) },
    ]);
  });

  it("works when the request line arrives split across packets, after a request with a body", async () => {
    const body = JSON.stringify({ secret_shares: 2, secret_threshold: 2 });
    const post = `POST /v1/sys/rekey/init HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const raw = await rawExchange(port(), [post + "LI", "ST /v1/sys/rekey/init HT", "TP/1.1\r\nHost: x\r\nX-Secrets-Token: " + ROOT_TOKEN + "\r\n\r\n", "DELETE /v1/sys/rekey/init HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: " + ROOT_TOKEN + "\r\n\r\n"]);
    expect(parseRawResponses(raw).map((r) => r.status)).toEqual([200, 405, 204]);
  });

  it("reads list on GET with the real system's boolean spellings, and refuses others with 400 and no message", async () => {
    // http/logical.go buildLogicalRequestNoAuth: strconv.ParseBool of the first value, only for GET;
    // empty is no list; a value it cannot read is `return nil, nil, http.StatusBadRequest, nil`.
    const list = await request("GET", "/aws/roles?list=1");
    expect(list.status).toBe(404); // a list of no roles: the real server's 404 with no message
    expect(await list.json()).toEqual({ errors: [] });
    expect((await request("GET", "/aws/roles?list=F")).status).toBe(405); // a read of a path that has only a list
    expect((await request("GET", "/aws/roles?list=")).status).toBe(405);
    const bad = await request("GET", "/aws/roles?list=maybe");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('{"errors":[]}\n');
    // Not read on other methods: a write with ?list=maybe is the write.
    expect((await request("POST", "/aws/config/lease?list=maybe", { body: '{"lease":"1h","lease_max":"2h"}' })).status).toBe(204);
  });

  it("does not read list on the rekey paths (http/sys_rekey.go switches on the method alone), but a LIST stays a LIST", async () => {
    // Was 405 and 400: the real handlers never look at the query.
    for (const query of ["list=1", "list=t", "list=false", "list=maybe", "list=true&x=1"]) {
      const status = await request("GET", `/sys/rekey/init?${query}`);
      expect(status.status, query).toBe(200);
      expect(await status.json(), query).toMatchObject({ started: false });
    }
    // Not even `list=true` last, the form a LIST's request line is rewritten into: the rewritten line
    // carries a mark a client cannot send (http/list-method.ts), so only a LIST is 405 there.
    for (const query of ["list=true", "x=1&list=true"]) {
      const status = await request("GET", `/sys/rekey/init?${query}`);
      expect(status.status, query).toBe(200);
      expect(await status.json(), query).toMatchObject({ started: false });
    }
    const forged = await request("GET", "/sys/rekey/init?list=true", { headers: { [LIST_MARK.name]: "f".repeat(32) } });
    expect(forged.status).toBe(200);
    const [asList, withHeader] = parseRawResponses(
      await rawExchange(port(), [head("LIST", "/v1/sys/rekey/update"), `LIST /v1/sys/rekey/init HTTP/1.1\r\nHost: x\r\n${LIST_MARK.name}: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\n\r\n`]),
    );
    expect(asList!.status).toBe(405);
    // A client's own copy of the header joins the mark into another value: the LIST reads as a GET.
    expect(withHeader!.status).toBe(200);
  });
});

describe("the error envelope", () => {
  it("answers malformed JSON with 400", async () => {
    const response = await request("POST", "/sys/rekey/init", { body: "{" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await response.json()).errors[0]).toMatch(/^failed to parse JSON input: /);
  });

  it("answers a POST without a body with 400 (not the validator's 415)", async () => {
    // http/sys_rekey.go handleSysRekeyUpdate: parseJSONRequest's io.EOF is an error there.
    const response = await request("POST", "/sys/rekey/update");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ errors: ["EOF"] });
    // Only the key is required, as in the real server (http/sys_rekey.go); a missing nonce is an empty one.
    const empty = await request("POST", "/sys/rekey/update", { body: "{}" });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ errors: ["'key' must be specified in request body as JSON"] });
  });

  it("answers a body that is not an object with 400, in the words of the real server's JSON decoder", async () => {
    for (const [body, kind] of [["[1]", "array"], ['"x"', "string"], ["5", "number"], ["true", "bool"]]) {
      const response = await request("POST", "/sys/rekey/update", { body });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ errors: [`failed to parse JSON input: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`] });
    }
  });

  it("answers an unknown path with 404 and an unsupported method with 405", async () => {
    const missing = await request("GET", "/secret/data/x");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ errors: ['no handler for route "secret/data/x". route entry not found.'] });
    const outside = await request("GET", "/elsewhere");
    expect(outside.status).toBe(404);
    const method = await request("PATCH", "/sys/rekey/init", { body: "{}" });
    expect(method.status).toBe(405);
    expect(method.headers.get("Allow")).toBe("DELETE, GET, POST, PUT");
    expect(await method.text()).toBe('{"errors":[]}\n');
    const update = await request("GET", "/sys/rekey/update");
    expect(update.status).toBe(405);
    expect(update.headers.get("Allow")).toBe("POST, PUT");
    // A path of a backend's routes: the backend's message, as the request handling passes it on
    // (vault/request_handling.go handleRequest appends the routing error to a go-multierror).
    const backend = await request("DELETE", "/aws/config/root");
    expect(backend.status).toBe(405);
    expect(backend.headers.get("Allow")).toBe("GET, POST, PUT");
    expect(await backend.text()).toBe('{"errors":["1 error occurred:\\n\\t* unsupported operation\\n\\n"]}\n');
    for (const path of ["/aws/nothing", "/identity/nothing", "/auth/token/nothing"]) {
      const inMount = await request("GET", path);
      expect(inMount.status, path).toBe(404);
      expect(await inMount.json()).toEqual({ errors: ["1 error occurred:\n\t* unsupported path\n\n"] });
    }
    // auth/ itself is no mount: only the token store under it is.
    expect(await (await request("GET", "/auth/userpass/login")).json()).toEqual({ errors: ['no handler for route "auth/userpass/login". route entry not found.'] });
  });

  // The real server checks the token's policy before it routes (vault/request_handling.go
  // handleRequest: CheckToken, then doRouting): a token may not learn which paths and methods exist
  // where its policy does not reach.
  it("refuses a token without the method's capability with 403 before saying a path or a method is not served", async () => {
    const { parseWorld } = await import("../../server/secrets/world.ts");
    const limited = await startSecrets({
      world: parseWorld({ policies: { "config-reader": { path: { "aws/config/root": { capabilities: ["read"] }, "aws/roles/*": { capabilities: ["delete"] } } } }, tokens: [{ id: "reader-token", policies: ["config-reader"] }] }),
    });
    try {
      const as = (method: string, path: string, token: string) => fetch(`${limited.baseUrl}${path}`, { method, headers: { "X-Secrets-Token": token } });
      for (const [method, path] of [
        ["DELETE", "/aws/config/root"],
        ["PATCH", "/aws/config/root"],
        ["GET", "/aws/nothing"],
        ["GET", "/secret/data/x"],
        ["GET", "/sys/leases/renew"],
      ] as const) {
        const refused = await as(method, path, "reader-token");
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(await refused.json()).toEqual({ errors: ["permission denied"] });
      }
      // With the capability (or as root), the path's own refusal.
      const deleteRole = await as("DELETE", "/aws/roles/x/y", "reader-token");
      expect(deleteRole.status).toBe(404);
      expect(await deleteRole.json()).toEqual({ errors: ["1 error occurred:\n\t* unsupported path\n\n"] });
      expect((await as("DELETE", "/aws/config/root", ROOT_TOKEN)).status).toBe(405);
      expect(await (await as("GET", "/secret/data/x", ROOT_TOKEN)).json()).toEqual({ errors: ['no handler for route "secret/data/x". route entry not found.'] });
      // The raw rekey handlers check no policy before refusing a method: 405 with no message.
      const rekey = await as("PATCH", "/sys/rekey/init", "reader-token");
      expect(rekey.status).toBe(405);
    } finally {
      await limited.close();
    }
  });

  it("sends Cache-Control: no-store and no ETag, as the real system does", async () => {
    const answer = await request("GET", "/sys/rekey/init");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("etag")).toBeNull();
  });
});

describe("request decoding", () => {
  it("decodes a body sent as text/plain or without a content type, ignores unknown keys and query parameters", async () => {
    const started = await request("POST", "/sys/rekey/init?unknown=1", {
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify({ secret_shares: 2, secret_threshold: 2, something_else: true }),
    });
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ started: true, n: 2 });
    expect((await request("DELETE", "/sys/rekey/init")).status).toBe(204);
  });

  it("takes PUT for POST, as the real system does", async () => {
    const started = await request("PUT", "/sys/rekey/init", { body: JSON.stringify({ secret_shares: 2, secret_threshold: 2 }) });
    expect(started.status).toBe(200);
    const { nonce } = await started.json();
    const update = await request("PUT", "/sys/rekey/update", { body: JSON.stringify({ key: secrets.keys[0], nonce }) });
    expect(await update.json()).toMatchObject({ progress: 1 });
    expect((await request("DELETE", "/sys/rekey/init")).status).toBe(204);
  });

  it("never answers 500 to odd input", async () => {
    const odd: [string, string, string | undefined][] = [
      ["POST", "/sys/rekey/init", '{"secret_shares":null,"secret_threshold":2}'],
      ["POST", "/sys/rekey/init", '{"secret_shares":2.5,"secret_threshold":2}'],
      ["POST", "/sys/rekey/init", '{"secret_shares":2,"secret_threshold":2,"pgp_keys":"abc"}'],
      ["POST", "/sys/rekey/init", '{"secret_shares":2,"secret_threshold":2,"backup":"yes"}'],
      ["POST", "/sys/rekey/update", '{"key":123,"nonce":"x"}'],
      ["POST", "/sys/rekey/update", '{"key":"' + "a".repeat(100000) + '","nonce":"x"}'],
      ["POST", "/sys/rekey/verify", '{"key":{},"nonce":[]}'],
      ["DELETE", "/sys/rekey/verify", "{"],
      ["GET", "/aws/roles?list=true&list=false", undefined],
    ];
    for (const [method, path, body] of odd) {
      const response = await request(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path} ${body?.slice(0, 40)}`).toBeLessThan(500);
      expect(await response.json()).toHaveProperty("errors");
    }
    // A GET with a body (fetch will not send one).
    const raw = await rawExchange(secrets.secrets.port, [
      `GET /v1/sys/rekey/init HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${ROOT_TOKEN}\r\nContent-Length: 8\r\nConnection: close\r\n\r\nnot json`,
    ]);
    expect(parseRawResponses(raw)[0]).toMatchObject({ status: 400, body: { errors: [expect.stringMatching(/^failed to parse JSON input/)] } });
  });
});
