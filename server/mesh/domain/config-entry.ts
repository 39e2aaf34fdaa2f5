// Config entry bodies for PUT /v1/config, in the order the real system treats them:
// 1. normalizeEntryInput (before the description's check): the kind first; translateEntryKeys: any
//    spelling of a known key (CamelCase, snake_case, any case) becomes the canonical CamelCase one;
//    then the values and keys the agent's decoder refuses (weak-input.ts), in its words;
// 2. decodeEntryInput: the written entry (weakly typed values, ConfigEntryInput) as a typed ConfigEntry;
// 3. validateEntry: the semantic rules of Consul's Normalize()/Validate() methods, on a well-typed entry.
import { DurationError, formatDuration, parseDuration } from "../../shared/go-duration.ts";
import { DEFAULT_NAMESPACE, ENTRY_KINDS, PROXY_DEFAULTS_NAME } from "./entries.ts";
import { DurationInputError, durationText } from "./durations.ts";
import type {
  ConfigEntry,
  ConfigEntryInput,
  ExposeConfig,
  ExposeConfigInput,
  ExposePath,
  ExposePathInput,
  HeaderMatch,
  HeaderMatchInput,
  HttpRouteMatch,
  HttpRouteMatchInput,
  LenientBoolean,
  LenientInteger,
  LenientString,
  LenientStringList,
  LenientStringMap,
  LenientUnsigned,
  MeshGatewayConfig,
  MeshGatewayConfigInput,
  ProxyDefaultsEntry,
  QueryParamMatch,
  QueryParamMatchInput,
  RouteDestination,
  RouteDestinationInput,
  ServiceDefaultsEntry,
  ServiceResolverEntry,
  ServiceResolverFailover,
  ServiceResolverFailoverInput,
  ServiceResolverRedirect,
  ServiceResolverSubset,
  ServiceResolverSubsetInput,
  ServiceRoute,
  ServiceRouteInput,
  ServiceRouterEntry,
  ServiceSplit,
  ServiceSplitInput,
  ServiceSplitterEntry,
} from "./entries.ts";
import { goMultiErrorText, goQuote } from "../../shared/go-text.ts";
import { mapstructureErrorText, weakBool, weakFloat32, weakInputProblems, weakInt, weakString, weakUint32, type Weak } from "./weak-input.ts";
import { isJsonObject } from "../../shared/json-body.ts";

/** A rule of the entry's kind is broken (its Validate() method refuses it). */
export class EntryValidationError extends Error {
  override name = "EntryValidationError";
}

/** The body cannot be decoded into an entry at all (the real decoder's "Request decoding failed"). */
export class EntryDecodeError extends Error {
  override name = "EntryDecodeError";
}

function fail(message: string): never {
  throw new EntryValidationError(message);
}

/** Go's %q for the strings that appear in messages. */
const q = (value: unknown): string => JSON.stringify(value) ?? String(value);

// ---------------------------------------------------------------------------------------------
// Key translation
// ---------------------------------------------------------------------------------------------

type KeysOf<T> = T extends unknown ? keyof T : never;
type FieldName = KeysOf<
  | ConfigEntry
  | ServiceResolverSubset
  | ServiceResolverRedirect
  | ServiceResolverFailover
  | MeshGatewayConfig
  | ExposeConfig
  | ExposePath
  | ServiceSplit
  | ServiceRoute
  | NonNullable<ServiceRoute["Match"]>
  | HttpRouteMatch
  | HeaderMatch
  | QueryParamMatch
  | RouteDestination
>;

/** Every field name of the five kinds, in canonical spelling. */
const CANONICAL_KEYS = [
  // common
  "Kind", "Name", "Namespace", "Meta", "CreateIndex", "ModifyIndex",
  // service-resolver
  "ConnectTimeout", "DefaultSubset", "Subsets", "Filter", "OnlyPassing", "Redirect", "Service",
  "ServiceSubset", "Datacenter", "Datacenters", "Failover",
  // service-defaults / proxy-defaults
  "Protocol", "MeshGateway", "Mode", "ExternalSNI", "Config",
  "Expose", "Checks", "Paths", "ListenerPort", "Path", "LocalPathPort", "ParsedFromCheck",
  // service-splitter
  "Splits", "Weight",
  // service-router
  "Routes", "Match", "HTTP", "PathExact", "PathPrefix", "PathRegex", "Header", "QueryParam",
  "Methods", "Present", "Exact", "Prefix", "Suffix", "Regex", "Invert", "Destination",
  "PrefixRewrite", "RequestTimeout", "NumRetries", "RetryOnConnectFailure", "RetryOnStatusCodes",
] as const satisfies readonly FieldName[];

// Compile-time check that a field added to entries.ts is not forgotten here.
type Assert<T extends true> = T;
type _DictionaryIsComplete = Assert<
  [Exclude<FieldName, (typeof CANONICAL_KEYS)[number]>] extends [never] ? true : false
