// The mock tells the same story as the reference server: one corpus of valid and invalid requests
// goes to both (the mock as `npm run mock` starts it: the front of scripts/mock/front.ts with Prism
// behind it), and each request must get the same status class and, for errors, the API's own error
// envelope from both, with a message naming what was actually wrong. Where the corpus names a
// status, both must answer exactly it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SERVERS, type RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";
import { sharedMock, type SharedMock } from "../helpers/shared-mock.ts";

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Leave out the dev credentials every request of this API otherwise carries. */
  anonymous?: boolean;
  body?: string;
  /** Both must answer exactly this status. */
  status?: number;
  /** Words the mock's error message must contain (the actual violation). */
  mentions?: string[];
  /** How many errors both list (a JSON:API error document). */
  errors?: number;
}

const JSON_API = { "Content-Type": "application/vnd.api+json" };
const JSON_CT = { "Content-Type": "application/json" };

const CORPUS: Record<string, Case[]> = {
  mesh: [
    { name: "a chain", method: "GET", path: "/discovery-chain/web", status: 200 },
    { name: "a write", method: "PUT", path: "/config", headers: JSON_CT, body: '{"Kind":"service-defaults","Name":"web","Protocol":"http"}', status: 200 },
    { name: "a write sent as text/plain (decoded as JSON)", method: "PUT", path: "/config", headers: { "Content-Type": "text/plain" }, body: '{"Kind":"service-defaults","Name":"api","Protocol":"http"}', status: 200 },
    { name: "a write without Content-Type", method: "PUT", path: "/config", body: '{"Kind":"service-defaults","Name":"db","Protocol":"tcp"}', status: 200 },
    { name: "a protocol that is not text (a number would be its text)", method: "PUT", path: "/config", headers: JSON_CT, body: '{"Kind":"service-defaults","Name":"web","Protocol":["http"]}', status: 400, mentions: ["Protocol"] },
    { name: "a weight that is not a number", method: "PUT", path: "/config", headers: JSON_CT, body: '{"Kind":"service-splitter","Name":"web","Splits":[{"Weight":"all"}]}', status: 400, mentions: ["Weight"] },
    { name: "an unknown query parameter (ignored)", method: "GET", path: "/discovery-chain/web?bogus=1", status: 200 },
    { name: "a write without a body", method: "PUT", path: "/config", status: 400 },
    { name: "an unknown path", method: "GET", path: "/no/such/path", status: 404 },
    { name: "a method the path does not have", method: "DELETE", path: "/discovery-chain/web", status: 405 },
  ],
  "org-platform": [
    { name: "a list", method: "GET", path: "/organizations/acme/teams", status: 200 },
    { name: "a team created", method: "POST", path: "/organizations/acme/teams", headers: JSON_API, body: '{"data":{"type":"teams","attributes":{"name":"truth"}}}', status: 200 },
    { name: "an unknown query parameter (ignored)", method: "GET", path: "/organizations/acme/teams?show_affected_workspaces=1", status: 200 },
    { name: "a name that is a number", method: "POST", path: "/organizations/acme/teams", headers: JSON_API, body: '{"data":{"type":"teams","attributes":{"name":5}}}', status: 422, mentions: ["name"] },
    { name: "an unknown visibility", method: "POST", path: "/organizations/acme/teams", headers: JSON_API, body: '{"data":{"type":"teams","attributes":{"name":"x","visibility":"everyone"}}}', status: 422, mentions: ["visibility"] },
    { name: "application/json", method: "POST", path: "/organizations/acme/teams", headers: JSON_CT, body: '{"data":{"type":"teams","attributes":{"name":"y"}}}', mentions: ["ontent"] },
    {
      name: "150 wrong project identifiers: the first 100 are listed",
      method: "POST",
      path: "/oauth-clients/oc-Tb3mKx7wQn9sVc4D/relationships/projects",
      headers: JSON_API,
      body: JSON.stringify({ data: Array(150).fill(1) }),
      status: 422,
      errors: 100,
    },
    { name: "a page size out of range", method: "GET", path: "/organizations/acme/teams?page%5Bsize%5D=1000", mentions: ["size"] },
    { name: "no token", method: "GET", path: "/organizations/acme/teams", anonymous: true, status: 401 },
    { name: "an unknown path", method: "GET", path: "/no/such/path", status: 404 },
    { name: "a method the path does not have", method: "PUT", path: "/teams/team-Mx7kRb2tYq9hWn5C", headers: JSON_API, body: "{}", status: 405 },
  ],
  secrets: [
    { name: "a read", method: "GET", path: "/sys/rekey/init", status: 200 },
    { name: "an unknown query parameter (ignored)", method: "GET", path: "/sys/rekey/init?bogus=1", status: 200 },
    { name: "a list", method: "GET", path: "/sys/replication/performance/primary/paths-filter/x", status: undefined },
    { name: "a write sent as text/plain (decoded as JSON)", method: "PUT", path: "/aws/config/lease", headers: { "Content-Type": "text/plain" }, body: '{"lease":"30m","lease_max":"12h"}', status: 204 },
    { name: "PUT where POST is described", method: "PUT", path: "/aws/config/lease", headers: JSON_CT, body: '{"lease":"30m","lease_max":"12h"}', status: 204 },
    { name: "shares that are not a number", method: "POST", path: "/sys/rekey/init", headers: JSON_CT, body: '{"secret_shares":"five","secret_threshold":3}', status: 400, mentions: ["secret_shares"] },
    { name: "no token", method: "GET", path: "/sys/rekey/init", anonymous: true, status: 403, mentions: ["permission denied"] },
    { name: "a list without list=true", method: "GET", path: "/aws/roles", status: 405 },
    { name: "list that is not a boolean", method: "GET", path: "/aws/roles?list=maybe", status: 400, mentions: ["list"] },
    { name: "an unknown path", method: "GET", path: "/no/such/path", status: 404 },
  ],
};
// The paths-filter read is only meaningful on a configured primary: not part of the corpus.
CORPUS.secrets = CORPUS.secrets!.filter((c) => c.name !== "a list");

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function send(base: string, c: Case, credentials: Record<string, string>): Promise<Answer> {
  const response = await fetch(base + c.path, {
    method: c.method,
    headers: { ...(c.anonymous ? {} : credentials), ...c.headers },
    body: c.body,
    signal: AbortSignal.timeout(10_000),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  return { status: response.status, headers, body: await response.text() };
}

describe.each(REFERENCE_SERVERS.map((s) => [s.api, s] as const))("mock and reference server of %s", (api, entry) => {
  let mock: SharedMock;
  let server: RunningReferenceServer;
  beforeAll(async () => {
    // The run's shared mock (test/setup/shared-mocks.ts): stateless, so no other file's requests show.
    [mock, server] = await Promise.all([sharedMock(api), entry.start()]);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("answer one corpus of valid and invalid requests alike", { timeout: 60_000 }, async () => {
    const problems: string[] = [];
    for (const c of CORPUS[api]!) {
      const [fromMock, fromServer] = [await send(mock.url, c, entry.headers), await send(server.baseUrl, c, entry.headers)];
      const at = `${c.name} (${c.method} ${c.path}): mock ${fromMock.status} ${fromMock.body.slice(0, 160)} | server ${fromServer.status} ${fromServer.body.slice(0, 160)}`;
      if (Math.floor(fromMock.status / 100) !== Math.floor(fromServer.status / 100)) problems.push(`${at}: status classes differ`);
      if (c.status !== undefined && (fromMock.status !== c.status || fromServer.status !== c.status)) problems.push(`${at}: expected ${c.status} from both`);
      for (const [who, answer] of [["mock", fromMock], ["server", fromServer]] as const) {
        if (answer.status >= 400) for (const p of entry.errorEnvelope(answer)) problems.push(`${at}: ${who}'s error envelope: ${p}`);
      }
      for (const word of c.mentions ?? []) if (!fromMock.body.includes(word)) problems.push(`${at}: the mock's message does not name ${word}`);
      for (const [who, answer] of [["mock", fromMock], ["server", fromServer]] as const) {
        const listed = c.errors === undefined ? undefined : (JSON.parse(answer.body) as { errors: unknown[] }).errors.length;
        if (listed !== c.errors) problems.push(`${at}: ${who} lists ${listed} errors, not ${c.errors}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("Prism's own findings", () => {
  it("are read from sl-violations when the front's checker let a request through", async () => {
    const { requestViolations, describeViolation } = await import("../../scripts/mock/front.ts");
    const header = JSON.stringify([
      { location: ["request", "body", "secret_shares"], severity: "Error", code: "type", message: "Request body property secret_shares must be integer" },
      { location: ["request", "query", "list"], severity: "Error", code: "required", message: "must have required property 'list'" },
      { location: ["response", "body"], severity: "Error", message: "not about the request" },
    ]);
    const found = requestViolations(header);
    expect(found.map((v) => [v.kind, v.pointer])).toEqual([
      ["request-body", "/request/body/secret_shares"],
      ["request-parameter", "/request/query/list"],
    ]);
    expect(describeViolation(found[0]!)).toBe("secret_shares Request body property secret_shares must be integer");
    expect(requestViolations(null)).toEqual([]);
    // A reason that names its subject in its own words names it once.
    const said = (pointer: string, reason: string) => describeViolation({ pointer, reason });
    expect(said("/request/headers/content-type", "content type text/plain is not documented (documented: application/json)")).toBe(
      "Content-Type text/plain is not documented (documented: application/json)",
    );
    expect(said("/request/body", "body is not valid JSON: Unexpected end of JSON input")).toBe("request body is not valid JSON: Unexpected end of JSON input");
    expect(said("/request/body/Protocol", "must be string")).toBe("Protocol must be string");
    expect(requestViolations("not json")).toEqual([]);
  });
});

describe("the secrets mock and the LIST method", () => {
  let mock: SharedMock;
  beforeAll(async () => {
    mock = await sharedMock("secrets");
  }, 60_000);

  it("takes LIST on the wire as GET with list=true, as the secrets server does", { timeout: 60_000 }, async () => {
    const headers = REFERENCE_SERVERS.find((s) => s.api === "secrets")!.headers;
    const viaList = await fetch(`${mock.url}/aws/roles`, { method: "LIST", headers });
    const viaGet = await fetch(`${mock.url}/aws/roles?list=true`, { headers });
    expect(viaList.status).toBe(200);
    expect(await viaList.json()).toEqual(await viaGet.json());
    // A LIST the description has no list operation for is refused in the envelope, not by the HTTP parser.
    const refused = await fetch(`${mock.url}/aws/config/root`, { method: "LIST", headers });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(((await refused.json()) as { errors: unknown }).errors).toEqual(expect.any(Array));
  });
});

describe("a Prefer that matches no documented answer", () => {
  const envelopes = Object.fromEntries(REFERENCE_SERVERS.map((s) => [s.api, s]));
  it.each([
    ["org-platform", "/organizations/acme/teams"],
    ["secrets", "/sys/rekey/init"],
    ["mesh", "/discovery-chain/web"],
  ])("is answered in the %s envelope, naming the Prefer", { timeout: 60_000 }, async (api, path) => {
    const mock = await sharedMock(api);
    const response = await fetch(`${mock.url}${path}`, { headers: { ...envelopes[api]!.headers, Prefer: "code=418" } });
    const answer = { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.headers["content-type"]).not.toMatch(/problem\+json/);
    expect(envelopes[api]!.errorEnvelope(answer)).toEqual([]);
    expect(answer.body).toContain("Prefer: code=418");
  });
});

describe("a body larger than the mock takes (1 MiB as the servers, 10 MiB for the secrets service: Prism's limit)", () => {
  const envelopes = Object.fromEntries(REFERENCE_SERVERS.map((s) => [s.api, s]));
  it.each([
    ["org-platform", "POST", "/organizations/acme/teams", "application/vnd.api+json", "payload too large", 1 << 20],
    ["secrets", "PUT", "/aws/roles/big", "application/json", "http: request body too large", 10 << 20],
    ["mesh", "PUT", "/config", "application/json", "request entity too large", 1 << 20],
  ])("is answered 413 in the %s envelope, in the reference server's words", { timeout: 60_000 }, async (api, method, path, type, words, limit) => {
    const mock = await sharedMock(api);
    const send = (size: number) =>
      fetch(`${mock.url}${path}`, { method, headers: { ...envelopes[api]!.headers, "Content-Type": type }, body: JSON.stringify({ padding: "x".repeat(size - 14) }) });
    // At the limit: read and checked (whatever the schema then says of `padding`), not 413.
    expect((await send(limit)).status).not.toBe(413);
    const body = JSON.stringify({ padding: "x".repeat(limit) });
    const response = await fetch(`${mock.url}${path}`, { method, headers: { ...envelopes[api]!.headers, "Content-Type": type }, body });
    const answer = { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    expect([answer.status, envelopes[api]!.errorEnvelope(answer)]).toEqual([413, []]);
    expect(answer.body).toContain(words);
  });
});

describe("Prism refusing connections (restarting after its description changed)", () => {
  const doc = { openapi: "3.1.0", info: { title: "T", version: "1" }, paths: { "/t": { get: { responses: { "200": { description: "ok" } } } } } };

  it("is asked again until it listens (up to 2 s), and the client gets its answer; never listening is a 502", async () => {
    const { describedErrorsProfile } = await import("../../scripts/mock/described-errors.ts");
    const { listenFront, mockFront } = await import("../../scripts/mock/front.ts");
    const { freePort } = await import("../helpers/run.ts");
    const prismPort = await freePort();
    const front = await listenFront(mockFront({ doc, profile: describedErrorsProfile(doc), upstream: `http://127.0.0.1:${prismPort}` }), "127.0.0.1", 0);
    const frontUrl = `http://127.0.0.1:${(front.address() as import("node:net").AddressInfo).port}`;
    const { createServer } = await import("node:http");
    const prism = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/plain" }).end("from prism"));
    try {
      // Prism's port opens 300 ms after the request came.
      const late = setTimeout(() => prism.listen(prismPort, "127.0.0.1"), 300);
      const answer = await fetch(`${frontUrl}/t`);
      clearTimeout(late);
      expect([answer.status, await answer.text()]).toEqual([200, "from prism"]);
      await new Promise<void>((resolve) => prism.close(() => resolve()));
      const started = Date.now();
      const gone = await fetch(`${frontUrl}/t`);
      expect(gone.status).toBe(502);
      expect(await gone.text()).toMatch(/^the mock's Prism did not answer: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    } finally {
      prism.close();
      front.close();
    }
  });
});

describe("an answer documented first in a media type Prism cannot write (GitHub's application/vnd.github.object)", () => {
  it("is asked of Prism in the first documented type it can write when the client takes any", async () => {
    const content = (...types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: { type: "object" } }]));
    const doc = {
      openapi: "3.1.0",
      info: { title: "T", version: "1" },
      paths: {
        "/contents": { get: { responses: { "200": { description: "ok", content: content("application/vnd.x.object", "application/json") } } } },
        "/plain": { get: { responses: { "200": { description: "ok", content: content("application/json", "application/vnd.x.raw") } } } },
      },
    };
    const { describedErrorsProfile } = await import("../../scripts/mock/described-errors.ts");
    const { listenFront, mockFront } = await import("../../scripts/mock/front.ts");
    const { createServer } = await import("node:http");
    // A stand-in for Prism that says which Accept it was given.
    const prism = createServer((req, res) => res.writeHead(200, { "Content-Type": "text/plain" }).end(String(req.headers.accept)));
    await new Promise<void>((resolve) => prism.listen(0, "127.0.0.1", resolve));
    const upstream = `http://127.0.0.1:${(prism.address() as import("node:net").AddressInfo).port}`;
    const front = await listenFront(mockFront({ doc, profile: describedErrorsProfile(doc), upstream }), "127.0.0.1", 0);
    const url = `http://127.0.0.1:${(front.address() as import("node:net").AddressInfo).port}`;
    const acceptSeen = async (path: string, accept?: string) => (await fetch(url + path, { headers: accept ? { accept } : {} })).text();
    try {
      expect(await acceptSeen("/contents", "*/*")).toBe("application/json, */*;q=0.1");
      expect(await acceptSeen("/contents", "application/vnd.x.object")).toBe("application/vnd.x.object");
      // Prism can write the first documented type: the client's Accept as it was.
      expect(await acceptSeen("/plain", "*/*")).toBe("*/*");
    } finally {
      prism.close();
      front.close();
    }
  });
});
