// Every one of the seeds' 80 operations (test/fixtures/seed-operations.tsv, a copy of the seeds'
// operations.tsv) is described in its API's bundle with an operationId that has a handler.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { meshHandlers } from "../server/mesh/handlers/index.ts";
import { orgPlatformHandlers } from "../server/org-platform/handlers/index.ts";
import { secretsHandlers } from "../server/secrets/handlers/index.ts";
import { loadBundle } from "../server/shared/openapi.ts";

type PathItem = Record<string, { operationId?: string; parameters?: unknown[] } | undefined> & { "x-secrets-engine"?: string };

const rows = readFileSync(path.join(import.meta.dirname, "fixtures", "seed-operations.tsv"), "utf8")
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [service, , method, route] = line.split("\t") as [string, string, string, string];
    return { service, method, route };
  });

const handlers: Record<string, Record<string, unknown>> = {
  "org-platform": orgPlatformHandlers,
  secrets: secretsHandlers,
  mesh: meshHandlers,
};

/** A path with its parameter names left out: `/teams/{}`. */
const shape = (template: string) => template.replace(/\{[^}]*\}/g, "{}");

/** The bundle's path for a seed route: `/{mount:<engine>}/x` is the engine's default mount. */
function describedPath(service: string, route: string): [string, PathItem] | undefined {
  const paths = Object.entries(loadBundle(service).paths as Record<string, PathItem>);
  const engine = /^\/\{mount:([^}]+)\}(\/.*)$/.exec(route);
  if (!engine) return paths.find(([template]) => shape(template) === shape(route));
  const rest = shape(engine[2]!);
  return paths.find(([template, item]) => item["x-secrets-engine"] === engine[1] && shape(template).replace(/^\/[^/]+/, "") === rest);
}

describe("the seeds' operations", () => {
  it("are 80", () => expect(rows).toHaveLength(80));

  for (const { service, method, route } of rows) {
    it(`${service} ${method} ${route} is described and handled`, () => {
      const found = describedPath(service, route);
      expect(found, `no path for ${route}`).toBeDefined();
      // LIST is described as GET with list=true (DESIGN.md).
      const operation = found![1][method === "LIST" ? "get" : method.toLowerCase()];
      expect(operation?.operationId, `no ${method} on ${found![0]}`).toBeDefined();
      if (method === "LIST") expect(JSON.stringify(operation)).toMatch(/list/);
      expect(handlers[service]![operation!.operationId!], `no handler for ${operation!.operationId}`).toBeDefined();
    });
  }
});
