// Weakly typed values of a written configuration entry, read as the agent reads them. Pure.
//
// The agent decodes an entry with mapstructure and WeaklyTypedInput, on the body as encoding/json
// decoded it into interface{} values, so every JSON number is a float64 (agent/structs/
// config_entry.go DecodeConfigEntry; mitchellh/mapstructure mapstructure.go, v1.1.2-v1.3.3, the
// releases of that era). What that decoder does, and this module with it:
// - null sets nothing (decode: `if input == nil { return nil }`): the field stays unset, a list
//   element or a map member its zero value;
// - text from a number (strconv.FormatFloat(f, 'f', -1, 64)) or a boolean ("1"/"0") (decodeString);
// - a boolean from a number (not zero) or from text (strconv.ParseBool, "" being false) (decodeBool);
// - an unsigned or signed count from a number (its fraction dropped), a boolean (1/0) or text
//   (strconv.ParseUint/ParseInt with base 0, so `0x1f`, `0o17`, `0b11`, `017`, `1_000`) (decodeUint,
//   decodeInt);
// - a weight from a boolean (1/0) or text (strconv.ParseFloat) (decodeFloat);
// - a single value where a list is expected is a list of it, an empty object an empty list
//   (decodeSlice).
// Values the decoder refuses are refused in its words (`cannot parse 'X' as bool: ...`, `'X' expected
// type 'string', got unconvertible type '[]interface {}'`), gathered as mapstructure gathers them
// (error.go Error: `N error(s) decoding:` and the sorted list). A few forms the decoder would take
// but this server does not (noted at each rule) are left to the description's check.
import { DurationError, parseDuration } from "../../shared/go-duration.ts";
import { goFormatFloat, goNumError, goParseBool, goParseInt, goParseUint } from "../../shared/go-text.ts";
import { isJsonObject } from "../../shared/json-body.ts";

/** A converted value; a refusal in the decoder's words; or undefined: not a form this rule takes, the description's check decides. */
export type Weak<T> = { value: T } | { problem: string } | undefined;

/** The Go type of a JSON value decoded into interface{}, as reflect prints it. */
function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return "[]interface {}";
  if (typeof value === "object" && value !== null) return "map[string]interface {}";
  if (typeof value === "number") return "float64";
  return typeof value === "boolean" ? "bool" : "string";
}

/** The reflect.Kind of a JSON value decoded into interface{}. */
function goKindOf(value: unknown): string {
  if (Array.isArray(value)) return "slice";
  if (typeof value === "object" && value !== null) return "map";
  if (typeof value === "number") return "float64";
  return typeof value === "boolean" ? "bool" : "string";
}

const unconvertible = (name: string, goType: string, value: unknown): { problem: string } => ({
  problem: `'${name}' expected type '${goType}', got unconvertible type '${goTypeOf(value)}'`,
});

/** decodeString. `goType` is the field's Go type, as the message names it. */
export function weakString(value: unknown, name = "", goType = "string"): Weak<string> {
  if (typeof value === "string") return { value };
  if (typeof value === "boolean") return { value: value ? "1" : "0" };
  if (typeof value === "number") return { value: goFormatFloat(value) };
  return unconvertible(name, goType, value);
}

/** decodeBool. */
export function weakBool(value: unknown, name = ""): Weak<boolean> {
  if (typeof value === "boolean") return { value };
  if (typeof value === "number") return { value: value !== 0 };
  if (typeof value === "string") {
    const parsed = value === "" ? false : goParseBool(value);
    return parsed === undefined ? { problem: `cannot parse '${name}' as bool: ${goNumError("ParseBool", value, "invalid syntax")}` } : { value: parsed };
  }
  return unconvertible(name, "bool", value);
}

/**
 * decodeUint into a uint32: a number through uint64(f) (its fraction dropped), then reflect's
 * SetUint keeps the low 32 bits (`4294967297` is 1). A negative number is left to the description's
 * check, which refuses it: Go's float-to-unsigned conversion of a value it cannot represent is
 * implementation-specific (so is 2^64 and beyond: 0 here, as on amd64).
 */
export function weakUint32(value: unknown, name = ""): Weak<number> {
  if (typeof value === "number") {
    if (!(value >= 0)) return undefined;
    return { value: value < 2 ** 64 ? Number(BigInt(Math.trunc(value)) & 0xffffffffn) : 0 };
  }
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  if (typeof value === "string") {
    const parsed = goParseUint(value, 32n);
    return typeof parsed === "bigint" ? { value: Number(parsed) } : { problem: `cannot parse '${name}' as uint: ${goNumError("ParseUint", value, parsed)}` };
  }
  return unconvertible(name, "uint32", value);
}

/**
 * decodeInt into an int (64 bits): a number's fraction dropped. (Beyond an int64 Go's conversion is
 * implementation-specific; the number is kept as it is here.)
 */
