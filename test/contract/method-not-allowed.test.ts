// RFC 9110: a 405 says, in Allow, which methods the path has. For every described path of every API,
// a method it does not have is answered 405 in the service's envelope with exactly those methods.
import { describe, expect, it } from "vitest";
import { contractChecker, type WireResponse } from "../../scripts/contract/checker.ts";
import { REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";
import { parameterExample } from "../../scripts/docs/examples.ts";
import { referenceServerForBlock } from "../helpers/contract-servers.ts";

const METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"] as const;

/** What the server names in Allow for a path with these described methods (LIST: the secrets service's list operations). */
const ALLOW: Record<string, (described: string[], template: string) => string> = {
  "org-platform": (described) => [...described, ...(described.includes("GET") ? ["HEAD"] : [])].sort().join(", "),
  secrets: (described) => [...new Set(described.flatMap((m) => (m === "POST" || m === "PUT" ? ["POST", "PUT"] : [m])))].sort().join(", "),
  // OPTIONS first, then the endpoint's methods (agent/http.go wrap: MethodNotAllowedError{req.Method, append([]string{"OPTIONS"}, methods...)}).
  // Every path under /config/ is one endpoint registered with GET and DELETE, in that order
  // (agent/http_register.go "/v1/config/"), whichever of them the description has for the path.
  // Other endpoints list theirs as registered there: GET, PUT, POST, DELETE (e.g. "/v1/acl/policy/" with GET, PUT, DELETE).
  mesh: (described, template) =>
    template.startsWith("/config/") ? "OPTIONS,GET,DELETE" : ["OPTIONS", ...["GET", "PUT", "POST", "DELETE"].filter((m) => described.includes(m))].join(","),
};

for (const server of REFERENCE_SERVERS) {
  describe(`${server.api}: a method a path does not have`, () => {
    const { bundle, running } = referenceServerForBlock(server);
    const checker = contractChecker(bundle);

    it("is a 405 in the envelope, with the path's methods in Allow", async () => {
      const problems: string[] = [];
      const byPath = new Map<string, { path: string; methods: string[] }>();
      for (const operation of checker.operations) {
        const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
          const parameter = operation.parameters.find((p) => p.in === "path" && p.name === name);
          return encodeURIComponent(String((parameter && parameterExample(bundle, parameter)?.value) ?? "x"));
        });
        const entry = byPath.get(operation.template) ?? { path, methods: [] };
        const method = operation.operation["x-http-method"] === "LIST" ? "LIST" : operation.method.toUpperCase();
        entry.methods.push(method);
        byPath.set(operation.template, entry);
      }
      for (const [template, { path, methods }] of byPath) {
        const described = methods.filter((m) => m !== "LIST");
        const missing = METHODS.filter((m) => !described.includes(m) && !(server.api === "secrets" && (m === "PUT" || m === "POST") && described.some((d) => d === "PUT" || d === "POST")));
        const method = missing.find((m) => m !== "GET" || !methods.includes("LIST")) ?? missing[0];
        if (method === undefined) continue;
        const response = await fetch(`${running().baseUrl}${path}`, { method, headers: server.headers });
        const wire: WireResponse = { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
        const expected = ALLOW[server.api]!(methods, template);
        if (wire.status !== 405) problems.push(`${method} ${template}: ${wire.status} ${wire.body?.slice(0, 120)}`);
        else if (wire.headers.allow !== expected) problems.push(`${method} ${template}: Allow ${wire.headers.allow} (expected ${expected})`);
        problems.push(...server.errorEnvelope(wire).map((p) => `${method} ${template}: ${p}`));
      }
      expect(problems).toEqual([]);
    });
  });
}
