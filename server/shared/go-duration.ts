// Durations as the real systems behind all three APIs read and write them: Go's duration syntax
// (`1h30m`, `1.5h`, `300ms`) and its long form (`30m0s`). The one parser of the project (the
// secrets framework's "duration in seconds" fields, which also take plain seconds and days, build
// on it: server/secrets/framework-fields.ts); pure functions, nanoseconds are bigints.

const NS_PER: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "µs": 1_000n, // U+00B5 micro sign
  "μs": 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const SECOND = NS_PER.s!;
/** The largest duration Go can hold (2^63 - 1 ns, about 292 years). */
const MAX_NS = (1n << 63n) - 1n;
/** 2^63: the most ParseDuration's unsigned sums may reach before they overflow (a negative duration may be -2^63). */
const LIMIT = 1n << 63n;

export type Parsed<T> = { value: T } | { error: string };

/**
 * Go's time.ParseDuration, with its error messages: a port of its loop (Go 1.20), so that it reads
 * a text in time that grows with its length alone. Digits are counted only until they overflow (an
 * integer part is then invalid; further fraction digits are skipped), as Go's leadingInt and
 * leadingFraction do, and a fraction is scaled in floating point, as Go scales it.
 */
export function parseGoDuration(text: string): Parsed<bigint> {
  const invalid = () => ({ error: `time: invalid duration ${goTimeQuote(text)}` });
  let i = 0;
  let negative = false;
  if (text[0] === "-" || text[0] === "+") {
    negative = text[0] === "-";
    i = 1;
  }
  // Special case: if all that is left is "0", this is zero.
  if (text.length - i === 1 && text[i] === "0") return { value: 0n };
  if (i === text.length) return invalid();
  let total = 0n;
  while (i < text.length) {
    if (!(text[i] === "." || isDigit(text, i))) return invalid();
    // [0-9]*: overflow past 2^63 is invalid.
    const wholeStart = i;
    let whole = 0n;
    for (; i < text.length && isDigit(text, i); i++) {
      if (whole > LIMIT / 10n) return invalid();
      whole = whole * 10n + BigInt(text.charCodeAt(i) - 0x30);
      if (whole > LIMIT) return invalid();
    }
    const pre = i !== wholeStart;
    // (\.[0-9]*)?: digits past what 63 bits hold are skipped.
    let fraction = 0n;
    let scale = 1;
    let post = false;
    if (text[i] === ".") {
      i++;
      const fractionStart = i;
      let overflow = false;
      for (; i < text.length && isDigit(text, i); i++) {
        if (overflow) continue;
        if (fraction > MAX_NS / 10n) {
          overflow = true;
          continue;
        }
        const next = fraction * 10n + BigInt(text.charCodeAt(i) - 0x30);
        if (next > LIMIT) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      post = i !== fractionStart;
    }
    if (!pre && !post) return invalid();
    const unitStart = i;
    while (i < text.length && text[i] !== "." && !isDigit(text, i)) i++;
    if (i === unitStart) return { error: `time: missing unit in duration ${goTimeQuote(text)}` };
    const unit = text.slice(unitStart, i);
    const scaleOfUnit = NS_PER[unit];
    if (scaleOfUnit === undefined) return { error: `time: unknown unit ${goTimeQuote(unit)} in duration ${goTimeQuote(text)}` };
    if (whole > LIMIT / scaleOfUnit) return invalid();
    let amount = whole * scaleOfUnit;
    if (fraction > 0n) {
      amount += BigInt(Math.trunc(Number(fraction) * (Number(scaleOfUnit) / scale)));
      if (amount > LIMIT) return invalid();
    }
    total += amount;
    if (total > LIMIT) return invalid();
  }
  if (negative) return { value: -total };
  if (total > MAX_NS) return invalid();
  return { value: total };
}

function isDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0x30 && code <= 0x39;
}

/**
 * A text as Go's time package quotes it in its errors (time.quote): `"` and `\\` escaped, each byte
 * of a non-ASCII or control character as `\xNN` of its UTF-8 (U+FFFD, which a lone surrogate is
 * read as, three bytes).
 */
export function goTimeQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0x80 || code < 0x20) {
      const rune = code >= 0xd800 && code <= 0xdfff ? "\ufffd" : char;
      for (const byte of Buffer.from(rune, "utf8")) out += `\\x${byte.toString(16).padStart(2, "0")}`;
    } else {
      out += char === '"' || char === "\\" ? `\\${char}` : char;
    }
  }
  return `${out}"`;
}

/** Go's time.Duration.String(): `0s`, `1.5s`, `500ms`, `30m0s`, `1h0m0s`, `-2h3m4s`. */
export function formatGoDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const sign = ns < 0n ? "-" : "";
  const value = ns < 0n ? -ns : ns;
  if (value < SECOND) {
    const [unit, scale] = value < 1_000n ? ["ns", 1n] : value < 1_000_000n ? ["µs", 1_000n] : ["ms", 1_000_000n];
    return sign + decimal(value, scale) + unit;
  }
  const hours = value / NS_PER.h!;
  const minutes = (value % NS_PER.h!) / NS_PER.m!;
  const seconds = decimal(value % NS_PER.m!, SECOND);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function decimal(value: bigint, scale: bigint): string {
  const whole = value / scale;
  const fraction = value % scale;
  if (fraction === 0n) return String(whole);
  const digits = String(scale).length - 1;
  return `${whole}.${String(fraction).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Whole seconds as nanoseconds, for formatting. */
export function secondsToNs(seconds: number): bigint {
  return BigInt(seconds) * SECOND;
}

/** Nanoseconds as whole seconds (rounded down). */
export function nsToSeconds(ns: bigint): number {
  return Number(ns / SECOND);
}

export class DurationError extends Error {
  override name = "DurationError";
}

/** Go's time.ParseDuration as a number of nanoseconds; throws DurationError with Go's message. */
export function parseDuration(text: string): number {
  const parsed = parseGoDuration(text);
  if ("error" in parsed) throw new DurationError(parsed.error);
  return Number(parsed.value);
}

/** Go's Duration.String() of a number of nanoseconds: "5s", "1m30s", "1h0m0s", "250ms". */
export function formatDuration(ns: number): string {
  return formatGoDuration(BigInt(Math.round(ns)));
}

/** Canonical form of a duration string ("90s" -> "1m30s"). */
export function normalizeDuration(text: string): string {
  return formatDuration(parseDuration(text));
}
