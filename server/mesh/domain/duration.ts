// Go duration strings ("300ms", "1.5h", "1m30s"), the format the mesh uses on the wire.
// Parsing and formatting follow Go's time.ParseDuration and Duration.String.

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3,
  "μs": 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const PART = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

export class DurationError extends Error {
  override name = "DurationError";
}

/** Parses a Go duration string into nanoseconds. Throws DurationError with Go's message. */
export function parseDuration(text: string): number {
  const invalid = () => new DurationError(`time: invalid duration "${text}"`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw invalid();
  let total = 0;
  while (rest !== "") {
    const m = PART.exec(rest);
    if (!m) {
      if (/^(\d+(?:\.\d*)?|\.\d+)$/.test(rest)) {
        throw new DurationError(`time: missing unit in duration "${text}"`);
      }
      throw invalid();
    }
    total += Number(m[1]) * UNIT_NS[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return sign * Math.round(total);
}

/** Formats nanoseconds the way Go's Duration.String does: "5s", "1m30s", "1h0m0s", "250ms". */
export function formatDuration(ns: number): string {
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  let abs = Math.abs(Math.round(ns));
  if (abs < 1e9) {
    // Sub-second values use the largest unit that keeps an integer part.
    const [unit, size] = abs < 1e3 ? ["ns", 1] : abs < 1e6 ? ["µs", 1e3] : ["ms", 1e6];
    return sign + trimFraction(abs / (size as number)) + unit;
  }
  const hours = Math.floor(abs / 3600e9);
  abs -= hours * 3600e9;
  const minutes = Math.floor(abs / 60e9);
  abs -= minutes * 60e9;
  const seconds = trimFraction(abs / 1e9) + "s";
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return sign + seconds;
}

function trimFraction(value: number): string {
  return Number(value.toFixed(9)).toString();
}

/** Canonical form of a duration string ("90s" -> "1m30s"). */
export function normalizeDuration(text: string): string {
  return formatDuration(parseDuration(text));
}
