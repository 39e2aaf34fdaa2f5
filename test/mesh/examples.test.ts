// The description's examples are real: each chain example is what the compiler makes of its
// documented entries, and each entry example is accepted by the entry validation.
import { describe, expect, it } from "vitest";
import { compileDiscoveryChain } from "../../server/mesh/domain/compiler.ts";
import { decodeEntryInput, normalizeEntryInput, validateEntry } from "../../server/mesh/domain/config-entry.ts";
import type { ConfigEntryInput } from "../../server/mesh/domain/entries.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { lookupOf, MemoryConfigEntryStore } from "../../server/mesh/store/config-entry-store.ts";
import { CHAIN_EXAMPLES, EXAMPLE_TRUST_DOMAIN } from "./fixtures/chain-examples.ts";
import { startMesh } from "../helpers/mesh.ts";

const examples = (loadBundle("mesh").components as { examples: Record<string, { summary: string; value: unknown }> }).examples;

describe("discovery-chain examples", () => {
  it("has a fixture for every chain example and an example for every fixture", () => {
    const documented = Object.keys(examples).filter((name) => name.startsWith("Chain"));
    expect(documented.sort()).toEqual(Object.keys(CHAIN_EXAMPLES).sort());
  });

  for (const [name, fixture] of Object.entries(CHAIN_EXAMPLES)) {
    it(`${name} is the compiled chain of its entries`, () => {
      const store = new MemoryConfigEntryStore(fixture.entries.map(validateEntry));
      const chain = compileDiscoveryChain(lookupOf((kind, ns, n) => store.get(kind, ns, n)), {
        namespace: "default",
        datacenter: "dc1",
        trustDomain: EXAMPLE_TRUST_DOMAIN,
        ...fixture.request,
      });
      expect(examples[name]?.value).toEqual({ Chain: chain });
      expect(examples[name]?.summary).toBe(fixture.summary);
    });
  }
});

describe("configuration-entry examples", () => {
  for (const name of Object.keys(examples).filter((n) => n.startsWith("Entry") || n.startsWith("Stored"))) {
    it(`${name} is a valid entry`, () => {
      // Decoded as a written entry is (weakly typed values read as the agent reads them), then checked.
      const entry = decodeEntryInput(normalizeEntryInput(examples[name]!.value) as ConfigEntryInput);
      expect(() => validateEntry(entry)).not.toThrow();
    });
  }
});

// Every example of the description, run in order against a fresh server (issue 24): a reader who
// tries them one after another, as the reference shows them, gets a success from each. The server is
// the one `npm start` gives with ACLs on (MESH_MANAGEMENT_TOKEN) and a version that still has the
// legacy token API (MESH_VERSION=1.10.12), so every operation exists. The walk goes through the paths
// in the description's order, each operation in its file's order, every request-body example of it
// (or one request when it has none); the DELETE operations come last, in reverse order, so they
// remove what the walk made. Path parameters are their examples, except the IDs the server makes
// up: a policy, role or token ID is the one the walk's last create of that kind answered.
describe("every example, in order, against a fresh server", () => {
  const ROOT = "a3f0c4d2-5b6e-4f70-8a91-b2c3d4e5f601";
  type Parameter = { name: string; in: string; required?: boolean; example?: unknown; $ref?: string };
  type Operation = {
    operationId: string;
    parameters?: Parameter[];
    requestBody?: { required?: boolean; content: Record<string, { examples?: Record<string, { $ref?: string; value?: unknown }> }> };
    responses: Record<string, unknown>;
  };
  const bundle = loadBundle("mesh") as unknown as {
    paths: Record<string, Record<string, unknown> & { parameters?: Parameter[] }>;
    components: { examples: Record<string, { value: unknown }>; parameters?: Record<string, Parameter> };
  };
  const deref = <T extends { $ref?: string }>(node: T): T => {
    if (!node.$ref) return node;
    const [, , section, name] = node.$ref.split("/");
    return (bundle.components as unknown as Record<string, Record<string, T>>)[section!]![name!]!;
  };
  /** The ID a path parameter stands for, by the operation that made it. */
  const MADE_BY: Record<string, { creates: string[]; field: string }> = {
    "/acl/policy/{id}": { creates: ["createAclPolicy"], field: "ID" },
    "/acl/role/{id}": { creates: ["createAclRole"], field: "ID" },
    "/acl/token/{accessor_id}": { creates: ["createAclToken"], field: "AccessorID" },
    "/acl/token/{accessor_id}/clone": { creates: ["createAclToken"], field: "AccessorID" },
  };

  it("answers each with a success", { timeout: 60_000 }, async () => {
    const mesh = await startMesh({ managementToken: ROOT, version: "1.10.12" });
    try {
      const made = new Map<string, Record<string, unknown>>();
      const calls: { path: string; method: string; operation: Operation; body?: unknown; label: string }[] = [];
      for (const [path, item] of Object.entries(bundle.paths)) {
        for (const [method, value] of Object.entries(item)) {
          if (method === "parameters") continue;
          const operation = value as Operation;
          const examples = operation.requestBody?.content["application/json"]?.examples ?? {};
          const names = Object.keys(examples);
          if (names.length === 0) calls.push({ path, method, operation, label: operation.operationId });
          for (const name of names) calls.push({ path, method, operation, body: deref(examples[name]!).value, label: `${operation.operationId} (${name})` });
        }
      }
      const ordered = [...calls.filter((c) => c.method !== "delete"), ...calls.filter((c) => c.method === "delete").reverse()];
      const outcomes: string[] = [];
      for (const call of ordered) {
        const parameters = new Map<string, Parameter>();
        for (const p of [...(bundle.paths[call.path]!.parameters ?? []), ...(call.operation.parameters ?? [])].map(deref)) parameters.set(`${p.in}:${p.name}`, p);
        const source = MADE_BY[call.path];
        const url = call.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
          const madeId = source ? source.creates.map((id) => made.get(id)?.[source.field]).find((id) => id !== undefined) : undefined;
          return encodeURIComponent(String(madeId ?? parameters.get(`path:${name}`)?.example));
        });
        const response = await fetch(mesh.baseUrl + url, {
          method: call.method.toUpperCase(),
          headers: { "X-Mesh-Token": ROOT, ...(call.body !== undefined ? { "Content-Type": "application/json" } : {}) },
          body: call.body === undefined ? undefined : JSON.stringify(call.body),
        });
        const text = await response.text();
        outcomes.push(`${call.method.toUpperCase()} ${url} ${call.label}: ${response.status}${response.ok ? "" : ` ${text}`}`);
        if (response.ok && /^(create)/.test(call.operation.operationId)) made.set(call.operation.operationId, JSON.parse(text) as Record<string, unknown>);
      }
      expect(outcomes.filter((line) => !/: 2\d\d$/.test(line))).toEqual([]);
      // Every operation of the description was walked.
      expect(new Set(ordered.map((c) => c.operation.operationId)).size).toBe(
        Object.values(bundle.paths).flatMap((item) => Object.keys(item).filter((k) => k !== "parameters")).length,
      );
    } finally {
      await mesh.close();
    }
  });
});