export function weakInt(value: unknown, name = ""): Weak<number> {
  if (typeof value === "number") return { value: Math.trunc(value) + 0 };
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  if (typeof value === "string") {
    const parsed = goParseInt(value, 64n);
    return typeof parsed === "bigint" ? { value: Number(parsed) } : { problem: `cannot parse '${name}' as int: ${goNumError("ParseInt", value, parsed)}` };
  }
  return unconvertible(name, "int", value);
}

/**
 * The decimal forms of strconv.ParseFloat (no `_`, hexadecimal, `inf` or `nan`: those are left to
 * the description's check). Unambiguous, so that a refused text is scanned once: `\d+\.?\d*` let
 * the engine try every split of a run of digits, and a text of 20,000 digits took over a second.
 */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/**
 * Forms ParseFloat also takes that this server does not: `inf`, `infinity`, `nan`, hexadecimal, `_`
 * between digits (a text without a line break). Separate tests rather than `.*_.*`, which tried
 * every split of a long text without `_` (seconds for a few ten thousand characters).
 */
function otherFloatForm(text: string): boolean {
  if (/[\n\r\u2028\u2029]/.test(text)) return false;
  return /^[+-]?(inf|infinity|nan)$/i.test(text) || /^[+-]?0x/i.test(text) || text.includes("_");
}

/** decodeFloat into a float32 (ParseFloat with 32 bits: beyond a float32's range is out of range). */
export function weakFloat32(value: unknown, name = ""): Weak<number> {
  if (typeof value === "number") return { value };
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  if (typeof value === "string") {
    if (DECIMAL.test(value)) {
      const parsed = Number(value);
      return Number.isFinite(Math.fround(parsed)) ? { value: parsed } : { problem: `cannot parse '${name}' as float: ${goNumError("ParseFloat", value, "value out of range")}` };
    }
    return otherFloatForm(value) ? undefined : { problem: `cannot parse '${name}' as float: ${goNumError("ParseFloat", value, "invalid syntax")}` };
  }
  return unconvertible(name, "float32", value);
}

// ---------------------------------------------------------------------------------------------
// The shapes of the five kinds (agent/structs/config_entry.go, config_entry_discoverychain.go)
// ---------------------------------------------------------------------------------------------

type Scalar = (value: unknown, name: string) => Weak<unknown>;
/** How a field decodes: a scalar rule; `keep` (null sets nothing, anything else is the description's to judge); a list, map or struct of shapes. */
type Shape = Scalar | "keep" | { list: Shape } | { map: Shape } | { struct: Readonly<Record<string, Shape>> };

const text: Scalar = (value, name) => weakString(value, name);
const flag: Scalar = weakBool;
const gatewayMode: Scalar = (value, name) => weakString(value, name, "structs.MeshGatewayMode");
/**
 * A time.Duration: text goes through the decoder's hook (mapstructure StringToTimeDurationHookFunc,
 * time.ParseDuration), whose error mapstructure's decode wraps as `error decoding 'X': ...`. A number
 * (nanoseconds) or another type is left to the description's check and the typed conversion.
 */
const duration: Scalar = (value, name) => {
  if (typeof value !== "string") return undefined;
  try {
    parseDuration(value);
    return { value };
  } catch (error) {
    if (error instanceof DurationError) return { problem: `error decoding '${name}': ${error.message}` };
    throw error;
  }
};

const MESH_GATEWAY: Shape = { struct: { Mode: gatewayMode } };
/** discoveryChainReadRequest's fields. */
const OVERRIDE_FIELDS: Readonly<Record<string, Shape>> = { OverrideMeshGateway: MESH_GATEWAY, OverrideProtocol: text, OverrideConnectTimeout: duration };
const EXPOSE: Shape = {
  struct: {
    Checks: flag,
    Paths: { list: { struct: { ListenerPort: weakInt, Path: text, LocalPathPort: weakInt, Protocol: text, ParsedFromCheck: flag } } },
  },
};
// Namespace is checked as a name before the description; Kind is read first (checkEntryKind).
const COMMON = { Kind: "keep", Name: text, Namespace: "keep", Meta: { map: text }, CreateIndex: "keep", ModifyIndex: "keep" } as const;
const TARGET = { Service: text, ServiceSubset: text, Namespace: text } as const;

