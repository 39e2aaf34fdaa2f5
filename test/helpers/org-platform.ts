// Starts the org-platform reference server in-process on 127.0.0.1:0 and gives generated clients for
// it. Every answer is checked on the way back: its status must be documented for the operation, its
// body must follow the description (error documents included, which the server's own response
// validation does not see), and it must not carry an input-only attribute or a value sent as one.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOrgPlatformClient } from "../../generated/org-platform/client.ts";
import { createOrgPlatformApp, ORG_PLATFORM_BASE_PATH } from "../../server/org-platform/app.ts";
import { DEFAULT_WORLD } from "../../server/org-platform/default-world.ts";
import { loadWorld, type WorldFile } from "../../server/org-platform/domain/world.ts";
import { MemoryOrgPlatformStore } from "../../server/org-platform/store/store.ts";
import { checkWorldFile } from "../../server/org-platform/world-file.ts";
import { createAppServer } from "../../server/shared/app-server.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { responseChecker } from "./contract.ts";

export const JSON_API = "application/vnd.api+json";

/** Tokens of the default world (README: "The organization platform API"). */
export const TOKENS = {
  alice: "alice.atlasv1.dev-user-token", // acme owner
  bob: "bob.atlasv1.dev-user-token", // acme member (developers); initech owner
  carol: "carol.atlasv1.dev-user-token", // acme member (developers, platform: manage-vcs-settings)
  dave: "dave.atlasv1.dev-user-token", // invited to acme, not accepted
  erin: "erin.atlasv1.dev-user-token", // globex owner
  acme: "acme.atlasv1.dev-organization-token",
  acmeOwners: "acme-owners.atlasv1.dev-team-token",
  acmeDevelopers: "acme-developers.atlasv1.dev-team-token",
  acmePlatform: "acme-platform.atlasv1.dev-team-token",
  globex: "globex.atlasv1.dev-organization-token",
  globexOwners: "globex-owners.atlasv1.dev-team-token",
  initech: "initech.atlasv1.dev-organization-token",
} as const;

/** Ids of the default world. */
export const IDS = {
  users: { alice: "user-Vm2oHZy9fJr8tWq3", bob: "user-Kp7sQx4nLb2cRt9W", carol: "user-Hc5vNw8eTy3mZa6P", dave: "user-Rf4gJk9uXe2bNs7L", erin: "user-Yt6dCm3pWq8hLv5K" },
  memberships: { alice: "ou-Wb6nPy2kDs9tLx4Q", bob: "ou-Nf3hKq7wZm2cVr8T", carol: "ou-Jd8sXt4bGp6yQn2M", dave: "ou-Ps5mLc9vHw3kTz7R" },
  projects: { default: "prj-Qw8sJ3nRt5vKx2Lm", platform: "prj-Zc4hNp7bWy2dFs9T", data: "prj-Ge6rTk2mXv8qLw4S", globex: "prj-Gb2xKm8sNq4wVt7C", initech: "prj-Ir7nXw2kTb5sQm9V" },
  teams: {
    owners: "team-Dv3LpQn8sWc4Xe2B",
    developers: "team-Mx7kRb2tYq9hWn5C",
    platform: "team-Pn4wXc8sLd2vQj6H",
    security: "team-Sb9tKv3nWp7mXr2F",
    globexOwners: "team-Gw5nVb8sKq2xTm6D",
    initechOwners: "team-Iq8mTs3vNw6kXb2L",
  },
  clients: { vcsA: "oc-V5sxDk9wuGzo1V2R", vcsB: "oc-Tb3mKx7wQn9sVc4D" },
  tokens: { vcsA: "ot-Lq2nWv8xKc5tRb7J", vcsB: "ot-Hs6vNc2pXw8kLm4T" },
} as const;

export const INPUT_ONLY = ["oauth-token-string", "private-key", "secret"] as const;

export type OrgPlatformClient = ReturnType<typeof createOrgPlatformClient>;

export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  body: string;
}

export interface RunningOrgPlatform {
  baseUrl: string;
  /** A generated client sending this token (none: no Authorization header). */
  as(token?: string): OrgPlatformClient;
  /** Raw HTTP for what the generated client cannot send (wrong content types, malformed JSON...). */
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** Every answer so far (since the last reset). */
  seen: SeenResponse[];
  /** Back to the world the server started with: a fresh state without a new server (whose validator takes a while to warm up). */
  reset(): void;
  service: ReturnType<typeof createOrgPlatformApp>["service"];
  close(): Promise<void>;
}

