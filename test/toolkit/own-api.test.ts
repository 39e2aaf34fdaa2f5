// A newcomer's API: a third-party OpenAPI 3.1 description (Redocly's Museum API, test/fixtures/
// third-party/museum, written elsewhere and copied unchanged) added with `npm run add-api` to a
// temporary copy of this repository, then every tool run on it as docs/own-api.md shows: lint,
// bundle, types and client package, docs, the mock (errors in its documented envelope), traffic
// validation, conformance against a URL, its Arazzo workflow, and the breaking-change diff.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { APIS, readApis } from "../../scripts/apis.ts";
import { harRecorder } from "../../scripts/contract/har.ts";
import { projectCopy, REPO } from "../helpers/project-copy.ts";
import { freePort, run, start, until, type Started } from "../helpers/run.ts";

const FIXTURE = path.join(REPO, "test", "fixtures", "third-party", "museum", "openapi.yaml");
const AUTH = { Authorization: "Basic Og==" };
let copy: string;
let added: Awaited<ReturnType<typeof run>>;
let mock: Started | undefined;
let mockUrl = "";

const npm = (script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) => run("npm", ["run", "-s", script, "--", ...args], { cwd: copy, env, timeoutMs: 120_000 });
/**
 * What `npm run <script>` runs (package.json's `node scripts/run.mjs <file>`), without npm's own
 * start-up: for a verb's second and later runs here, each verb's first goes through npm as a user's does.
 */
const PACKAGE_SCRIPTS = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const again = (script: string, args: string[] = []) => {
  const file = /^node scripts\/run\.mjs (scripts\/[\w/-]+\.ts)$/.exec(PACKAGE_SCRIPTS[script] ?? "")?.[1];
  if (!file) throw new Error(`npm run ${script} is not "node scripts/run.mjs scripts/<file>.ts": ${PACKAGE_SCRIPTS[script]}`);
  return run(process.execPath, ["scripts/run.mjs", file, ...args], { cwd: copy, timeoutMs: 120_000 });
};

beforeAll(async () => {
  copy = projectCopy("own-api-");
  added = await npm("add-api", ["museum", FIXTURE]);
  const port = await freePort();
  mock = await start("npm", ["run", "-s", "mock", "--", "museum"], { cwd: copy, env: { MUSEUM_MOCK_PORT: String(port) }, ready: /^Ready: .*$/m });
  mockUrl = `http://127.0.0.1:${port}`;
}, 180_000);

