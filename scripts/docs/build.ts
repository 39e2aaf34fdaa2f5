// Builds the docs site: for every API a docs bundle (the generated bundle plus code samples, with the
// configured servers), a self-contained Redoc page and a try-it page (scripts/docs/try-it.ts), then
// the index page. The committed bundles are only read.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APIS, PROJECT_ROOT, readBundle, type ApiInfo } from "../apis.ts";
import { outputRoot, redoclyCommand } from "../project.ts";
import { operationsOf, type OpenApiDoc } from "../contract/document.ts";
import { SAMPLE_LANGUAGES, withCodeSamples } from "./code-samples.ts";
import { indexPage } from "./index-page.ts";
import { configuredServers, copyConsoleAssets, tryItPage, withServers } from "./try-it.ts";

const root = PROJECT_ROOT;

/** Redoc options: show only our two sample languages (Redoc would otherwise generate nine more). */
export const REDOC_OPTIONS = { codeSamples: { languages: SAMPLE_LANGUAGES } };

export interface BuiltPage {
  api: ApiInfo;
  /** File name in the output folder: mesh.html */
  file: string;
  /** The docs bundle the page shows (with x-codeSamples). */
  doc: OpenApiDoc;
  operations: number;
}

export interface DocsBuild {
  outDir: string;
  pages: BuiltPage[];
  milliseconds: number;
}

export async function buildDocs({ outDir = path.join(outputRoot(), "dist", "docs"), apis = APIS } = {}): Promise<DocsBuild> {
  const started = performance.now();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(path.join(outDir, "openapi"), { recursive: true });
  const consoleScript = copyConsoleAssets(outDir);
  const pages = await Promise.all(
    apis.map(async (api): Promise<BuiltPage> => {
      const bundle = readBundle<OpenApiDoc>(api);
      const doc = withServers(withCodeSamples(bundle, api), configuredServers(api));
      const docPath = path.join(outDir, "openapi", `${api.name}.json`);
      writeFileSync(docPath, JSON.stringify(doc, null, 2) + "\n");
      const file = `${api.name}.html`;
      await redocly([
        "build-docs",
        docPath,
        "--output",
        path.join(outDir, file),
        "--title",
        `${api.title} reference`,
        // Embed Redoc itself: the page must work without Redocly's CDN.
        "--inlineBundle",
        "--openapi",
        JSON.stringify(REDOC_OPTIONS),
      ]);
      const page = path.join(outDir, file);
      writeFileSync(page, withPageChrome(readFileSync(page, "utf8")));
      writeFileSync(path.join(outDir, `${api.name}-try.html`), tryItPage(api, doc, consoleScript));
      return { api, file, doc, operations: operationsOf(doc).length };
    }),
  );
  writeFileSync(path.join(outDir, "index.html"), indexPage(pages.map(({ api, doc }) => ({ api, doc }))));
  return { outDir, pages, milliseconds: Math.round(performance.now() - started) };
}

/** The link from every API page back to the index (its text, for tests). */
export const INDEX_LINK_TEXT = "← All APIs";

/**
 * What Redoc's page lacks: a way back to the index, and code samples that stay readable next to the
 * copy button (at 1280-1400 px the first line ran under it and long lines were cut off): lines wrap,
 * and the block keeps the button's width free on the right. The way back is a bar above the page, in
 * the flow: a link pinned over the page covered the right panel's language switcher at 1340 px and
 * the title at 390 px.
 */
export function withPageChrome(html: string): string {
  const style = `<style id="toolkit-page-chrome">
  .toolkit-index-bar { display: block; margin: 0; padding: 6px 20px; background: #fff; border-bottom: 1px solid #d0d7de;
    font: 14px/1.5 system-ui, sans-serif; }
  .toolkit-index-link { color: #1a5fb4; text-decoration: none; }
  .toolkit-index-link:hover, .toolkit-index-link:focus { text-decoration: underline; }
  @media (max-width: 600px) { h1 { font-size: 1.75rem !important; line-height: 1.25 !important; } }
  [data-component-name="CodeBlock/CodeBlockContainer"] { white-space: pre-wrap !important; overflow-wrap: anywhere; padding-right: 3.25rem !important; }
  [data-component-name="CodeBlock/CodeBlockContainer"] code { white-space: pre-wrap !important; }
</style>`;
  const link = `<nav class="toolkit-index-bar" aria-label="All API references"><a class="toolkit-index-link" href="index.html">${INDEX_LINK_TEXT}</a></nav>`;
  if (!html.includes("</head>") || !/<body[^>]*>/.test(html)) throw new Error("the docs page has no <head> or <body> to add the index link to");
  return html.replace("</head>", `${style}\n</head>`).replace(/<body[^>]*>/, (body) => `${body}\n${link}`);
}

/** Runs the Redocly CLI quietly; its output is only shown when it fails. */
function redocly(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const command = redoclyCommand(args);
    const child = spawn(command.command, command.args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: command.env });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`redocly ${args.slice(0, 2).join(" ")} exited with ${code}:\n${output}`))));
  });
}
