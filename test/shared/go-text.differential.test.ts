// Differential test of the strconv ports (server/shared/go-text.ts: goParseInt, goParseUint,
// goParseBool, goQuote, goNumError, goFormatFloat), which the secrets framework fields and the mesh's weakly typed
// decoder read values with, against Go itself: the Go that `npm test` installs
// (scripts/system-deps.sh, golang-go) runs strconv on the same seeded random texts
// (test/shared/go-oracle/oracle.go), and every answer, value or error text, must be the same. The
// texts are made of the pieces where the ports can differ: signs, base prefixes, underscores, digits
// of every base, the 32- and 64-bit limits, spellings of booleans, and characters strconv.Quote
// escapes (controls, a lone surrogate, unprintable and non-ASCII runes).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { weakFloat32 } from "../../server/mesh/domain/weak-input.ts";
import { goFormatFloat, goNumError, goParseBool, goParseInt, goParseUint, goQuote, type GoNumErrorKind } from "../../server/shared/go-text.ts";
import { askOracle, buildGoProgram, pieceTexts, seededRandom } from "../helpers/go-program.ts";

const ORACLE_SOURCE = path.resolve(import.meta.dirname, "go-oracle/oracle.go");

const PIECES = [
  "0", "1", "7", "8", "9", "f", "F", "g", "z", "_", "__", "+", "-", "0x", "0X", "0b", "0B", "0o", "0O", "00",
  "2147483647", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551616",
  "true", "True", "TRUE", "t", "T", "false", "F", "no", " ", "\t", "\n", "\u0000", "\u007f", "\"", "\\",
  "é", "世", "\u200b", "\u00a0", "\ud800", "😀", ".", "e", "1e3",
];

/** Decimal numbers with up to 20 digits and exponents from -330 to 330 (FormatFloat's cases). */
function numbers(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let digits = "";
    for (let n = 1 + Math.floor(next() * 20); n > 0; n--) digits += Math.floor(next() * 10);
    const point = Math.floor(next() * digits.length);
    return `${next() < 0.3 ? "-" : ""}${digits.slice(0, point) || "0"}.${digits.slice(point)}e${Math.floor(next() * 661) - 330}`;
  });
}

const answer = (value: bigint | GoNumErrorKind, fn: "ParseInt" | "ParseUint", text: string) =>
  typeof value === "bigint" ? String(value) : `error: ${goNumError(fn, text, value)}`;

describe("the strconv ports, against Go", () => {
  it("answer as Go's strconv does, value or error text, on 20,000 texts", () => {
    const edges = ["", "0", "-0", "+0", "0x", "0_1", "1_000", "_1", "1_", "0x_1", "017", "08", "-9223372036854775808", "-9223372036854775809", "99999999999999999999x",
      "1e21", "1e-7", "123456789012345678901234567890", "0.1", "-0.0", "5e-324", "1.7976931348623157e308", "1e400", "Inf", "-inf", "NaN", "0x1p-2"];
    const inputs = [...edges, ...pieceTexts(PIECES, 20_000, 20261126, 5), ...numbers(5_000, 7)];
    const answers = askOracle(buildGoProgram(ORACLE_SOURCE, "go-oracle"), inputs);
    const differences = inputs.flatMap((text, i) => {
      const bool = goParseBool(text);
      const ours = {
        int0: answer(goParseInt(text, 64n), "ParseInt", text),
        int10: answer(goParseInt(text, 64n, 10), "ParseInt", text),
        uint32: answer(goParseUint(text, 32n), "ParseUint", text),
        bool: bool === undefined ? `error: ${goNumError("ParseBool", text, "invalid syntax")}` : String(bool),
        quote: goQuote(text),
      };
      const go = answers[i]!;
      // FormatFloat of the very float Go read (its bits), where ParseFloat read one.
      if (go.bits !== undefined) {
        const view = new DataView(new ArrayBuffer(8));
        view.setBigUint64(0, BigInt(go.bits));
        Object.assign(ours, { float: goFormatFloat(view.getFloat64(0)) });
      }
      // The mesh's weights: ParseFloat(s, 32) of the decimal forms (the other forms weakFloat32 leaves to the description).
      const weight = weakFloat32(text);
      if (weight !== undefined) {
        const bits = new DataView(new ArrayBuffer(4));
        if ("value" in weight) bits.setFloat32(0, weight.value);
        Object.assign(ours, { f32: "value" in weight ? String(bits.getUint32(0)) : `error: ${weight.problem.replace("cannot parse '' as float: ", "")}` });
      } else {
        // inf, nan, hexadecimal and `_` forms: the description refuses them (docs/mesh.md says so).
        Object.assign(ours, { f32: go.f32 });
      }
      const differs = (Object.keys(ours) as (keyof typeof ours)[]).filter((key) => ours[key] !== go[key]);
      return differs.length === 0 ? [] : [{ text, differs: differs.map((key) => ({ key, ours: ours[key], go: go[key] })) }];
    });
    expect(differences).toEqual([]);
  });
});