afterAll(async () => {
  await mock?.stop();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe("npm run add-api -- museum <file>", { timeout: 120_000 }, () => {
  it("adds the description, its redocly.yaml entry and everything generated from it", () => {
    expect(added.code, added.output).toBe(0);
    const config = readFileSync(path.join(copy, "redocly.yaml"), "utf8");
    expect(config).toContain("  museum@v1:\n    root: openapi/museum/openapi.yaml\n");
    // The other entries and the rules are kept as they were.
    expect(config.replace("  museum@v1:\n    root: openapi/museum/openapi.yaml\n", "")).toBe(readFileSync(path.join(REPO, "redocly.yaml"), "utf8"));
    const original = YAML.parse(readFileSync(FIXTURE, "utf8"));
    const copied = YAML.parse(readFileSync(path.join(copy, "openapi", "museum", "openapi.yaml"), "utf8"));
    expect(Object.keys(copied.paths)).toEqual(Object.keys(original.paths));
    // After the APIs it had (the three, and any this clone added before), as the last entry.
    expect(readApis(path.join(copy, "redocly.yaml")).map((a) => [a.name, a.hasReferenceServer])).toEqual([...APIS.map((a) => [a.name, a.hasReferenceServer]), ["museum", false]]);
    expect(APIS.filter((a) => a.hasReferenceServer).map((a) => a.name)).toEqual(["org-platform", "secrets", "mesh"]);
    for (const file of ["generated/museum/openapi.json", "generated/museum/schema.ts", "generated/museum/operations.ts", "generated/museum/client.ts", "packages/museum-client/package.json", "packages/museum-client/dist/index.js", "packages/museum-client/dist/index.d.ts"]) {
      expect(existsSync(path.join(copy, file)), file).toBe(true);
    }
    const client = readFileSync(path.join(copy, "generated", "museum", "client.ts"), "utf8");
    expect(client).toContain('export const DEFAULT_BASE_URL = "https://redocly.com/_mock/docs/openapi/museum-api";');
    expect(client).toContain("export function createMuseumClient(");
    // Its client's README shows one of its own operations, not another API's.
    const readme = readFileSync(path.join(copy, "packages", "museum-client", "README.md"), "utf8");
    expect(readme).toContain('client.GET("/museum-hours"');
    expect(readme).not.toMatch(/secrets|X-Secrets-Token|mesh/i);
    expect(added.stdout).toContain("museum: 0 errors, 0 warnings");
  });

  it("refuses a bad name, a name in use and a file that is not a description, changing nothing", async () => {
    const before = readFileSync(path.join(copy, "redocly.yaml"), "utf8");
    const notOpenApi = path.join(copy, "not-openapi.yaml");
    writeFileSync(notOpenApi, "hello: world\n");
    const cases: [string[], string][] = [
      [["Museum2", FIXTURE], '"Museum2" is not a name for an API'],
      [["museum", FIXTURE], "redocly.yaml already has an API named museum"],
      [["other", notOpenApi], "is not an OpenAPI 3 description"],
      [["other", path.join(copy, "missing.yaml")], "no such file"],
      [["only-a-name"], "usage: npm run add-api"],
    ];
    for (const [args, message] of cases) {
      const result = await again("add-api", args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect(readFileSync(path.join(copy, "redocly.yaml"), "utf8")).toBe(before);
    expect(existsSync(path.join(copy, "openapi", "other"))).toBe(false);
  });
});

describe("npm run add-api -- <name> <a description of webhooks only>", { timeout: 120_000 }, () => {
  // OpenAPI 3.1 lets a description hold only webhooks: the requests an API sends to its subscribers.
  const WEBHOOKS = `openapi: 3.1.0
info:
  title: Parcel Events
  version: 1.0.0
webhooks:
  parcelDelivered:
    post:
      operationId: parcelDelivered
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [parcel, at]
              properties:
                parcel: { type: string }
                at: { type: string, format: date-time }
      responses:
        "204":
          description: Received.
`;

  it("adds it (types, client, docs) and the mock says there is nothing to mock; one with neither paths nor webhooks is refused", async () => {
    const file = path.join(copy, "parcel-events.yaml");
    writeFileSync(file, WEBHOOKS);
    const added = await again("add-api", ["parcel-events", file]);
    expect(added.code, added.output).toBe(0);
    expect(added.stderr).toContain("describes only webhooks: its docs, types and lint work");
    expect(readFileSync(path.join(copy, "generated", "parcel-events", "schema.ts"), "utf8")).toMatch(/webhooks[\s\S]*parcelDelivered/);
    expect(readFileSync(path.join(copy, "packages", "parcel-events-client", "README.md"), "utf8")).toContain("the description names no server: give `baseUrl`");
    const mock = await again("mock", ["parcel-events"]);
    expect(mock.code).toBe(2);
    expect(mock.stderr).toContain("mock: parcel-events describes no paths (only webhooks, or nothing): nothing to mock");
    const empty = path.join(copy, "empty.yaml");
    writeFileSync(empty, "openapi: 3.1.0\ninfo: { title: Empty, version: 1.0.0 }\ncomponents: {}\n");
    const refused = await again("add-api", ["empty", empty]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("describes no paths and no webhooks: nothing to document, mock or check");
    expect(existsSync(path.join(copy, "openapi", "empty"))).toBe(false);
  });
});

describe("npm run add-api -- <name> <paths by $ref, operations without an operationId, webhooks with one>", { timeout: 120_000 }, () => {
  // All three are OpenAPI: a path item may be a $ref (to components.pathItems, 3.1), an operationId
  // is optional, and openapi-typescript lists a webhook's operation beside those of paths.
  const SHOP = `openapi: 3.1.0
info:
  title: Shop
  version: 1.0.0
servers:
  - url: https://shop.example.com/v1
paths:
  /orders:
    $ref: "#/components/pathItems/Orders"
  /health:
    get:
      responses:
        "204":
          description: Up.
webhooks:
  orderShipped:
    post:
      operationId: orderShipped
      requestBody:
        content:
          application/json:
            schema: { type: object }
      responses:
        "204":
          description: Received.
components:
  pathItems:
    Orders:
      get:
        operationId: listOrders
        responses:
          "200":
            description: The orders.
            content:
              application/json:
                schema: { type: array, items: { type: string } }
`;

  it("its operation table holds the operations of paths, through $refs, and type-checks; every operation has code samples", async () => {
    const file = path.join(copy, "shop.yaml");
    writeFileSync(file, SHOP);
    const added = await again("add-api", ["shop", file]);
    expect(added.code, added.output).toBe(0);
    const table = readFileSync(path.join(copy, "generated", "shop", "operations.ts"), "utf8");
    expect(table).toContain('"listOrders": { method: "get", path: "/orders"');
    expect(table).not.toContain('"orderShipped":');
    const tsc = await run(process.execPath, ["node_modules/typescript-native/bin/tsc", "--noEmit"], { cwd: copy, timeoutMs: 120_000 });
    expect(tsc.code, tsc.output).toBe(0);
    const docs = await again("docs", ["shop"]);
    expect(docs.code, docs.output).toBe(0);
    const page = readFileSync(path.join(copy, "dist", "docs", "shop.html"), "utf8");
    expect(page).toContain("curl 'https://shop.example.com/v1/health'");
    expect(page).toContain("curl 'https://shop.example.com/v1/orders'");
  });
});

describe("npm run add-api -- <name> <URL>", { timeout: 120_000 }, () => {
  it("reads the description from an http(s) URL", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/museum/openapi.yaml") res.writeHead(200, { "Content-Type": "application/yaml" }).end(readFileSync(FIXTURE));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/museum/openapi.yaml`;
      const result = await again("add-api", ["museum-web", url, "--version", "v2"]);
      expect(result.code, result.output).toBe(0);
      expect(readFileSync(path.join(copy, "redocly.yaml"), "utf8")).toContain("  museum-web@v2:\n    root: openapi/museum-web/openapi.yaml\n");
      expect(existsSync(path.join(copy, "generated", "museum-web", "client.ts"))).toBe(true);
      const gone = await again("add-api", ["museum-gone", url.replace("openapi.yaml", "nothing.yaml")]);
      expect(gone.code).toBe(2);
      expect(gone.stderr).toContain("Redocly could not read");
    } finally {
      server.close();
    }
  });
});

describe("every tool on the added API", { timeout: 120_000 }, () => {
  it("lint", async () => {
    const lint = await npm("lint:descriptions", ["museum"]);
    expect(lint.code, lint.output).toBe(0);
    expect(lint.stdout.trim()).toBe("museum: 0 errors, 0 warnings");
  });

  it("docs: its page and its entry in the index", async () => {
    const docs = await npm("docs", ["museum"]);
    expect(docs.code, docs.output).toBe(0);
    expect(docs.stdout).toContain("dist/docs/museum.html: Redocly Museum API, 8 operations");
    const index = readFileSync(path.join(copy, "dist", "docs", "index.html"), "utf8");
    expect(index).toContain('<a href="museum.html">Redocly Museum API</a>');
    expect(index).toContain("<code>https://redocly.com/_mock/docs/openapi/museum-api</code> (from the description)");
  });

  it("the mock: a Ready line, examples for good requests, the documented envelope for bad ones", async () => {
    expect(mock!.output()).toContain(`Ready: museum ${mockUrl} (Ctrl-C stops)`);
    const good = await fetch(`${mockUrl}/museum-hours`, { headers: AUTH });
    expect(good.status).toBe(200);
    expect(Array.isArray(await good.json())).toBe(true);
    const bad = await fetch(`${mockUrl}/museum-hours?startDate=yesterday`, { headers: AUTH });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
    expect(await bad.json()).toEqual({ type: "object", title: 'query parameter "startDate" must match format "date"' });
    const anonymous = await fetch(`${mockUrl}/museum-hours`);
    expect(anonymous.status).toBe(401);
  });

  it("validate: traffic recorded against the mock follows the description; a broken exchange is named", async () => {
    const recorder = harRecorder();
    await recorder.fetch(`${mockUrl}/museum-hours`, { headers: AUTH });
    await recorder.fetch(`${mockUrl}/special-events`, { headers: AUTH });
    const har = recorder.har();
    const file = path.join(copy, "traffic.har");
    writeFileSync(file, JSON.stringify(har));
    // The mock serves the paths without the server's base path: matched by their templates alone.
    const ok = await npm("validate", ["museum", file]);
    expect(ok.code, ok.output).toBe(0);
    expect(ok.stdout).toContain("museum: 2 entries checked against generated/museum/openapi.json: no violations");

    har.log.entries[0]!.response.content.text = JSON.stringify([{ date: "not a date", timeOpen: "09:00", timeClose: "18:00" }]);
    writeFileSync(file, JSON.stringify(har));
    const broken = await again("validate", ["museum", file]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("getMuseumHours /response/body/0/date");
  });

  it("proxy --record in front of the mock, read back by validate", async () => {
    const port = await freePort();
    const file = path.join(copy, "proxied.har");
    const proxy = await start("npm", ["run", "-s", "proxy", "--", "museum", mockUrl, "--port", String(port), "--record", file], { cwd: copy, ready: /validating proxy on/ });
    try {
      // The proxy serves the API's base path (its first server's path) in front of the mock.
      const base = `http://127.0.0.1:${port}/_mock/docs/openapi/museum-api`;
      expect((await fetch(`${base}/museum-hours`, { headers: AUTH })).status).toBe(200);
      expect((await fetch(`${base}/special-events?limit=nope`, { headers: AUTH })).status).toBe(400);
      await until(() => existsSync(file) && JSON.parse(readFileSync(file, "utf8")).log.entries.length === 2);
    } finally {
      await proxy.stop();
    }
    const validate = await again("validate", ["museum", file]);
    expect(validate.stdout).toContain("museum: 2 entries checked against generated/museum/openapi.json");
    // The refused request is the client's fault, and the mock's answer is documented: no violation in the answer.
    expect(validate.stdout).toMatch(/listSpecialEvents \/request\/query\/limit/);
    expect(validate.code).toBe(1);
  });

  it("conformance against a URL (the mock): the property check and its workflow", async () => {
    writeFileSync(
      path.join(copy, "workflows", "museum-hours.arazzo.yaml"),
      YAML.stringify({
        arazzo: "1.0.1",
        info: { title: "Museum hours", version: "1.0.0" },
        sourceDescriptions: [{ name: "museum", url: "../generated/museum/openapi.json", type: "openapi" }],
        workflows: [
          {
            workflowId: "readHours",
            steps: [{ stepId: "hours", operationId: "getMuseumHours", parameters: [{ in: "header", name: "Authorization", value: "Basic Og==" }], successCriteria: [{ condition: "$statusCode == 200" }] }],
          },
        ],
      }),
    );
    const conformance = await npm("conformance", ["museum", mockUrl, "--runs", "2", "--seed", "7", "--header", "Authorization: Basic Og=="]);
    expect(conformance.code, conformance.output).toBe(0);
    expect(conformance.stdout).toContain("contract properties: 13 of 13 hold");
    expect(conformance.stdout).toContain("✓ workflows/museum-hours.arazzo.yaml readHours");
    expect(conformance.stdout).toContain("conformance: passed");
  });

  it("workflows: its Arazzo file runs against its mock (it has no reference server here)", async () => {
    const workflows = await npm("workflows", ["workflows/museum-hours.arazzo.yaml"]);
    expect(workflows.code, workflows.output).toBe(0);
    expect(workflows.stdout).toContain("workflows: all passed: 1 file(s), 1 recorded exchanges checked against the descriptions");
  });

  it("diff: a removed operation is a breaking change that needs a major version", async () => {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: copy, stdio: "pipe" });
    git("init", "-q");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A");
    git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "museum added");
    const file = path.join(copy, "openapi", "museum", "openapi.yaml");
    const doc = YAML.parse(readFileSync(file, "utf8"));
    delete doc.paths["/museum-hours"];
    writeFileSync(file, YAML.stringify(doc));
    const diff = await npm("diff", ["HEAD"]);
    expect(diff.code, diff.output).toBe(1);
    expect(diff.stdout).toContain("museum 1.2.1: 1 breaking, 0 other");
    expect(diff.stdout).toContain("BREAKING operation-removed  GET /museum-hours (getMuseumHours)");
    expect(diff.stdout).toMatch(/^mesh \d+\.\d+\.\d+: no changes$/m);
  });
});
