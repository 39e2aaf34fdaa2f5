// The docs as a reader uses them: built as `npm run docs` builds them, served from a local static
// server and loaded in Debian's Chromium (playwright-core). Each page renders without console
// errors, shows every operation's heading, finds an operation with Redoc's search, shows the code
// samples, and is saved as a screenshot under dist/screenshots/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { deref, isObject, operationsOf, type OpenApiDoc } from "../../scripts/contract/document.ts";
import { buildDocs, INDEX_LINK_TEXT, type DocsBuild } from "../../scripts/docs/build.ts";
import { baseUrlOf } from "../../scripts/docs/code-samples.ts";
import { authenticationOf, tagRoute, traitTags } from "../../scripts/docs/index-page.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { serveFolder, type StaticServer } from "./static-server.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const screenshots = path.join(root, "dist", "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// What this machine's Chromium needs (see the environment notes); playwright adds a fresh
// --user-data-dir of its own. Without the background-networking flags Chromium keeps trying hosts
// that the closed network refuses.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/**
 * The one request Redoc 3 makes off the page by design: its "API docs by Redocly" logo, from
 * Redocly's CDN, with no option to turn it off (offline it hides itself, after a failed request).
 * The test answers it with a blank image; any other request leaving the local server fails the test.
 */
const REDOC_ATTRIBUTION = /^https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg$/;

let outDir: string | undefined;
let build: DocsBuild;
let server: StaticServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (as .ci/run does)`);
  // A folder of its own: another test run (or `npm run docs`) may be rebuilding dist/docs meanwhile.
  outDir = mkdtempSync(path.join(tmpdir(), "docs-test-"));
  [build, browser] = await Promise.all([buildDocs({ outDir }), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
  server = await serveFolder(build.outDir);
  mkdirSync(screenshots, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  /** Console errors, page errors, failed and off-site requests, missing files. */
  problems: string[];
  /** Closes the page; problems are complete after it. */
  close(): Promise<void>;
}

async function open(file: string): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  await context.route(
    (url) => url.origin !== server.baseUrl,
    (route) => {
      const url = route.request().url();
      if (REDOC_ATTRIBUTION.test(url)) return route.fulfill({ contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"/>' });
      problems.push(`request off the local server: ${url}`);
      return route.abort();
    },
  );
  const notFoundBefore = server.notFound.length;
  const response = await page.goto(`${server.baseUrl}/${file}`);
  expect(response?.status()).toBe(200);
  const close = async () => {
    await context.close();
    problems.push(...server.notFound.slice(notFoundBefore).map((p) => `not found: ${p}`));
  };
  return { page, problems, close };
}

/** Redoc's page is server-rendered, then hydrated: wait until React owns the sidebar. */
async function waitForRedoc(page: Page) {
  await page.waitForFunction(
    () => {
      const menu = document.querySelector('[data-component-name="Menu/Menu"]');
      return !!menu && Object.keys(menu).some((k) => k.startsWith("__react"));
    },
    undefined,
    { timeout: 20_000 },
  );
}

async function go(page: Page, route: string) {
  await page.evaluate((hash) => {
    location.hash = hash;
  }, route);
}

/**
 * Waits for a visible heading whose own text (without its link icon or badges such as
 * "deprecated") is exactly `text`; false after the timeout. With `badge`, the heading must show it.
 */
async function headingShown(page: Page, text: string, { timeout = 10_000, badge }: { timeout?: number; badge?: string } = {}): Promise<boolean> {
  try {
    await page.waitForFunction(
      ({ wanted, badge }) =>
        [...document.querySelectorAll("h1, h2, h3")].some((h) => {
          const own = [...h.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim();
          const visible = (h as HTMLElement).offsetParent !== null;
          return own === wanted && visible && (!badge || (h.querySelector('[data-component-name="Tag/Tag"]')?.textContent ?? "").includes(badge));
        }),
      { wanted: text, badge },
      { timeout },
    );
    return true;
  } catch {
    return false;
  }
}

/** The first words of a markdown text, as they read once rendered. */
function plainStart(markdown: string): string {
  const line = markdown.trim().split("\n")[0] ?? "";
  const plain = line.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*_#>|]/g, "").trim();
  return plain.split(/\s+/).slice(0, 6).join(" ");
}

interface MenuOperation {
  route: string;
  label: string;
  method: string;
}

/** The path item of a path template, after its $ref. */
function pathItemOf(doc: OpenApiDoc, template: string): Record<string, unknown> {
  const item = deref<Record<string, unknown>>(doc, doc.paths?.[template] ?? {}).value;
  return isObject(item) ? item : {};
}

/** Opens every tag group of the sidebar and lists the operations it shows, those outside any group too. */
async function sidebarOperations(page: Page): Promise<MenuOperation[]> {
  const found = new Map<string, MenuOperation>();
  const opened = new Set<string>();
  for (;;) {
    // The operations shown: at the top (a description without tags) and in every group opened so far.
    const items: MenuOperation[] = await page.$$eval('[data-component-name="Menu/MenuItem"].menu-item-type-operation > a', (as) =>
      as.map((a) => ({
        route: a.getAttribute("href") ?? "",
        label: a.querySelector("[data-text]")?.getAttribute("data-text") ?? "",
        method: a.querySelector(".tag-http")?.textContent?.trim().toLowerCase() ?? "",
      })),
    );
    for (const item of items) found.set(item.route, item);
    const groups: string[] = await page.$$eval('[data-component-name="Menu/MenuItem"].menu-item-type-group > a', (as) =>
      as.map((a) => a.getAttribute("href") ?? ""),
    );
    const next = groups.find((g) => g && !opened.has(g));
    if (!next) break;
    opened.add(next);
    await go(page, next.startsWith("#") ? next : `#${next}`);
    // Opened: its chevron points down.
    await page.waitForFunction(
      (href) =>
        document.querySelector(
          `[data-component-name="Menu/MenuItem"]:has(> a[href="${href}"]) [data-component-name="icons/ChevronDownIcon/ChevronDownIcon"]`,
        ) !== null,
      next,
      { timeout: 10_000 },
    );
  }
  return [...found.values()];
}

