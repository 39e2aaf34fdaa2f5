// The description's examples are real: each chain example is what the compiler makes of its
// documented entries, and each entry example is accepted by the entry validation.
import { describe, expect, it } from "vitest";
import { compileDiscoveryChain } from "../../server/mesh/domain/compiler.ts";
import { normalizeEntryInput, validateEntry } from "../../server/mesh/domain/config-entry.ts";
import type { ConfigEntry } from "../../server/mesh/domain/entries.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { lookupOf, MemoryConfigEntryStore } from "../../server/mesh/store/config-entry-store.ts";
import { CHAIN_EXAMPLES, EXAMPLE_TRUST_DOMAIN } from "./fixtures/chain-examples.ts";

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
      const entry = normalizeEntryInput(examples[name]!.value) as ConfigEntry;
      expect(() => validateEntry(entry)).not.toThrow();
    });
  }
});
