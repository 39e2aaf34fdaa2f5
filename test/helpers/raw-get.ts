// Requests sent with node:http and exactly the given headers: fetch adds its own (`Cache-Control:
// no-cache` to a conditional request, which Express honours), node:http none that a server reads;
// and fetch cannot read some answers at all (a 407 is a network error to it, by the Fetch standard).
import { get, request, type IncomingHttpHeaders } from "node:http";

export function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    }).on("error", reject);
  });
}

/** Any request, its body with its length; the answer's status, headers and text. */
export function rawRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.body !== undefined) headers["Content-Length"] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: init.method ?? "GET", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    sent.on("error", reject);
    sent.end(init.body);
  });
}
