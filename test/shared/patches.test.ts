// The fixes under patches/ (applied by patch-package on install), each tested through the library's
// public API the way an upstream test would: without the patch these tests fail.
import type { AddressInfo } from "node:net";
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("express-openapi-validator+5.6.2.patch: an empty non-exploded array parameter", () => {
  let base: string;
  let close: () => void;
  beforeAll(async () => {
    const app = express();
    app.use(
      OpenApiValidator.middleware({
        apiSpec: {
          openapi: "3.1.0",
          info: { title: "empty array", version: "1", summary: "an empty non-exploded array parameter" },
          components: {},
          webhooks: {},
          paths: {
            "/items": {
              get: {
                parameters: [
                  { name: "include", in: "query", style: "form", explode: false, allowEmptyValue: true, schema: { type: "array", items: { type: "string", enum: ["a", "b"] } } },
                  { name: "tags", in: "query", style: "pipeDelimited", explode: false, schema: { type: "array", items: { type: "string" } } },
                ],
                responses: { "200": { description: "the parsed query", content: { "application/json": { schema: { type: "object" } } } } },
              },
            },
          },
        },
        validateRequests: true,
      }),
    );
    app.get("/items", (req, res) => res.json(req.query));
    app.use((error: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(error.status ?? 500).json({ message: error.message });
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it("is read as the empty array (OpenAPI's serialization of an empty list: include=)", async () => {
    const response = await fetch(`${base}/items?include=`);
    expect(await response.json()).toEqual({ include: [] });
    expect(response.status).toBe(200);
  });

  it("as for every non-exploded style (pipeDelimited: tags=)", async () => {
    const response = await fetch(`${base}/items?tags=`);
    expect(await response.json()).toEqual({ tags: [] });
  });

  it("leaves values alone: one value, several, and a value the schema refuses", async () => {
    expect(await (await fetch(`${base}/items?include=a`)).json()).toEqual({ include: ["a"] });
    expect(await (await fetch(`${base}/items?include=a,b`)).json()).toEqual({ include: ["a", "b"] });
    const refused = await fetch(`${base}/items?include=c`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/include/);
  });
});