>;

type CanonicalKey = (typeof CANONICAL_KEYS)[number];

/** The spelling-insensitive form of a key: "connect_timeout", "Connect-Timeout" -> "connecttimeout". */
const foldKey = (key: string): string => key.toLowerCase().replace(/[_-]/g, "");

const CANONICAL_BY_FOLDED = new Map<string, CanonicalKey>(CANONICAL_KEYS.map((k) => [foldKey(k), k]));

/** User data: neither keys nor values are ours to rewrite (proxy-defaults `Config.protocol` stays). */
const OPAQUE_MAPS: ReadonlySet<CanonicalKey> = new Set(["Meta", "Config"]);
/** Keyed by user-chosen subset names (or "*"): keep the keys, translate the structures inside. */
const NAMED_MAPS: ReadonlySet<CanonicalKey> = new Set(["Subsets", "Failover"]);

/** Deep copy of a request body with every known key in canonical spelling; non-objects unchanged. */
export function translateEntryKeys(raw: unknown): unknown {
  return isJsonObject(raw) ? translateObject(raw) : raw;
}

/**
 * What the decoder does before schema validation: canonical keys, refusals of values and keys in
 * the decoder's words, and the service-defaults protocol lower-cased (the real system accepts `HTTP`
 * and stores `http`; proxy-defaults `Config` stays as written).
 */
export function normalizeEntryInput(raw: unknown): unknown {
  const kind = checkEntryKind(raw);
  const entry = translateEntryKeys(raw);
  if (!isJsonObject(entry)) return entry;
  // Values of another type are read as the decoder reads them (decodeEntryInput); the ones it
  // refuses are refused here, in its words, before the description's check.
  // Unknown keys are DecodeConfigEntry's validateUnusedKeys, each an `invalid config key` error in a
  // go-multierror list, once decoding succeeded.
  if (kind !== undefined) {
    const problems = weakInputProblems(kind, entry);
    if (problems.values.length > 0) throw new EntryDecodeError(mapstructureErrorText(problems.values));
    if (problems.unusedKeys.length > 0) throw new EntryDecodeError(goMultiErrorText(problems.unusedKeys.map((key) => `invalid config key ${goQuote(key)}`)));
  }
  if (typeof entry.Protocol === "string") entry.Protocol = entry.Protocol.toLowerCase();
  // Durations may come as numbers of nanoseconds; from here on they are Go duration strings.
  entry.ConnectTimeout = checkedDurationText("ConnectTimeout", entry.ConnectTimeout);
  if (Array.isArray(entry.Routes)) {
    entry.Routes.forEach((route: unknown, i) => {
      const destination = isJsonObject(route) ? route.Destination : undefined;
      if (isJsonObject(destination) && destination.RequestTimeout !== undefined) {
        destination.RequestTimeout = checkedDurationText(`Routes[${i}].Destination.RequestTimeout`, destination.RequestTimeout);
      }
    });
  }
  if (entry.ConnectTimeout === undefined) delete entry.ConnectTimeout;
  return entry;
}

/**
 * The kind, read first and as the real decoder reads it (agent/structs/config_entry.go
 * DecodeConfigEntry): from `Kind`, or else `kind` (no other spelling), a string, naming a kind
 * (MakeConfigEntry's words). Everything else about the body is only looked at once the kind is known.
 */
function checkEntryKind(raw: unknown): string | undefined {
  // The body is first decoded into a map (agent/http.go decodeBodyDeprecated, through mapstructure,
  // whose decodeMap names the Go kind of anything else; JSON null sets nothing: an empty map).
  if (raw === undefined) return; // no body at all: the decoder's EOF, answered by the app
  if (raw === null) throw new EntryDecodeError("Payload does not contain a kind/Kind key at the top level");
  if (!isJsonObject(raw)) throw new EntryDecodeError(`'' expected a map, got '${goKindOf(raw)}'`);
  const kind = Object.hasOwn(raw, "Kind") ? raw.Kind : Object.hasOwn(raw, "kind") ? raw.kind : MISSING;
  if (kind === MISSING) throw new EntryDecodeError("Payload does not contain a kind/Kind key at the top level");
  if (typeof kind !== "string") throw new EntryDecodeError("Kind value in payload is not a string");
  if (!(ENTRY_KINDS as readonly string[]).includes(kind)) throw new EntryDecodeError(`invalid config entry kind: ${kind}`);
  return kind;
}

const MISSING = Symbol("missing");

/** The reflect.Kind of a JSON value that encoding/json decoded into interface{}. */
function goKindOf(value: unknown): string {
  if (Array.isArray(value)) return "slice";
  if (typeof value === "number") return "float64";
  return typeof value === "boolean" ? "bool" : "string";
}

