// The org platform under attack: every finding of a hostile review is a case here.
// - Access is decided on the record a handler acts on: path variants of ids and names (percent-encoded
//   characters, `%2F`, `..`, `//`, trailing slashes, case) never reach another organization's team or
//   OAuth client, and never change anything the caller may not change (fast-check, bounded runs).
// - Related resources, links and `included` show exactly what the caller may read: every link of every
//   answer resolves with the same token, every included resource is linked from primary data, and the
//   related-resource endpoints refuse what `include` would not show.
// - Refuse before parsing: no token, no body read; Content-Length over the limit is a 413 at once;
//   deep nesting is a 422; string attributes have byte limits; organizations have record limits.
// - Secrets are never answered nor logged; a client that aborts is not logged as a server error.
import fc from "fast-check";
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_OAUTH_CLIENTS_PER_ORGANIZATION } from "../../server/org-platform/domain/oauth-clients.ts";
import { MAX_TEAMS_PER_ORGANIZATION } from "../../server/org-platform/domain/teams.ts";
import { IDS, INPUT_ONLY, JSON_API, startOrgPlatform, TOKENS, type RunningOrgPlatform } from "../helpers/org-platform.ts";

let server: RunningOrgPlatform;
beforeAll(async () => {
  server = await startOrgPlatform();
});
beforeEach(() => server.reset());
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

const RUNS = { numRuns: 60, interruptAfterTimeLimit: 8_000 };

/** The same path as a client might spell it: characters percent-encoded, case changed, slashes doubled, a trailing slash. */
function pathVariant(segments: string[]) {
  return fc
    .record({
      encode: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      upper: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      doubleSlash: fc.boolean(),
      trailingSlash: fc.boolean(),
    })
    .map(({ encode, upper, doubleSlash, trailingSlash }) => {
      let k = 0;
      const spelled = segments.map((segment) =>
        [...segment]
          .map((c) => {
            const i = k++ % 64;
            const d = upper[i] ? c.toUpperCase() : c;
            return encode[i] ? `%${d.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}` : d;
          })
          .join(""),
      );
      return "/" + spelled.join(doubleSlash ? "//" : "/") + (trailingSlash ? "/" : "");
    });
}

async function status(path: string, token: string, init: RequestInit = {}) {
  const response = await server.fetch(path, { token, ...init });
  const body = await response.text();
  return { status: response.status, body };
}

