// A token that may do everything except touch one role: every spelling of the denied paths an
// attacker can send (percent-encoded characters, `%2F`, `//`, `.` and `..` segments, trailing
// slashes, case of the hex digits) is refused or lands somewhere harmless, and nothing about the
// denied role changes. Policies are checked on the same canonical path the handlers act on.
import fc from "fast-check";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalPath, cleanPath, percentDecode } from "../../server/secrets/http/canonical-path.ts";
import { parseWorld } from "../../server/secrets/world.ts";
import { ok, startCloudSecrets, STATIC_ROOT, type CloudTestServer } from "../helpers/cloud-credentials.ts";

const ATTACKER = "attacker-token";
const ALL = ["create", "read", "update", "delete", "list", "sudo"];
let server: CloudTestServer;

beforeAll(async () => {
  server = await startCloudSecrets({
    world: parseWorld({
      policies: {
        "all-but-admin": {
          path: {
            "*": { capabilities: ALL },
            "aws/roles/admin": { capabilities: ["deny"] },
            "aws/creds/admin": { capabilities: ["deny"] },
          },
        },
        // The same denial written the other ways a policy can say it.
        "glob-deny": { path: { "*": { capabilities: ALL }, "aws/roles/adm*": { capabilities: ["deny"] }, "aws/creds/adm*": { capabilities: ["deny"] } } },
        "plus-deny": { path: { "*": { capabilities: ALL }, "aws/+/admin": { capabilities: ["deny"] } } },
        "allow-list": { path: { "aws/roles/web": { capabilities: ALL }, "aws/creds/web": { capabilities: ALL }, "aws/roles/": { capabilities: ["list"] } } },
        "read-only": { path: { "*": { capabilities: ["read", "list"] }, "aws/creds/*": { capabilities: ["deny"] } } },
      },
      tokens: [
        { id: ATTACKER, policies: ["all-but-admin"] },
        { id: "glob-token", policies: ["glob-deny"] },
        { id: "plus-token", policies: ["plus-deny"] },
        { id: "allow-list-token", policies: ["allow-list"] },
        { id: "read-only-token", policies: ["read-only"] },
      ],
    }),
  });
  ok(await server.client.POST("/aws/config/root", { body: { ...STATIC_ROOT, region: "eu-west-1" } }));
  for (const name of ["admin", "web"]) {
    ok(await server.client.POST("/aws/roles/{name}", { params: { path: { name } }, body: { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] } }));
  }
});
afterAll(() => server.close());

/** One raw request, the target sent byte for byte as given (fetch would normalize it). */
function raw(method: string, target: string, token = ATTACKER, body?: string): Promise<{ status: number; text: string; location?: string }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: target, headers: { "X-Secrets-Token": token, ...(body ? { "Content-Type": "application/json" } : {}) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, text, ...(res.headers.location ? { location: res.headers.location } : {}) }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function adminRoleIntact(): Promise<void> {
  const role = await server.client.GET("/aws/roles/{name}", { params: { path: { name: "admin" } } });
  expect(role.response.status).toBe(200);
  expect(server.cloud.userNames().filter((name) => name.includes("admin"))).toEqual([]);
}

describe("the reproductions (policy bypass by percent-encoding)", () => {
  it("refuses GET, DELETE and creds of the denied role however its name is encoded", async () => {
    for (const target of ["/v1/aws/roles/adm%69n", "/v1/aws/roles/%61%64%6D%69%6E", "/v1/aws/roles/%61%64%6d%69%6e"]) {
      expect(await raw("GET", target)).toMatchObject({ status: 403, text: '{"errors":["permission denied"]}\n' });
      expect((await raw("DELETE", target)).status).toBe(403);
      expect((await raw("POST", target, ATTACKER, "{}")).status).toBe(403);
    }
    expect((await raw("GET", "/v1/aws/creds/adm%69n")).status).toBe(403);
    await adminRoleIntact();
  });

  it("lets the token act on other roles, whatever their encoding", async () => {
    const read = await raw("GET", "/v1/aws/roles/w%65b");
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text).data.policy_arns).toEqual(["arn:aws:iam::aws:policy/ReadOnlyAccess"]);
    // Every segment encoded, the separator too (%2f is one, decoded once): the same allowed path,
    // served; the validator and the handler see the canonical path that was authorized.
    expect((await raw("GET", "/v1/%61%77%73%2f%72%6fl%65s/%77e%62", "allow-list-token")).status).toBe(200);
  });

  it("answers a path that is not clean with 301 to its clean form, before any check", async () => {
    for (const [target, location] of [
      ["/v1/aws//roles/admin", "/v1/aws/roles/admin"],
      ["/v1/aws/roles/./admin", "/v1/aws/roles/admin"],
      ["/v1/aws/roles/web/../admin", "/v1/aws/roles/admin"],
      ["/v1/aws/roles/web/%2e%2E/admin?x=1", "/v1/aws/roles/admin?x=1"],
      ["/v1/aws/roles/web%2F..%2Fadmin", "/v1/aws/roles/admin"],
    ]) {
      expect(await raw("DELETE", target!)).toMatchObject({ status: 301, location });
    }
    await adminRoleIntact();
  });

  it("treats %2F as a separator and a trailing slash as another path: no operation there", async () => {
    expect((await raw("GET", "/v1/aws/roles%2Fadmin")).status).toBe(403);
    expect((await raw("GET", "/v1/aws/roles/admin/")).status).toBe(404);
    expect((await raw("DELETE", "/v1/aws/roles/admin/")).status).toBe(404);
    expect((await raw("GET", "/v1/aws/roles/adm%2Fin")).status).toBe(404);
    await adminRoleIntact();
  });

  it("refuses a bad escape or a path that does not decode to UTF-8 with 400", async () => {
    expect(await raw("GET", "/v1/aws/roles/adm%zzin")).toMatchObject({ status: 400, text: '{"errors":["invalid URL escape \\"%zz\\""]}\n' });
    expect((await raw("GET", "/v1/aws/roles/%ff")).status).toBe(400);
    expect((await raw("GET", "/v1/aws/roles/admin%")).status).toBe(400);
  });

  it("decodes exactly once: %2569 is the name `%69`, not `i`", async () => {
    const answer = await raw("GET", "/v1/aws/roles/adm%2569n");
    expect(answer.status).not.toBe(200);
    expect(answer.status).not.toBe(403);
  });
});

