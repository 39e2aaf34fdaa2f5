// Discovery-chain compiler: turns the routing, splitting and resolving config entries of one
// service into a graph of nodes and targets. A port of Consul's
// agent/consul/discoverychain/compile.go (1.6–1.8 era); the order of steps follows it on purpose,
// because that order decides which error wins and which protocol a chain ends up with.
import type {
  EntryLookup,
  ServiceResolverEntry,
  ServiceResolverSubset,
  ServiceRoute,
  ServiceRouterEntry,
} from "./entries.ts";
import {
  ChainCompileError,
  type CompiledChain,
  type CompileRequest,
  type DiscoveryGraphNode,
  type DiscoveryResolver,
  type DiscoveryTarget,
  type NodeType,
} from "./chain.ts";
import { formatDuration, parseDuration } from "../../shared/go-duration.ts";
import { goFormatFloat } from "../../shared/go-text.ts";

const DEFAULT_CONNECT_TIMEOUT_NS = 5e9;
/** Protocols that allow routers and splitters (Consul's IsProtocolHTTPLike). */
const L7_PROTOCOLS = new Set(["http", "http2", "grpc"]);

export function compileDiscoveryChain(
  entries: EntryLookup,
  request: CompileRequest,
): CompiledChain {
  return new ChainCompiler(entries, request).compile();
}

/** A place traffic can end up: one service (subset) in one namespace and datacenter. */
interface Target {
  id: string;
  service: string;
  subset: string;
  namespace: string;
  datacenter: string;
  meshGatewayMode: string;
  subsetDefinition: ServiceResolverSubset;
  sni: string;
  name: string;
  /** service-defaults ExternalSNI is set: the service lives outside the mesh. */
  external: boolean;
}

interface TargetFields {
  service?: string | undefined;
  subset?: string | undefined;
  namespace?: string | undefined;
  datacenter?: string | undefined;
}

interface CustomizationMarkers {
  meshGateway: boolean;
  protocol: boolean;
  connectTimeout: boolean;
}

function nodeKey(type: NodeType, name: string): string {
  return `${type}:${name}`;
}

function targetId(service: string, subset: string, namespace: string, datacenter: string): string {
  const id = `${service}.${namespace}.${datacenter}`;
  return subset === "" ? id : `${subset}.${id}`;
}

/** Own-property lookup, so a subset named e.g. "constructor" never hits Object.prototype. */
function own<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

function isEmptyRecord(record: Record<string, unknown> | undefined): boolean {
  return record === undefined || Object.keys(record).length === 0;
}

class ChainCompiler {
  private readonly overrideConnectTimeoutNs: number;
  /** overrideProtocol is not L7: routers and splitters are left out entirely. */
  private readonly disableAdvancedRouting: boolean;
  private readonly customizedBy: CustomizationMarkers = {
    meshGateway: false,
    protocol: false,
    connectTimeout: false,
  };

  /** Common protocol of every service reached; the first one recorded sets it. */
  private protocol = "";
  private usesAdvancedRouting = false;
  private startNode = "";
  /** Every node built, by `<Type>:<Name>`; doubles as the cache of splitter and resolver nodes. */
  private readonly nodes = new Map<string, DiscoveryGraphNode>();
  private readonly loadedTargets = new Map<string, Target>();
  /** Targets a resolver was actually built for (including failover-only ones). */
  private readonly retainedTargets = new Set<string>();

  private readonly entries: EntryLookup;
  private readonly request: CompileRequest;

  constructor(entries: EntryLookup, request: CompileRequest) {
    this.entries = entries;
    this.request = request;
    const timeout = request.overrideConnectTimeout ?? "";
    this.overrideConnectTimeoutNs = timeout === "" ? 0 : parseDuration(timeout);
    const overrideProtocol = request.overrideProtocol ?? "";
    this.disableAdvancedRouting = overrideProtocol !== "" && !L7_PROTOCOLS.has(overrideProtocol);
  }

