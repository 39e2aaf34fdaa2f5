// A static file server for a folder, on 127.0.0.1 and a free port: the docs as a reader gets them.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import path from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".js": "text/javascript",
  ".css": "text/css",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

export interface StaticServer {
  baseUrl: string;
  /** Paths asked for that do not exist, e.g. a link to a page that was not built. */
  notFound: string[];
  close(): Promise<void>;
}

export async function serveFolder(folder: string): Promise<StaticServer> {
  const notFound: string[] = [];
  const server = createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const file = path.join(folder, pathname.endsWith("/") ? pathname + "index.html" : pathname);
    if (!file.startsWith(folder + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      notFound.push(pathname);
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    notFound,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
