// A GET sent with node:http and exactly the given headers: fetch adds its own (`Cache-Control:
// no-cache` to a conditional request, which Express honours), node:http none that a server reads.
import { get } from "node:http";

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