  compile(): CompiledChain {
    this.assembleChain();
    this.detectCircularReferences();
    this.flattenAdjacentSplitterNodes();
    this.removeUnusedNodes();

    // Checked only now, once every reached service has had its protocol recorded.
    if (this.usesAdvancedRouting && !L7_PROTOCOLS.has(this.protocol)) {
      throw new ChainCompileError(
        `discovery chain "${this.request.serviceName}" uses a protocol "${this.protocol}" ` +
          "that does not permit advanced routing or splitting behavior",
      );
    }

    let protocol = this.protocol;
    const overrideProtocol = this.request.overrideProtocol ?? "";
    if (overrideProtocol !== "" && overrideProtocol !== protocol) {
      protocol = overrideProtocol;
      this.customizedBy.protocol = true;
    }

    const hash = this.customizationHash();
    return {
      ServiceName: this.request.serviceName,
      Namespace: this.request.namespace,
      Datacenter: this.request.datacenter,
      ...(hash === undefined ? {} : { CustomizationHash: hash }),
      Protocol: protocol,
      StartNode: this.startNode,
      Nodes: this.outputNodes(),
      Targets: this.outputTargets(),
    };
  }

  // ---- graph assembly -------------------------------------------------------------------

  private assembleChain(): void {
    const { serviceName, namespace } = this.request;
    // Only the router of the requested service is ever consulted.
    let router = this.entries.router(namespace, serviceName);
    if (router !== undefined && this.disableAdvancedRouting) {
      router = undefined;
      this.customizedBy.protocol = true;
    }
    const start =
      router === undefined
        ? this.getSplitterOrResolverNode(this.newTarget({ service: serviceName }))
        : this.buildRouterNode(router);
    this.startNode = nodeKey(start.Type, start.Name);
  }

  private buildRouterNode(router: ServiceRouterEntry): DiscoveryGraphNode {
    const { serviceName, namespace } = this.request;
    const node: DiscoveryGraphNode = { Type: "router", Name: router.Name, Routes: [] };
    this.usesAdvancedRouting = true;
    this.recordServiceProtocol(namespace, router.Name);

    for (const route of router.Routes ?? []) {
      const dest = route.Destination ?? {};
      const target = this.newTarget({
        service: dest.Service || serviceName,
        subset: dest.ServiceSubset,
        namespace: dest.Namespace || namespace,
      });
      // A route naming a subset bypasses any splitter of that service.
      const next = dest.ServiceSubset
        ? this.getResolverNode(target, false)
        : this.getSplitterOrResolverNode(target);
      node.Routes!.push({
        Definition: copyDefined(route),
        NextNode: nodeKey(next.Type, next.Name),
      });
    }

    // Unmatched traffic falls through to the next hop of the service itself.
    const fallback = this.getSplitterOrResolverNode(
      this.newTarget({ service: router.Name, namespace }),
    );
    node.Routes!.push({
      Definition: defaultRoute(router.Name, namespace),
      NextNode: nodeKey(fallback.Type, fallback.Name),
    });

    this.recordNode(node);
    return node;
  }

  private getSplitterOrResolverNode(target: Target): DiscoveryGraphNode {
    return (
      this.getSplitterNode(target.namespace, target.service) ?? this.getResolverNode(target, false)
    );
  }

  private getSplitterNode(namespace: string, service: string): DiscoveryGraphNode | undefined {
    const cached = this.nodes.get(nodeKey("splitter", service));
    if (cached !== undefined) return cached;

    let splitter = this.entries.splitter(namespace, service);
    if (splitter !== undefined && this.disableAdvancedRouting) {
      splitter = undefined;
      this.customizedBy.protocol = true;
    }
    if (splitter === undefined) return undefined;

    const node: DiscoveryGraphNode = { Type: "splitter", Name: service, Splits: [] };
    // Recorded before recursing so a splitter loop ends at the cached node (and is then
    // reported by detectCircularReferences) instead of recursing forever.
    this.recordNode(node);

    for (const split of splitter.Splits ?? []) {
      const splitService = split.Service || service;
      const splitNamespace = split.Namespace || namespace;
      const sameService = splitService === service && splitNamespace === namespace;
      let next: DiscoveryGraphNode | undefined;
      // Another service without a subset may have its own splitter; flattened later.
      if (!sameService && !split.ServiceSubset) {
        next = this.getSplitterNode(splitNamespace, splitService);
      }
      next ??= this.getResolverNode(
        this.newTarget({
          service: splitService,
          subset: split.ServiceSubset,
          namespace: splitNamespace,
        }),
        false,
      );
      node.Splits!.push({ Weight: split.Weight, NextNode: nodeKey(next.Type, next.Name) });
    }

    this.usesAdvancedRouting = true;
    return node;
  }

