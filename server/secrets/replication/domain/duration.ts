// Durations as the service reads them: a Go-style duration (`30m`, `1h30m`, `90s`, `1.5h`; units
// ns, us, ms, s, m, h) or a whole number of seconds (as a number or a string of digits).

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const GO_DURATION = /^(?:(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value * 1000 : undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!GO_DURATION.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) total += Number(amount) * UNITS[unit!]!;
  return Math.round(total);
}
