// Before an entry is written or deleted, the real system compiles every chain the change could
// affect and refuses the change if one of them no longer compiles. This is that check, pure: which
// chains a change can affect (ChainReadIndex), and compiling them recording what they read.
import type { CompileRequest } from "./chain.ts";
import { compileDiscoveryChain } from "./compiler.ts";
import type { ConfigEntry, EntryLookup } from "./entries.ts";

/** A chain of the graph: the discovery chain of one service in one namespace. */
export interface ChainId {
  namespace: string;
  name: string;
}

/**
 * Which entries each chain read when it was last compiled, and the other way round: the chains a
 * change of one entry can affect. A chain's compile is a function of the entries it reads (those it
 * found and those it looked for and did not find), so a change can only break the chains that read
 * the changed entry, plus the chain of the entry's own service. This is how the real server limits
 * its check to the changed service and the services that link to it (and every chain for
 * proxy-defaults); a write costs the chains it touches, not the size of the mesh.
 */
export class ChainReadIndex {
  /** chain key → the chain and the keys of the entries it read */
  readonly #reads = new Map<string, ChainReads>();
  readonly #readers = new Map<string, Set<string>>();
  #built = false;

  /** Chains to compile for a change of the entry at `entryKey`; undefined until the index is built (then all). */
  affected(entryKey: string, everyChain: boolean, own: ChainId | undefined): ChainId[] | undefined {
    if (!this.#built || everyChain) return undefined;
    const chains = new Map<string, ChainId>();
    for (const key of this.#readers.get(entryKey) ?? []) chains.set(key, this.#reads.get(key)!.chain);
    if (own) chains.set(chainKey(own), own);
    return [...chains.values()];
  }

  /** What the chains compiled for an accepted change read; `complete` when every chain was compiled. */
  record(reads: Map<string, ChainReads>, complete: boolean): void {
    for (const [chain, read] of reads) {
      const before = this.#reads.get(chain)?.keys;
      // Most writes leave what a chain reads as it was: nothing to move then.
      if (before !== undefined && sameKeys(before, read.keys)) continue;
      for (const key of before ?? []) this.#readers.get(key)?.delete(chain);
      this.#reads.set(chain, read);
      for (const key of read.keys) {
        let readers = this.#readers.get(key);
        if (!readers) this.#readers.set(key, (readers = new Set()));
        readers.add(chain);
      }
    }
    if (complete) this.#built = true;
  }
}

/** A chain and the keys of the entries its compile read (found or looked for). */
export interface ChainReads {
  chain: ChainId;
  keys: Set<string>;
}

export const chainKey = (chain: ChainId) => JSON.stringify([chain.namespace, chain.name]);

const sameKeys = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((key) => b.has(key));

/** The chains the graph has: one per service with a service-* entry. */
export function chainsOf(entries: ConfigEntry[]): ChainId[] {
  const chains = new Map<string, ChainId>();
  for (const entry of entries) {
    if (entry.Kind === "proxy-defaults") continue;
    const chain = { namespace: entry.Namespace!, name: entry.Name };
    chains.set(chainKey(chain), chain);
  }
  return [...chains.values()];
}

/**
 * Compiles the given chains with `read`, recording what each read (keys made by `keyOf`); throws
 * ChainCompileError when one does not compile.
 */
export function compileChainsRecording(
  read: (kind: ConfigEntry["Kind"], namespace: string, name: string) => ConfigEntry | undefined,
  keyOf: (kind: ConfigEntry["Kind"], namespace: string, name: string) => string,
  chains: ChainId[],
  base: Pick<CompileRequest, "datacenter" | "trustDomain">,
  lookupOf: (read: (kind: ConfigEntry["Kind"], namespace: string, name: string) => ConfigEntry | undefined) => EntryLookup,
): Map<string, ChainReads> {
  const reads = new Map<string, ChainReads>();
  for (const chain of chains) {
    const keys = new Set<string>();
    const lookup = lookupOf((kind, namespace, name) => {
      keys.add(keyOf(kind, namespace, name));
      return read(kind, namespace, name);
    });
    compileDiscoveryChain(lookup, { ...base, serviceName: chain.name, namespace: chain.namespace });
    reads.set(chainKey(chain), { chain, keys });
  }
  return reads;
}
