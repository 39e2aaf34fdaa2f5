// The validating proxy (npm run proxy): forwards to a real implementation unchanged and reports
// every request and response that breaks the description, as it happens.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatExchange, HarFileWriter, startValidatingProxy, type Exchange } from "../../scripts/contract/proxy.ts";
import { REFERENCE_SERVERS, type RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { validateHar, type Har, type HarEntry } from "../../scripts/contract/har.ts";
import { freePort, run, start } from "../helpers/run.ts";
import { fill, mountTmpfs } from "../helpers/tmpfs.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

const mesh = REFERENCE_SERVERS.find((s) => s.api === "mesh")!;
let server: RunningReferenceServer;
let broken: Server;
const proxies: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await mesh.start();
  // An implementation that breaks the description: a chain that is a number, an undocumented status.
  broken = createServer((req, res) => {
    if (req.url?.startsWith("/v1/discovery-chain/")) res.writeHead(200, { "Content-Type": "application/json" }).end('{"Chain": 5}');
    else res.writeHead(418, { "Content-Type": "text/plain" }).end("teapot");
  });
  await new Promise<void>((r) => broken.listen(0, "127.0.0.1", r));
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await server?.close();
  broken?.close();
});

async function proxyTo(upstream: string) {
  const seen: Exchange[] = [];
  const proxy = await startValidatingProxy({ doc: loadBundle("mesh") as OpenApiDoc, basePath: "/v1", upstream, onExchange: (e) => seen.push(e) });
  proxies.push(proxy);
  return { url: proxy.url, seen };
}

describe("validating proxy", () => {
  it("forwards to the implementation unchanged and reports nothing for a conforming exchange", async () => {
    const { url, seen } = await proxyTo(server.baseUrl);
    const response = await fetch(`${url}/config`, { method: "PUT", headers: { ...mesh.headers, "Content-Type": "application/json" }, body: '{"Kind":"service-defaults","Name":"web","Protocol":"http"}' });
    expect(response.status).toBe(200);
    expect(await response.json()).toBe(true);
    const chain = await fetch(`${url}/discovery-chain/web`, { headers: mesh.headers });
    expect((await chain.json()).Chain.Protocol).toBe("http");
    expect(chain.headers.get("x-mesh-index")).toMatch(/^\d+$/);
    expect(seen.map((e) => [e.method, e.url, e.status, e.violations])).toEqual([
      ["PUT", "/v1/config", 200, []],
      ["GET", "/v1/discovery-chain/web", 200, []],
    ]);
  });

  it("reports a request that breaks the description, with the implementation's answer", async () => {
    const { url, seen } = await proxyTo(server.baseUrl);
    const response = await fetch(`${url}/config?bogus=1`, { method: "PUT", headers: { ...mesh.headers, "Content-Type": "application/json" }, body: '{"Kind":"service-defaults","Name":"web","Protocol":["http"]}' });
    expect(response.status).toBe(400);
    const [exchange] = seen;
    expect(exchange!.violations.map((v) => [v.kind, v.pointer])).toEqual([
      ["request-parameter", "/request/query/bogus"],
      ["request-body", "/request/body/Protocol"],
    ]);
    expect(formatExchange(exchange!)[0]).toMatch(/^✖ PUT \/v1\/config\?bogus=1 → 400 \(\d+ ms\)$/);
  });

  it("reports a response that breaks the description, and passes it on as it was", async () => {
    const { url, seen } = await proxyTo(`http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1`);
    const chain = await fetch(`${url}/discovery-chain/web`);
    expect(await chain.text()).toBe('{"Chain": 5}');
    const other = await fetch(`${url}/agent/self`);
    expect(other.status).toBe(418);
    expect(seen[0]!.violations.map((v) => [v.kind, v.pointer])).toEqual([["response-body", "/response/body/Chain"]]);
    expect(seen[1]!.violations.map((v) => v.kind)).toEqual(["response-status"]);
  });

  it("answers 502 when the implementation cannot be reached", async () => {
    const { url, seen } = await proxyTo("http://127.0.0.1:1/v1");
    expect((await fetch(`${url}/discovery-chain/web`)).status).toBe(502);
    expect(seen[0]!.status).toBe(502);
  });
});

