// The compiled discovery chain, as the API returns it.
import type { MeshGatewayConfig, ServiceResolverSubset, ServiceRoute } from "./entries.ts";

export type NodeType = "resolver" | "splitter" | "router";

export interface DiscoveryResolver {
  /** Go duration string, e.g. "5s". */
  ConnectTimeout: string;
  Target: string;
  /** Present (true) only when no service-resolver entry exists for the service (the seed's rule). */
  Default?: boolean;
  Failover?: { Targets: string[] };
}

export interface DiscoverySplit {
  Weight: number;
  NextNode: string;
}

export interface DiscoveryRoute {
  Definition: ServiceRoute;
  NextNode: string;
}

export interface DiscoveryGraphNode {
  Type: NodeType;
  Name: string;
  Resolver?: DiscoveryResolver;
  Splits?: DiscoverySplit[];
  Routes?: DiscoveryRoute[];
}

export interface DiscoveryTarget {
  ID: string;
  Service: string;
  ServiceSubset?: string;
  Namespace: string;
  Datacenter: string;
  MeshGateway: MeshGatewayConfig;
  Subset: ServiceResolverSubset;
  /** Present (true) when the target is outside the mesh (service-defaults ExternalSNI). */
  External?: boolean;
  SNI: string;
  Name: string;
}

export interface CompiledChain {
  ServiceName: string;
  Namespace: string;
  Datacenter: string;
  CustomizationHash?: string;
  Protocol: string;
  StartNode: string;
  Nodes: Record<string, DiscoveryGraphNode>;
  Targets: Record<string, DiscoveryTarget>;
}

export interface CompileRequest {
  serviceName: string;
  /** Namespace the chain is evaluated in. */
  namespace: string;
  /** Datacenter the chain is evaluated in (compile-dc, else the server's). */
  datacenter: string;
  /**
   * Datacenter the chain will be used from: the answering server's own. Mesh-gateway modes are only
   * set on targets outside it, even when compile-dc names another datacenter. Defaults to `datacenter`.
   */
  useInDatacenter?: string;
  /** Trust domain used for SNI, `<cluster_uuid>.<domain_suffix>`. */
  trustDomain: string;
  /** Go duration string; "" or "0s" means no override. */
  overrideConnectTimeout?: string;
  overrideProtocol?: string;
  overrideMeshGateway?: MeshGatewayConfig;
}

/** A configuration graph that cannot be compiled (redirect loop, protocol conflict, unknown subset...). */
export class ChainCompileError extends Error {
  override name = "ChainCompileError";
}