/** Each kind's fields. Durations are `keep`: their own decoding (durations.ts) reads them. */
export const ENTRY_SHAPES: Readonly<Record<string, Readonly<Record<string, Shape>>>> = {
  "service-defaults": { ...COMMON, Protocol: text, MeshGateway: MESH_GATEWAY, Expose: EXPOSE, ExternalSNI: text },
  "proxy-defaults": { ...COMMON, Config: "keep", MeshGateway: MESH_GATEWAY, Expose: EXPOSE },
  "service-resolver": {
    ...COMMON,
    ConnectTimeout: duration,
    DefaultSubset: text,
    Subsets: { map: { struct: { Filter: text, OnlyPassing: flag } } },
    Redirect: { struct: { ...TARGET, Datacenter: text } },
    Failover: { map: { struct: { ...TARGET, Datacenters: { list: text } } } },
  },
  "service-splitter": { ...COMMON, Splits: { list: { struct: { Weight: weakFloat32, ...TARGET } } } },
  "service-router": {
    ...COMMON,
    Routes: {
      list: {
        struct: {
          Match: {
            struct: {
              HTTP: {
                struct: {
                  PathExact: text,
                  PathPrefix: text,
                  PathRegex: text,
                  Header: { list: { struct: { Name: text, Present: flag, Exact: text, Prefix: text, Suffix: text, Regex: text, Invert: flag } } },
                  QueryParam: { list: { struct: { Name: text, Present: flag, Exact: text, Regex: text } } },
                  Methods: { list: text },
                },
              },
            },
          },
          Destination: {
            struct: { ...TARGET, PrefixRewrite: text, RequestTimeout: duration, NumRetries: weakUint32, RetryOnConnectFailure: flag, RetryOnStatusCodes: { list: weakUint32 } },
          },
        },
      },
    },
  },
};

/** What the decoder says of an entry body: the values it refuses, else the keys it left unused. */
export interface InputProblems {
  /** Values it cannot decode, in its words (decode errors come first: DecodeConfigEntry returns them before it looks at unused keys). */
  values: string[];
  /** Keys no field of the entry has, named by their path as mapstructure's Metadata.Unused names them (`Splits[0].Foo`). */
  unusedKeys: string[];
}

/**
 * The values of an entry body (keys already canonical, kind already checked) that the decoder
 * refuses, and the keys it does not use. Values are not changed: the description then checks the
 * body as written, and config-entry.ts decodeEntryInput converts it.
 */
export function weakInputProblems(kind: string, body: Readonly<Record<string, unknown>>): InputProblems {
  const problems: InputProblems = { values: [], unusedKeys: [] };
  const fields = ENTRY_SHAPES[kind];
  if (fields) walkStruct(fields, body, "", problems);
  return problems;
}

/**
 * The chain request's overrides (agent/discovery_chain_endpoint.go decodeDiscoveryChainReadRequest:
 * the same decoder, WeaklyTypedInput, the duration hook): the values it refuses, in its words. Keys
 * it has no field for are ignored (no validateUnusedKeys there). The body's keys are already the
 * field names (chain-overrides.ts).
 */
export function overrideInputProblems(body: Readonly<Record<string, unknown>>): string[] {
  const problems: InputProblems = { values: [], unusedKeys: [] };
  walkStruct(OVERRIDE_FIELDS, body, "", problems);
  return problems.values;
}

/** mapstructure's Error: `N error(s) decoding:` and the sorted list of problems. */
export function mapstructureErrorText(problems: readonly string[]): string {
  const points = problems.map((problem) => `* ${problem}`).sort();
  return `${problems.length} error(s) decoding:\n\n${points.join("\n")}`;
}

const join = (name: string, key: string): string => (name === "" ? key : `${name}.${key}`);

function walk(shape: Shape, value: unknown, name: string, problems: InputProblems): void {
  if (value === null || shape === "keep") return;
  if (typeof shape === "function") {
    const result = shape(value, name);
    if (result && "problem" in result) problems.values.push(result.problem);
  } else if ("list" in shape) {
    if (Array.isArray(value)) value.forEach((element, i) => walk(shape.list, element, `${name}[${i}]`, problems));
    else if (!(isJsonObject(value) && Object.keys(value).length === 0)) walk(shape.list, value, `${name}[0]`, problems); // lifted into a list
  } else if (Array.isArray(value)) {
    // A list where a map or struct is expected: merged (decodeMapFromSlice) or unwrapped by the
    // agent's hooks depending on the release; not taken here, the description refuses it.
  } else if (!isJsonObject(value)) {
    problems.values.push(`'${name}' expected a map, got '${goKindOf(value)}'`);
  } else if ("map" in shape) {
    for (const [key, member] of Object.entries(value)) walk(shape.map, member, `${name}[${key}]`, problems);
  } else {
    walkStruct(shape.struct, value, name, problems);
  }
}

function walkStruct(fields: Readonly<Record<string, Shape>>, value: Readonly<Record<string, unknown>>, name: string, problems: InputProblems): void {
  for (const [key, member] of Object.entries(value)) {
    const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
    // A key no field has is unused whatever its value, null included (decodeStructFromMap).
    if (shape === undefined) problems.unusedKeys.push(join(name, key));
    else walk(shape, member, join(name, key), problems);
  }
}

