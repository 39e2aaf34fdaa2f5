// Which chains a change of one entry can affect: the chains that read it when they were last
// compiled (ChainReadIndex), kept up to date as writes change what chains read.
import { describe, expect, it } from "vitest";
import { ChainReadIndex, chainKey, type ChainId } from "../../server/mesh/domain/graph-check.ts";

const chain = (name: string): ChainId => ({ namespace: "default", name });
const reads = (entries: [ChainId, string[]][]) => new Map(entries.map(([id, keys]) => [chainKey(id), { chain: id, keys: new Set(keys) }]));
const names = (chains: ChainId[] | undefined) => chains?.map((c) => c.name).sort();

describe("ChainReadIndex", () => {
  it("answers every chain (undefined) until a complete compile was recorded, and for proxy-defaults", () => {
    const index = new ChainReadIndex();
    expect(index.affected("resolver/api", false, chain("api"))).toBeUndefined();
    index.record(reads([[chain("web"), ["resolver/api"]]]), true);
    expect(index.affected("proxy-defaults/global", true, undefined)).toBeUndefined();
  });

  it("names the chains that read the entry, and the entry's own chain", () => {
    const index = new ChainReadIndex();
    index.record(reads([[chain("web"), ["router/web", "resolver/api"]], [chain("api"), ["resolver/api"]], [chain("db"), ["resolver/db"]]]), true);
    expect(names(index.affected("resolver/api", false, chain("api")))).toEqual(["api", "web"]);
    expect(names(index.affected("resolver/db", false, chain("db")))).toEqual(["db"]);
    expect(names(index.affected("defaults/new", false, chain("new")))).toEqual(["new"]);
  });

  it("follows what a chain reads after a write: the same reads again change nothing, new ones move it", () => {
    const index = new ChainReadIndex();
    index.record(reads([[chain("web"), ["router/web", "resolver/api"]], [chain("api"), ["resolver/api"]]]), true);
    index.record(reads([[chain("web"), ["resolver/api", "router/web"]]]), false);
    expect(names(index.affected("resolver/api", false, undefined))).toEqual(["api", "web"]);
    index.record(reads([[chain("web"), ["router/web", "resolver/db"]]]), false);
    expect(names(index.affected("resolver/api", false, undefined))).toEqual(["api"]);
    expect(names(index.affected("resolver/db", false, undefined))).toEqual(["web"]);
    expect(index.affected("resolver/db", false, undefined)).toEqual([{ namespace: "default", name: "web" }]);
  });
});
