// One benchmark target in its own process, described by BENCH_SPEC (JSON):
//   {"api": "mesh" | "org" | "secrets", "validate": true|false, ...sizes}  a reference server
//   {"api": "express", "canned": [...]}  plain Express 5 answering canned bytes (the stack's ceiling)
// It answers IPC messages: {memory} (after a gc unless gc is false), and API-specific work
// (compileAll, seedRoles). It reports {ready: port} when it listens on 127.0.0.1.
import { createServer, type Server } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import express from "express";
import { createMeshApp, type MeshApp } from "../server/mesh/app.ts";
import { validateEntry } from "../server/mesh/domain/config-entry.ts";
import { MemoryConfigEntryStore } from "../server/mesh/store/config-entry-store.ts";
import { createOrgPlatformApp } from "../server/org-platform/app.ts";
import { createAppServer } from "../server/shared/app-server.ts";
import { startSecretsServer } from "../server/secrets/server.ts";
import { CHAIN_EXAMPLES } from "../test/mesh/fixtures/chain-examples.ts";
import { meshOf, orgWorldOf, ROLE_BODY, SECRETS_TOKEN } from "./worlds.ts";

export interface Canned {
  method: string;
  path: string;
  status: number;
  contentType?: string;
  /** The other headers the reference server set on the answer, set again on each. */
  headers?: [string, string][];
  /** base64 of the answer's body */
  body: string;
  /** parse a JSON body first, as every reference server does for writes */
  parse?: boolean;
}

export interface ServeSpec {
  api: "mesh" | "org" | "secrets" | "express";
  validate?: boolean;
  /** mesh: services of meshOf(); org: added teams; secrets: roles written at start */
  size?: number;
  /** org: members of the big team */
  members?: number;
  canned?: Canned[];
  /** express: served by createAppServer, as the reference servers are, instead of app.listen. */
  appServer?: boolean;
  /** Response validation (on unless false; request validation follows `validate`). */
  validateResponses?: boolean;
}

const spec = JSON.parse(process.env.BENCH_SPEC ?? "{}") as ServeSpec;
const validate = spec.validate !== false;
const validateResponses = spec.validateResponses !== false;
let mesh: MeshApp | undefined;
let server: Server;
let baseUrl = "";

switch (spec.api) {
  case "mesh": {
    // A big mesh goes straight into the store: loaded as writes (MESH_CONFIG_FILE), each entry
    // compiles every chain first, which makes loading N services cost N² (docs/benchmarks.md).
    mesh = spec.size
      ? createMeshApp({ store: new MemoryConfigEntryStore(meshOf(spec.size).map(validateEntry)), validate, validateResponses })
      : createMeshApp({ entries: CHAIN_EXAMPLES.ChainRouter!.entries, validate, validateResponses });
    server = await listen(createAppServer(mesh.app));
    break;
  }
  case "org": {
    const { app } = createOrgPlatformApp({ world: orgWorldOf(spec.size ?? 100, spec.members ?? 0), validate, validateResponses });
    server = await listen(createAppServer(app));
    break;
  }
  case "secrets": {
    const running = await startSecretsServer({ rootToken: SECRETS_TOKEN, validate, validateResponses });
    server = running.server;
    baseUrl = running.url;
    await seedRoles(0, spec.size ?? 0);
    break;
  }
  case "express": {
    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    for (const c of spec.canned ?? []) {
      const body = Buffer.from(c.body, "base64");
      const handlers: express.RequestHandler[] = c.parse ? [express.json({ type: () => true })] : [];
      const headers = c.headers ?? [];
      handlers.push((_req, res) => {
        res.status(c.status);
        for (const [name, value] of headers) res.setHeader(name, value);
        // Exactly the server's Content-Type (res.type would add a charset the server may not send).
        if (c.contentType) res.setHeader("Content-Type", c.contentType);
        if (body.length > 0) res.send(body);
        else res.end();
      });
      app[c.method.toLowerCase() as "get"](c.path, ...handlers);
    }
    // As its users write it (app.listen's server is http.createServer(app)), or on the reference servers' own.
    server = await listen(spec.appServer ? createAppServer(app) : createServer(app));
    break;
  }
  default:
    throw new Error(`unknown api ${spec.api}`);
}

/** Listens on a free port of 127.0.0.1. */
function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Writes roles bench-<i> for i in [from, to), 64 requests at a time, through the API. */
async function seedRoles(from: number, to: number): Promise<void> {
  const write = (i: number) =>
    fetch(`${baseUrl}/aws/roles/bench-${i}`, { method: "POST", headers: { "X-Secrets-Token": SECRETS_TOKEN }, body: ROLE_BODY }).then(async (r) => {
      if (r.status !== 204) throw new Error(`role bench-${i}: ${r.status} ${await r.text()}`);
    });
  for (let i = from; i < to; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, to - i) }, (_, k) => write(i + k)));
  }
}

let inspector: Session | undefined;

process.on("message", async (message: { id: number; memory?: boolean; gc?: boolean; compileAll?: boolean; watchers?: boolean; profile?: "start" | "stop" }) => {
  try {
    if (message.profile === "start") {
      // The V8 CPU profiler (what --cpu-prof uses), only while the load runs.
      inspector = new Session();
      inspector.connect();
      await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
      await inspector.post("Profiler.enable");
      await inspector.post("Profiler.start");
      process.send!({ id: message.id });
    } else if (message.profile === "stop") {
      const { profile } = await inspector!.post("Profiler.stop");
      inspector!.disconnect();
      process.send!({ id: message.id, profile });
    } else if (message.memory) {
      if (message.gc !== false) for (let i = 0; i < 3; i++) globalThis.gc?.();
      process.send!({ id: message.id, memory: process.memoryUsage() });
    } else if (message.watchers) {
      // Blocking queries waiting on the store: one change listener each.
      const changes = (mesh!.service.store as unknown as { changes?: { listenerCount(e: string): number } }).changes;
      process.send!({ id: message.id, watchers: changes?.listenerCount("change") ?? -1 });
    } else if (message.compileAll) {
      // Compiles the chain of every service (svc-0 ... svc-N-1) through the service, as GET does.
      const started = process.hrtime.bigint();
      const caller = { namespace: "default" };
      for (let i = 0; i < (spec.size ?? 0); i++) mesh!.service.readChain(caller, `svc-${i}`, undefined, {});
      process.send!({ id: message.id, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    } else {
      process.send!({ id: message.id, error: `unknown message ${JSON.stringify(message)}` });
    }
  } catch (error) {
    process.send!({ id: message.id, error: (error as Error).stack });
  }
});

// A clean exit on SIGTERM, so that --cpu-prof writes its profile.
process.on("SIGTERM", () => process.exit(0));
process.send!({ ready: (server.address() as AddressInfo).port });
