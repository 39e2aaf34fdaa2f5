// The compiled discovery chain, as the API returns it.
import type { components } from "../../../generated/mesh/schema.ts";
import type { MeshGatewayConfig, ServiceRoute } from "./entries.ts";

type Schemas = components["schemas"];

export type DiscoveryResolver = Schemas["DiscoveryResolver"];
export type DiscoverySplit = Schemas["DiscoverySplit"];
/** A route as compiled: its definition is a decoded route (durations as strings). */
export type DiscoveryRoute = Omit<Schemas["DiscoveryRoute"], "Definition"> & { Definition: ServiceRoute };
export type DiscoveryGraphNode = Omit<Schemas["DiscoveryGraphNode"], "Routes"> & { Routes?: DiscoveryRoute[] };
export type NodeType = DiscoveryGraphNode["Type"];
export type DiscoveryTarget = Schemas["DiscoveryTarget"];
export type CompiledChain = Omit<Schemas["CompiledChain"], "Nodes"> & { Nodes: Record<string, DiscoveryGraphNode> };

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
