// The one shim real clients of the mesh's real service need: a proxy that renames the client's
// token header (X-Consul-Token -> X-Mesh-Token) and the server's X-Mesh-* answer headers back to
// X-Consul-*. Bodies, statuses, paths and query strings pass through untouched.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ConsulShim {
  port: number;
  close(): Promise<void>;
}

export async function startConsulShim(meshBaseUrl: string): Promise<ConsulShim> {
  const target = new URL(meshBaseUrl);
  const proxy: Server = createServer((req, res) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
    if (headers["x-consul-token"] !== undefined) {
      headers["x-mesh-token"] = headers["x-consul-token"];
      delete headers["x-consul-token"];
    }
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined) out[name.replace(/^x-mesh-/, "x-consul-")] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
