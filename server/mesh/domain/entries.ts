// Configuration entries that feed the discovery chain, in their canonical (CamelCase) wire form.
// Durations are kept as the strings the operator wrote (Go duration syntax, e.g. "15s", "1m30s").

export const ENTRY_KINDS = [
  "service-resolver",
  "service-defaults",
  "proxy-defaults",
  "service-splitter",
  "service-router",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export const PROTOCOLS = ["tcp", "http", "http2", "grpc"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export type MeshGatewayMode = "" | "none" | "local" | "remote";
export interface MeshGatewayConfig {
  Mode?: MeshGatewayMode;
}

interface EntryCommon {
  Name: string;
  Namespace?: string;
  Meta?: Record<string, string>;
  CreateIndex?: number;
  ModifyIndex?: number;
}

export interface ServiceResolverSubset {
  Filter?: string;
  OnlyPassing?: boolean;
}

export interface ServiceResolverRedirect {
  Service?: string;
  ServiceSubset?: string;
  Namespace?: string;
  Datacenter?: string;
}

export interface ServiceResolverFailover {
  Service?: string;
  ServiceSubset?: string;
  Namespace?: string;
  Datacenters?: string[];
}

export interface ServiceResolverEntry extends EntryCommon {
  Kind: "service-resolver";
  DefaultSubset?: string;
  Subsets?: Record<string, ServiceResolverSubset>;
  Redirect?: ServiceResolverRedirect;
  /** Keyed by subset name, or "*" for any subset. */
  Failover?: Record<string, ServiceResolverFailover>;
  ConnectTimeout?: string;
}

export interface ServiceDefaultsEntry extends EntryCommon {
  Kind: "service-defaults";
  Protocol?: Protocol;
  MeshGateway?: MeshGatewayConfig;
  ExternalSNI?: string;
}

export interface ProxyDefaultsEntry extends EntryCommon {
  Kind: "proxy-defaults";
  /** Opaque proxy configuration; `protocol` sets the default protocol of every service. */
  Config?: Record<string, unknown>;
  MeshGateway?: MeshGatewayConfig;
}

export interface ServiceSplit {
  Weight: number;
  Service?: string;
  ServiceSubset?: string;
  Namespace?: string;
}

export interface ServiceSplitterEntry extends EntryCommon {
  Kind: "service-splitter";
  Splits: ServiceSplit[];
}

export interface HeaderMatch {
  Name: string;
  Present?: boolean;
  Exact?: string;
  Prefix?: string;
  Suffix?: string;
  Regex?: string;
  Invert?: boolean;
}

export interface QueryParamMatch {
  Name: string;
  Present?: boolean;
  Exact?: string;
  Regex?: string;
}

export interface HttpRouteMatch {
  PathExact?: string;
  PathPrefix?: string;
  PathRegex?: string;
  Header?: HeaderMatch[];
  QueryParam?: QueryParamMatch[];
  Methods?: string[];
}

export interface RouteDestination {
  Service?: string;
  ServiceSubset?: string;
  Namespace?: string;
  PrefixRewrite?: string;
  RequestTimeout?: string;
  NumRetries?: number;
  RetryOnConnectFailure?: boolean;
  RetryOnStatusCodes?: number[];
}

export interface ServiceRoute {
  Match?: { HTTP?: HttpRouteMatch };
  Destination?: RouteDestination;
}

export interface ServiceRouterEntry extends EntryCommon {
  Kind: "service-router";
  Routes?: ServiceRoute[];
}

export type ConfigEntry =
  | ServiceResolverEntry
  | ServiceDefaultsEntry
  | ProxyDefaultsEntry
  | ServiceSplitterEntry
  | ServiceRouterEntry;

export const DEFAULT_NAMESPACE = "default";
/** The only name a proxy-defaults entry may have. */
export const PROXY_DEFAULTS_NAME = "global";

/** Read access to the entries of one moment; what the compiler consults. */
export interface EntryLookup {
  resolver(namespace: string, service: string): ServiceResolverEntry | undefined;
  splitter(namespace: string, service: string): ServiceSplitterEntry | undefined;
  router(namespace: string, service: string): ServiceRouterEntry | undefined;
  serviceDefaults(namespace: string, service: string): ServiceDefaultsEntry | undefined;
  proxyDefaults(): ProxyDefaultsEntry | undefined;
}