/**
 * An entry as written (ConfigEntryInput: weakly typed values, durations as text or nanoseconds) as
 * the typed entry the rest of the server works on: each value read as weak-input.ts describes
 * (mapstructure's weak decoding, agent/structs/config_entry.go DecodeConfigEntry), `null` and
 * absent fields left out, durations as Go duration strings, the indexes dropped (the store sets
 * them). A value the decoder refuses is an EntryDecodeError; normalizeEntryInput has already
 * refused those of a request in the decoder's words, so here it only guards the types.
 */
export function decodeEntryInput(input: ConfigEntryInput): ConfigEntry {
  // Fields in the order of the entry's Go struct (Kind, Name, the kind's own, Meta, the enterprise
  // namespace), the order the agent's answers use.
  const name = text(input.Name, "Name") ?? "";
  const common = { ...optional("Meta", textMap(input.Meta, "Meta")), ...optional("Namespace", input.Namespace ?? undefined) };
  switch (input.Kind) {
    case "service-defaults":
      return {
        Kind: input.Kind,
        Name: name,
        ...optional("Protocol", text(input.Protocol, "Protocol")),
        ...optional("MeshGateway", meshGateway(input.MeshGateway, "MeshGateway")),
        ...optional("Expose", expose(input.Expose, "Expose")),
        ...optional("ExternalSNI", text(input.ExternalSNI, "ExternalSNI")),
        ...common,
      };
    case "proxy-defaults":
      return {
        Kind: input.Kind,
        Name: input.Name,
        ...optional("Config", input.Config ?? undefined),
        ...optional("MeshGateway", meshGateway(input.MeshGateway, "MeshGateway")),
        ...optional("Expose", expose(input.Expose, "Expose")),
        ...common,
      };
    case "service-resolver":
      return {
        Kind: input.Kind,
        Name: name,
        ...optional("DefaultSubset", text(input.DefaultSubset, "DefaultSubset")),
        ...optional("Subsets", structMap(input.Subsets, "Subsets", subset)),
        ...optional("Redirect", input.Redirect == null ? undefined : target(input.Redirect, "Redirect", { ...optional("Datacenter", text(input.Redirect.Datacenter, "Redirect.Datacenter")) })),
        ...optional("Failover", structMap(input.Failover, "Failover", failover)),
        ...optional("ConnectTimeout", input.ConnectTimeout == null ? undefined : checkedDurationText("ConnectTimeout", input.ConnectTimeout)),
        ...common,
      };
    case "service-splitter":
      return { Kind: input.Kind, Name: name, ...optional("Splits", structList(input.Splits, "Splits", split)), ...common };
    case "service-router":
      return { Kind: input.Kind, Name: name, ...optional("Routes", structList(input.Routes, "Routes", route)), ...common };
  }
}

/** `{ [key]: value }`, or nothing when the value is unset: a stored entry has no undefined members. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  const out: { [P in K]?: V } = {};
  if (value !== undefined) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** A weak rule's value; a refusal (or a form the description should have refused) is a decode error. */
function must<T>(result: Weak<T>, name: string): T {
  if (result && "value" in result) return result.value;
  throw new EntryDecodeError(mapstructureErrorText([result?.problem ?? `'${name}' has a value the decoder does not take`]));
}

const join = (name: string, key: string): string => (name === "" ? key : `${name}.${key}`);

function text(value: LenientString | undefined, name: string): string | undefined {
  return value == null ? undefined : must(weakString(value, name), name);
}

function flag(value: LenientBoolean | undefined, name: string): boolean | undefined {
  return value == null ? undefined : must(weakBool(value, name), name);
}

function count(value: LenientUnsigned | undefined, name: string): number | undefined {
  return value == null ? undefined : must(weakUint32(value, name), name);
}

function integer(value: LenientInteger | undefined, name: string): number | undefined {
  return value == null ? undefined : must(weakInt(value, name), name);
}

/** decodeSlice: a list element by element (`null` the element's zero value); a single value lifted into a list; `{}` an empty list. */
function list<I, O>(value: I[] | I | Record<string, never> | null | undefined, name: string, element: (item: NonNullable<I>, name: string) => O, zero: O): O[] | undefined {
  if (value == null) return undefined;
  if (Array.isArray(value)) return value.map((item, i) => (item == null ? zero : element(item, `${name}[${i}]`)));
  if (isEmptyObject(value)) return [];
  return [element(value, `${name}[0]`)];
}

function isEmptyObject(value: unknown): value is Record<string, never> {
  return isJsonObject(value) && Object.keys(value).length === 0;
}

function textList(value: LenientStringList | undefined, name: string): string[] | undefined {
  return list<LenientString, string>(value, name, (item, at) => must(weakString(item, at), at), "");
}

