// Configuration entries that feed the discovery chain, in their canonical (CamelCase) wire form.
import type { components } from "../../../generated/mesh/schema.ts";

export const ENTRY_KINDS = [
  "service-resolver",
  "service-defaults",
  "proxy-defaults",
  "service-splitter",
  "service-router",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

// The wire shapes come from the description (generated/mesh/schema.ts). Once decoded, durations
// are Go duration strings (numbers of nanoseconds are converted by the decoder), so the duration
// fields are narrowed to string here; everything else is the described type itself.
type Schemas = components["schemas"];
/** `T` with its duration fields `K` as decoded strings. */
type Decoded<T, K extends keyof T> = Omit<T, K> & { [P in K]?: string };

export type MeshGatewayConfig = Schemas["MeshGatewayConfig"];
export type ExposeConfig = Schemas["ExposeConfig"];
export type ExposePath = Schemas["ExposePath"];
export type ServiceResolverSubset = Schemas["ServiceResolverSubset"];
export type ServiceResolverRedirect = Schemas["ServiceResolverRedirect"];
export type ServiceResolverFailover = Schemas["ServiceResolverFailover"];
export type ServiceResolverEntry = Decoded<Schemas["ServiceResolverEntry"], "ConnectTimeout">;
export type ServiceDefaultsEntry = Schemas["ServiceDefaultsEntry"];
export type ProxyDefaultsEntry = Schemas["ProxyDefaultsEntry"];
export type ServiceSplit = Schemas["ServiceSplit"];
export type ServiceSplitterEntry = Schemas["ServiceSplitterEntry"];
export type HeaderMatch = Schemas["HeaderMatch"];
export type QueryParamMatch = Schemas["QueryParamMatch"];
export type HttpRouteMatch = Schemas["HttpRouteMatch"];
export type RouteDestination = Decoded<Schemas["RouteDestination"], "RequestTimeout">;
export type ServiceRoute = Omit<Schemas["ServiceRoute"], "Destination"> & { Destination?: RouteDestination };
export type ServiceRouterEntry = Omit<Schemas["ServiceRouterEntry"], "Routes"> & { Routes?: ServiceRoute[] };

/**
 * An entry as a request writes it: durations as strings or numbers of nanoseconds, and the weakly
 * typed forms of the other fields (`null`, numbers for text, text for booleans...), which
 * config-entry.ts decodeEntryInput turns into a ConfigEntry.
 */
export type ConfigEntryInput = Schemas["ConfigEntryInput"];
// The nested structures of a written entry may be `null` (nothing set); these are the structures themselves.
export type MeshGatewayConfigInput = NonNullable<Schemas["MeshGatewayConfigInput"]>;
export type ExposeConfigInput = NonNullable<Schemas["ExposeConfigInput"]>;
export type ExposePathInput = NonNullable<Schemas["ExposePathInput"]>;
export type ServiceResolverSubsetInput = NonNullable<Schemas["ServiceResolverSubsetInput"]>;
export type ServiceResolverFailoverInput = NonNullable<Schemas["ServiceResolverFailoverInput"]>;
export type ServiceSplitInput = NonNullable<Schemas["ServiceSplitInput"]>;
export type ServiceRouteInput = NonNullable<Schemas["ServiceRouteInput"]>;
export type HttpRouteMatchInput = NonNullable<Schemas["HttpRouteMatchInput"]>;
export type HeaderMatchInput = NonNullable<Schemas["HeaderMatchInput"]>;
export type QueryParamMatchInput = NonNullable<Schemas["QueryParamMatchInput"]>;
export type RouteDestinationInput = NonNullable<Schemas["RouteDestinationInput"]>;
export type LenientString = Schemas["LenientString"];
export type LenientBoolean = Schemas["LenientBoolean"];
export type LenientUnsigned = Schemas["LenientUnsigned"];
export type LenientInteger = Schemas["LenientInteger"];
export type LenientStringList = Schemas["LenientStringList"];
export type LenientStringMap = Schemas["LenientStringMap"];

/** An entry as decoded and stored: durations as Go duration strings. */
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
