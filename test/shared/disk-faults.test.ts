// A data directory whose disk fills up, that is read-only, or whose database another process holds
// locked (issue 25), tried for real: the directory is on a size-limited tmpfs mounted for the test
// (the machine's kernel, not a mocked fs), the lock is taken by another process. A write that cannot
// be stored is answered 503 in the service's envelope, is not acknowledged and changes nothing;
// reads keep being served; writes work again once the disk does, without a restart. The start-up
// check refuses a directory it cannot write, saying what to do.
//
// Mounting needs root (or CAP_SYS_ADMIN), as the CI machines run the suite.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { meshEntry } from "../../server/mesh/entry.ts";
import { orgPlatformEntry } from "../../server/org-platform/entry.ts";
import { secretsEntry } from "../../server/secrets/entry.ts";
import type { ServiceEntry } from "../../server/shared/service-entry.ts";
import { fill, mountTmpfs as mountedTmpfs } from "../helpers/tmpfs.ts";
import { exists, MESH_MANAGEMENT_TOKEN, SERVICES, writeItem, type ServiceUnderTest } from "../helpers/three-services.ts";

const ENTRIES: Record<string, ServiceEntry> = { "org-platform": orgPlatformEntry, secrets: secretsEntry, mesh: meshEntry };

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A tmpfs of `size` mounted on a new directory, unmounted after the test. */
function mountTmpfs(size: string): string {
  const disk = mountedTmpfs(size);
  cleanups.push(() => disk.unmount());
  return disk.dir;
}

/** Remounts read-only, once the server that used it has let go of its files (a closing server lets go shortly after). */
async function remountReadOnly(dir: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      execFileSync("mount", ["-o", "remount,ro", dir], { stdio: "pipe" });
      return;
    } catch (error) {
      if (tries >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

interface Running {
  base: string;
  token: string;
  close(): Promise<void>;
}

async function start(service: ServiceUnderTest, dataDir: string): Promise<Running> {
  const running = await ENTRIES[service.name]!.start!("127.0.0.1", {
    [service.portVariable]: "0",
    [service.dataDirVariable]: dataDir,
    MESH_MANAGEMENT_TOKEN,
  } as NodeJS.ProcessEnv);
  const printed = running.summary.join("\n");
  const close = () =>
    Promise.all(
      running.servers.map((s: Server) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))),
    ).then(() => undefined);
  return { base: service.baseUrl(printed), token: service.token(printed), close };
}

/** Another process holding the database's write lock until it is told to let go. */
async function holdLock(dataDir: string): Promise<() => Promise<void>> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(path.join(dataDir, "state.db"))});
    db.exec("BEGIN EXCLUSIVE");
    process.stdout.write("locked\\n");
    process.stdin.once("data", () => { db.exec("ROLLBACK"); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  const release = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.stdin!.write("go\n");
    });
  cleanups.push(release);
  return release;
}

function expectRefusal(service: ServiceUnderTest, answer: { status: number; headers: Headers; body: string }, words: RegExp): void {
  expect(answer.status, answer.body).toBe(503);
  expect(answer.headers.get("retry-after")).toBe("1");
  expect(answer.headers.get("content-type")).toMatch(service.errorType);
  const [message] = service.messages(answer.body);
  expect(message).toMatch(/^could not store the write: /);
  expect(message).toMatch(words);
  expect(message).toMatch(/nothing was changed/);
}