/** A list of structs; a `null` element is the zero struct (every field unset). */
function structList<I extends object, O>(value: (I | null)[] | I | Record<string, never> | null | undefined, name: string, decode: (item: Partial<I>, name: string) => O): O[] | undefined {
  const empty: Partial<I> = {};
  return list<I | null, O>(value, name, decode, decode(empty, name));
}

function textMap(value: LenientStringMap | undefined, name: string): Record<string, string> | undefined {
  if (value == null) return undefined;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, member == null ? "" : must(weakString(member, `${name}[${key}]`), `${name}[${key}]`)]));
}

/** A map of structs; a `null` member is the zero struct (decodeMapFromMap decodes nil into a new zero value). */
function structMap<I extends object, O>(value: Record<string, I | null> | null | undefined, name: string, decode: (item: Partial<I>, name: string) => O): Record<string, O> | undefined {
  if (value == null) return undefined;
  const empty: Partial<I> = {};
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, decode(member ?? empty, `${name}[${key}]`)]));
}

function meshGateway(value: MeshGatewayConfigInput | null | undefined, name: string): MeshGatewayConfig | undefined {
  return value == null ? undefined : { ...optional("Mode", value.Mode ?? undefined) };
}

function expose(value: ExposeConfigInput | null | undefined, name: string): ExposeConfig | undefined {
  if (value == null) return undefined;
  return { ...optional("Checks", flag(value.Checks, join(name, "Checks"))), ...optional("Paths", structList(value.Paths, join(name, "Paths"), exposePath)) };
}

function exposePath(value: Partial<ExposePathInput>, name: string): ExposePath {
  return {
    ...optional("ListenerPort", integer(value.ListenerPort, join(name, "ListenerPort"))),
    ...optional("Path", text(value.Path, join(name, "Path"))),
    ...optional("LocalPathPort", integer(value.LocalPathPort, join(name, "LocalPathPort"))),
    ...optional("Protocol", text(value.Protocol, join(name, "Protocol"))),
    ...optional("ParsedFromCheck", flag(value.ParsedFromCheck, join(name, "ParsedFromCheck"))),
  };
}

function subset(value: Partial<ServiceResolverSubsetInput>, name: string): ServiceResolverSubset {
  return { ...optional("Filter", text(value.Filter, join(name, "Filter"))), ...optional("OnlyPassing", flag(value.OnlyPassing, join(name, "OnlyPassing"))) };
}

/** Service, ServiceSubset and Namespace, shared by redirects, failovers, splits and destinations. */
function target<R extends object>(value: { Service?: LenientString; ServiceSubset?: LenientString; Namespace?: LenientString }, name: string, rest: R) {
  return {
    ...optional("Service", text(value.Service, join(name, "Service"))),
    ...optional("ServiceSubset", text(value.ServiceSubset, join(name, "ServiceSubset"))),
    ...optional("Namespace", text(value.Namespace, join(name, "Namespace"))),
    ...rest,
  };
}

function failover(value: Partial<ServiceResolverFailoverInput>, name: string): ServiceResolverFailover {
  return target(value, name, { ...optional("Datacenters", textList(value.Datacenters, join(name, "Datacenters"))) });
}

function split(value: Partial<ServiceSplitInput>, name: string): ServiceSplit {
  const weight = value.Weight == null ? 0 : must(weakFloat32(value.Weight, join(name, "Weight")), join(name, "Weight"));
  return { Weight: weight, ...target(value, name, {}) };
}

function route(value: Partial<ServiceRouteInput>, name: string): ServiceRoute {
  const http = value.Match?.HTTP;
  return {
    ...optional("Match", value.Match == null ? undefined : { ...optional("HTTP", http == null ? undefined : httpMatch(http, join(name, "Match.HTTP"))) }),
    ...optional("Destination", value.Destination == null ? undefined : destination(value.Destination, join(name, "Destination"))),
  };
}

function httpMatch(value: HttpRouteMatchInput, name: string): HttpRouteMatch {
  return {
    ...optional("PathExact", text(value.PathExact, join(name, "PathExact"))),
    ...optional("PathPrefix", text(value.PathPrefix, join(name, "PathPrefix"))),
    ...optional("PathRegex", text(value.PathRegex, join(name, "PathRegex"))),
    ...optional("Header", structList(value.Header, join(name, "Header"), headerMatch)),
    ...optional("QueryParam", structList(value.QueryParam, join(name, "QueryParam"), queryParamMatch)),
    ...optional("Methods", textList(value.Methods, join(name, "Methods"))),
  };
}

function headerMatch(value: Partial<HeaderMatchInput>, name: string): HeaderMatch {
  return {
    Name: text(value.Name, join(name, "Name")) ?? "",
    ...optional("Present", flag(value.Present, join(name, "Present"))),
    ...optional("Exact", text(value.Exact, join(name, "Exact"))),
    ...optional("Prefix", text(value.Prefix, join(name, "Prefix"))),
    ...optional("Suffix", text(value.Suffix, join(name, "Suffix"))),
    ...optional("Regex", text(value.Regex, join(name, "Regex"))),
    ...optional("Invert", flag(value.Invert, join(name, "Invert"))),
  };
}