describe("validating proxy: answers passed on as they come", () => {
  /** An implementation whose chain answer is written by `answer`, which the test drives. */
  async function upstreamWith(answer: (res: import("node:http").ServerResponse) => void) {
    const requests: import("node:http").IncomingMessage[] = [];
    const upstream = createServer((req, res) => {
      requests.push(req);
      answer(res);
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    proxies.push({ close: () => new Promise((r) => (upstream.closeAllConnections(), upstream.close(() => r()))) });
    return { ...(await proxyTo(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`)), requests };
  }

  it("passes each part of an answer on before the next is written (a stream of events)", async () => {
    let more: () => void = () => undefined;
    const { url, seen } = await upstreamWith((res) => {
      res.writeHead(200, { "Content-Type": "application/json" }).write('{"Chain":');
      more = () => res.end("5}");
    });
    const response = await fetch(`${url}/discovery-chain/web`);
    const reader = response.body!.getReader();
    // The first part arrives while the implementation still holds the rest.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"Chain":');
    expect(seen).toEqual([]);
    more();
    let rest = "";
    for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
    expect(rest).toBe("5}");
    await until(() => seen.length === 1);
    expect(seen[0]!.violations.map((v) => v.pointer)).toEqual(["/response/body/Chain"]);
  });

  it("passes an answer over 16 MiB on whole, unchecked and not kept, and still checks its status and media type", async () => {
    const big = `{"Chain":{"ServiceName":"${"x".repeat(17 << 20)}"}}`;
    const { url, seen } = await upstreamWith((res) => res.writeHead(200, { "Content-Type": "text/plain" }).end(big));
    const response = await fetch(`${url}/discovery-chain/web`);
    expect(await response.text()).toBe(big);
    await until(() => seen.length === 1);
    const [exchange] = seen;
    expect(exchange!.note).toBe("the body passed through unchecked: it is longer than the 16 MiB the proxy checks");
    expect(exchange!.violations.map((v) => v.kind)).toEqual(["response-content-type"]);
    expect(exchange!.entry.response.content).toEqual({ size: big.length, mimeType: "text/plain", comment: exchange!.note });
    expect(exchange!.entry.response.bodySize).toBe(big.length);
    expect(formatExchange(exchange!)[1]).toBe(`    (${exchange!.note})`);
  });

  it("cuts the client's answer where the implementation cut it, and says so", async () => {
    const { url, seen } = await upstreamWith((res) => {
      res.writeHead(200, { "Content-Type": "application/json" }).write('{"Chain":');
      setTimeout(() => res.destroy(), 50);
    });
    const response = await fetch(`${url}/discovery-chain/web`);
    await expect(response.text()).rejects.toThrow();
    await until(() => seen.length === 1);
    expect(seen[0]!.note).toMatch(/^the body was not checked: the upstream cut the answer \(.+\) after 9 bytes$/);
    expect(seen[0]!.violations).toEqual([]);
  });

  it("stops waiting for the implementation when the client goes away", async () => {
    const { url, seen, requests } = await upstreamWith((res) => res.writeHead(200, { "Content-Type": "application/json" }).write('{"Chain":'));
    const client = new AbortController();
    const response = await fetch(`${url}/discovery-chain/web`, { signal: client.signal });
    await response.body!.getReader().read();
    client.abort();
    // The proxy's request to the implementation is given up: its connection closes.
    await until(() => requests[0]?.socket.destroyed === true);
    await until(() => seen.length === 1);
    expect(seen[0]!.note).toBe("the body was not checked: the client went away after 9 bytes");
  });
});

/** Waits (up to 5 s) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() - started > 5_000) throw new Error("waited 5 s in vain");
  }
}

/** A recorded exchange, as the proxy writes one. */
const ENTRY: HarEntry = {
  startedDateTime: "2026-11-26T00:00:00.000Z",
  time: 1,
  request: { method: "GET", url: "http://127.0.0.1:1/v1/things", httpVersion: "HTTP/1.1", headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
  response: { status: 200, statusText: "OK", httpVersion: "HTTP/1.1", headers: [], cookies: [], content: { size: 2, mimeType: "application/json", text: "{}" }, redirectURL: "", headersSize: -1, bodySize: 2 },
  cache: {},
  timings: { send: 0, wait: 1, receive: 0 },
};

// What `npm run proxy` and `npm run validate` run (package.json: node scripts/run.mjs <script>): npm
// would only add its own start-up.
describe("npm run proxy -- --record FILE.har", { timeout: 90_000 }, () => {
  it("writes what passed through, as the client saw it, in a form validate reads back", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "proxy-record-"));
    const file = path.join(dir, "recorded.har");
    const port = await freePort();
    const proxy = await start(process.execPath, ["scripts/run.mjs", "scripts/proxy.ts", "mesh", server.baseUrl, "--port", String(port), "--record", file], { cwd: root, ready: /validating proxy on/ });
    try {
      const base = `http://127.0.0.1:${port}/v1`;
      expect((await fetch(`${base}/discovery-chain/web`, { headers: { "X-Mesh-Token": "contract-tests-management-token" } })).status).toBe(200);
      const put = await fetch(`${base}/config`, { method: "PUT", headers: { "Content-Type": "application/json", "X-Mesh-Token": "contract-tests-management-token" }, body: JSON.stringify({ Kind: "service-defaults", Name: "web", Protocol: ["http"] }) });
      expect(put.status).toBe(400);
      // Kept up to date as exchanges come (each just after its answer went out): readable before the
      // proxy stops, a whole HAR document between two entries (read again if caught in the middle of one).
      const read = (): Har => {
        try {
          return JSON.parse(readFileSync(file, "utf8")) as Har;
        } catch {
          return { log: { version: "1.2", creator: { name: "", version: "" }, entries: [] } };
        }
      };
      for (let i = 0; i < 50 && read().log.entries.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      const har = read();
      expect(har.log.entries.map((e) => [e.request.method, e.request.url, e.response.status])).toEqual([
        ["GET", `${base}/discovery-chain/web`, 200],
        ["PUT", `${base}/config`, 400],
      ]);
      expect(har.log.entries[1]!.request.postData?.text).toContain('"Protocol":["http"]');
      expect(JSON.parse(har.log.entries[0]!.response.content.text!).Chain.ServiceName).toBe("web");
      // The proxy saw the bad PUT; validate, reading the file back, sees it too.
      const report = validateHar(loadBundle("mesh") as OpenApiDoc, har, {});
      expect(report.checked).toBe(2);
      expect(report.violations.map((v) => v.pointer)).toEqual(["/request/body/Protocol"]);
      const validate = await run(process.execPath, ["scripts/run.mjs", "scripts/validate-har.ts", "mesh", file], { cwd: root });
      expect(validate.code).toBe(1);
      expect(validate.stdout).toContain("mesh: 2 entries checked against generated/mesh/openapi.json: 1 violation(s) in 1 entries");
    } finally {
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(proxy.output()).toContain(`2 exchange(s), 1 breaking the description; recorded in ${file}`);
  });

  it("writes each entry in place of the closing brackets: a whole HAR document after each, at the cost of the entry alone", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "proxy-record-"));
    const file = path.join(dir, "deeper", "recorded.har");
    try {
      const writer = new HarFileWriter(file);
      const entries = () => (JSON.parse(readFileSync(file, "utf8")) as Har).log.entries;
      expect(entries()).toEqual([]);
      const entry = (n: number) => ({ ...ENTRY, request: { ...ENTRY.request, url: `http://127.0.0.1:1/v1/things/${n}` } });
      writer.append(entry(0));
      expect(entries()).toEqual([entry(0)]);
      // 2,000 entries of 16 KB: 32 MB written once. Written whole again for each, as it once was, that
      // was 32 GB (the test's time limit long passed).
      const big = (n: number) => ({ ...entry(n), response: { ...ENTRY.response, content: { size: 16_384, mimeType: "text/plain", text: "x".repeat(16_384) } } });
      for (let n = 1; n <= 2_000; n++) writer.append(big(n));
      writer.close();
      const all = entries();
      expect(all.length).toBe(2_001);
      expect(all[2_000]).toEqual(big(2_000));
      expect((JSON.parse(readFileSync(file, "utf8")) as Har).log.creator).toEqual({ name: "contract-toolkit proxy", version: "1" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops recording when the file system is full, says so once, and goes on proxying; the file holds the exchanges before", async () => {
    const disk = mountTmpfs("1m");
    const file = path.join(disk.dir, "recorded.har");
    const port = await freePort();
    const proxy = await start(process.execPath, ["scripts/run.mjs", "scripts/proxy.ts", "mesh", server.baseUrl, "--port", String(port), "--record", file], { cwd: root, ready: /validating proxy on/ });
    try {
      const chain = () => fetch(`http://127.0.0.1:${port}/v1/discovery-chain/web`, { headers: { "X-Mesh-Token": "contract-tests-management-token" } });
      expect((await chain()).status).toBe(200);
      const entries = () => (JSON.parse(readFileSync(file, "utf8")) as Har).log.entries.length;
      for (let i = 0; i < 50 && entries() < 1; i++) await new Promise((r) => setTimeout(r, 20));
      fill(disk.dir);
      for (let n = 0; n < 3; n++) expect((await chain()).status).toBe(200);
      for (let i = 0; i < 50 && !proxy.output().includes("recording stopped"); i++) await new Promise((r) => setTimeout(r, 20));
      expect(proxy.output().match(/recording stopped/g)).toHaveLength(1);
      expect(proxy.output()).toContain(`proxy: --record ${file}: `);
      // Closed again after the entry it had: a whole HAR document.
      expect(entries()).toBe(1);
    } finally {
      await proxy.stop();
      disk.unmount();
    }
  });

  it("says so when the file cannot be written", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "proxy-record-"));
    // A folder that is a file.
    const file = path.join(dir, "a-file", "x.har");
    writeFileSync(path.join(dir, "a-file"), "");
    try {
      const result = await run(process.execPath, ["scripts/run.mjs", "scripts/proxy.ts", "mesh", "http://127.0.0.1:1/v1", "--port", "0", "--record", file], { cwd: root });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`proxy: --record ${file}:`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