const bundle = loadBundle("org-platform");
const check = responseChecker(bundle);
const templates = Object.keys(bundle.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

export async function startOrgPlatform(options: { world?: WorldFile } = {}): Promise<RunningOrgPlatform> {
  const world = checkWorldFile(options.world ?? DEFAULT_WORLD, "the test world");
  const store = new MemoryOrgPlatformStore(loadWorld(world));
  const { app, service } = createOrgPlatformApp({ store });
  const server = await new Promise<Server>((resolve) => {
    const s = createAppServer(app).listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}${ORG_PLATFORM_BASE_PATH}`;
  const seen: SeenResponse[] = [];
  const sentSecrets = new Set<string>();

  const checkedFetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const sent = await request.clone().text();
    collectInputOnlyValues(sent, sentSecrets);
    const response = await fetch(request);
    const body = await response.clone().text();
    const url = new URL(request.url);
    seen.push({ method: request.method, url: request.url, status: response.status, body });
    const problems = contractProblems(request.method.toLowerCase(), url.pathname.slice(ORG_PLATFORM_BASE_PATH.length), response, body);
    for (const key of INPUT_ONLY) if (body.includes(`"${key}":`)) problems.push(`carries the input-only attribute ${key}`);
    for (const value of sentSecrets) if (body.includes(value)) problems.push(`carries a value sent as an input-only attribute`);
    if (problems.length > 0) {
      throw new Error(`${request.method} ${url.pathname}${url.search} → ${response.status} breaks the contract:\n  ${problems.join("\n  ")}\n${body.slice(0, 2000)}`);
    }
    return response;
  };

  return {
    baseUrl,
    as: (token) =>
      createOrgPlatformClient({
        baseUrl,
        headers: { "Content-Type": JSON_API, ...(token && { Authorization: `Bearer ${token}` }) },
        // JSON:API's include is one comma-separated parameter (style form, explode false).
        querySerializer: { array: { style: "form", explode: false } },
        fetch: checkedFetch,
      }),
    fetch: (path, { token, headers, ...init } = {}) =>
      checkedFetch(`${baseUrl}${path}`, {
        ...init,
        headers: { ...(token && { Authorization: `Bearer ${token}` }), ...(headers as Record<string, string>) },
      }),
    seen,
    reset: () => {
      store.reset(loadWorld(world));
      seen.length = 0;
      sentSecrets.clear();
    },
    service,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Problems of an answer against the description: its status, content type and body. */
function contractProblems(method: string, path: string, response: Response, body: string): string[] {
  const match = templates.find((t) => t.pattern.test(path));
  // Unknown paths and methods get the JSON:API envelope, which no operation can document.
  if (!match || !(bundle.paths[match.template] as Record<string, unknown>)[method]) {
    return [401, 404, 405].includes(response.status) ? envelopeProblems(body) : [`${response.status} for an undescribed operation`];
  }
  if (body === "") {
    const documented = (bundle.paths[match.template] as Record<string, { responses: Record<string, { content?: unknown }> }>)[method]!.responses[String(response.status)];
    if (!documented) return [`status ${response.status} is not documented`];
    return documented.content ? ["an empty body where the description has content"] : [];
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return ["the body is not JSON"];
  }
  return check(match.template, method, response.status, response.headers.get("content-type") ?? "", json);
}

function envelopeProblems(body: string): string[] {
  const json = JSON.parse(body) as { errors?: { status?: string; title?: string }[] };
  return Array.isArray(json.errors) && json.errors.every((e) => typeof e.status === "string" && typeof e.title === "string") ? [] : ["not a JSON:API error document"];
}

function collectInputOnlyValues(sent: string, into: Set<string>): void {
  if (!sent) return;
  try {
    const attributes = (JSON.parse(sent) as { data?: { attributes?: Record<string, unknown> } })?.data?.attributes ?? {};
    for (const key of INPUT_ONLY) {
      const value = attributes[key];
      // Short values could occur by chance in a body; tests use long, distinctive ones.
      if (typeof value === "string" && value.length >= 12) into.add(value);
    }
  } catch {
    // Malformed JSON sent on purpose.
  }
}