describe("docs index page", () => {
  it("introduces every API with its addresses and authentication, and every link works", async () => {
    const { page, problems, close } = await open("index.html");
    const text = await page.locator("body").innerText();
    for (const { api, doc } of build.pages) {
      expect(text).toContain(api.title);
      // The reference server's address, or the server of a description added with add-api.
      expect(text).toContain(baseUrlOf(api));
      expect(text).toContain(`http://127.0.0.1:${api.mockPort}`);
      for (const line of authenticationOf(doc).lines) expect(text).toContain(line.split("`")[1] ?? line);
      await expect(page.locator(`a[href="${api.name}.html"]`).first().isVisible()).resolves.toBe(true);
    }
    const links: string[] = await page.$$eval("a[href]", (as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const link of links.filter((l) => l.startsWith(server.baseUrl))) {
      const response = await fetch(link);
      expect(response.status, link).toBe(200);
    }
    await page.screenshot({ path: path.join(screenshots, "index.png"), fullPage: true });
    await close();
    expect(problems).toEqual([]);
  });
});

describe("the organization platform's changelog", () => {
  it("is linked from the index page and shows the change history", { timeout: 30_000 }, async () => {
    const { page, problems, close } = await open("index.html");
    await page.locator("#org-platform").getByRole("link", { name: "Changelog", exact: true }).click();
    await page.waitForURL(/org-platform\.html#\/changelog$/);
    await waitForRedoc(page);
    expect(await headingShown(page, "Changelog")).toBe(true);
    // The history itself: a table of dated changes.
    const dates = page.locator("table td", { hasText: /^\d{4}-\d{2}-\d{2}/ });
    await dates.first().waitFor({ timeout: 10_000 });
    expect(await dates.count()).toBeGreaterThan(10);
    await page.screenshot({ path: path.join(screenshots, "org-platform-changelog.png") });
    await close();
    expect(problems).toEqual([]);
  });
});

/** How many operations of a docs page are opened one by one (each one of this project's APIs). */
const OPENED = 100;

describe.each(APIS.map((api) => [api.name, api] as const))("docs page of %s", (name, api) => {
  // Ninety seconds, and more for a page of many operations (GitHub's 1,223: 10 MB of HTML).
  it("renders every operation, finds one by search, shows the samples", { timeout: 90_000 + 100 * operationsOf(loadBundle(name) as OpenApiDoc).length }, async () => {
    const built = build.pages.find((p) => p.api.name === name)!;
    const doc: OpenApiDoc = built.doc;
    const operations = operationsOf(doc).map((o) => ({
      method: o.method,
      // As the page names an operation: its summary, else its path item's, else its operationId, else its path.
      heading: [o.operation.summary, pathItemOf(doc, o.template).summary, o.operationId].find((name): name is string => typeof name === "string" && name !== "") ?? o.template,
      deprecated: o.operation.deprecated === true,
      label: o.label,
    }));
    const { page, problems, close } = await open(built.file);
    await waitForRedoc(page);
    const info = isObject(doc.info) ? doc.info : {};
    expect(await headingShown(page, `${info.title} (${info.version})`)).toBe(true);
    await page.screenshot({ path: path.join(screenshots, `${name}.png`) });

    // Every operation listed in the sidebar, and its heading shown when it is opened: every one, or
    // of a description with more than OPENED (GitHub's 1,223), that many spread over the page.
    const menu = await sidebarOperations(page);
    const missing: string[] = [];
    const step = Math.max(1, operations.length / OPENED);
    const opened = new Set(Array.from({ length: Math.min(OPENED, operations.length) }, (_, i) => Math.floor(i * step)));
    for (const [index, operation] of operations.entries()) {
      const item = menu.find((m) => m.label === operation.heading && m.method === operation.method);
      if (!item) {
        missing.push(`${operation.label}: no sidebar entry "${operation.heading}" among ${JSON.stringify(menu.map((m) => m.label))}`);
        continue;
      }
      if (!opened.has(index)) continue;
      await go(page, item.route);
      const badge = operation.deprecated ? "deprecated" : undefined;
      if (!(await headingShown(page, operation.heading, { badge }))) {
        missing.push(`${operation.label}: heading "${operation.heading}"${badge ? ` with "${badge}"` : ""} not shown at ${item.route}`);
      }
    }
    expect(missing).toEqual([]);

    // Tags that hold text (the changelog) render where the index page links to them.
    for (const tag of traitTags(doc)) {
      await go(page, tagRoute(tag.name));
      expect(await headingShown(page, tag.displayName), `${tag.name} at ${tagRoute(tag.name)}`).toBe(true);
      // Its own text, not only a heading of the same name elsewhere (a "## Changelog" in the info).
      const start = plainStart(tag.description);
      if (start) await page.getByText(start).first().waitFor({ timeout: 10_000 });
    }
    // Search: type an operation's name (the last one with a word to search for: not a path of "/"), pick the hit, land on the operation.
    const target = operations.filter((o) => /[\p{L}\p{N}]/u.test(o.heading)).at(-1);
    if (operations.length) {
      if (target) {
        await page.locator('[data-testid="search-trigger"]').click();
        await page.getByPlaceholder("Search docs...").fill(target.heading);
        const hit = page.locator('[data-component-name="Search/SearchItem"]', { hasText: target.heading }).first();
        await hit.waitFor({ timeout: 10_000 });
        const route = await hit.getAttribute("href");
        await hit.click();
        expect(await page.evaluate(() => location.hash)).toBe(route);
        expect(await headingShown(page, target.heading)).toBe(true);
      }
      // Code samples: the first operation shows curl, and TypeScript with the generated client.
      const first = operations[0]!;
      await go(page, menu.find((m) => m.label === first.heading && m.method === first.method)!.route);
      expect(await headingShown(page, first.heading)).toBe(true);
      const samples = page.locator('[data-component-name="CodeBlock/CodeBlock"]', { hasText: "curl " }).first();
      await samples.waitFor({ timeout: 10_000 });
      await page.getByRole("button", { name: "curl", exact: true }).first().click();
      await page.getByRole("menuitem", { name: "TypeScript", exact: true }).click();
      const typescript = page.locator('[data-component-name="CodeBlock/CodeBlock"]', { hasText: `${api.clientFactory}(` }).first();
      await typescript.waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(screenshots, `${name}-operation.png`) });
      // The sample stays readable next to its copy button at common laptop widths: no line cut off
      // (lines wrap) and no text under the button.
      for (const width of [1280, 1340, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        const layout = await typescript.evaluate((block) => {
          const pre = block.querySelector('[data-component-name="CodeBlock/CodeBlockContainer"]') as HTMLElement;
          const button = block.querySelector('[data-testid="copy-button"]')!.getBoundingClientRect();
          const range = document.createRange();
          const overlaps: string[] = [];
          for (const line of pre.querySelectorAll(".line")) {
            range.selectNodeContents(line);
            for (const r of range.getClientRects()) {
              const apart = r.right <= button.left || r.left >= button.right || r.bottom <= button.top || r.top >= button.bottom;
              if (!apart && r.width > 0) overlaps.push(line.textContent ?? "");
            }
          }
          return { clipped: pre.scrollWidth > pre.clientWidth + 1, overlaps };
        });
        expect(layout, `TypeScript sample at ${width} px`).toEqual({ clipped: false, overlaps: [] });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // Every API page links back to the index.
    const back = page.getByRole("link", { name: INDEX_LINK_TEXT, exact: true });
    expect(await back.getAttribute("href")).toBe("index.html");
    await back.click();
    await page.waitForURL(/\/index\.html$/);
    await close();
    expect(problems).toEqual([]);
  });
});

describe("the way back to the index, at a desktop and a phone width", () => {
  it("covers neither the right panel's controls at 1340 px nor the title at 390 px", { timeout: 90_000 }, async () => {
    const { page, problems, close } = await open(`${APIS[0]!.name}.html`);
    await waitForRedoc(page);
    const back = page.getByRole("link", { name: INDEX_LINK_TEXT, exact: true });
    for (const width of [1340, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const overlaps = await back.evaluate((link) => {
        const box = link.getBoundingClientRect();
        const apart = (r: DOMRect) => r.right <= box.left || r.left >= box.right || r.bottom <= box.top || r.top >= box.bottom;
        // Everything a reader may read or press at the top of the page: the title, buttons, tabs, links.
        const targets = [...document.querySelectorAll("h1, h2, button, [role=tab], a, input")].filter((e) => e !== link && !link.contains(e));
        return targets
          .map((e) => ({ e, r: e.getBoundingClientRect() }))
          .filter(({ r }) => r.width > 0 && r.height > 0 && !apart(r))
          .map(({ e }) => `${e.tagName.toLowerCase()} ${(e.textContent ?? "").trim().slice(0, 40)}`);
      });
      expect(overlaps, `at ${width} px`).toEqual([]);
      // The title fits the page, and no word of it is broken across lines.
      const title = await page.locator("h1").first().evaluate((h) => {
        const broken: string[] = [];
        const text = h.firstChild;
        if (text?.nodeType === Node.TEXT_NODE) {
          const range = document.createRange();
          for (const match of (text.textContent ?? "").matchAll(/\S+/g)) {
            range.setStart(text, match.index!);
            range.setEnd(text, match.index! + match[0].length);
            if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) broken.push(match[0]);
          }
        }
        return { right: h.getBoundingClientRect().right, scroll: h.scrollWidth > h.clientWidth + 1, broken };
      });
      expect(title.right, `title at ${width} px`).toBeLessThanOrEqual(width);
      expect(title.scroll, `title at ${width} px`).toBe(false);
      expect(title.broken, `title at ${width} px`).toEqual([]);
      await page.screenshot({ path: path.join(screenshots, `index-link-${width}.png`) });
    }
    await close();
    expect(problems).toEqual([]);
  });
});