  /**
   * Builds (or returns) the resolver node for a target, after following redirects and the
   * default subset. Failover targets go through here too (recursedForFailover) so that their
   * redirects and subsets apply; those nodes are returned without being recorded.
   */
  private getResolverNode(start: Target, recursedForFailover: boolean): DiscoveryGraphNode {
    const redirectOrder: string[] = [];
    let target = start;
    let resolver: ServiceResolverEntry | undefined;

    for (;;) {
      const cached = this.nodes.get(nodeKey("resolver", target.id));
      if (cached !== undefined) return cached;

      this.recordServiceProtocol(target.namespace, target.service);
      resolver = this.entries.resolver(target.namespace, target.service);

      if (redirectOrder.includes(target.id)) {
        redirectOrder.push(target.id);
        throw new ChainCompileError(
          `detected circular resolver redirect: [${redirectOrder.join(" -> ")}]`,
        );
      }
      redirectOrder.push(target.id);

      const next = this.redirectOrDefaultSubset(target, resolver);
      if (next === undefined) break;
      target = next;
    }

    if (target.subset !== "" && own(resolver?.Subsets, target.subset) === undefined) {
      throw new ChainCompileError(
        `service "${target.service}" does not have a subset named "${target.subset}"`,
      );
    }

    const resolverConfig: DiscoveryResolver = {
      ConnectTimeout: formatDuration(this.connectTimeout(resolver)),
      Target: target.id,
    };
    if (isDefaultResolver(resolver)) resolverConfig.Default = true;
    const node: DiscoveryGraphNode = {
      Type: "resolver",
      Name: target.id,
      Resolver: resolverConfig,
    };

    this.configureTarget(target, resolver);
    this.retainedTargets.add(target.id);

    // Failover is not recursive: a failover target's own failover is ignored.
    if (recursedForFailover) return node;

    this.recordNode(node);
    const failoverTargets = this.failoverTargets(target, resolver);
    if (failoverTargets.length > 0) {
      resolverConfig.Failover = {
        Targets: failoverTargets.map((t) => this.getResolverNode(t, true).Resolver!.Target),
      };
    }
    return node;
  }

  /** The target to resolve instead of `target`, or undefined when it resolves as itself. */
  private redirectOrDefaultSubset(
    target: Target,
    resolver: ServiceResolverEntry | undefined,
  ): Target | undefined {
    const redirect = resolver?.Redirect;
    if (redirect !== undefined) {
      const redirected = this.rewriteTarget(target, {
        service: redirect.Service,
        subset: redirect.ServiceSubset,
        namespace: redirect.Namespace,
        datacenter: redirect.Datacenter,
      });
      // A redirect makes the chain continue at the redirect target.
      if (redirected.id !== target.id) return redirected;
    }
    if (target.subset === "" && resolver?.DefaultSubset) {
      return this.rewriteTarget(target, { subset: resolver.DefaultSubset });
    }
    return undefined;
  }

  private connectTimeout(resolver: ServiceResolverEntry | undefined): number {
    const configured = resolver?.ConnectTimeout ? parseDuration(resolver.ConnectTimeout) : 0;
    const timeout = configured > 0 ? configured : DEFAULT_CONNECT_TIMEOUT_NS;
    const override = this.overrideConnectTimeoutNs;
    if (override > 0 && override !== timeout) {
      this.customizedBy.connectTimeout = true;
      return override;
    }
    return timeout;
  }

  /** Fills in what a target learns from its resolver and defaults: subset, SNI, mesh gateway. */
  private configureTarget(target: Target, resolver: ServiceResolverEntry | undefined): void {
    target.subsetDefinition = copySubset(own(resolver?.Subsets, target.subset));

    const externalSni = this.entries.serviceDefaults(target.namespace, target.service)?.ExternalSNI;
    if (externalSni) {
      target.sni = externalSni;
      target.external = true;
      this.rejectExternalFeatures(target, resolver);
    }
    target.meshGatewayMode = this.meshGatewayMode(target);
  }

  private rejectExternalFeatures(target: Target, resolver: ServiceResolverEntry | undefined): void {
    const forbidden: [string, boolean][] = [
      ["redirects", resolver?.Redirect !== undefined],
      ["subsets", !isEmptyRecord(resolver?.Subsets)],
      ["failover", !isEmptyRecord(resolver?.Failover)],
    ];
    for (const [feature, present] of forbidden) {
      if (present) {
        throw new ChainCompileError(
          `service "${target.service}" has an external SNI set; ` +
            `cannot define ${feature} for external services`,
        );
      }
    }
  }

