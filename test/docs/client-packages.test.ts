// The installable clients (docs/generated-clients.md), tested on the path a user takes: each
// packages/<api>-client is built and packed (`npm pack`), the tarballs are installed into an empty
// project with npm, offline (openapi-fetch and its one dependency are packed from this project's
// node_modules, so no registry is needed), a TypeScript program using all three is typechecked with
// the project's tsc (strict, NodeNext) and run with node against reference servers started here.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { buildClientPackage, packPackages, packageName } from "../../scripts/client-packages.ts";
import { REFERENCE_SERVERS, type RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
const work = mkdtempSync(path.join(tmpdir(), "client-packages-"));
const app = path.join(work, "app");
const servers: Record<string, RunningReferenceServer> = {};

const PROGRAM = `import { createMeshClient } from "@contract-first/mesh-client";
import { createOrgPlatformClient, type components } from "@contract-first/org-platform-client";
import { createSecretsClient } from "@contract-first/secrets-client";

// No @types/node in the empty project: only the packages under test.
declare const process: { env: Record<string, string | undefined> };
const env = (name: string) => process.env[name] ?? "";
const results: Record<string, unknown> = {};

const mesh = createMeshClient({ baseUrl: env("MESH_URL"), headers: { "X-Mesh-Token": env("MESH_TOKEN") } });
const put = await mesh.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
const chain = await mesh.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" } } });
const protocol: string | undefined = chain.data?.Chain.Protocol;
results.mesh = { put: put.response.status, chain: chain.response.status, protocol };
// @ts-expect-error the path parameter is required
await mesh.GET("/discovery-chain/{service_name}", { params: {} }).catch(() => undefined);

// No Content-Type given: the client sends JSON:API's itself.
const org = createOrgPlatformClient({ baseUrl: env("ORG_URL"), headers: { Authorization: "Bearer " + env("ORG_TOKEN") } });
const created = await org.POST("/organizations/{organization_name}/teams", {
  params: { path: { organization_name: "acme" } },
  body: { data: { type: "teams", attributes: { name: "packaged", visibility: "organization" } } },
});
const team: components["schemas"]["Team"] | undefined = created.data?.data;
const listed = await org.GET("/organizations/{organization_name}/teams", {
  params: { path: { organization_name: "acme" }, query: { include: ["users"], q: "packaged" } },
});
results.org = { created: created.response.status, name: team?.attributes.name, listed: listed.data?.data.map((t) => t.attributes.name), error: created.error };
// @ts-expect-error "visibility" takes only the documented values
void ({ name: "x", visibility: "everyone" } satisfies components["schemas"]["TeamCreateRequest"]["data"]["attributes"]);

const secrets = createSecretsClient({ baseUrl: env("SECRETS_URL"), headers: { "X-Secrets-Token": env("SECRETS_TOKEN") } });
const status = await secrets.GET("/sys/rekey/init");
const started: boolean | undefined = status.data?.started;
const refused = await createSecretsClient({ baseUrl: env("SECRETS_URL") }).GET("/sys/rekey/init");
results.secrets = { status: status.response.status, started, refused: refused.response.status, errors: refused.error };

console.log(JSON.stringify(results));
`;

beforeAll(async () => {
  const tarballs = path.join(work, "tarballs");
  const built = APIS.map((api) => buildClientPackage(api, path.join(work, "build", api.name)));
  packPackages([...built, ...["openapi-fetch", "openapi-typescript-helpers"].map((dep) => path.join(root, "node_modules", dep))], tarballs);
  const { mkdirSync } = await import("node:fs");
  mkdirSync(app);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "empty-project", private: true, type: "module" }));
  const files = readdirSync(tarballs).map((f) => path.join(tarballs, f));
  await run("npm", ["install", ...files, "--offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: app });
  writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, types: [], lib: ["ES2022", "DOM"], outDir: "out" }, files: ["main.ts"] }),
  );
  writeFileSync(path.join(app, "main.ts"), PROGRAM);
  for (const entry of REFERENCE_SERVERS) servers[entry.api] = await entry.start();
}, 180_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  rmSync(work, { recursive: true, force: true });
});

describe("client packages", () => {
  it.each(APIS.map((a) => a.name))("%s: the tarball holds compiled JS, declarations, the description and a README", (api) => {
    const dir = path.join(app, "node_modules", packageName(APIS.find((a) => a.name === api)!));
    for (const f of ["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "dist/openapi.json"]) expect(existsSync(path.join(dir, f)), f).toBe(true);
    expect(existsSync(path.join(dir, "dist", "index.ts"))).toBe(false);
    const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({ "openapi-fetch": expect.stringMatching(/^\^0\.17\./) });
    expect(pkg.exports["."]).toMatchObject({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    expect(readFileSync(path.join(dir, "dist", "index.js"), "utf8")).not.toMatch(/\.ts["']/);
  });

  it("installs into an empty project offline, typechecks with full types, and calls the reference servers", async () => {
    // Typecheck: any error fails, and so does an unused @ts-expect-error (types that were `any`).
    const typecheck = await run(process.execPath, [tsc, "-p", app], { cwd: app }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }));
    expect(typecheck.stdout).toBe("");
    const { stdout } = await run(process.execPath, [path.join(app, "out", "main.js")], {
      cwd: app,
      env: {
        ...process.env,
        MESH_URL: servers.mesh!.baseUrl,
        MESH_TOKEN: REFERENCE_SERVERS.find((s) => s.api === "mesh")!.headers["X-Mesh-Token"],
        ORG_URL: servers["org-platform"]!.baseUrl,
        ORG_TOKEN: "alice.atlasv1.dev-user-token",
        SECRETS_URL: servers.secrets!.baseUrl,
        SECRETS_TOKEN: REFERENCE_SERVERS.find((s) => s.api === "secrets")!.headers["X-Secrets-Token"],
      },
    });
    expect(JSON.parse(stdout)).toEqual({
      mesh: { put: 200, chain: 200, protocol: "http" },
      org: { created: 200, name: "packaged", listed: ["packaged"] },
      secrets: { status: 200, started: false, refused: 403, errors: { errors: ["permission denied"] } },
    });
  }, 120_000);
});
