// The shim between an unchanged Vault client and the secrets service: a TCP proxy on 127.0.0.1:0
// that renames the request header `X-Vault-Token` to `X-Secrets-Token` and changes nothing else
// (method, LIST included, path, query, other headers and the body go through byte for byte; the
// answers come back untouched). Requests are framed by Content-Length; a chunked body is passed on
// as it comes.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface RunningShim {
  /** The shim's address, to give the client as its endpoint (`http://127.0.0.1:<port>`). */
  url: string;
  /** How many request heads had the header renamed. */
  renamed(): number;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from("\r\n\r\n");

/** Rewrites one request head; returns it and the length of the body that follows (-1: pass the rest on). */
export function rewriteHead(head: string): { head: string; bodyLength: number; renamed: boolean } {
  let renamed = false;
  const lines = head.split("\r\n").map((line, i) => {
    if (i === 0) return line;
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === "x-vault-token") {
      renamed = true;
      return `X-Secrets-Token:${line.slice(colon + 1)}`;
    }
    return line;
  });
  const header = (name: string) => lines.slice(1).find((line) => line.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim();
  const chunked = /chunked/i.test(header("transfer-encoding") ?? "");
  const length = chunked ? -1 : Number(header("content-length") ?? 0);
  return { head: lines.join("\r\n"), bodyLength: Number.isFinite(length) ? length : -1, renamed };
}

export async function startTokenHeaderShim(target: URL): Promise<RunningShim> {
  let renamed = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    upstream.pipe(client);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("end", () => upstream.end());

    let pending = Buffer.alloc(0);
    let body = 0; // bytes of the current body still to pass on; -1: everything from now on
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (body === -1) {
          upstream.write(pending);
          pending = Buffer.alloc(0);
          return;
        }
        if (body > 0) {
          const part = pending.subarray(0, body);
          upstream.write(part);
          body -= part.length;
          pending = pending.subarray(part.length);
          if (body > 0) return;
          continue;
        }
        const end = pending.indexOf(HEAD_END);
        if (end === -1) return;
        const rewritten = rewriteHead(pending.subarray(0, end).toString("latin1"));
        if (rewritten.renamed) renamed++;
        upstream.write(Buffer.from(rewritten.head + "\r\n\r\n", "latin1"));
        pending = pending.subarray(end + HEAD_END.length);
        body = rewritten.bodyLength;
        if (pending.length === 0 && body === 0) return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    renamed: () => renamed,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