function queryParamMatch(value: Partial<QueryParamMatchInput>, name: string): QueryParamMatch {
  return {
    Name: text(value.Name, join(name, "Name")) ?? "",
    ...optional("Present", flag(value.Present, join(name, "Present"))),
    ...optional("Exact", text(value.Exact, join(name, "Exact"))),
    ...optional("Regex", text(value.Regex, join(name, "Regex"))),
  };
}

function destination(value: RouteDestinationInput, name: string): RouteDestination {
  return target(value, name, {
    ...optional("PrefixRewrite", text(value.PrefixRewrite, join(name, "PrefixRewrite"))),
    ...optional("RequestTimeout", value.RequestTimeout == null ? undefined : checkedDurationText(join(name, "RequestTimeout"), value.RequestTimeout)),
    ...optional("NumRetries", count(value.NumRetries, join(name, "NumRetries"))),
    ...optional("RetryOnConnectFailure", flag(value.RetryOnConnectFailure, join(name, "RetryOnConnectFailure"))),
    ...optional("RetryOnStatusCodes", list<LenientUnsigned, number>(value.RetryOnStatusCodes, join(name, "RetryOnStatusCodes"), (code, at) => must(weakUint32(code, at), at), 0)),
  });
}

/**
 * A duration as the decoder reads it: a number of nanoseconds becomes a duration string, and a string
 * must parse (the decode hook fails on it otherwise, which the real system answers with 400).
 */
function checkedDurationText(field: string, value: string | number): string;
function checkedDurationText(field: string, value: unknown): unknown;
function checkedDurationText(field: string, value: unknown): unknown {
  try {
    const text = durationText(value);
    if (typeof text === "string") parseDuration(text);
    return text;
  } catch (error) {
    if (error instanceof DurationInputError || error instanceof DurationError) throw new EntryDecodeError(`${field}: ${error.message}`);
    throw error;
  }
}

function translateObject(obj: Record<string, unknown>): Record<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(obj)) {
    const canonical = CANONICAL_BY_FOLDED.get(foldKey(key));
    if (canonical === undefined) {
      out.set(key, cloneJson(value)); // unknown: left for the schema validator to reject
      continue;
    }
    // The canonical spelling beats any alias; among aliases the first one wins.
    if (out.has(canonical) && key !== canonical) continue;
    out.set(canonical, translateField(canonical, value));
  }
  // fromEntries defines own properties, so a "__proto__" key cannot alter the prototype.
  return Object.fromEntries(out);
}

function translateField(key: CanonicalKey, value: unknown): unknown {
  if (OPAQUE_MAPS.has(key)) return cloneJson(value);
  if (NAMED_MAPS.has(key) && isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, translateValue(v)]));
  }
  return translateValue(value);
}

function translateValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(translateValue);
  if (isJsonObject(value)) return translateObject(value);
  return value;
}


function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (isJsonObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneJson(v)]));
  }
  return value;
}

/**
 * An entry as the real server writes it: Go's encoding/json leaves no struct field out, even with
 * `omitempty`, so ServiceConfigEntry's `Protocol` (which has no omitempty), `MeshGateway` and
 * `Expose`, and ProxyConfigEntry's `MeshGateway` and `Expose`, are always there (agent/structs/
 * config_entry.go), in the struct's order. The store keeps entries as written; answers use this.
 */
export function entryWireForm(entry: ConfigEntry): ConfigEntry {
  switch (entry.Kind) {
    case "service-defaults": {
      const { Kind, Name, Protocol = "", MeshGateway = {}, Expose = {}, ...rest } = entry;
      return { Kind, Name, Protocol, MeshGateway, Expose, ...rest };
    }
    case "proxy-defaults": {
      const { Kind, Name, Config, MeshGateway = {}, Expose = {}, ...rest } = entry;
      return { Kind, Name, ...(Config === undefined ? {} : { Config }), MeshGateway, Expose, ...rest };
    }
    default:
      return entry;
  }
}

/**
 * Whether two entries say the same, their indexes aside: compared as JSON (the order of keys and
 * members that are undefined do not count).
 */