/** Spellings of a path: characters percent-encoded (either hex case), dot segments, doubled slashes. */
const spelling = (path: string) =>
  fc
    .tuple(
      fc.array(fc.boolean(), { minLength: path.length, maxLength: path.length }),
      fc.boolean(),
      fc.constantFrom("", "//", "/./", "/x/../", "/%2e/", "/x/%2E%2E/"),
      fc.nat({ max: 3 }),
    )
    .map(([encode, upper, junk, where]) => {
      let spelled = [...path]
        .map((char, i) => {
          if (!encode[i]) return char;
          const hex = char.charCodeAt(0).toString(16).padStart(2, "0");
          return `%${upper ? hex.toUpperCase() : hex}`;
        })
        .join("");
      const slashes = [...spelled.matchAll(/\//g)].map((match) => match.index);
      const at = slashes[where % Math.max(slashes.length, 1)];
      if (junk && at !== undefined) spelled = `${spelled.slice(0, at)}${junk}${spelled.slice(at + 1)}`;
      return `/v1/${spelled}`;
    });

describe("every spelling of a denied path (property)", () => {
  it("is never allowed: refused (403), redirected to the clean path (301), or not an operation (404/405)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("aws/roles/admin", "aws/creds/admin").chain((path) => spelling(path).map((target) => ({ path, target }))),
        fc.constantFrom("GET", "DELETE", "POST", "PUT"),
        async ({ path, target }, method) => {
        const answer = await raw(method, target, ATTACKER, method === "POST" || method === "PUT" ? "{}" : undefined);
        expect([301, 400, 403, 404, 405]).toContain(answer.status);
        if (answer.status === 301) expect(answer.location).toBe(`/v1/${path}`);
        },
      ),
      { numRuns: 150 },
    );
    await adminRoleIntact();
  });

  it("holds for every shape of policy: exact, glob and `+` denials, an allow-list, a read-only token", async () => {
    // [token, method, path the token may not act on with that method]
    const denied: Array<[string, string, string]> = [
      ["glob-token", "GET", "aws/roles/admin"],
      ["glob-token", "DELETE", "aws/roles/admin"],
      ["glob-token", "GET", "aws/creds/admin"],
      ["plus-token", "GET", "aws/roles/admin"],
      ["plus-token", "DELETE", "aws/roles/admin"],
      ["plus-token", "GET", "aws/creds/admin"],
      ["allow-list-token", "GET", "aws/roles/admin"],
      ["allow-list-token", "DELETE", "aws/roles/admin"],
      ["allow-list-token", "GET", "aws/creds/admin"],
      ["read-only-token", "DELETE", "aws/roles/admin"],
      ["read-only-token", "POST", "aws/roles/admin"],
      ["read-only-token", "GET", "aws/creds/web"],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...denied).chain(([token, method, path]) => spelling(path).map((target) => ({ token, method, path, target }))),
        async ({ token, method, path, target }) => {
          const answer = await raw(method, target, token, method === "POST" ? "{}" : undefined);
          expect([301, 400, 403, 404, 405]).toContain(answer.status);
          if (answer.status === 301) expect(answer.location).toBe(`/v1/${path}`);
        },
      ),
      { numRuns: 200 },
    );
    await adminRoleIntact();
    expect((await server.client.GET("/aws/roles/{name}", { params: { path: { name: "web" } } })).response.status).toBe(200);
  });

  it("canonicalizes as Go's net/http does: decoded once, then cleaned; the clean form is a fixed point", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^(\/([a-z.]|%2[eEfF]|%6[19]){0,4}){1,6}\/?$/), (path) => {
        const decoded = percentDecode(`/v1${path}`);
        if (typeof decoded !== "string") return;
        const result = canonicalPath(`/v1${path}`, "/v1", false);
        if (result.kind === "redirect") {
          expect(cleanPath(decoded)).not.toBe(decoded);
          // Following the redirect gives a canonical path.
          expect(canonicalPath(result.location, "/v1", false).kind).not.toBe("redirect");
        } else {
          expect(result.kind).toBe("path");
          expect(cleanPath(decoded)).toBe(decoded);
        }
      }),
      { numRuns: 500 },
    );
  });
});
