// Texts as the Go services print and read them: a string quoted with %q (strconv.Quote), the message
// of a go-multierror list, a boolean as strconv.ParseBool reads it, a number as strconv.FormatFloat
// writes it. Pure.

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