  private meshGatewayMode(target: Target): string {
    // Gateways are only used to leave the datacenter the chain is used from (the answering server's,
    // not compile-dc), and never for external services.
    const useIn = this.request.useInDatacenter || this.request.datacenter;
    if (target.datacenter === useIn || target.external) return "";

    let mode: string =
      this.entries.serviceDefaults(target.namespace, target.service)?.MeshGateway?.Mode ?? "";
    if (mode === "") mode = this.entries.proxyDefaults()?.MeshGateway?.Mode ?? "";

    const override = this.request.overrideMeshGateway?.Mode ?? "";
    if (override !== "" && override !== mode) {
      this.customizedBy.meshGateway = true;
      mode = override;
    }
    return mode;
  }

  private failoverTargets(target: Target, resolver: ServiceResolverEntry | undefined): Target[] {
    const failover = own(resolver?.Failover, target.subset) ?? own(resolver?.Failover, "*");
    if (failover === undefined) return [];

    const datacenters = failover.Datacenters?.length ? failover.Datacenters : [""];
    return datacenters
      .map((datacenter) =>
        this.rewriteTarget(target, {
          service: failover.Service,
          subset: failover.ServiceSubset,
          namespace: failover.Namespace,
          datacenter,
        }),
      )
      .filter((t) => t.id !== target.id); // never fail over to yourself
  }

  // ---- targets and protocols ------------------------------------------------------------

  /** The one target per coordinates; namespace and datacenter default to the request's. */
  private newTarget(fields: TargetFields): Target {
    const service = fields.service ?? "";
    const subset = fields.subset ?? "";
    const namespace = fields.namespace || this.request.namespace;
    const datacenter = fields.datacenter || this.request.datacenter;
    const id = targetId(service, subset, namespace, datacenter);

    const loaded = this.loadedTargets.get(id);
    if (loaded !== undefined) return loaded;

    const sni = `${id}.internal.${this.request.trustDomain}`;
    const target: Target = {
      id,
      service,
      subset,
      namespace,
      datacenter,
      meshGatewayMode: "",
      subsetDefinition: {},
      sni,
      name: sni,
      external: false,
    };
    this.loadedTargets.set(id, target);
    return target;
  }

  /** Non-empty fields replace the target's; a different service drops the old service's subset. */
  private rewriteTarget(target: Target, fields: TargetFields): Target {
    let { service, subset } = target;
    if (fields.service && fields.service !== service) {
      service = fields.service;
      subset = "";
    }
    if (fields.subset) subset = fields.subset;
    return this.newTarget({
      service,
      subset,
      namespace: fields.namespace || target.namespace,
      datacenter: fields.datacenter || target.datacenter,
    });
  }

  private recordServiceProtocol(namespace: string, service: string): void {
    const protocol = this.serviceProtocol(namespace, service);
    if (this.protocol === "") {
      this.protocol = protocol;
    } else if (this.protocol !== protocol) {
      throw new ChainCompileError(
        `discovery chain "${this.request.serviceName}" uses inconsistent protocols; ` +
          `service "${service}" has "${protocol}" which is not "${this.protocol}"`,
      );
    }
  }

  private serviceProtocol(namespace: string, service: string): string {
    const serviceDefaults = this.entries.serviceDefaults(namespace, service);
    // As in Consul, a service-defaults entry decides even when it leaves Protocol unset.
    let protocol: string | undefined = serviceDefaults?.Protocol;
    if (serviceDefaults === undefined) protocol = proxyConfigProtocol(this.entries.proxyDefaults()?.Config);
    return protocol ? protocol.toLowerCase() : "tcp";
  }

  private recordNode(node: DiscoveryGraphNode): void {
    this.nodes.set(nodeKey(node.Type, node.Name), node);
  }

  // ---- graph post-processing ------------------------------------------------------------

  /** Depth-first walk from the start node; meeting a node already on the current path is a loop. */
  private detectCircularReferences(): void {
    const path: string[] = [];
    const visit = (key: string): void => {
      if (path.includes(key)) {
        const loop = [...path, key].join(" -> ");
        throw new ChainCompileError(`detected circular reference: [${loop}]`);
      }
      path.push(key);
      for (const next of nextNodes(this.nodes.get(key)!)) visit(next);
      path.pop();
    };
    visit(this.startNode);
  }

