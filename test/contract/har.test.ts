// Traffic validation: real traffic recorded as HAR from the mesh reference server through the
// generated client (every operation, successes and errors) validates clean; hand-broken copies,
// one per kind of violation, are each found with the operation, the pointer and the reason.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMeshClient } from "../../generated/mesh/client.ts";
import { contractChecker } from "../../scripts/contract/checker.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { harProblems, harRecorder, validateHar, type Har, type HarEntry } from "../../scripts/contract/har.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { withFormBody } from "../fixtures/form-body.ts";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const bundle = loadBundle("mesh") as OpenApiDoc;
const ROOT_TOKEN = "root-secret";
let mesh: RunningMesh;
let har: Har;
let scratch: string;

/** Drives every mesh operation, answers 200 and 4xx alike, through a recording fetch. */
async function recordTraffic(baseUrl: string): Promise<Har> {
  const recorder = harRecorder();
  const admin = createMeshClient({ baseUrl, fetch: recorder.fetch, headers: { "X-Mesh-Token": ROOT_TOKEN } });
  const anonymous = createMeshClient({ baseUrl, fetch: recorder.fetch });
  const web = { params: { path: { service_name: "web" } } };

  await admin.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
  await admin.PUT("/config", { body: { Kind: "service-resolver", Name: "web", ConnectTimeout: "15s", Subsets: { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } } } });
  await admin.PUT("/config", { body: { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 90, ServiceSubset: "v1" }, { Weight: 10, ServiceSubset: "v2" }] } });
  await admin.PUT("/config", { body: { Kind: "service-splitter", Name: "web", Splits: [{ Weight: 50 }] } }); // 500: weights (a rule)
  await admin.GET("/config/{kind}", { params: { path: { kind: "service-splitter" }, query: { index: 1, wait: "soon" } } }); // 400: Invalid wait time
  await admin.GET("/config/{kind}", { params: { path: { kind: "service-splitter" } } });
  const { response: read } = await admin.GET("/config/{kind}/{name}", { params: { path: { kind: "service-resolver", name: "web" } } });
  await admin.GET("/config/{kind}/{name}", { params: { path: { kind: "service-router", name: "web" } } }); // 404
  await admin.GET("/discovery-chain/{service_name}", web);
  await admin.GET("/discovery-chain/{service_name}", { params: { ...web.params, query: { index: Number(read.headers.get("X-Mesh-Index")) - 1, "compile-dc": "dc2" } } });
  await admin.POST("/discovery-chain/{service_name}", { ...web, body: { OverrideProtocol: "tcp", OverrideConnectTimeout: "2s" } });
  await anonymous.GET("/discovery-chain/{service_name}", web); // 403
  await admin.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-splitter", name: "web" }, query: { cas: 1 } } });

  const { data: policy } = await admin.PUT("/acl/policy", { body: { Name: "web-reader", Rules: 'service "web" { policy = "read" }' } });
  await admin.GET("/acl/policy/{id}", { params: { path: { id: policy!.ID } } });
  const { data: role } = await admin.PUT("/acl/role", { body: { Name: "readers", Policies: [{ Name: "web-reader" }] } });
  await admin.GET("/acl/role/{id}", { params: { path: { id: role!.ID } } });
  const { data: token } = await admin.PUT("/acl/token", { body: { Roles: [{ ID: role!.ID }], ExpirationTTL: "1h" } });
  await admin.GET("/acl/token/{accessor_id}", { params: { path: { accessor_id: token!.AccessorID } } });
  await admin.GET("/acl/policies");
  await admin.GET("/acl/policy/name/{name}", { params: { path: { name: "web-reader" } } });
  await admin.PUT("/acl/policy/{id}", { params: { path: { id: policy!.ID } }, body: { Name: "web-reader", Rules: 'service "web" { policy = "write" }' } });
  await admin.PUT("/acl/policy/{id}", { params: { path: { id: "not-a-uuid" } }, body: { Name: "ghost" } }); // 500: Policy ID invalid UUID
  await admin.GET("/acl/roles");
  await admin.GET("/acl/role/name/{name}", { params: { path: { name: "readers" } } });
  await admin.PUT("/acl/role/{id}", { params: { path: { id: role!.ID } }, body: { Name: "readers", ServiceIdentities: [{ ServiceName: "api" }] } });
  await admin.GET("/acl/tokens");
  await admin.GET("/acl/token/self");
  await admin.PUT("/acl/token/{accessor_id}", { params: { path: { accessor_id: token!.AccessorID } }, body: { Description: "updated", Roles: [{ ID: role!.ID }] } });
  const { data: copy } = await admin.PUT("/acl/token/{accessor_id}/clone", { params: { path: { accessor_id: token!.AccessorID } }, body: { Description: "copy" } });
  await admin.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: copy!.AccessorID } } });
  await admin.DELETE("/acl/token/{accessor_id}", { params: { path: { accessor_id: token!.AccessorID } } });
  await admin.DELETE("/acl/role/{id}", { params: { path: { id: role!.ID } } });
  await admin.DELETE("/acl/policy/{id}", { params: { path: { id: policy!.ID } } });
  await admin.GET("/acl/policy/{id}", { params: { path: { id: policy!.ID } } }); // 403 ACL not found
  await admin.GET("/acl/role/{id}", { params: { path: { id: role!.ID } } }); // 404, no body

  const { data: legacy } = await admin.PUT("/acl/create", { body: { Name: "legacy", Type: "client", Rules: "" } });
  await admin.GET("/acl/info/{id}", { params: { path: { id: legacy!.ID } } });
  await admin.PUT("/acl/update", { body: { ID: legacy!.ID, Name: "legacy writer", Type: "client", Rules: 'service "web" { policy = "write" }' } });
  const { data: legacyCopy } = await admin.PUT("/acl/clone/{id}", { params: { path: { id: legacy!.ID } } });
  await admin.GET("/acl/list");
  await admin.PUT("/acl/destroy/{id}", { params: { path: { id: legacyCopy!.ID } } });
  await admin.PUT("/acl/destroy/{id}", { params: { path: { id: legacy!.ID } } });
  await admin.GET("/agent/self");
  return recorder.har();
}

