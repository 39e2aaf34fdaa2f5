// The reference servers' HTTP server: its requests and responses are made with the app's own
// prototypes (so that Express finds them in place and V8 keeps one shape for them), and the app
// behaves on it exactly as on app.listen's server.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createAppServer } from "../../server/shared/app-server.ts";
import { rawGet } from "../helpers/raw-get.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listening(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The prototypes requests and responses have as the server makes them, before the app sees them. */
function prototypesAsMade(server: Server): { request: object | null; response: object | null }[] {
  const seen: { request: object | null; response: object | null }[] = [];
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => seen.push({ request: Object.getPrototypeOf(req), response: Object.getPrototypeOf(res) }));
  return seen;
}

function echoApp(): Express {
  const app = express();
  app.use(express.json());
  app.post("/echo/:name", (req, res) => void res.status(201).set("X-Name", req.params.name).json({ query: req.query, body: req.body, host: req.get("host"), protocol: req.protocol }));
  return app;
}

describe("createAppServer", () => {
  it("makes each request and response with the app's prototypes, which app.listen's server does not", async () => {
    const app = echoApp();
    const server = createAppServer(app);
    const seen = prototypesAsMade(server);
    const base = await listening(server);
    for (let n = 0; n < 2; n++) expect((await fetch(`${base}/echo/a`, { method: "POST" })).status).toBe(201);
    expect(seen).toEqual([
      { request: app.request, response: app.response },
      { request: app.request, response: app.response },
    ]);

    const plain = app.listen(0, "127.0.0.1");
    const plainSeen = prototypesAsMade(plain);
    servers.push(plain);
    await new Promise((resolve) => plain.once("listening", resolve));
    await fetch(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/echo/a`, { method: "POST" });
    expect(plainSeen[0]!.request).not.toBe(app.request);
  });

  it("serves the app as app.listen does: parameters, query, body, headers and status", async () => {
    const app = echoApp();
    const base = await listening(createAppServer(app));
    const response = await fetch(`${base}/echo/zo%C3%AB?a=1&a=2&b=`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"x":[1,{"y":null}]}' });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-name")).toBe("zoë");
    expect(await response.json()).toEqual({ query: { a: ["1", "2"], b: "" }, body: { x: [1, { y: null }] }, host: new URL(base).host, protocol: "http" });
    // What no route answers gets Express's own 404.
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
  });

  it("gives each app its own prototypes: what one app adds to its requests the other's do not have", async () => {
    type Greeted = { greeting?: () => string };
    const first = express();
    const second = express();
    (first.request as Greeted).greeting = () => "first";
    for (const app of [first, second]) app.get("/", (req, res) => void res.send((req as Greeted).greeting?.() ?? "none"));
    const [one, two] = [await listening(createAppServer(first)), await listening(createAppServer(second))];
    expect(await (await fetch(one)).text()).toBe("first");
    expect(await (await fetch(two)).text()).toBe("none");
  });

  it("takes Node's server options", async () => {
    const app = echoApp();
    const base = await listening(createAppServer(app, { maxHeaderSize: 1024 }));
    const answer = await rawGet(`${base}/echo/a`, { "x-long": "y".repeat(2048) });
    expect(answer.status).toBe(431);
  });
});