  /** Inlines splitter-to-splitter hops so every split ends at a resolver. */
  private flattenAdjacentSplitterNodes(): void {
    for (let changed = true; changed; ) {
      changed = false;
      for (const node of this.nodes.values()) {
        if (node.Type !== "splitter") continue;
        const splits = node.Splits!.flatMap((split) => {
          const next = this.nodes.get(split.NextNode)!;
          if (next.Type !== "splitter") return [split];
          changed = true;
          return next.Splits!.map((inner) => ({
            Weight: effectiveWeight(split.Weight ?? 0, inner.Weight ?? 0),
            NextNode: inner.NextNode,
          }));
        });
        node.Splits = splits;
      }
    }
  }

  /** Keeps only nodes reachable from the start: drops inlined splitters, failover-only nodes. */
  private removeUnusedNodes(): void {
    const visited = new Set<string>();
    const todo = [this.startNode];
    for (let key = todo.pop(); key !== undefined; key = todo.pop()) {
      if (visited.has(key)) continue;
      visited.add(key);
      todo.push(...nextNodes(this.nodes.get(key)!));
    }
    for (const key of [...this.nodes.keys()]) {
      if (!visited.has(key)) this.nodes.delete(key);
    }
  }

  // ---- output ---------------------------------------------------------------------------

  private outputNodes(): Record<string, DiscoveryGraphNode> {
    const nodes: Record<string, DiscoveryGraphNode> = {};
    for (const key of [...this.nodes.keys()].sort()) {
      nodes[key] = outputNode(this.nodes.get(key)!);
    }
    return nodes;
  }

  private outputTargets(): Record<string, DiscoveryTarget> {
    const targets: Record<string, DiscoveryTarget> = {};
    for (const id of [...this.retainedTargets].sort()) {
      targets[id] = outputTarget(this.loadedTargets.get(id)!);
    }
    return targets;
  }

  /**
   * Consul hashes the applied overrides with mitchellh/hashstructure (format v1, FNV-1 64) and
   * keeps 8 hex digits; reproducing that keeps the hash identical to the real system's.
   */
  private customizationHash(): string | undefined {
    const marked = this.customizedBy;
    if (!marked.meshGateway && !marked.protocol && !marked.connectTimeout) return undefined;
    const meshGatewayMode = marked.meshGateway
      ? (this.request.overrideMeshGateway?.Mode ?? "")
      : "";
    const protocol = marked.protocol ? (this.request.overrideProtocol ?? "") : "";
    const connectTimeout = marked.connectTimeout ? this.overrideConnectTimeoutNs : 0;
    const hash = hashStruct("", [
      [
        "OverrideMeshGateway",
        hashStruct("MeshGatewayConfig", [["Mode", hashString(meshGatewayMode)]]),
      ],
      ["OverrideProtocol", hashString(protocol)],
      ["OverrideConnectTimeout", hashInt64(connectTimeout)],
    ]);
    return hash.toString(16).slice(0, 8);
  }
}

/**
 * A resolver is Default when there is no entry, or its entry sets none of the fields that change
 * resolution (as Consul's ServiceResolverConfigEntry.IsDefault, structs/config_entry_discoverychain.go,
 * which compile.go getResolverNode copies into the node): an entry with only Meta, empty maps or a
 * zero ConnectTimeout still is.
 */
function isDefaultResolver(resolver: ServiceResolverEntry | undefined): boolean {
  if (resolver === undefined) return true;
  return (
    !resolver.DefaultSubset &&
    Object.keys(resolver.Subsets ?? {}).length === 0 &&
    resolver.Redirect === undefined &&
    Object.keys(resolver.Failover ?? {}).length === 0 &&
    (resolver.ConnectTimeout === undefined || parseDuration(resolver.ConnectTimeout) === 0)
  );
}

/**
 * `protocol` of the opaque proxy-defaults Config as Consul's compiler reads it: mapstructure.WeakDecode
 * into a struct with a `protocol` field, errors ignored (compile.go recordServiceProtocol). The key
 * matches in any case (the exact one first); numbers and booleans become strings; anything else is
 * no protocol, hence tcp.
 */
