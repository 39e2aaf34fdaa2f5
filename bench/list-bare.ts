// The connection path alone: a bare Node HTTP server answering a fixed body, served plain (Node's
// native parser reading the socket), through acceptListMethod (server/secrets/http/list-method.ts),
// or through another build of it (BENCH_LIST_MODULE, an .mjs: e.g. the previous design, for an A/B).
// Child of bench/list-ab.ts --bare; reports {ready: port} over IPC like bench/serve.ts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { acceptListMethod } from "../server/secrets/http/list-method.ts";

const spec = JSON.parse(process.env.BENCH_SPEC ?? "{}") as { mode: "plain" | "list" | "module"; module?: string };
const body = JSON.stringify({ request_id: "x", data: { keys: ["a", "b", "c"] } });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.setHeader("Content-Type", "application/json");
    res.end(body);
  });
});
server.keepAliveTimeout = 300_000;
if (spec.mode === "list") acceptListMethod(server);
if (spec.mode === "module") ((await import(spec.module!)) as { acceptListMethod: typeof acceptListMethod }).acceptListMethod(server);
server.listen(0, "127.0.0.1", () => process.send!({ ready: (server.address() as AddressInfo).port }));
process.on("message", (message: { id: number }) => process.send!({ id: message.id, error: "no messages" }));
