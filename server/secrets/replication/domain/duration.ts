// Durations as replication reads them (`ttl`): a Go duration (`30m`, `1h30m`, `1.5h`) or a whole
// number of seconds (as a number or a string of digits). Parsing itself is the shared Go parser.
import { parseGoDuration } from "../../../shared/go-duration.ts";

/** Milliseconds, or undefined when the value is not a duration (or is negative). */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) && value >= 0 ? value * 1000 : undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (/^[+-]/.test(text)) return undefined;
  const parsed = parseGoDuration(text);
  return "error" in parsed ? undefined : Math.round(Number(parsed.value) / 1e6);
}
