// Texts as the Go services print and read them: a string quoted with %q (strconv.Quote), the message
// of a go-multierror list, a boolean as strconv.ParseBool reads it, whole numbers as strconv.ParseUint
// and ParseInt read them with base 0 or 10 (and their errors), a number as strconv.FormatFloat writes
// it. Pure.

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x07: "\\a", 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x0b: "\\v" };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * A string as Go's %q prints it (strconv.Quote): `"` and `\` escaped, the short escapes for
 * control characters, `\xNN` for other ASCII controls, `\uNNNN`/`\UNNNNNNNN` for other runes Go
 * does not print (spaces other than U+0020, format and unassigned characters); printable characters
 * as they are. A lone surrogate (which a JSON body may carry) is U+FFFD, as Go's JSON decoder reads it.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    let code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    const rune = String.fromCodePoint(code);
    if (rune === '"' || rune === "\\") out += `\\${rune}`;
    else if (code >= 0x20 && code < 0x7f) out += rune;
    else if (code < 0x80) out += SHORT_ESCAPES[code] ?? `\\x${code.toString(16).padStart(2, "0")}`;
    else if (PRINTABLE.test(rune)) out += rune;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += `\\U${code.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/**
 * A decoded JSON value as Go's %v prints it (fmt, on what encoding/json decodes into an
 * interface{}): text as it is, a number as its text, `<nil>`, `[a b]` for a list and `map[k:v]`
 * for an object, its keys sorted.
 */
export function goFormatV(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goFormatV).join(" ")}]`;
  if (typeof value === "object") {
    const members = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${members.map(([key, member]) => `${key}:${goFormatV(member)}`).join(" ")}]`;
  }
  return String(value);
}

/** The message of a go-multierror list (its ListFormatFunc): `1 error occurred:\n\t* a\n\n`, `2 errors occurred:\n\t* a\n\t* b\n\n`. */
export function goMultiErrorText(errors: readonly string[]): string {
  if (errors.length === 1) return `1 error occurred:\n\t* ${errors[0]}\n\n`;
  return `${errors.length} errors occurred:\n\t${errors.map((e) => `* ${e}`).join("\n\t")}\n\n`;
}

/** A boolean as Go's strconv.ParseBool reads it (`1`, `t`, `T`, `TRUE`, `true`, `True` and their false forms); undefined for any other text. */
export function goParseBool(text: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return false;
  return undefined;
}

/** strconv.FormatFloat(f, 'f', -1, 64): the shortest digits that read back, never an exponent. */
export function goFormatFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  if (Object.is(value, -0)) return "-0";
  const text = String(value);
  if (!text.includes("e")) return text;
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const point = 1 + Number(exponentText);
  const body =
    point <= 0 ? `0.${"0".repeat(-point)}${digits}` : point >= digits.length ? digits + "0".repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? "-" : "") + body;
}

/** What strconv.ParseUint and ParseInt refuse a text for. */
export type GoNumErrorKind = "invalid syntax" | "value out of range";

/** A strconv.NumError's text: `strconv.ParseInt: parsing "x": invalid syntax`. */
export function goNumError(fn: "ParseBool" | "ParseInt" | "ParseUint" | "ParseFloat", text: string, error: GoNumErrorKind): string {
  return `strconv.${fn}: parsing ${goQuote(text)}: ${error}`;
}

/**
 * strconv.ParseUint(text, base, bits). Base 0: a `0x`/`0o`/`0b` prefix (at least one character
 * after it), a leading `0` for octal, else decimal; `_` between digits (underscoreOK). Base 10:
 * decimal digits only. No sign. As Go's loop, the first digit that overflows is `value out of
 * range`, even before a later invalid character. Zeros before the first significant digit cost no
 * arithmetic, so a long text (a body may hold a MiB) is read in time that grows with its length alone.
 */
export function goParseUint(text: string, bits: bigint, parseBase: 0 | 10 = 0): bigint | GoNumErrorKind {
  if (text === "") return "invalid syntax";
  let base = 10;
  let digits = text;
  if (parseBase === 0 && text[0] === "0") {
    const prefix = text.length >= 3 ? text[1]!.toLowerCase() : "";
    base = prefix === "b" ? 2 : prefix === "o" ? 8 : prefix === "x" ? 16 : 8;
    digits = text.slice(base === 8 && prefix !== "o" ? 1 : 2);
  }
  const max = (1n << bits) - 1n;
  const bigBase = BigInt(base);
  let n = 0n;
  let underscores = false;
  for (const char of digits) {
    if (char === "_" && parseBase === 0) {
      underscores = true;
      continue;
    }
    const d = digitValue(char);
    if (d === undefined || d >= base) return "invalid syntax";
    if (n === 0n && d === 0) continue;
    n = n * bigBase + BigInt(d);
    if (n > max) return "value out of range";
  }
  return underscores && !underscoreOK(text) ? "invalid syntax" : n;
}

/** strconv.ParseInt(text, base, bits) for base 0 or 10: an optional sign, then ParseUint's digits. */
export function goParseInt(text: string, bits: bigint, base: 0 | 10 = 0): bigint | GoNumErrorKind {
  if (text === "") return "invalid syntax";
  const negative = text.startsWith("-");
  const unsigned = goParseUint(text.startsWith("+") || negative ? text.slice(1) : text, bits, base);
  if (typeof unsigned !== "bigint") return unsigned;
  const cutoff = 1n << (bits - 1n);
  if (negative ? unsigned > cutoff : unsigned >= cutoff) return "value out of range";
  return negative ? -unsigned : unsigned;
}

function digitValue(char: string): number | undefined {
  const code = char.charCodeAt(0);
  if (char.length !== 1) return undefined;
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x7a ? lower - 0x61 + 10 : undefined;
}

/** strconv's underscoreOK: every `_` between digits (or after a base prefix). */
function underscoreOK(text: string): boolean {
  let saw = "^";
  let s = text;
  if (s.startsWith("-") || s.startsWith("+")) s = s.slice(1);
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "box".includes(s[1]!.toLowerCase())) {
    i = 2;
    saw = "0";
    hex = s[1]!.toLowerCase() === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= "0" && c <= "9") || (hex && c.toLowerCase() >= "a" && c.toLowerCase() <= "f")) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}