beforeAll(async () => {
  mesh = await startMesh({ managementToken: ROOT_TOKEN, version: "1.10.0" });
  har = await recordTraffic(mesh.baseUrl);
  scratch = mkdtempSync(path.join(tmpdir(), "har-"));
});
afterAll(async () => {
  await mesh?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A copy of the recorded HAR with one entry changed. */
function broken(find: (e: HarEntry) => boolean, change: (e: HarEntry) => void): Har {
  const copy = structuredClone(har);
  const entry = copy.log.entries.find(find);
  expect(entry, "the recorded traffic has the entry to break").toBeDefined();
  change(entry!);
  return copy;
}

const is = (method: string, pathEnd: string, status?: number) => (e: HarEntry) =>
  e.request.method === method && new URL(e.request.url).pathname.endsWith(pathEnd) && (status === undefined || e.response.status === status);
const header = (headers: { name: string; value: string }[], name: string) => headers.find((h) => h.name.toLowerCase() === name)!;

describe("recorded traffic", () => {
  it("covers every operation of the description, successes and refusals", () => {
    const checker = contractChecker(bundle);
    const called = new Set(har.log.entries.map((e) => checker.match(e.request.method, new URL(e.request.url).pathname.slice("/v1".length))?.operation.operationId));
    expect([...called].sort()).toEqual(checker.operations.map((o) => o.operationId).sort());
    const statuses = new Set(har.log.entries.map((e) => e.response.status));
    expect([...statuses].sort()).toEqual([200, 400, 403, 404, 500]);
    expect(har.log.entries.every((e) => e.request.url.startsWith(mesh.baseUrl))).toBe(true);
  });

  it("validates clean against the description", () => {
    const report = validateHar(bundle, har, { basePath: "/v1" });
    expect(report.violations).toEqual([]);
    expect(report).toMatchObject({ checked: har.log.entries.length, skipped: 0 });
  });

  it("skips entries outside the base path", () => {
    const other = structuredClone(har);
    other.log.entries.push({ ...structuredClone(har.log.entries[0]!), request: { ...har.log.entries[0]!.request, url: "http://127.0.0.1:1/elsewhere/config" } });
    expect(validateHar(bundle, other, { basePath: "/v1" })).toMatchObject({ checked: har.log.entries.length, skipped: 1, violations: [] });
  });
});

describe("hand-broken traffic, one violation of each kind", () => {
  const cases: { name: string; har: () => Har; expected: { kind: string; operationId?: string; pointer: string; reason: RegExp } }[] = [
    {
      name: "undocumented path/method",
      har: () => broken(is("GET", "/agent/self"), (e) => (e.request.url = e.request.url.replace("/agent/self", "/agent/members"))),
      expected: { kind: "undocumented-operation", pointer: "/request", reason: /no operation is documented for GET \/agent\/members/ },
    },
    {
      name: "request parameter of the wrong type",
      har: () => broken(is("DELETE", "/config/service-splitter/web"), (e) => (e.request.url = e.request.url.replace("cas=1", "cas=first"))),
      expected: { kind: "request-parameter", operationId: "deleteConfigEntry", pointer: "/request/query/cas", reason: /must be integer/ },
    },
    {
      // (The configuration-entry kind in the path, the mesh's only enum parameter, is any text since
      // description 3.2.0: the service answers an unknown kind itself.)
      name: "request parameter outside its pattern",
      har: () => broken(is("GET", "/config/service-splitter", 200), (e) => (e.request.url += `${e.request.url.includes("?") ? "&" : "?"}ns=team_a`)),
      expected: { kind: "request-parameter", operationId: "listConfigEntries", pointer: "/request/query/ns", reason: /must match pattern/ },
    },
    {
      name: "invalid request body",
      har: () =>
        broken(
          (e) => is("PUT", "/config", 200)(e) && e.request.postData!.text!.includes("service-splitter"),
          (e) => (e.request.postData!.text = e.request.postData!.text!.replace('"Weight":90', '"Weight":[90]')),
        ),
      expected: { kind: "request-body", operationId: "applyConfigEntry", pointer: "/request/body/Splits/0/Weight", reason: /must be/ },
    },
    {
      name: "undocumented response status",
      har: () => broken(is("GET", "/agent/self"), (e) => (e.response.status = 404)),
      expected: { kind: "response-status", operationId: "readAgentSelf", pointer: "/response/status", reason: /status 404 is not documented \(documented: 200, 400, 403, 413, 431, 500, 503\)/ },
    },
    {
      name: "undocumented response content type",
      har: () =>
        broken(is("GET", "/config/service-router/web", 404), (e) => {
          header(e.response.headers, "content-type").value = "text/html; charset=utf-8";
          e.response.content.mimeType = "text/html";
        }),
      expected: { kind: "response-content-type", operationId: "readConfigEntry", pointer: "/response/headers/content-type", reason: /content type text\/html is not documented \(documented: text\/plain\)/ },
    },
    {
      name: "invalid response body",
      har: () =>
        broken(
          (e) => is("GET", "/discovery-chain/web", 200)(e) && e.request.method === "GET",
          (e) => {
            const body = JSON.parse(e.response.content.text!);
            delete body.Chain.StartNode;
            e.response.content.text = JSON.stringify(body);
          },
        ),
      expected: { kind: "response-body", operationId: "readDiscoveryChain", pointer: "/response/body/Chain/StartNode", reason: /is required/ },
    },
    {
      name: "invalid response header",
      har: () => broken(is("GET", "/config/service-splitter", 200), (e) => (header(e.response.headers, "x-mesh-index").value = "latest")),
      expected: { kind: "response-header", operationId: "listConfigEntries", pointer: "/response/headers/X-Mesh-Index", reason: /must match pattern/ },
    },
  ];

  for (const c of cases) {
    it(`finds ${c.name}`, () => {
      const { violations } = validateHar(bundle, c.har(), { basePath: "/v1" });
      expect(violations).toHaveLength(1);
      expect(violations[0]).toMatchObject({ kind: c.expected.kind, pointer: c.expected.pointer, ...(c.expected.operationId ? { operationId: c.expected.operationId } : {}) });
      expect(violations[0]!.reason).toMatch(c.expected.reason);
    });
  }

  it("reads base64-encoded response bodies as recorders write them", () => {
    const encoded = broken(is("GET", "/agent/self"), (e) => {
      e.response.content.text = Buffer.from(e.response.content.text!).toString("base64");
      e.response.content.encoding = "base64";
    });
    expect(validateHar(bundle, encoded, { basePath: "/v1" }).violations).toEqual([]);
  });

  it("checks the status and media type of a response whose body was not recorded (no text, a size), not its value", () => {
    const notRecorded = (mimeType: string) =>
      broken(is("GET", "/discovery-chain/web", 200), (e) => {
        delete e.response.content.text;
        e.response.content.comment = "not recorded";
        header(e.response.headers, "content-type").value = e.response.content.mimeType = mimeType;
      });
    expect(validateHar(bundle, notRecorded("application/json"), { basePath: "/v1" }).violations).toEqual([]);
    expect(validateHar(bundle, notRecorded("text/html"), { basePath: "/v1" }).violations.map((v) => v.kind)).toEqual(["response-content-type"]);
    // No text and no size: an empty body, which is no JSON.
    const empty = broken(is("GET", "/discovery-chain/web", 200), (e) => {
      delete e.response.content.text;
      e.response.content.size = 0;
    });
    expect(validateHar(bundle, empty, { basePath: "/v1" }).violations.map((v) => v.reason)).toEqual(["body is not valid JSON: Unexpected end of JSON input"]);
  });
});

describe("npm run validate", () => {
  const run = (...args: string[]) =>
    // What `npm run validate` runs (package.json: node scripts/run.mjs scripts/validate-har.ts).
    spawnSync(process.execPath, [path.join(root, "scripts", "run.mjs"), path.join(root, "scripts", "validate-har.ts"), ...args], { cwd: root, encoding: "utf8" });

  it("exits 0 on clean traffic and 1 with one line per violation on broken traffic", () => {
    const clean = path.join(scratch, "clean.har");
    const bad = path.join(scratch, "broken.har");
    writeFileSync(clean, JSON.stringify(har));
    writeFileSync(bad, JSON.stringify(broken(is("GET", "/agent/self"), (e) => (e.response.status = 418))));

    const ok = run("mesh", clean);
    expect(ok.stdout).toContain(`mesh: ${har.log.entries.length} entries checked against generated/mesh/openapi.json: no violations`);
    expect(ok.status).toBe(0);

    const failed = run("mesh", bad);
    const index = har.log.entries.findIndex(is("GET", "/agent/self"));
    expect(failed.stdout).toContain(
      `entry ${index} (GET ${mesh.baseUrl}/agent/self -> 418): readAgentSelf /response/status: status 418 is not documented (documented: 200, 400, 403, 413, 431, 500, 503) [response-status]`,
    );
    expect(failed.stdout).toContain("1 violation(s) in 1 entries");
    expect(failed.status).toBe(1);
  });

  it("exits 2 when nothing is under the base path", () => {
    const clean = path.join(scratch, "clean.har");
    writeFileSync(clean, JSON.stringify(har));
    const result = run("mesh", clean, "--base-path", "/api/v2");
    expect(result.stderr).toContain("is an exchange of mesh (outside /api/v2: PUT /v1/config, ");
    expect(result.stderr).toContain("wrong API or --base-path?");
    expect(result.status).toBe(2);
    // Another API's traffic: none of it matches a mesh path template.
    const secrets = structuredClone(har);
    for (const e of secrets.log.entries) e.request.url = e.request.url.replace(/\/v1\/.*$/, "/v1/sys/rekey/init");
    writeFileSync(clean, JSON.stringify(secrets));
    const other = run("mesh", clean);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain("(matching no operation of the description: PUT /v1/sys/rekey/init, GET /v1/sys/rekey/init");
  });
});

describe("a file that is not a HAR file validate can read", () => {
  it("is refused with the reasons, each at its JSON pointer", () => {
    expect(harProblems(har)).toEqual([]);
    expect(harProblems([1, 2])).toEqual(["/ must be object"]);
    expect(harProblems({ log: {} })).toEqual(["/log must have required property 'entries'"]);
    expect(harProblems({ log: { entries: [{ request: {} }] } })).toEqual([
      "/log/entries/0/request must have required property 'method'",
      "/log/entries/0/request must have required property 'url'",
    ]);
    const broken = structuredClone(har) as unknown as { log: { entries: Record<string, Record<string, unknown>>[] } };
    broken.log.entries[0]!.request!.url = "not a url";
    broken.log.entries[0]!.request!.headers = "oops";
    broken.log.entries[1]!.response!.status = "200";
    expect(harProblems(broken)).toEqual([
      '/log/entries/0/request/url must match format "uri"',
      "/log/entries/0/request/headers must be array",
      "/log/entries/1/response/status must be integer",
    ]);
  });

  it("makes npm run validate exit 2 saying so, not stop with a stack trace", () => {
    const file = path.join(scratch, "not-har.har");
    writeFileSync(file, JSON.stringify({ log: { entries: [{ request: { method: "GET", url: "http://127.0.0.1/v1/agent/self", headers: "oops" } }] } }));
    const result = spawnSync(process.execPath, [path.join(root, "scripts", "run.mjs"), path.join(root, "scripts", "validate-har.ts"), "mesh", file], { cwd: root, encoding: "utf8" });
    expect([result.status, result.stderr.trim()]).toEqual([2, `${file} is not a HAR 1.2 file that validate can read: /log/entries/0/request/headers must be array`]);
  });
});

describe("which entries are the API's: whole path templates", () => {
  const entryAt = (url: string, method = "GET"): HarEntry => {
    const copy = structuredClone(har.log.entries.find(is("GET", "/agent/self", 200))!);
    copy.request.url = url;
    copy.request.method = method;
    return copy;
  };
  const origin = () => new URL(mesh.baseUrl).origin;

  it("without a base path: the description's server paths, each followed by a path template", () => {
    const report = validateHar(bundle, har, {});
    expect(report).toMatchObject({ checked: har.log.entries.length, skipped: 0, violations: [] });
  });

  it("skips another API's traffic under the same /v1 and anything else, and names it", () => {
    const mixed = structuredClone(har);
    mixed.log.entries.push(entryAt(`${origin()}/v1/sys/rekey/init`), entryAt(`${origin()}/favicon.ico`), entryAt(`${origin()}/v1`));
    const report = validateHar(bundle, mixed, {});
    expect(report).toMatchObject({ checked: har.log.entries.length, skipped: 3, violations: [] });
    expect(report.unmatched).toEqual(["GET /v1/sys/rekey/init", "GET /favicon.ico", "GET /v1"]);
    // With --base-path everything under it is the API's: the prefix rule, stricter.
    const strict = validateHar(bundle, mixed, { basePath: "/v1" });
    expect(strict.violations.map((v) => v.reason)).toEqual([expect.stringMatching(/no operation is documented for GET \/sys\/rekey\/init/), expect.stringMatching(/no operation is documented for GET \//)]);
  });

  it("a documented path with an undocumented method is the API's, and a violation", () => {
    const wrong = { log: { ...har.log, entries: [entryAt(`${origin()}/v1/agent/self`, "DELETE")] } };
    const report = validateHar(bundle, wrong, {});
    expect(report.checked).toBe(1);
    expect(report.violations).toMatchObject([{ kind: "undocumented-operation" }]);
  });

  it("takes the mock's paths (no base path) and server paths with variables", () => {
    const mock = { log: { ...har.log, entries: [entryAt("http://127.0.0.1:4030/agent/self")] } };
    expect(validateHar(bundle, mock, {})).toMatchObject({ checked: 1, skipped: 0, violations: [] });
    const templated = { ...bundle, servers: [{ url: "https://{host}/gateway/{stage}/v1", variables: { host: { default: "x" }, stage: { default: "prod" } } }] };
    const gateway = { log: { ...har.log, entries: [entryAt("https://mesh.example.com/gateway/blue/v1/agent/self"), entryAt("https://mesh.example.com/gateway/v1/agent/self")] } };
    const report = validateHar(templated, gateway, {});
    expect(report).toMatchObject({ checked: 1, skipped: 1, violations: [] });
    expect(validateHar(bundle, gateway, { basePath: "/gateway/{stage}/v1" })).toMatchObject({ checked: 1, skipped: 1 });
  });
});

describe("a form body a recorder kept as posted parameters (HAR 1.2: postData.params, no text)", () => {
  const doc = withFormBody({ type: "object", required: ["grant_type"], properties: { grant_type: { type: "string", enum: ["client_credentials"] } } });
  (doc.paths!["/upload"] = {
    post: {
      requestBody: {
        required: true,
        content: { "multipart/form-data": { schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary" }, pages: { type: "integer" } } } } },
      },
      responses: { "200": { description: "ok" } },
    },
  });
  const entry = (path: string, postData: NonNullable<HarEntry["request"]["postData"]>): HarEntry => ({
    startedDateTime: "2026-11-26T00:00:00.000Z",
    time: 1,
    request: { method: "POST", url: `http://127.0.0.1:1${path}`, httpVersion: "HTTP/1.1", headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: -1, postData },
    response: { status: 200, statusText: "OK", httpVersion: "HTTP/1.1", headers: [], cookies: [], content: { size: 0, mimeType: "" }, redirectURL: "", headersSize: -1, bodySize: 0 },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
  });
  const check = (...entries: HarEntry[]) =>
    validateHar(doc, { log: { version: "1.2", creator: { name: "t", version: "1" }, entries } }, { basePath: "" }).violations.map((v) => `${v.entry} ${v.pointer}: ${v.reason}`);
  const form = "application/x-www-form-urlencoded";

  it("checks a form's parameters as the form they stand for", () => {
    expect(check(entry("/token", { mimeType: form, params: [{ name: "grant_type", value: "client_credentials" }] }))).toEqual([]);
    expect(check(entry("/token", { mimeType: form, params: [{ name: "grant_type", value: "password" }] }))).toEqual([
      '0 /request/body/grant_type: must be equal to one of the allowed values: ["client_credentials"]',
    ]);
    // No parameter: an empty form, whose required field is missing.
    expect(check(entry("/token", { mimeType: form, params: [] }))).toEqual(["0 /request/body/grant_type: is required"]);
  });

  it("checks a multipart body kept as parameters as the parts they stand for, with or without a boundary recorded", () => {
    const file = { name: "file", fileName: "a.txt", contentType: "text/plain", value: "x" };
    expect(check(entry("/upload", { mimeType: "multipart/form-data; boundary=b1", params: [file, { name: "pages", value: "3" }] }))).toEqual([]);
    expect(check(entry("/upload", { mimeType: "multipart/form-data", params: [file] }))).toEqual([]);
    expect(check(entry("/upload", { mimeType: "multipart/form-data; boundary=b1", params: [{ name: "pages", value: "three" }] }))).toEqual([
      "0 /request/body/file: is required",
      "0 /request/body/pages: must be integer",
    ]);
  });
});
