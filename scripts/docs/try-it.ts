// The try-it console of the published reference: one page per API (<api>-try.html) with RapiDoc,
// which sends requests from the reader's browser to the servers the docs bundle lists (chosen by
// measuring against Scalar's api-reference and Stoplight Elements: docs/docs-and-mock.md). RapiDoc
// is one file, copied next to the pages, so the page needs no CDN; its web fonts are not loaded.
// The servers come from configuration: <API>_DOCS_SERVER_URL (comma list; e.g. a deployment in CI),
// else redocly.yaml's x-toolkit.servers for the API, else the description's own.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { ApiInfo } from "../apis.ts";
import type { OpenApiDoc } from "../contract/document.ts";
import { escapeHtml, htmlPage } from "./index-page.ts";

const require = createRequire(import.meta.url);

/** The variable that sets an API's servers in the docs: MESH_DOCS_SERVER_URL. */
export const docsServerVariable = (api: Pick<ApiInfo, "name">) => `${api.name.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_DOCS_SERVER_URL`;

/** The servers the published reference lists, from configuration; undefined: the description's own. */
export function configuredServers(api: ApiInfo, env: NodeJS.ProcessEnv = process.env): { url: string; description?: string }[] | undefined {
  const fromEnv = env[docsServerVariable(api)];
  if (fromEnv) {
    return fromEnv
      .split(",")
      .map((url) => url.trim())
      .filter(Boolean)
      .map((url) => {
        if (!/^https?:\/\/[^/]+/.test(url)) throw new Error(`${docsServerVariable(api)}: ${url} is not an http(s) URL`);
        return { url: url.replace(/\/+$/, ""), description: `from ${docsServerVariable(api)}` };
      });
  }
  return api.docsServers;
}

/** The docs bundle with the configured servers in place of the description's. */
export function withServers(doc: OpenApiDoc, servers: { url: string; description?: string }[] | undefined): OpenApiDoc {
  return servers?.length ? { ...doc, servers } : doc;
}

declare const __TOOLKIT_BUNDLE__: boolean | undefined;

/** Where the installable toolkit (cli/build.ts) carries RapiDoc's file, from its root: not RapiDoc's package, whose dependencies only build that file. */
export const RAPIDOC_ASSETS = "assets/rapidoc";

/** Copies RapiDoc's file into <outDir>/assets/ and answers its path relative to the pages. */
export function copyConsoleAssets(outDir: string): string {
  const from =
    typeof __TOOLKIT_BUNDLE__ !== "undefined" && __TOOLKIT_BUNDLE__
      ? path.join(import.meta.dirname, "..", "..", RAPIDOC_ASSETS, "rapidoc-min.js")
      : path.join(path.dirname(require.resolve("rapidoc/package.json")), "dist", "rapidoc-min.js");
  mkdirSync(path.join(outDir, "assets"), { recursive: true });
  copyFileSync(from, path.join(outDir, "assets", "rapidoc-min.js"));
  copyFileSync(`${from}.LICENSE.txt`, path.join(outDir, "assets", "rapidoc-min.js.LICENSE.txt"));
  return "assets/rapidoc-min.js";
}

/** The try-it page of an API: the console on its docs bundle, the first server chosen. */
export function tryItPage(api: ApiInfo, doc: OpenApiDoc, script: string): string {
  const servers = Array.isArray(doc.servers) ? (doc.servers as { url: string }[]) : [];
  const first = servers[0]?.url ?? "";
  const title = `Try the ${api.title}`;
  return htmlPage(
    title,
    `    <script type="module" src="${script}"></script>
    <style>
      body { margin: 0; font: 16px/1.5 system-ui, sans-serif; }
      nav { display: flex; gap: 1rem; padding: 0.5rem 1rem; border-bottom: 1px solid #d0d7de; }
      nav a { color: #1a5fb4; }
      rapi-doc { height: calc(100vh - 2.6rem); }
    </style>`,
    `    <nav aria-label="Reference"><a href="index.html">← All APIs</a> <a href="${api.name}.html">Reference of the ${escapeHtml(api.title)}</a></nav>
    <main>
      <h1 style="position:absolute;left:-9999px">${escapeHtml(title)}</h1>
      <rapi-doc spec-url="openapi/${api.name}.json" server-url="${escapeHtml(first)}" default-api-server="${escapeHtml(first)}"
        render-style="focused" allow-try="true" allow-server-selection="true" allow-authentication="true"
        allow-spec-url-load="false" allow-spec-file-load="false" show-header="false" load-fonts="false"
        regular-font="system-ui, sans-serif" mono-font="ui-monospace, monospace" theme="light"></rapi-doc>
    </main>`,
  );
}
