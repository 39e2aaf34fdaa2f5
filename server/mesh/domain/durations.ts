// Durations in request bodies. The real decoders (mapstructure with StringToTimeDurationHookFunc and
// weakly typed input) take a Go duration string, or a JSON number, which lands in time.Duration as a
// count of nanoseconds: what Go clients send when they marshal a time.Duration field.
import { formatGoDuration } from "../../shared/go-duration.ts";

const MIN_NS = -(2 ** 63);
const MAX_NS = 2 ** 63 - 1;

export class DurationInputError extends Error {}

/** A duration input as a Go duration string: numbers (nanoseconds) are converted, strings kept. */
export function durationText(value: string | number): string;
export function durationText(value: unknown): unknown;
export function durationText(value: unknown): unknown {
  if (typeof value !== "number") return value;
  if (!Number.isFinite(value) || value < MIN_NS || value > MAX_NS) {
    throw new DurationInputError(`${value} nanoseconds is out of range for a duration`);
  }
  return formatGoDuration(BigInt(Math.trunc(value)));
}
