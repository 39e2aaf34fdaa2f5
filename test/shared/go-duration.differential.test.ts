// Differential test of the duration readers against Go itself: the Go that `npm test` installs
// (scripts/system-deps.sh, golang-go) runs time.ParseDuration and parseutil.ParseDurationSecond
// (test/shared/go-oracle/oracle.go) on the same seeded random texts as server/shared/go-duration.ts
// parseGoDuration and server/secrets/framework-fields.ts readDurationSecond, and every answer, value
// or error text, must be the same. The texts are made of the pieces where the parsers can differ:
// digits around the 63-bit limits, fractions past 63 bits, every unit, signs, days, and characters
// that are no part of a duration (a non-ASCII one among them, for the error's quoting).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readDurationSecond } from "../../server/secrets/framework-fields.ts";
import { parseGoDuration } from "../../server/shared/go-duration.ts";
import { askOracle, buildGoProgram, pieceTexts } from "../helpers/go-program.ts";

const ORACLE_SOURCE = path.resolve(import.meta.dirname, "go-oracle/oracle.go");

const PIECES = [
  "0", "1", "2", "5", "9", "00", "10", "99", "9223372036", "854775807", "9223372036854775807", "9223372036854775808",
  "18446744073709551616", "99999999999999999999", ".", ".5", "5.", "1.5", "0.000000001", ".000000000000000000001",
  "ns", "us", "µs", "μs", "ms", "s", "m", "h", "d", "+", "-", "e", "x", " ", "_", "世", "S", "H",
];

describe("the duration readers, against Go", () => {
  it("answer as Go's time.ParseDuration and parseutil.ParseDurationSecond do, value or error text, on 20,000 texts", () => {
    // The edges first: whole seconds around 0 and -1, days, the 63-bit limits, then the random texts.
    const edges = ["", "0", "-0", "1h30m", "1d", "-1d", "-1", "-1s", "-999ms", "-1001ms", "0.9s", "-0.9s", "-5", "0.5d", "9223372036s", "9223372037s", "10000000000", "106751d", "106752d"];
    const inputs = [...edges, ...pieceTexts(PIECES, 20_000, 20261126, 6)];
    const answers = askOracle(buildGoProgram(ORACLE_SOURCE, "go-oracle"), inputs);
    const differences = inputs.flatMap((text, i) => {
      const go = answers[i]!;
      const parsed = parseGoDuration(text);
      const seconds = readDurationSecond(text);
      const ours = {
        parse: "error" in parsed ? `error: ${parsed.error}` : String(parsed.value),
        seconds: "error" in seconds ? `error: ${seconds.error}` : String(seconds.value),
      };
      const theirs = { parse: go.err !== undefined ? `error: ${go.err}` : go.ns!, seconds: go.secErr !== undefined ? `error: ${go.secErr}` : go.sec! };
      return ours.parse === theirs.parse && ours.seconds === theirs.seconds ? [] : [{ text, ours, go: theirs }];
    });
    expect(differences).toEqual([]);
  });
});