function proxyConfigProtocol(config: Record<string, unknown> | undefined): string {
  if (!config) return "";
  const key = Object.hasOwn(config, "protocol") ? "protocol" : Object.keys(config).find((k) => k.toLowerCase() === "protocol");
  const value = key === undefined ? undefined : config[key];
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") return goFormatFloat(value);
  return "";
}

function defaultRoute(service: string, namespace: string): ServiceRoute {
  return {
    Match: { HTTP: { PathPrefix: "/" } },
    Destination: { Service: service, Namespace: namespace },
  };
}

function nextNodes(node: DiscoveryGraphNode): string[] {
  switch (node.Type) {
    case "router":
      return node.Routes!.map((route) => route.NextNode);
    case "splitter":
      return node.Splits!.map((split) => split.NextNode);
    case "resolver":
      return []; // redirect loops are caught while resolving; failover is not recursive
  }
}

/**
 * Weight of an inner split seen through an outer one, rounded to 2 decimals. Consul computes
 * this in float32, so the intermediate steps are rounded to float32 to match its rounding.
 */
function effectiveWeight(outer: number, inner: number): number {
  const weight = Math.fround(Math.fround(Math.fround(outer) * Math.fround(inner)) / 100);
  return Math.round(Math.fround(weight * 100)) / 100;
}

function copySubset(subset: ServiceResolverSubset | undefined): ServiceResolverSubset {
  const copy: ServiceResolverSubset = {};
  if (subset?.Filter) copy.Filter = subset.Filter;
  if (subset?.OnlyPassing) copy.OnlyPassing = true;
  return copy;
}

function outputNode(node: DiscoveryGraphNode): DiscoveryGraphNode {
  const out: DiscoveryGraphNode = { Type: node.Type, Name: node.Name };
  if (node.Routes) {
    out.Routes = node.Routes.map((r) => ({ Definition: r.Definition, NextNode: r.NextNode }));
  }
  if (node.Splits) {
    // DiscoverySplit.Weight is `json:",omitempty"` (structs/discovery_chain.go): a 0 weight is left out.
    out.Splits = node.Splits.map((s) => (s.Weight === 0 ? { NextNode: s.NextNode } : { Weight: s.Weight, NextNode: s.NextNode }));
  }
  if (node.Resolver) {
    const { ConnectTimeout, Target, Default, Failover } = node.Resolver;
    out.Resolver = { ConnectTimeout, Target };
    if (Default) out.Resolver.Default = true;
    if (Failover) out.Resolver.Failover = { Targets: [...Failover.Targets] };
  }
  return out;
}

function outputTarget(target: Target): DiscoveryTarget {
  return {
    ID: target.id,
    Service: target.service,
    ...(target.subset === "" ? {} : { ServiceSubset: target.subset }),
    Namespace: target.namespace,
    Datacenter: target.datacenter,
    MeshGateway: target.meshGatewayMode === "" ? {} : { Mode: target.meshGatewayMode },
    Subset: { ...target.subsetDefinition },
    ...(target.external ? { External: true } : {}),
    SNI: target.sni,
    Name: target.name,
  };
}

/** Deep copy of plain JSON data without undefined-valued properties (the output must have none). */
function copyDefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => copyDefined(item)) as T;
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) copy[key] = copyDefined(item);
  }
  return copy as T;
}

// ---- hashstructure (v1 format) over FNV-1 64 --------------------------------------------

const UINT64_MASK = (1n << 64n) - 1n;
const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;

function fnv1_64(bytes: Uint8Array): bigint {
  let hash = FNV64_OFFSET;
  for (const byte of bytes) {
    hash = (hash * FNV64_PRIME) & UINT64_MASK;
    hash ^= BigInt(byte);
  }
  return hash;
}

function uint64LE(...values: bigint[]): Uint8Array {
  const bytes = new Uint8Array(8 * values.length);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => view.setBigUint64(8 * i, BigInt.asUintN(64, value), true));
  return bytes;
}

function hashString(value: string): bigint {
  return fnv1_64(new TextEncoder().encode(value));
}

function hashInt64(value: number): bigint {
  return fnv1_64(uint64LE(BigInt(value)));
}

/** Struct: hash of the type name, XOR-ed with an ordered hash of each (field name, value) pair. */
function hashStruct(typeName: string, fields: [string, bigint][]): bigint {
  let hash = hashString(typeName);
  for (const [name, value] of fields) {
    hash ^= fnv1_64(uint64LE(hashString(name), value));
  }
  return hash;
}
