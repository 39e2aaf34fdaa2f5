// The typed fields of the real server's framework paths, read as its framework reads them before a
// handler runs (sdk/framework/field_data.go, FieldData.Validate and getPrimitive), on the body as
// Vault's JSON decoder left it (jsonutil.DecodeJSONFromReader with UseNumber: a number is a
// json.Number, read as its text):
// - TypeBool and TypeInt go through mapstructure.WeakDecode: a bool also takes its strconv.ParseBool
//   spellings, "" and the numbers 0 and 1; an int also takes text in strconv.ParseInt's base-0 syntax
//   ("" is 0) and a boolean;
// - TypeDurationSecond goes through parseutil.ParseDurationSecond (go-secure-stdlib): seconds, days
//   (`2d`) or a Go duration, then whole seconds, not negative.
// Which fields these are is the description's: a body member whose schema is LenientBoolean,
// LenientInteger or LenientDuration (operations.ts). Pure: no storage, no express.
import type { Schemas } from "./wire.ts";
import { parseGoDuration } from "../shared/go-duration.ts";
import { goFormatV, goNumError, goParseBool, goParseInt, goQuote } from "../shared/go-text.ts";

export type FrameworkFieldKind = "bool" | "int" | "duration";

const FIELD_READERS: Readonly<Record<FrameworkFieldKind, (value: boolean | string | number) => FieldRead>> = {
  bool: readBool,
  int: readInt,
  duration: readDurationSecond,
};

/** A body member's value as the framework reads it: the converted value, or the error it fails with. */
export type FieldRead = { value: boolean | number } | { error: string };

/** A TypeBool field's value (mapstructure decodeBool, weakly typed). */
export function readBool(value: boolean | string | number): FieldRead {
  if (typeof value === "boolean") return { value };
  // A JSON number reaches mapstructure as json.Number, whose kind is string: its text is parsed.
  const text = String(value);
  const parsed = goParseBool(text);
  if (parsed !== undefined) return { value: parsed };
  if (text === "") return { value: false };
  return { error: `cannot parse '' as bool: ${goNumError("ParseBool", text, "invalid syntax")}` };
}

/** A TypeInt field's value (mapstructure decodeInt, weakly typed: strconv.ParseInt(text, 0, 64); "" is 0). */
export function readInt(value: boolean | string | number): FieldRead {
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  // A JSON number reaches mapstructure as json.Number, whose kind is string: its text is parsed.
  const text = value === "" ? "0" : String(value);
  const parsed = goParseInt(text, 64n);
  if (typeof parsed !== "bigint") return { error: `cannot parse '' as int: ${goNumError("ParseInt", text, parsed)}` };
  return { value: Number(parsed) };
}

const SECOND_NS = 1_000_000_000n;
const DAY_NS = 86_400n * SECOND_NS;
const MAX_NS = (1n << 63n) - 1n;

/**
 * A TypeDurationSecond field's value in whole seconds (parseutil.ParseDurationSecond, then
 * getPrimitive): a text of decimal digits is seconds, one ending in `d` days (its digits read by
 * strconv.ParseInt), anything else a Go duration; "" is 0; a boolean is no duration. Seconds are the
 * duration's, truncated toward zero; a negative result is refused. A product past what a duration
 * holds is refused as parseutil's overflowMul refuses it.
 */
export function readDurationSecond(value: boolean | string | number): FieldRead {
  if (typeof value === "boolean") return { error: "could not parse duration from input" };
  const text = String(value);
  if (text === "") return { value: 0 };
  let ns: bigint;
  const seconds = goParseInt(text, 64n, 10);
  if (typeof seconds === "bigint") {
    const product = overflowMul(seconds, SECOND_NS);
    if ("error" in product) return product;
    ns = product.value;
  } else if (text.endsWith("d")) {
    const days = goParseInt(text.slice(0, -1), 64n, 10);
    if (typeof days !== "bigint") return { error: goNumError("ParseInt", text.slice(0, -1), days) };
    const product = overflowMul(days, DAY_NS);
    if ("error" in product) return product;
    ns = product.value;
  } else {
    const parsed = parseGoDuration(text);
    if ("error" in parsed) return parsed;
    ns = parsed.value;
  }
  const whole = ns / SECOND_NS;
  if (whole < 0n) return { error: `cannot provide negative value '${whole}'` };
  return { value: Number(whole) };
}