describe.each(SERVICES.map((s) => [s.name, s] as const))("the %s service on a data directory", (_name, service) => {
  it("refuses a write the full disk cannot hold (503, nothing changed), serves reads, and writes again once there is room", async () => {
    const disk = mountTmpfs("4m");
    const server = await start(service, path.join(disk, "data"));
    cleanups.push(server.close);
    expect((await writeItem(service, server.base, server.token, "kept-item")).status).toBeLessThan(300);

    const filler = fill(disk);
    // SQLite may still place a write in room it holds already (its log's pages): writes go on until one is refused.
    let refused: { name: string; answer: Awaited<ReturnType<typeof writeItem>> } | undefined;
    const acknowledged: string[] = [];
    for (let i = 0; i < 200 && !refused; i++) {
      const name = `item-${i}`;
      const answer = await writeItem(service, server.base, server.token, name);
      if (answer.status === 503) refused = { name, answer };
      else {
        expect(answer.status, answer.body).toBeLessThan(300);
        acknowledged.push(name);
      }
    }
    expect(refused, "a write on a full disk was refused").toBeDefined();
    expectRefusal(service, refused!.answer, /the disk is full|the disk refused the write/);
    // Nothing of the refused write, in memory either; what was acknowledged, and reads, still there.
    expect(await exists(service, server.base, server.token, refused!.name)).toBe(false);
    expect(await exists(service, server.base, server.token, "kept-item")).toBe(true);
    for (const name of acknowledged) expect(await exists(service, server.base, server.token, name)).toBe(true);
    expect((await fetch(server.base + service.healthPath, { headers: service.auth(server.token) })).status).toBe(200);

    rmSync(filler);
    const again = await writeItem(service, server.base, server.token, refused!.name);
    expect(again.status, again.body).toBeLessThan(300);
    expect(await exists(service, server.base, server.token, refused!.name)).toBe(true);
  });

  it("refuses a write while another process holds the database locked, and writes again once it lets go", async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "disk-lock-")), "data");
    cleanups.push(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));
    const server = await start(service, dataDir);
    cleanups.push(server.close);
    const release = await holdLock(dataDir);

    const refused = await writeItem(service, server.base, server.token, "locked-item");
    expectRefusal(service, refused, /another process holds its database locked/);
    expect(await exists(service, server.base, server.token, "locked-item")).toBe(false);

    await release();
    expect((await writeItem(service, server.base, server.token, "locked-item")).status).toBeLessThan(300);
    expect(await exists(service, server.base, server.token, "locked-item")).toBe(true);
  });

  it("does not start on a directory it cannot write, and says what to do", async () => {
    // Read-only: a directory made (and used once) on a tmpfs, then remounted read-only.
    const disk = mountTmpfs("4m");
    const used = path.join(disk, "used");
    await (await start(service, used)).close();
    mkdirSync(path.join(disk, "empty"));
    await remountReadOnly(disk);
    for (const dir of [used, path.join(disk, "empty"), path.join(disk, "new")]) {
      await expect(start(service, dir)).rejects.toThrow(new RegExp(`data directory ${dir} cannot be written: the file system is read-only \\(\\w+\\); mount it writable or use a writable directory`));
    }
    execFileSync("mount", ["-o", "remount,rw", disk]);

    // Full: nothing more fits on its disk.
    fill(disk);
    await expect(start(service, path.join(disk, "full"))).rejects.toThrow(/cannot be written: the disk (is full|refused the write).*; .*(another disk|another directory)/);

    // Locked by another process.
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "disk-lock-")), "data");
    cleanups.push(() => rmSync(path.dirname(dataDir), { recursive: true, force: true }));
    await (await start(service, dataDir)).close();
    await holdLock(dataDir);
    await expect(start(service, dataDir)).rejects.toThrow(/cannot be written: another process holds its database locked \(SQLITE_BUSY\w*\); stop the other process/);
  });
});

describe("the org platform's writes of several records", () => {
  it("keep nothing in memory when the commit of their one transaction fails (an OAuth client and its token)", async () => {
    const [service] = SERVICES;
    const disk = mountTmpfs("4m");
    const server = await start(service!, path.join(disk, "data"));
    cleanups.push(server.close);
    const create = (name: string) =>
      fetch(`${server.base}/organizations/acme/oauth-clients`, {
        method: "POST",
        headers: { ...service!.auth(server.token), "Content-Type": "application/vnd.api+json" },
        body: JSON.stringify({
          data: { type: "oauth-clients", attributes: { "service-provider": "vcs_a", "http-url": "https://vcs-a.example", "api-url": "https://api.vcs-a.example", "oauth-token-string": `token-string-of-${name}-0123456789`, name } },
        }),
      });
    const names = async () =>
      ((await (await fetch(`${server.base}/organizations/acme/oauth-clients?include=oauth_tokens`, { headers: service!.auth(server.token) })).json()) as { data: Array<{ attributes: { name: string } }>; included?: unknown[] });
    const before = await names();
    fill(disk);
    let refused: string | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const response = await create(`client-${i}`);
      if (response.status === 503) refused = `client-${i}`;
      else expect(response.status, await response.text()).toBe(201);
    }
    expect(refused).toBeDefined();
    const after = await names();
    expect(after.data.map((c) => c.attributes.name)).not.toContain(refused);
    // Its token is not there either: as many tokens as clients created before the refusal.
    expect((after.included ?? []).length - (before.included ?? []).length).toBe(after.data.length - before.data.length);
  });
});
