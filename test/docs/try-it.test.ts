// The try-it console of the published reference, in Debian's Chromium: the docs are built with the
// mesh's server URL from configuration (MESH_DOCS_SERVER_URL), served on 127.0.0.1, and a reader
// sends a request from the page, with the keyboard, to a running mesh reference server that allows
// the docs' origin (CORS_ORIGINS), and sees its answer. The page makes no request off this machine.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { buildDocs } from "../../scripts/docs/build.ts";
import { configuredServers, docsServerVariable } from "../../scripts/docs/try-it.ts";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";
import { serveFolder, type StaticServer } from "./static-server.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const mesh = APIS.find((a) => a.name === "mesh")!;

let outDir: string;
let site: StaticServer;
let server: RunningMesh;
let browser: Browser;

/** Sets environment variables for the duration of `run` (the servers and the build read them once). */
async function withEnv<T>(vars: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await run();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (as .ci/run does)`);
  outDir = mkdtempSync(path.join(tmpdir(), "try-it-"));
  site = await serveFolder(outDir);
  server = await withEnv({ CORS_ORIGINS: new URL(site.baseUrl).origin }, () => startMesh());
  await withEnv({ [docsServerVariable(mesh)]: server.baseUrl }, () => buildDocs({ outDir, apis: [mesh] }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await site?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("server URLs from configuration", () => {
  it("come from <API>_DOCS_SERVER_URL, else redocly.yaml's x-toolkit.servers, else the description", () => {
    expect(configuredServers(mesh, { MESH_DOCS_SERVER_URL: "https://a.example.com/v1/, https://b.example.com/v1" })).toEqual([
      { url: "https://a.example.com/v1", description: "from MESH_DOCS_SERVER_URL" },
      { url: "https://b.example.com/v1", description: "from MESH_DOCS_SERVER_URL" },
    ]);
    expect(configuredServers({ ...mesh, docsServers: [{ url: "https://staging.example.com/v1" }] }, {})).toEqual([{ url: "https://staging.example.com/v1" }]);
    expect(configuredServers(mesh, {})).toBeUndefined();
    expect(() => configuredServers(mesh, { MESH_DOCS_SERVER_URL: "staging" })).toThrow("MESH_DOCS_SERVER_URL: staging is not an http(s) URL");
  });

  it("are the servers of the published docs bundle", () => {
    const doc = JSON.parse(readFileSync(path.join(outDir, "openapi", "mesh.json"), "utf8"));
    expect(doc.servers).toEqual([{ url: server.baseUrl, description: "from MESH_DOCS_SERVER_URL" }]);
    expect(readFileSync(path.join(outDir, "index.html"), "utf8")).toContain('<a href="mesh-try.html">try it</a>');
  });
});

describe("the try-it page in Chromium", { timeout: 90_000 }, () => {
  it("sends a request from the page to the running server, by keyboard, and shows its answer", async () => {
    const page = await browser.newPage();
    const offPage: string[] = [];
    const sent: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => {
      const url = r.url();
      if (url.startsWith(server.baseUrl)) sent.push(`${r.method()} ${url}`);
      else if (!url.startsWith(site.baseUrl) && !/^(data|blob):/.test(url)) offPage.push(url);
    });
    page.on("pageerror", (e) => errors.push(e.message));
    // The operation's own address, as a link to it gives it.
    await page.goto(`${site.baseUrl}/mesh-try.html#get-/agent/self`);
    const tryButton = page.getByRole("button", { name: "TRY", exact: true });
    await tryButton.waitFor();
    await tryButton.focus();
    await page.keyboard.press("Enter");
    // The answer: the agent's own configuration, from the running server (CORS let the page read it).
    await page.getByText(/"Datacenter"/).first().waitFor({ timeout: 30_000 });
    expect(sent).toContain(`GET ${server.baseUrl}/agent/self`);
    expect(offPage).toEqual([]);
    expect(errors).toEqual([]);
    await page.screenshot({ path: path.join(outDir, "try-it.png") });
    await page.close();
  });
});
