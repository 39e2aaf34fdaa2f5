// The mesh service: ACLs, namespaces, configuration entries and discovery chains over a store.
// No express here; handlers translate HTTP to these calls and MeshHttpError back to HTTP.
import type { components } from "../../generated/mesh/schema.ts";
import { MeshAcl, type AclSettings } from "./acl-service.ts";
import type { AclResource, Authorizer } from "./domain/acl.ts";
import { ChainCompileError, type CompiledChain, type CompileRequest } from "./domain/chain.ts";
import { compileDiscoveryChain } from "./domain/compiler.ts";
import { decodeEntryInput, EntryDecodeError, entryWireForm, EntryValidationError, sameEntryContent, validateEntry } from "./domain/config-entry.ts";
import { DEFAULT_NAMESPACE, ENTRY_KINDS, type ConfigEntry, type ConfigEntryInput, type EntryKind } from "./domain/entries.ts";
import { ChainReadIndex, chainsOf, compileChainsRecording } from "./domain/graph-check.ts";
import { compareVersions } from "./domain/version.ts";
import { MeshHttpError } from "./errors.ts";
import type { MemoryAclStore } from "./store/acl-store.ts";
import { entryKey, entryKeyPrefix, lookupOf, type ConfigEntryStore } from "./store/config-entry-store.ts";
import { checkNamespaceName } from "./domain/names.ts";
import { unchanging } from "../shared/json-text.ts";

export interface MeshSettings extends Omit<AclSettings, "legacyApi" | "tokenApi"> {
  datacenter: string;
  /** The version this server reports, which decides the APIs it has (e.g. legacy ACLs before 1.11). */
  version: string;
  nodeName: string;
  nodeId: string;
  /** `<cluster_uuid>.<domain_suffix>`, used in target SNIs. */
  trustDomain: string;
}

/** Who is asking, and in which namespace. `authorizer` is undefined when ACLs are off. */
export interface Caller {
  authorizer?: Authorizer;
  namespace: string;
}

export interface Indexed<T> {
  value: T;
  index: number;
  /** Whether a write to this key can change the value. */
  watches: (key: string) => boolean;
}

/** The agent's own configuration, as described. */
export type AgentSelf = components["schemas"]["AgentSelf"];

export type ChainOverrides = Pick<
  CompileRequest,
  "overrideConnectTimeout" | "overrideProtocol" | "overrideMeshGateway"
>;

export class MeshService {
  readonly acl: MeshAcl;
  private readonly chainCache = new Map<string, Indexed<CompiledChain>>();
  private chainCacheIndex = -1;
  private chainCacheBytes = 0;
  /** Which entries each chain reads, so a write compiles only the chains it can change. */
  private readonly graphIndex = new ChainReadIndex();

  constructor(
    readonly settings: MeshSettings,
    readonly store: ConfigEntryStore,
    aclStore?: MemoryAclStore,
  ) {
    this.acl = new MeshAcl(
      {
        ...settings,
        legacyApi: compareVersions(settings.version, "1.11.0") < 0,
        detailedDenials: compareVersions(settings.version, "1.11.0") >= 0,
        tokenApi: compareVersions(settings.version, "1.4.0") >= 0,
      },
      aclStore,
    );
  }

  /** Moves with every write (of a config entry, or of an ACL policy, role or token). */
  stateVersion(): number {
    return this.store.currentIndex() + this.acl.currentIndex();
  }

  /** The caller of a resolved token, in its namespace (ns, then header, then the token's, then default). */
  callerOf(authorizer: Authorizer | undefined, nsParam: string | undefined, nsHeader: string | undefined): Caller {
    const namespace = nsParam || nsHeader || authorizer?.namespace || DEFAULT_NAMESPACE;
    return { authorizer, namespace: checkedNamespace(namespace) };
  }

  private authorize(caller: Caller, namespace: string, resource: AclResource, access: "read" | "write"): void {
    this.acl.authorize(caller.authorizer, namespace, resource, access);
  }

  /** Every token may read proxy-defaults (ProxyConfigEntry.CanRead returns true, agent/structs/config_entry.go). */
  private canRead(caller: Caller, entry: ConfigEntry): boolean {
    if (entry.Kind === "proxy-defaults") return true;
    return this.acl.allows(caller.authorizer, entry.Namespace!, entryResource(entry.Kind, entry.Name), "read");
  }

  readChain(caller: Caller, serviceName: string, compileDc: string | undefined, overrides: ChainOverrides): Indexed<CompiledChain> {
    this.authorize(caller, caller.namespace, { type: "service", name: serviceName }, "read");
    // A chain only changes with the entries, so compiled chains are kept until the next write.
    // Bounded by count and by an estimate of its bytes (names come from request paths).
    if (
      this.chainCacheIndex !== this.store.currentIndex() ||
      this.chainCache.size >= CHAIN_CACHE_LIMIT ||
      this.chainCacheBytes >= CHAIN_CACHE_BYTES
    ) {
      this.chainCache.clear();
      this.chainCacheBytes = 0;
      this.chainCacheIndex = this.store.currentIndex();
    }
    const cacheKey = JSON.stringify([caller.namespace, serviceName, compileDc, overrides]);
    let compiled = this.chainCache.get(cacheKey);
    if (!compiled) {
      compiled = this.compileChain(caller.namespace, serviceName, compileDc, overrides);
      this.chainCache.set(cacheKey, compiled);
      this.chainCacheBytes += estimatedBytes(cacheKey, compiled.value);
    }
    return compiled;
  }