export function sameEntryContent(a: ConfigEntry, b: ConfigEntry): boolean {
  // Compared as decoded structs are: a field Go always writes counts as its zero value when absent.
  const { CreateIndex: _createdA, ModifyIndex: _modifiedA, ...left } = entryWireForm(a);
  const { CreateIndex: _createdB, ModifyIndex: _modifiedB, ...right } = entryWireForm(b);
  return sameJson(left, right);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((value, i) => sameJson(value, b[i]));
  if (!isJsonObject(a) || !isJsonObject(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  return keys.length === Object.keys(b).filter((key) => b[key] !== undefined).length && keys.every((key) => sameJson(a[key], b[key]));
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/**
 * Checks the semantic rules of an entry whose types are already correct and returns a normalized
 * copy (canonical durations, lower-case protocols, upper-case methods, Namespace filled in).
 * Throws EntryValidationError naming the offending field.
 */
export function validateEntry(entry: ConfigEntry): ConfigEntry {
  const copy = cloneJson(entry) as ConfigEntry;
  if (!(ENTRY_KINDS as readonly string[]).includes(copy.Kind)) {
    fail(`invalid config entry kind: ${String(copy.Kind)}`);
  }
  if (!copy.Name) fail("Name is required");
  copy.Namespace = copy.Namespace || DEFAULT_NAMESPACE;
  checkMeta(copy.Meta);

  switch (copy.Kind) {
    case "service-resolver":
      validateResolver(copy);
      break;
    case "service-defaults":
      validateServiceDefaults(copy);
      break;
    case "proxy-defaults":
      validateProxyDefaults(copy);
      break;
    case "service-splitter":
      validateSplitter(copy);
      break;
    case "service-router":
      validateRouter(copy);
      break;
  }
  return copy;
}

// --- shared rules ----------------------------------------------------------------------------

// Consul's limits on entry metadata (agent/structs: metaMaxKeyPairs, metaKeyMaxLength,
// metaValueMaxLength) and its validateConfigEntryMeta messages.
const META_MAX_PAIRS = 64;
const META_KEY_MAX_LENGTH = 128;
const META_VALUE_MAX_LENGTH = 512;

function checkMeta(meta: Record<string, string> | undefined): void {
  if (!meta) return;
  const problems: string[] = [];
  const keys = Object.keys(meta);
  if (keys.length > META_MAX_PAIRS) problems.push(`Meta exceeds maximum element count ${META_MAX_PAIRS}`);
  for (const key of keys.slice(0, META_MAX_PAIRS + 1)) {
    if (key.length > META_KEY_MAX_LENGTH) problems.push(`Meta key ${q(key)} exceeds maximum length ${META_KEY_MAX_LENGTH}`);
    const value = meta[key];
    if (typeof value === "string" && value.length > META_VALUE_MAX_LENGTH) {
      problems.push(`Meta value for key ${q(key)} exceeds maximum length ${META_VALUE_MAX_LENGTH}`);
    }
  }
  if (problems.length > 0) fail(problems.join("; "));
}

/** The canonical form of a Go duration; with `nonNegative`, a negative one is refused (the resolver's ConnectTimeout). */
function checkDuration(field: string, text: string, nonNegative: boolean): string {
  let ns: number;
  try {
    ns = parseDuration(text);
  } catch (err) {
    if (err instanceof DurationError) fail(`Bad ${field}: ${err.message}`);
    throw err;
  }
  if (nonNegative && ns < 0) fail(`Bad ${field} '${formatDuration(ns)}', must be >= 0`);
  return formatDuration(ns);
}

// --- service-defaults / proxy-defaults -----------------------------------------------------

function validateServiceDefaults(e: ServiceDefaultsEntry): void {
  // Any protocol is taken and stored lower-cased (ServiceConfigEntry.Normalize; its Validate checks
  // nothing): the compiler treats every protocol but http, http2 and grpc as it treats tcp.
  // Neither Validate looks at MeshGateway.Mode: any text is stored, and the chain's targets carry it.
  if (typeof e.Protocol === "string") e.Protocol = e.Protocol.toLowerCase();
}

function validateProxyDefaults(e: ProxyDefaultsEntry): void {
  if (e.Name !== PROXY_DEFAULTS_NAME) {
    fail(`invalid name (${q(e.Name)}), only ${q(PROXY_DEFAULTS_NAME)} is supported`);
  }
  // There is a single, global proxy-defaults entry; it lives in the default namespace.
  e.Namespace = DEFAULT_NAMESPACE;
  // Config is opaque and kept as written, `protocol` included (ProxyConfigEntry.Normalize and
  // Validate leave it alone); the compiler reads and lower-cases it. MeshGateway.Mode is not looked at either.
}

// --- service-resolver ----------------------------------------------------------------------

const SUBSET_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function validateResolver(e: ServiceResolverEntry): void {
  const subsets = e.Subsets ?? {};
  const isSubset = (name: string) => Object.hasOwn(subsets, name);

  Object.keys(subsets).forEach(checkSubsetName);
  if (e.DefaultSubset && !isSubset(e.DefaultSubset)) {
    fail(`DefaultSubset ${q(e.DefaultSubset)} is not a valid subset`);
  }
  if (e.Redirect) checkRedirect(e, e.Redirect, isSubset);
  for (const [key, failover] of Object.entries(e.Failover ?? {})) {
    checkFailover(e, key, failover, isSubset);
  }
  if (e.ConnectTimeout !== undefined) {
    e.ConnectTimeout = checkDuration("ConnectTimeout", e.ConnectTimeout, true);
  }
}

/** validateServiceSubset's two words (structs/config_entry_discoverychain.go), length first. */
function checkSubsetName(name: string): void {
  if (name === "") fail("Subset defined with empty name");
  if (name.length > 63) fail(`Subset ${q(name)} is invalid: must be non-empty and 63 characters or fewer`);
  if (!SUBSET_NAME.test(name)) {
    fail(
      `Subset ${q(name)} is invalid: must be 63 characters or fewer, begin or end with lower case ` +
        `alphanumeric characters, and contain lower case alphanumeric characters or '-' in between`,
    );
  }
}

function checkRedirect(
  e: ServiceResolverEntry,
  r: ServiceResolverRedirect,
  isSubset: (name: string) => boolean,
): void {
  if (Object.keys(e.Failover ?? {}).length > 0) fail("Redirect and Failover cannot both be set");
  if (!r.Service && !r.ServiceSubset && !r.Namespace && !r.Datacenter) fail("Redirect is empty");
  if (!r.Service) {
    // A subset or namespace only means something relative to a named service.
    if (r.ServiceSubset) fail("Redirect.ServiceSubset defined without Redirect.Service");
    if (r.Namespace) fail("Redirect.Namespace defined without Redirect.Service");
  } else if (r.Service === e.Name && r.ServiceSubset && !isSubset(r.ServiceSubset)) {
    // Subsets of other services are defined by their own resolvers, so only self-redirects are checked.
    fail(`Redirect.ServiceSubset ${q(r.ServiceSubset)} is not a valid subset of ${q(r.Service)}`);
  }
}

function checkFailover(
  e: ServiceResolverEntry,
  key: string,
  f: ServiceResolverFailover,
  isSubset: (name: string) => boolean,
): void {
  const field = `Failover[${q(key)}]`;
  if (key !== "*" && !isSubset(key)) fail(`Bad ${field}: not a valid subset`);
  if (!f.Service && !f.ServiceSubset && !f.Namespace && (f.Datacenters ?? []).length === 0) {
    fail(`Bad ${field} one of Service, ServiceSubset, Namespace, or Datacenters is required`);
  }
  const targetsSelf = !f.Service || f.Service === e.Name;
  if (f.ServiceSubset && targetsSelf && !isSubset(f.ServiceSubset)) {
    // The text names the failover's own Service, empty when it was left out (the resolver's then).
    fail(`Bad ${field}.ServiceSubset ${q(f.ServiceSubset)} is not a valid subset of ${q(f.Service ?? "")}`);
  }
  if ((f.Datacenters ?? []).some((dc) => dc === "")) {
    fail(`Bad ${field}.Datacenters: found empty datacenter`);
  }
}

// --- service-splitter ----------------------------------------------------------------------

function validateSplitter(e: ServiceSplitterEntry): void {
  const splits = e.Splits ?? [];
  // Consul's ServiceSplitterConfigEntry.Normalize rounds every weight to 0.01 before Validate runs
  // and before the entry is stored, so reads and chains show the rounded weight.
  for (const split of splits) split.Weight = normalizeSplitWeight(split.Weight);
  // Validate's words, without a field prefix (structs/config_entry_discoverychain.go). It checks
  // no weight alone, only their sum: -10 and 110 make 100, and a weight left out is 0.
  if (splits.length === 0) fail("no splits configured");
  checkUniqueSplitDestinations(e.Name, splits);
  checkSplitWeightSum(splits);
}

function checkUniqueSplitDestinations(name: string, splits: ServiceSplit[]): void {
  const seen = new Set<string>();
  for (const split of splits) {
    // An empty Service means the splitter's own service.
    const dest = [split.Service || name, split.ServiceSubset ?? "", split.Namespace ?? ""] as const;
    const key = JSON.stringify(dest);
    if (seen.has(key)) {
      fail(`split destination occurs more than once: service=${q(dest[0])}, subset=${q(dest[1])}, namespace=${q(dest[2])}`);
    }
    seen.add(key);
  }
}

/**
 * Weights are compared in hundredths, as Consul does, so 33.33 + 33.33 + 33.34 is 100. Go prints the
 * float32 sum with %f, which shows its binary value to 6 decimals (100.01 reads 100.010002).
 */
function checkSplitWeightSum(splits: ServiceSplit[]): void {
  const scaledSum = splits.reduce((sum, split) => sum + scaleSplitWeight(split.Weight), 0);
  if (scaledSum !== 100 * 100) {
    fail(`the sum of all split weights must be 100, not ${Math.fround(scaledSum / 100).toFixed(6)}`);
  }
}

/** Go's math.Round: halves away from zero (Math.round takes them up); never -0. */
const goRound = (x: number): number => Math.sign(x) * Math.round(Math.abs(x)) + 0;

/** Consul's scaleWeight: hundredths of the float32 weight, multiplied in float32. */
function scaleSplitWeight(weight: number): number {
  return goRound(Math.fround(Math.fround(weight) * 100));
}

/**
 * Consul's NormalizeServiceSplitWeight (float32(scaled) / 100, in float32), as the shortest decimal
 * that reads back as that float32: what Go's JSON encoder writes for a float32.
 */
export function normalizeSplitWeight(weight: number): number {
  const f32 = Math.fround(Math.fround(scaleSplitWeight(weight)) / 100);
  if (!Number.isFinite(f32)) return f32;
  for (let digits = 1; digits < 9; digits++) {
    const shortest = Number(f32.toPrecision(digits));
    if (Math.fround(shortest) === f32) return shortest;
  }
  return Number(f32.toPrecision(9));
}

// --- service-router ------------------------------------------------------------------------

const HEADER_MATCHERS = ["Present", "Exact", "Prefix", "Suffix", "Regex"] as const;
const QUERY_PARAM_MATCHERS = ["Present", "Exact", "Regex"] as const;

function validateRouter(e: ServiceRouterEntry): void {
  (e.Routes ?? []).forEach(validateRoute);
}

function validateRoute(route: ServiceRoute, i: number): void {
  const label = `Route[${i}]`;
  const http = route.Match?.HTTP;
  const hasPathPrefixOrExact = http ? checkHttpMatch(http, label) : false;
  if (route.Destination) checkDestination(route.Destination, i, hasPathPrefixOrExact);
}

/** Returns whether the match pins a path that PrefixRewrite can rewrite. */
function checkHttpMatch(http: HttpRouteMatch, label: string): boolean {
  const paths = (["PathExact", "PathPrefix", "PathRegex"] as const).filter((k) => http[k]);
  for (const key of ["PathExact", "PathPrefix"] as const) {
    const path = http[key];
    if (path && !path.startsWith("/")) fail(`${label} ${key} doesn't start with '/': ${q(path)}`);
  }
  if (paths.length > 1) {
    fail(`${label} should only contain at most one of PathExact, PathPrefix, or PathRegex`);
  }
  checkMatchers(http.Header ?? [], `${label} Header`, HEADER_MATCHERS);
  checkMatchers(http.QueryParam ?? [], `${label} QueryParam`, QUERY_PARAM_MATCHERS);
  if (http.Methods) http.Methods = checkMethods(http.Methods, label);
  return Boolean(http.PathExact || http.PathPrefix);
}

/** Header and query-param matches: a Name and exactly one way of matching it. */
function checkMatchers<K extends string>(
  matches: ReadonlyArray<{ Name: string } & Partial<Record<K, string | boolean>>>,
  label: string,
  kinds: readonly K[],
): void {
  matches.forEach((match, j) => {
    if (!match.Name) fail(`${label}[${j}] missing required Name field`);
    // Present counts only when true; string matchers only when non-empty.
    const used = kinds.filter((k) => (k === "Present" ? match[k] === true : Boolean(match[k])));
    if (used.length !== 1) fail(`${label}[${j}] should only contain one of ${orList(kinds)}`);
  });
}

function orList(items: readonly string[]): string {
  return `${items.slice(0, -1).join(", ")}, or ${items[items.length - 1]}`;
}

/**
 * HTTP methods are case-insensitive: store them upper-case (Normalize), each at most once (Validate).
 * Any name is taken, as the 1.6-1.10 Validate takes it (later releases refuse one that is not a
 * net/http method, isValidHTTPMethod).
 */
function checkMethods(methods: string[], label: string): string[] {
  const upper = methods.map((m) => m.toUpperCase());
  upper.forEach((m, j) => {
    if (upper.indexOf(m) !== j) fail(`${label} Methods contains ${q(m)} more than once`);
  });
  return upper;
}

function checkDestination(d: RouteDestination, i: number, hasPathPrefixOrExact: boolean): void {
  const field = `Routes[${i}].Destination`;
  if (d.PrefixRewrite && !hasPathPrefixOrExact) {
    fail(`Route[${i}] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix`);
  }
  if (d.RequestTimeout !== undefined) {
    // The router's Validate checks no timeout: a negative one is stored as written.
    d.RequestTimeout = checkDuration(`${field}.RequestTimeout`, d.RequestTimeout, false);
  }
  if (d.NumRetries !== undefined && !(Number.isInteger(d.NumRetries) && d.NumRetries >= 0)) {
    fail(`${field}.NumRetries must be a non-negative integer, got ${d.NumRetries}`);
  }
}