describe("access is decided on what the handler acts on", () => {
  it("another organization's team and OAuth client stay out of reach, however the path is spelled", async () => {
    // erin is globex's owner: acme's records are another organization's.
    const targets = [
      ["teams", IDS.teams.developers],
      ["teams", IDS.teams.security],
      ["oauth-clients", IDS.clients.vcsA],
      ["oauth-tokens", IDS.tokens.vcsA],
      ["projects", IDS.projects.platform],
      ["organizations", "acme"],
      ["users", IDS.users.alice],
      ["organization-memberships", IDS.memberships.bob],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets).chain(([kind, id]) => pathVariant([kind, id]).map((path) => ({ path, id }))), async ({ path, id }) => {
        for (const token of [TOKENS.erin, TOKENS.globex, TOKENS.globexOwners, TOKENS.dave]) {
          const answer = await status(path, token);
          expect(answer.status, path).toBe(404);
          expect(answer.body).not.toContain(id);
        }
      }),
      RUNS,
    );
  });

  it("changes through path variants reach nothing the caller may not change, and a refused change changes nothing", async () => {
    const before = JSON.stringify(server.service.store.teams("acme")) + JSON.stringify(server.service.store.oauthClients("acme"));
    const ops = [
      ["PATCH", ["teams", IDS.teams.security], { data: { type: "teams", attributes: { name: "pwned" } } }],
      ["DELETE", ["teams", IDS.teams.security], undefined],
      ["PATCH", ["oauth-clients", IDS.clients.vcsA], { data: { type: "oauth-clients", attributes: { name: "pwned" } } }],
      ["DELETE", ["oauth-clients", IDS.clients.vcsA], undefined],
      ["POST", ["oauth-clients", IDS.clients.vcsB, "relationships", "projects"], { data: [{ id: IDS.projects.data, type: "projects" }] }],
      ["POST", ["organizations", "acme", "teams"], { data: { type: "teams", attributes: { name: "pwned" } } }],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops).chain(([method, segments, body]) => pathVariant([...segments]).map((path) => ({ method, path, body }))),
        // bob is a plain acme member; erin is another organization's owner.
        fc.constantFrom(TOKENS.bob, TOKENS.erin, TOKENS.acmeDevelopers, TOKENS.globex),
        async ({ method, path, body }, token) => {
          const answer = await status(path, token, { method, headers: { "Content-Type": JSON_API }, ...(body && { body: JSON.stringify(body) }) });
          expect([404, 405], `${method} ${path}`).toContain(answer.status);
        },
      ),
      RUNS,
    );
    expect(JSON.stringify(server.service.store.teams("acme")) + JSON.stringify(server.service.store.oauthClients("acme"))).toBe(before);
  });

  it("decodes ids once: an encoded spelling of an id the caller may read is that record; double encoding, %2F and dot segments name nothing", async () => {
    const encoded = `/teams/${[...IDS.teams.developers].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")}`;
    const read = await status(encoded, TOKENS.bob);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body).data.id).toBe(IDS.teams.developers);
    for (const path of [
      `/teams/%2574eam-${IDS.teams.developers.slice(5)}`, // %25 decodes to a literal %: not an id
      `/teams/${IDS.teams.developers}%2F..%2F${IDS.teams.security}`,
      `/teams/${IDS.teams.developers}/../${IDS.teams.security}`,
      `/teams/./${IDS.teams.security}`,
      `/teams/%2e%2e/teams/${IDS.teams.security}`,
      `/organizations/globex/../acme/teams`,
      `/organizations/ACME/teams`,
      `/teams/${IDS.teams.developers.toUpperCase()}`,
      `/teams/%zz`,
    ]) {
      // fetch settles dot segments itself before sending: these go over a raw socket, as sent.
      if (/\/\.\.?\//.test(path)) {
        const answer = await raw(`GET /api/v2${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKENS.bob}\r\n\r\n`);
        expect(answer.head, path).toBe("HTTP/1.1 404 Not Found");
        continue;
      }
      const answer = await status(path, TOKENS.bob);
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toContain(IDS.teams.security);
    }
    // Trailing and repeated slashes are the same path, for the caller's own records only.
    // (Plain fetch: the contract checker of the helper matches the templates as spelled.)
    const bob = { headers: { Authorization: `Bearer ${TOKENS.bob}` } };
    expect((await fetch(`${server.baseUrl}//teams//${IDS.teams.developers}/`, bob)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}//teams//${IDS.teams.security}/`, bob)).status).toBe(404);
  });

  it("a team token reaches only its own organization; an invited user's token reaches nothing", async () => {
    for (const path of ["/organizations/globex/teams", `/teams/${IDS.teams.globexOwners}`, "/organizations/globex/oauth-clients", "/organizations/globex", `/projects/${IDS.projects.globex}`]) {
      expect((await status(path, TOKENS.acmeOwners)).status, path).toBe(404);
    }
    for (const path of ["/organizations/acme/teams", "/organizations/acme", `/users/${IDS.users.alice}`, `/organization-memberships/${IDS.memberships.alice}`]) {
      expect((await status(path, TOKENS.dave)).status, path).toBe(404);
    }
    // dave may read himself, nothing more.
    expect((await status(`/users/${IDS.users.dave}`, TOKENS.dave)).status).toBe(200);
  });
});

type Resource = { id: string; type: string; relationships?: Record<string, { data?: unknown; links?: Record<string, string | null> }>; links?: Record<string, string | null> };
type Document = { data: Resource | Resource[]; included?: Resource[]; links?: Record<string, string | null> };

function linksOf(document: Document): string[] {
  const resources = [...(Array.isArray(document.data) ? document.data : [document.data]), ...(document.included ?? [])];
  const links = Object.values(document.links ?? {});
  for (const r of resources) {
    links.push(...Object.values(r.links ?? {}));
    for (const rel of Object.values(r.relationships ?? {})) links.push(...Object.values(rel.links ?? {}));
  }
  return links.filter((l): l is string => typeof l === "string");
}

function identifiers(resources: Resource[]): Set<string> {
  const ids = new Set<string>();
  for (const r of resources) {
    for (const rel of Object.values(r.relationships ?? {})) {
      const data = rel.data;
      for (const d of Array.isArray(data) ? data : data ? [data] : []) ids.add(`${(d as Resource).type}/${(d as Resource).id}`);
    }
  }
  return ids;
}