  private compileChain(namespace: string, serviceName: string, compileDc: string | undefined, overrides: ChainOverrides): Indexed<CompiledChain> {
    const readKeys = new Set<string>();
    const lookup = lookupOf((kind, namespace, name) => {
      const key = entryKey(kind, namespace, name);
      readKeys.add(key);
      return this.store.get(kind, namespace, name);
    });
    let chain: CompiledChain;
    try {
      chain = compileDiscoveryChain(lookup, {
        serviceName,
        namespace,
        datacenter: compileDc || this.settings.datacenter,
        useInDatacenter: this.settings.datacenter,
        trustDomain: this.settings.trustDomain,
        ...overrides,
      });
    } catch (error) {
      if (error instanceof ChainCompileError) throw new MeshHttpError(500, error.message);
      throw error;
    }
    return {
      // Unchanging (frozen all the way down): the writer keeps its JSON text while the chain is
      // kept, so a read of a kept chain is not serialized again (server/shared/json-text.ts).
      value: unchanging(chain),
      index: Math.max(1, ...[...readKeys].map((key) => this.store.keyIndex(key))),
      watches: (key) => readKeys.has(key),
    };
  }

  /** The agent's own configuration, as a client reads it to learn the server's version. */
  agentSelf(caller: Caller): AgentSelf {
    const { datacenter, nodeName, nodeId, version } = this.settings;
    this.authorize(caller, caller.namespace, { type: "agent", name: nodeName }, "read");
    return {
      Config: { Datacenter: datacenter, PrimaryDatacenter: datacenter, NodeName: nodeName, NodeID: nodeId, Server: true, Version: version },
    };
  }

  /** `kind` as the path gives it: one that names no kind is the RPC endpoint's error, so 500 (ConfigEntry.Get). */
  readEntry(caller: Caller, pathKind: string, name: string): Indexed<ConfigEntry | undefined> {
    const kind = knownKind(pathKind, 500);
    const namespace = entryNamespace(kind, caller.namespace);
    // ConfigEntry.Get asks the looked-up entry's CanRead, which needs nothing for proxy-defaults.
    if (kind !== "proxy-defaults") this.authorize(caller, namespace, entryResource(kind, name), "read");
    const key = entryKey(kind, namespace, name);
    // The index of all entries, found or not (state.ConfigEntry: maxIndexTxn of the table); the read
    // waits on this entry's key only. A missing entry is for the handler to answer (404).
    const entry = this.store.get(kind, namespace, name);
    return { value: entry && entryWireForm(entry), index: this.entriesIndex(), watches: (k) => k === key };
  }

  /** `kind` as the path gives it: one that names no kind is the RPC endpoint's error, so 500 (ConfigEntry.List). */
  listEntries(caller: Caller, pathKind: string): Indexed<ConfigEntry[]> {
    const kind = knownKind(pathKind, 500);
    const namespace = entryNamespace(kind, caller.namespace);
    const prefix = entryKeyPrefix(kind, namespace);
    const watches = (key: string) => key.startsWith(prefix);
    return {
      value: this.store.list(kind, namespace).filter((entry) => this.canRead(caller, entry)).map(entryWireForm),
      // The index of all entries (state.ConfigEntriesByKind: maxIndexTxn of the table); the list
      // waits on its kind's entries only.
      index: this.entriesIndex(),
      watches,
    };
  }

  /** The index of the entries table, at least 1 (the blocking query never reports 0). */
  private entriesIndex(): number {
    return Math.max(1, this.store.currentIndex());
  }

  /** Validates and writes an entry whose keys are already canonical. Returns false when `cas` did not match. */
  applyEntry(caller: Caller, input: ConfigEntryInput, cas: number | undefined): boolean {
    const decoded = this.decode(input);
    const entry = this.validate({
      ...decoded,
      Namespace: entryNamespace(decoded.Kind, checkedNamespace(decoded.Namespace || caller.namespace)),
    });
    const namespace = entry.Namespace!;
    this.authorize(caller, namespace, entryResource(entry.Kind, entry.Name), "write");
    const current = this.store.get(entry.Kind, namespace, entry.Name);
    // The indexes are the store's to set (the entry is the validator's own copy).
    const fields = entry;
    delete fields.CreateIndex;
    delete fields.ModifyIndex;
    // A write that would change nothing is not applied, as the real server skips it before its
    // raft write (ConfigEntry.Apply, shouldSkipUpsertOperation): it succeeds whatever its cas, and
    // the index does not move, so no blocking query wakes.
    if (current && sameEntryContent(current, fields)) return true;
    if (cas !== undefined && (current?.ModifyIndex ?? 0) !== cas) return false;
    const record = this.checkGraph(entry.Kind, namespace, entry.Name, fields);
    this.store.put(fields);
    record();
    return true;
  }

