// Durations as the real systems behind all three APIs read and write them: Go's duration syntax
// (`1h30m`, `1.5h`, `300ms`) and its long form (`30m0s`), and the "duration in seconds" fields that
// also take plain seconds (`3600`) and days (`2d`). The one parser of the project; pure functions,
// nanoseconds are bigints so that nothing is rounded.

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

export type Parsed<T> = { value: T } | { error: string };

/** Go's time.ParseDuration, with its error messages. */
export function parseGoDuration(text: string): Parsed<bigint> {
  const quoted = JSON.stringify(text);
  const invalid = { error: `time: invalid duration ${quoted}` };
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return { value: 0n };
  if (rest === "") return invalid;
  let total = 0n;
  while (rest !== "") {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole = "", fraction] = [number[1], number[2]];
    if (whole === "" && (fraction === undefined || fraction === "")) return invalid;
    rest = rest.slice(number[0].length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === "") return { error: `time: missing unit in duration ${quoted}` };
    const scale = NS_PER[unit];
    if (scale === undefined) return { error: `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}` };
    rest = rest.slice(unit.length);
    let amount = BigInt(whole || "0") * scale;
    if (fraction) amount += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
    total += amount;
    if (total > MAX_NS) return invalid;
  }
  return { value: negative ? -total : total };
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

/**
 * A "duration in seconds" field: an integer number of seconds, or a string holding seconds (`3600`),
 * days (`2d`) or a Go duration (`1h30m`). Whole seconds (fractions dropped); negative is refused.
 */
export function parseDurationSeconds(raw: unknown, field: string): Parsed<number> {
  const fail = (why: string) => ({ error: `invalid duration for ${field}: ${why}` });
  let seconds: bigint;
  if (typeof raw === "number") {
    if (!Number.isInteger(raw)) return fail(`${raw} is not a whole number of seconds`);
    seconds = BigInt(raw);
  } else if (typeof raw === "string") {
    const text = raw.trim();
    if (text === "") return { value: 0 };
    if (/^[-+]?\d+$/.test(text)) seconds = BigInt(text);
    else if (/^[-+]?\d+d$/.test(text)) seconds = BigInt(text.slice(0, -1)) * 86_400n;
    else {
      const parsed = parseGoDuration(text);
      if ("error" in parsed) return fail(parsed.error);
      seconds = parsed.value / SECOND;
    }
  } else {
    return fail("expected a number of seconds or a duration string");
  }
  if (seconds < 0n) return fail(`${JSON.stringify(raw)} is negative`);
  if (seconds > MAX_NS / SECOND) return fail(`${JSON.stringify(raw)} is too long`);
  return { value: Number(seconds) };
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