describe("links, included and related resources show exactly what the caller may read", () => {
  const documents = [
    "/organizations/acme/teams?include=users,organization-memberships",
    `/teams/${IDS.teams.developers}?include=users,organization-memberships`,
    `/teams/${IDS.teams.platform}?include=users,organization-memberships`,
    "/organizations/acme/oauth-clients?include=oauth_tokens,projects",
    "/organizations/acme/oauth-clients?include=oauth_tokens,projects&page%5Bsize%5D=1&page%5Bnumber%5D=2",
    `/oauth-clients/${IDS.clients.vcsB}?include=oauth_tokens,projects`,
    `/organization-memberships/${IDS.memberships.carol}?include=user,teams`,
    `/users/${IDS.users.carol}`,
    "/organizations/acme",
  ];

  it("every self and related link of every answer resolves with the same token", async () => {
    for (const token of [TOKENS.alice, TOKENS.bob, TOKENS.carol, TOKENS.acme, TOKENS.acmeDevelopers]) {
      for (const path of documents) {
        const answer = await server.fetch(path, { token });
        if (answer.status === 404) continue; // not the caller's to see (e.g. platform for bob)
        expect(answer.status, path).toBe(200);
        const document = (await answer.json()) as Document;
        for (const link of linksOf(document)) {
          const url = link.startsWith("http") ? link : `${new URL(server.baseUrl).origin}${link}`;
          const followed = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
          expect(followed.status, `${path} → ${link}`).toBe(200);
        }
      }
    }
  });

  it("every included resource is linked from the primary data (full linkage), and appears once", async () => {
    for (const token of [TOKENS.alice, TOKENS.bob, TOKENS.acme]) {
      for (const path of documents) {
        const answer = await server.fetch(path, { token });
        if (answer.status !== 200) continue;
        const document = (await answer.json()) as Document;
        const primary = Array.isArray(document.data) ? document.data : [document.data];
        const linked = identifiers(primary);
        const keys = (document.included ?? []).map((r) => `${r.type}/${r.id}`);
        expect(new Set(keys).size, path).toBe(keys.length);
        for (const key of keys) expect(linked.has(key), `${path}: ${key}`).toBe(true);
      }
    }
  });

  it("a secret team a member may not see is neither included nor named by a membership, nor readable by its link", async () => {
    const asBob = await server.fetch(`/organization-memberships/${IDS.memberships.carol}?include=teams`, { token: TOKENS.bob });
    const text = await asBob.text();
    expect(text).not.toContain(IDS.teams.platform);
    expect((await status(`/teams/${IDS.teams.platform}`, TOKENS.bob)).status).toBe(404);
    // An invited membership is the owners' business only.
    expect((await status(`/organization-memberships/${IDS.memberships.dave}`, TOKENS.bob)).status).toBe(404);
    expect((await status(`/organization-memberships/${IDS.memberships.dave}`, TOKENS.alice)).status).toBe(200);
  });

  it("an OAuth token is read without the token string it was made from, and only by its organization", async () => {
    const secret = "adversarial-oauth-token-string-4242";
    const { data } = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" } },
      body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_a", "http-url": "https://x.example", "api-url": "https://x.example", "oauth-token-string": secret } } },
    });
    const tokenLink = data!.data.relationships["oauth-tokens"].links!.related;
    const read = await fetch(`${new URL(server.baseUrl).origin}${tokenLink}`, { headers: { Authorization: `Bearer ${TOKENS.bob}` } });
    expect(read.status).toBe(200);
    expect(await read.text()).not.toContain(secret);
    expect((await fetch(`${new URL(server.baseUrl).origin}${tokenLink}`, { headers: { Authorization: `Bearer ${TOKENS.erin}` } })).status).toBe(404);
  });
});

