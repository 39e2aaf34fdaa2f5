// The typed fields of the real server's framework paths, read as its framework reads them before a
// handler runs (sdk/framework/field_data.go, FieldData.Validate and getPrimitive): a TypeBool or
// TypeInt field goes through mapstructure.WeakDecode, on the body as Vault's JSON decoder left it
// (jsonutil.DecodeJSONFromReader with UseNumber: a number is a json.Number, read as its text). So a
// bool also takes its strconv.ParseBool spellings, "" and the numbers 0 and 1; an int also takes text
// in strconv.ParseInt's base-0 syntax ("" is 0) and a boolean. Which fields these are is the
// description's: a body member whose schema is LenientBoolean or LenientInteger (operations.ts).
// Pure: no storage, no express.
import type { Schemas } from "./wire.ts";
import { goParseBool, goQuote } from "../shared/go-text.ts";

export type FrameworkFieldKind = "bool" | "int";

/** The largest and smallest values of the framework's TypeInt (a Go int, 64 bits on the real server's platforms). */
const INT_MAX = 2n ** 63n - 1n;
const INT_MIN = -(2n ** 63n);

/** strconv.ParseInt's base-0 syntax: a sign, then a prefixed or decimal number; `_` only between digits or after a prefix. */
const GO_INT_SYNTAX = /^[+-]?(0[xX](_?[0-9a-fA-F])+|0[bB](_?[01])+|0[oO](_?[0-7])+|0(_?[0-7])*|[1-9](_?[0-9])*)$/;

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
  return { error: `cannot parse '' as bool: strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax` };
}

/** A TypeInt field's value (mapstructure decodeInt, weakly typed: strconv.ParseInt(text, 0, 64)). */
export function readInt(value: boolean | string | number): FieldRead {
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  const text = value === "" ? "0" : String(value);
  const syntaxError = { error: `cannot parse '' as int: strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax` };
  if (!GO_INT_SYNTAX.test(text)) return syntaxError;
  const rangeError = { error: `cannot parse '' as int: strconv.ParseInt: parsing ${goQuote(text)}: value out of range` };
  const unsigned = text.replace(/^[+-]/, "").replaceAll("_", "");
  // The base from the prefix; a leading 0 alone is octal in base 0 ("017" is 15).
  const prefix = /^0[xXbBoO]/.test(unsigned) ? unsigned.slice(0, 2).toLowerCase() : unsigned.length > 1 && unsigned.startsWith("0") ? "0o" : "";
  const digits = unsigned.slice(prefix === "0o" && !/^0[oO]/.test(unsigned) ? 1 : prefix.length).replace(/^0+(?=.)/, "");
  // No 64-bit int has more than 64 significant digits in any base: refused before BigInt, whose
  // parse of a long text (a body may hold a MiB of digits) takes time that grows with its square.
  if (digits.length > 64) return rangeError;
  const magnitude = BigInt(`${prefix}${digits}`);
  const whole = text.startsWith("-") ? -magnitude : magnitude;
  if (whole > INT_MAX || whole < INT_MIN) return rangeError;
  return { value: Number(whole) };
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
    const result = kind === "bool" ? readBool(raw) : readInt(raw);
    if ("error" in result) return `Field validation failed: error converting input ${String(raw)} for field ${goQuote(name)}: ${result.error}`;
    read.push([name, result.value]);
  }
  for (const [name, value] of read) body[name] = value;
  return undefined;
}

/** A LenientBoolean member as a handler takes it (already read by readFrameworkFields; `fallback` when absent). */
export function lenientBoolean(value: Schemas["LenientBoolean"] | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const read = readBool(value);
  if ("error" in read) throw new Error(`a LenientBoolean the framework fields did not read: ${read.error}`);
  return read.value === true;
}

/** A LenientInteger member as a handler takes it (already read by readFrameworkFields; `fallback` when absent). */
export function lenientInteger(value: Schemas["LenientInteger"] | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const read = readInt(value);
  if ("error" in read) throw new Error(`a LenientInteger the framework fields did not read: ${read.error}`);
  return Number(read.value);
}
