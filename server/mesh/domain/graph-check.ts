// Before an entry is written or deleted, the real system compiles every chain the change could
// affect and refuses the change if one of them no longer compiles. This is that check, pure.
import type { CompileRequest } from "./chain.ts";
import { compileDiscoveryChain } from "./compiler.ts";
import type { ConfigEntry, EntryLookup } from "./entries.ts";

/** Compiles the chain of every service that has a service-* entry; throws ChainCompileError. */
export function checkChainsCompile(
  lookup: EntryLookup,
  entries: ConfigEntry[],
  base: Pick<CompileRequest, "datacenter" | "trustDomain">,
): void {
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.Kind === "proxy-defaults") continue;
    const namespace = entry.Namespace!;
    const key = JSON.stringify([namespace, entry.Name]);
    if (seen.has(key)) continue;
    seen.add(key);
    compileDiscoveryChain(lookup, { ...base, serviceName: entry.Name, namespace });
  }
}