/** A raw HTTP exchange: what a hostile client sends, byte for byte. Resolves with the status line and how long it took. */
function raw(request: string, options: { body?: Buffer; keepOpenMs?: number } = {}): Promise<{ head: string; ms: number }> {
  const { port, hostname } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in 5 s; got ${JSON.stringify(received)}`));
    }, 5_000);
    socket.on("connect", () => {
      socket.write(request);
      if (options.body) socket.write(options.body);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n\r\n")) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ head: received.split("\r\n")[0]!, ms: Date.now() - started });
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if (received) resolve({ head: received.split("\r\n")[0]!, ms: Date.now() - started });
      else reject(error);
    });
  });
}

const post = (path: string, headers: string[]) => `POST /api/v2${path} HTTP/1.1\r\nHost: x\r\n${headers.join("\r\n")}\r\n\r\n`;

describe("refuse before parsing", () => {
  it("answers 401 to a request without a token at once, whatever body it announces", async () => {
    const answer = await raw(post("/organizations/acme/teams", ["Content-Type: application/vnd.api+json", "Content-Length: 99999999999999"]), { body: Buffer.from("[[[[") });
    expect(answer.head).toBe("HTTP/1.1 401 Unauthorized");
  });

  it("answers 413 as soon as Content-Length is over the limit, without reading the body", async () => {
    const answer = await raw(post("/organizations/acme/teams", [`Authorization: Bearer ${TOKENS.alice}`, "Content-Type: application/vnd.api+json", "Content-Length: 99999999999999"]), { body: Buffer.from("[[[[") });
    expect(answer.head).toBe("HTTP/1.1 413 Payload Too Large");
  });

  it("answers 413 to a chunked body once it passes the limit, and 415 to another media type before reading", async () => {
    const big = JSON.stringify({ data: { type: "teams", attributes: { name: "x", pad: "y".repeat(1_100_000) } } });
    const response = await server.fetch("/organizations/acme/teams", {
      method: "POST",
      token: TOKENS.alice,
      headers: { "Content-Type": JSON_API },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    const form = await raw(post("/organizations/acme/teams", [`Authorization: Bearer ${TOKENS.alice}`, "Content-Type: application/x-www-form-urlencoded", "Content-Length: 99999999999999"]));
    expect(form.head).toBe("HTTP/1.1 415 Unsupported Media Type");
  });

  it("refuses a body nested deeper than 32 levels with 422, whatever the nesting is made of", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 33, max: 200_000 }), fc.constantFrom("[", '{"a":'), async (depth, open) => {
        const close = open === "[" ? "]" : "}";
        const body = `{"data":{"type":"teams","attributes":{"name":"deep","x":${open.repeat(depth)}1${close.repeat(depth)}}}}`;
        if (body.length > 1_000_000) return;
        const response = await server.fetch("/organizations/acme/teams", { method: "POST", token: TOKENS.alice, headers: { "Content-Type": JSON_API }, body });
        expect(response.status).toBe(422);
        expect(((await response.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toMatch(/nests deeper than 32/);
      }),
      { numRuns: 20, interruptAfterTimeLimit: 8_000 },
    );
    expect(server.service.store.teams("acme").map((t) => t.name)).not.toContain("deep");
  });

  it("refuses a too-deep body as soon as the depth shows, without waiting for the rest", async () => {
    const answer = await raw(post("/organizations/acme/teams", [`Authorization: Bearer ${TOKENS.alice}`, "Content-Type: application/vnd.api+json", "Content-Length: 1000000"]), { body: Buffer.from("[".repeat(100)) });
    expect(answer.head).toBe("HTTP/1.1 422 Unprocessable Entity");
  });

  it("never answers 500 and never changes anything for arbitrary JSON sent to create a team or an OAuth client", async () => {
    const before = server.service.store.teams("acme").length + server.service.store.oauthClients("acme").length;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/organizations/acme/teams", "/organizations/acme/oauth-clients", `/teams/${IDS.teams.security}`, `/oauth-clients/${IDS.clients.vcsA}`), fc.jsonValue({ maxDepth: 6 }), async (path, value) => {
        const method = path.startsWith("/organizations") ? "POST" : "PATCH";
        const response = await server.fetch(path, { method, token: TOKENS.alice, headers: { "Content-Type": JSON_API }, body: JSON.stringify(value) });
        expect(response.status, JSON.stringify(value).slice(0, 200)).toBeLessThan(500);
        if (response.status >= 400) expect(response.headers.get("content-type")).toMatch(/^application\/vnd\.api\+json/);
      }),
      RUNS,
    );
    // Arbitrary JSON is not a valid create document: nothing was created.
    expect(server.service.store.teams("acme").length + server.service.store.oauthClients("acme").length).toBe(before);
  });

  it("bounds string attributes by their documented maxLength", async () => {
    const client = server.as(TOKENS.alice);
    const team = await client.POST("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" } }, body: { data: { type: "teams", attributes: { name: "t".repeat(256) } } } });
    expect(team.response.status).toBe(422);
    const oc = await client.POST("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" } },
      body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_a", "http-url": "https://x.example", "api-url": "https://x.example", "oauth-token-string": "tok-0123456789ab", secret: "s".repeat(16_385) } } },
    });
    expect(oc.response.status).toBe(422);
    expect(JSON.stringify(oc.error)).toContain("/data/attributes/secret");
  });

  it("answers an id or name longer than 255 characters with the 404 of a thing that does not exist", async () => {
    for (const path of [`/teams/team-${"x".repeat(300)}`, `/organizations/${"a".repeat(300)}`, `/organizations/${"a".repeat(300)}/teams`, `/oauth-clients/oc-${"x".repeat(300)}`, `/users/user-${"x".repeat(300)}`]) {
      expect((await status(path, TOKENS.alice)).status, path.slice(0, 40)).toBe(404);
    }
  });

  it("bounds the records of an organization: teams and OAuth clients past the limit are a 422", async () => {
    const store = server.service.store;
    const existing = store.teams("acme")[0]!;
    for (let i = store.teams("acme").length; i < MAX_TEAMS_PER_ORGANIZATION; i++) store.saveTeam({ ...existing, id: `team-filler${i}`, name: `filler-${i}` });
    const team = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/teams", { params: { path: { organization_name: "acme" } }, body: { data: { type: "teams", attributes: { name: "one-too-many" } } } });
    expect(team.response.status).toBe(422);
    const client = store.oauthClients("acme")[0]!;
    for (let i = store.oauthClients("acme").length; i < MAX_OAUTH_CLIENTS_PER_ORGANIZATION; i++) store.saveOAuthClient({ ...client, id: `oc-filler${i}` });
    const oc = await server.as(TOKENS.alice).POST("/organizations/{organization_name}/oauth-clients", {
      params: { path: { organization_name: "acme" } },
      body: { data: { type: "oauth-clients", attributes: { "service-provider": "vcs_a", "http-url": "https://x.example", "api-url": "https://x.example", "oauth-token-string": "tok-0123456789ab" } } },
    });
    expect(oc.response.status).toBe(422);
  });
});

describe("secrets and logs", () => {
  it("never answers nor logs an input-only value, on success or refusal", async () => {
    const logged: string[] = [];
    for (const method of ["log", "error", "warn", "info"] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));
    const values = { "oauth-token-string": "leak-canary-token-string-1", "private-key": "leak-canary-private-key-2", secret: "leak-canary-secret-3" };
    const attempts = [
      { "service-provider": "vcs_c_server", "http-url": "https://x.example", "api-url": "https://x.example", ...values },
      { "service-provider": "vcs_a", "http-url": "not a url", "api-url": "https://x.example", ...values },
      { "service-provider": "nope", ...values },
      { "service-provider": "vcs_a", "http-url": "https://x.example", "api-url": "https://x.example", ...values, "rsa-public-key": 5 },
    ];
    for (const attributes of attempts) {
      for (const token of [TOKENS.alice, TOKENS.bob, "unknown-token"]) {
        const response = await server.fetch("/organizations/acme/oauth-clients?include=oauth_tokens", {
          method: "POST",
          token,
          headers: { "Content-Type": JSON_API },
          body: JSON.stringify({ data: { type: "oauth-clients", attributes } }),
        });
        const text = await response.text();
        for (const value of Object.values(values)) expect(text).not.toContain(value);
        for (const key of INPUT_ONLY) expect(text).not.toContain(`"${key}"`);
      }
    }
    for (const value of Object.values(values)) expect(logged.join("\n")).not.toContain(value);
  });

  it("does not log a client that aborts its request as a server error", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { port, hostname } = new URL(server.baseUrl);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(post("/organizations/acme/teams", [`Authorization: Bearer ${TOKENS.alice}`, "Content-Type: application/vnd.api+json", "Content-Length: 1000"]));
        socket.write('{"data":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    // The server has seen the abort by the time it answers the next request.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await status("/organizations/acme/teams", TOKENS.alice)).status).toBe(200);
    expect(errors).not.toHaveBeenCalled();
  });
});