  /** Deletes an entry; succeeds when it does not exist. Returns false when `cas` did not match. */
  deleteEntry(caller: Caller, pathKind: string, name: string, cas: number | undefined): boolean {
    // The HTTP handler builds the entry to delete first and answers a kind it cannot build with 400.
    const kind = knownKind(pathKind, 400);
    const namespace = entryNamespace(kind, caller.namespace);
    this.authorize(caller, namespace, entryResource(kind, name), "write");
    const current = this.store.get(kind, namespace, name);
    // Nothing to delete: done, whatever the cas (the real server skips the raft write, shouldSkipOperation).
    if (!current) return true;
    if (cas !== undefined && current.ModifyIndex !== cas) return false;
    const record = this.checkGraph(kind, namespace, name, undefined);
    this.store.delete(kind, namespace, name);
    record();
    return true;
  }

  /** The body as the HTTP layer decodes it (a bad duration or value is its 400: agent/config_endpoint.go ConfigApply). */
  private decode(input: ConfigEntryInput): ConfigEntry {
    try {
      return decodeEntryInput(input);
    } catch (error) {
      if (error instanceof EntryDecodeError) throw new MeshHttpError(400, `Request decoding failed: ${error.message}`);
      throw error;
    }
  }

  /**
   * The entry's own rules. The real server checks them in its RPC endpoint (ConfigEntry.Apply calls
   * Validate()), after the HTTP layer decoded the body, and its HTTP layer answers any RPC error that
   * is not an ACL refusal with 500 and the error's text (agent/http.go, wrap/handleErr): so does this.
   */
  private validate(entry: ConfigEntry): ConfigEntry {
    try {
      return validateEntry(entry);
    } catch (error) {
      if (error instanceof EntryValidationError) throw new MeshHttpError(500, error.message);
      throw error;
    }
  }

  /**
   * Refuses a change that would leave some chain uncompilable, before anything is stored: compiles
   * the chains that read the changed entry (all of them the first time, and for proxy-defaults).
   * Returns what to record once the change is stored.
   */
  private checkGraph(kind: EntryKind, namespace: string, name: string, replacement: ConfigEntry | undefined): () => void {
    const changed = entryKey(kind, namespace, name);
    const read = (k: EntryKind, ns: string, n: string) => (entryKey(k, ns, n) === changed ? replacement : this.store.get(k, ns, n));
    const own = kind === "proxy-defaults" ? undefined : { namespace, name };
    const affected = this.graphIndex.affected(changed, kind === "proxy-defaults", own);
    const chains = affected ?? chainsOf([...this.store.all().filter((e) => entryKey(e.Kind, e.Namespace!, e.Name) !== changed), ...(replacement ? [replacement] : [])]);
    try {
      const reads = compileChainsRecording(read, entryKey, chains, this.settings, lookupOf);
      return () => this.graphIndex.record(reads, affected === undefined);
    } catch (error) {
      // A ConfigEntryGraphError from the state store: an RPC error, so 500 as well.
      if (error instanceof ChainCompileError) throw new MeshHttpError(500, error.message);
      throw error;
    }
  }
}

const CHAIN_CACHE_LIMIT = 10_000;
const CHAIN_CACHE_BYTES = 64 * 1024 * 1024;

/** A generous estimate of a cached chain's memory: its key, and about 2 KB per node and target. */
function estimatedBytes(cacheKey: string, chain: CompiledChain): number {
  const parts = Object.keys(chain.Nodes).length + Object.keys(chain.Targets).length;
  return 2 * (cacheKey.length + chain.ServiceName.length) + 2048 * parts;
}

/** A namespace name from any source (parameter, header, body), refused with 400 when malformed. */
function checkedNamespace(namespace: string): string {
  const problem = checkNamespaceName(namespace);
  if (problem) throw new MeshHttpError(400, problem);
  return namespace;
}

/**
 * A kind from a request path, or MakeConfigEntry's `invalid config entry kind: <kind>` with the status
 * its caller answers it with: 500 from the read RPCs (agent/consul/config_endpoint.go Get, List,
 * through agent/http.go wrap), 400 from the delete's HTTP handler (agent/config_endpoint.go configDelete).
 */
function knownKind(kind: string, status: 400 | 500): EntryKind {
  if (!(ENTRY_KINDS as readonly string[]).includes(kind)) throw new MeshHttpError(status, `invalid config entry kind: ${kind}`);
  return kind as EntryKind;
}

/** proxy-defaults is global: it always lives in the default namespace. */
function entryNamespace(kind: EntryKind, namespace: string): string {
  return kind === "proxy-defaults" ? DEFAULT_NAMESPACE : namespace;
}

function entryResource(kind: EntryKind, name: string): AclResource {
  return kind === "proxy-defaults" ? { type: "operator" } : { type: "service", name };
}
