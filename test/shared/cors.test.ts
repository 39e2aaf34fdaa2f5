// CORS on the reference servers (server/shared/cors.ts, CORS_ORIGINS): a browser app that worked
// against the mock works against a reference server of every API, preflight included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_SERVERS, type RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";
import { CorsConfigError, parseCorsOrigins } from "../../server/shared/cors.ts";

const APP = "http://localhost:5173";
/** A path and method each API serves, and the credentials header its browser app sends. */
const PROBE: Record<string, { path: string; method: string; header: string }> = {
  mesh: { path: "/discovery-chain/web", method: "GET", header: "x-mesh-token" },
  "org-platform": { path: "/organizations/acme/teams", method: "POST", header: "authorization" },
  secrets: { path: "/sys/rekey/init", method: "PUT", header: "x-secrets-token" },
};

async function startAll(origins: string | undefined): Promise<Record<string, RunningReferenceServer>> {
  const before = process.env.CORS_ORIGINS;
  if (origins === undefined) delete process.env.CORS_ORIGINS;
  else process.env.CORS_ORIGINS = origins;
  try {
    return Object.fromEntries(await Promise.all(REFERENCE_SERVERS.map(async (s) => [s.api, await s.start()] as const)));
  } finally {
    if (before === undefined) delete process.env.CORS_ORIGINS;
    else process.env.CORS_ORIGINS = before;
  }
}

describe("CORS_ORIGINS", () => {
  it("is parsed strictly, naming the variable", () => {
    expect(parseCorsOrigins(undefined)).toBeUndefined();
    expect(parseCorsOrigins(" ")).toBeUndefined();
    expect(parseCorsOrigins("*")).toBe("*");
    expect(parseCorsOrigins("http://localhost:5173, https://app.example.com/")).toEqual(new Set(["http://localhost:5173", "https://app.example.com"]));
    for (const bad of ["localhost:5173", "ftp://x.example", "https://app.example.com/path", "https://app.example.com?x=1"]) {
      expect(() => parseCorsOrigins(bad), bad).toThrow(CorsConfigError);
      expect(() => parseCorsOrigins(bad), bad).toThrow(/^CORS_ORIGINS: /);
    }
  });
});

describe.each(REFERENCE_SERVERS.map((s) => [s.api, s] as const))("CORS on the %s reference server", (api, entry) => {
  let allowed: Record<string, RunningReferenceServer>;
  let off: Record<string, RunningReferenceServer>;
  let any: Record<string, RunningReferenceServer>;
  const probe = PROBE[api]!;
  beforeAll(async () => {
    [allowed, off, any] = [await startAll(`${APP},https://other.example`), await startAll(undefined), await startAll("*")];
  }, 60_000);
  afterAll(async () => {
    for (const group of [allowed, off, any]) await Promise.all(Object.values(group ?? {}).map((s) => s.close()));
  });

  const preflight = (server: RunningReferenceServer, origin: string) =>
    fetch(server.baseUrl + probe.path, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": probe.method, "Access-Control-Request-Headers": `${probe.header}, content-type` },
    });

  it("answers a preflight from an allowed origin, before authentication", async () => {
    const response = await preflight(allowed[api]!, APP);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-allow-methods")).toContain(probe.method);
    expect(response.headers.get("access-control-allow-methods")).toContain("LIST");
    expect(response.headers.get("access-control-allow-headers")).toBe(`${probe.header}, content-type`);
    expect(response.headers.get("access-control-max-age")).toBe("600");
    expect(response.headers.get("vary")).toMatch(/Origin/);
  });

  it("lets an allowed origin read answers and their headers, errors included", async () => {
    const ok = await fetch(allowed[api]!.baseUrl + probe.path, {
      method: "GET",
      headers: { Origin: APP, ...entry.headers },
    });
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(ok.headers.get("access-control-expose-headers")).toBe("*");
    const refused = await fetch(allowed[api]!.baseUrl + "/no/such/path", { headers: { Origin: APP } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("gives other origins no CORS headers, and no preflight answer", async () => {
    const response = await preflight(allowed[api]!, "http://evil.example");
    expect(response.status).not.toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const read = await fetch(allowed[api]!.baseUrl + probe.path, { headers: { Origin: "http://evil.example", ...entry.headers } });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("is off without CORS_ORIGINS, and open to every origin with *", async () => {
    const response = await preflight(off[api]!, APP);
    expect(response.status).not.toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const open = await preflight(any[api]!, "http://anything.example");
    expect(open.status).toBe(204);
    expect(open.headers.get("access-control-allow-origin")).toBe("*");
  });
});