/** parseutil's overflowMul: a duration's product, or its error past what a duration holds. */
function overflowMul(amount: bigint, unit: bigint): { value: bigint } | { error: string } {
  const product = amount * unit;
  if (product > MAX_NS || product < -MAX_NS - 1n) return { error: "multiplication of durations resulted in overflow, one operand may be too large" };
  return { value: product };
}

/**
 * Each framework field of a body read in place, as the real framework validates every field it
 * knows before the handler runs; the first that cannot be read is the problem, in the real words
 * (`error converting input <value> for field "<name>": ...`, which the framework prefixes with
 * `Field validation failed: `). A member that is no scalar is left as it is: the description's
 * check refuses it. The body is changed only when every field can be read.
 */
export function readFrameworkFields(body: Record<string, unknown>, fields: ReadonlyMap<string, FrameworkFieldKind>): string | undefined {
  const read: [string, boolean | number][] = [];
  for (const [name, kind] of fields) {
    const raw = body[name];
    if (typeof raw !== "boolean" && typeof raw !== "string" && typeof raw !== "number") continue;
    const result = FIELD_READERS[kind](raw);
    if ("error" in result) return fieldValidationFailure(name, raw, result.error);
    read.push([name, result.value]);
  }
  for (const [name, value] of read) body[name] = value;
  return undefined;
}

/** The framework's refusal of a field it cannot convert (FieldData.Validate, prefixed by HandleRequest). */
export function fieldValidationFailure(name: string, raw: unknown, error: string): string {
  return `Field validation failed: error converting input ${goFormatV(raw)} for field ${goQuote(name)}: ${error}`;
}

/**
 * A TypeCommaStringSlice as the framework reads it (parseutil.ParseCommaStringSlice): "" (or nothing)
 * is no entry, other text is split at commas, a list is taken as it is, then each entry is trimmed.
 * Empty entries and repeats stay: the engines store the list as read (a trailing comma is an entry "").
 */
export function commaStringSlice(value: string | readonly string[] | undefined): string[] {
  if (value === undefined || value === "") return [];
  const items = typeof value === "string" ? value.split(",") : value;
  return items.map((item) => item.trim());
}

/**
 * A framework field as a handler takes it: readFrameworkFields read it before the handler ran (so
 * reading it again gives the same value), or it is absent (`fallback`). Throws on a value the
 * framework fields would have refused: a handler never gets one.
 */
function readAgain(kind: FrameworkFieldKind, value: boolean | string | number | undefined): boolean | number | undefined {
  if (value === undefined) return undefined;
  const read = FIELD_READERS[kind](value);
  if ("error" in read) throw new Error(`a ${kind} field the framework fields did not read: ${read.error}`);
  return read.value;
}

/** A LenientBoolean member as a handler takes it. */
export function lenientBoolean(value: Schemas["LenientBoolean"] | undefined, fallback: boolean): boolean {
  const read = readAgain("bool", value);
  return read === undefined ? fallback : read === true;
}

/** A LenientInteger member as a handler takes it. */
export function lenientInteger(value: Schemas["LenientInteger"] | undefined, fallback: number): number {
  const read = readAgain("int", value);
  return read === undefined ? fallback : Number(read);
}

/** A LenientDuration member as a handler takes it, in whole seconds. */
export function lenientDuration(value: Schemas["LenientDuration"] | undefined, fallback: number): number {
  const read = readAgain("duration", value);
  return read === undefined ? fallback : Number(read);
}
