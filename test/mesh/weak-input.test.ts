// The scalar rules of weakly typed entry values, against the Go functions they follow: strconv's
// ParseUint/ParseInt with base 0 (underscoreOK included), ParseBool, ParseFloat's decimal forms and
// FormatFloat(f, 'f', -1, 64); mapstructure's decodeString/decodeBool/decodeUint/decodeInt/decodeFloat.
import { describe, expect, it } from "vitest";
import { goFormatFloat } from "../../server/shared/go-text.ts";
import { goParseUint } from "../../server/shared/go-text.ts";
import { weakBool, weakFloat32, weakInt, weakString, weakUint32, weakInputProblems, mapstructureErrorText } from "../../server/mesh/domain/weak-input.ts";

describe("strconv.ParseUint(s, 0, 32)", () => {
  it.each([
    ["0", 0n], ["00", 0n], ["017", 15n], ["0o17", 15n], ["0O17", 15n], ["0x1f", 31n], ["0X1F", 31n], ["0b101", 5n], ["1_000", 1000n], ["0x_1f", 31n], ["0_7", 7n], ["4294967295", 4294967295n],
  ])("%s is %s", (text, value) => expect(goParseUint(text, 32n)).toBe(value));
  it.each([
    ["", "invalid syntax"], ["-1", "invalid syntax"], ["+1", "invalid syntax"], ["08", "invalid syntax"], ["0x", "invalid syntax"], ["0b", "invalid syntax"], ["1_", "invalid syntax"], ["_1", "invalid syntax"],
    ["1__0", "invalid syntax"], ["0x1_", "invalid syntax"], [" 1", "invalid syntax"], ["1.0", "invalid syntax"], ["4294967296", "value out of range"], ["0x100000000", "value out of range"],
  ])("%j is refused: %s", (text, error) => expect(goParseUint(text, 32n)).toBe(error));
});

describe("mapstructure's weak scalars", () => {
  it("text from numbers and booleans (FormatFloat 'f', -1)", () => {
    expect([5, 1.5, 1e21, 1e-7, -0, 123456789012345680000, true, false].map((v) => weakString(v, "X"))).toEqual(
      ["5", "1.5", "1000000000000000000000", "0.0000001", "-0", "123456789012345680000", "1", "0"].map((value) => ({ value })),
    );
    expect(goFormatFloat(Number.NaN)).toBe("NaN");
    expect(weakString([1], "X")).toEqual({ problem: "'X' expected type 'string', got unconvertible type '[]interface {}'" });
  });
  it("booleans", () => {
    expect([1, 0, -0.5, "1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False", ""].map((v) => weakBool(v, "B"))).toEqual(
      [true, false, true, true, true, true, true, true, true, false, false, false, false, false, false, false].map((value) => ({ value })),
    );
    expect(weakBool("yes", "B")).toEqual({ problem: `cannot parse 'B' as bool: strconv.ParseBool: parsing "yes": invalid syntax` });
    expect(weakBool("tRUE", "B")).toEqual({ problem: `cannot parse 'B' as bool: strconv.ParseBool: parsing "tRUE": invalid syntax` });
    expect(weakBool({}, "B")).toEqual({ problem: "'B' expected type 'bool', got unconvertible type 'map[string]interface {}'" });
  });
  it("unsigned counts: fractions dropped, the low 32 bits kept, negatives left to the description", () => {
    expect([2.9, 4294967296, 4294967297.5, 2 ** 64, true, false, "0x10"].map((v) => weakUint32(v, "N"))).toEqual([2, 0, 1, 0, 1, 0, 16].map((value) => ({ value })));
    expect(weakUint32(-1, "N")).toBeUndefined();
    expect(weakUint32("9".repeat(30), "N")).toEqual({ problem: `cannot parse 'N' as uint: strconv.ParseUint: parsing "${"9".repeat(30)}": value out of range` });
  });
  it("signed integers: a sign, then ParseUint's forms", () => {
    expect(["-0x10", "+17", "-9223372036854775808", 8080.9, -3.5].map((v) => weakInt(v, "P"))).toEqual([-16, 17, -9223372036854775808, 8080, -3].map((value) => ({ value })));
    expect(weakInt("9223372036854775808", "P")).toEqual({ problem: `cannot parse 'P' as int: strconv.ParseInt: parsing "9223372036854775808": value out of range` });
    expect(weakInt("-", "P")).toEqual({ problem: `cannot parse 'P' as int: strconv.ParseInt: parsing "-": invalid syntax` });
  });
  it("weights: ParseFloat's decimal forms; its other forms left to the description", () => {
    expect(["50", "+5e1", ".5", "5.", true].map((v) => weakFloat32(v, "W"))).toEqual([50, 50, 0.5, 5, 1].map((value) => ({ value })));
    expect(["inf", "NaN", "0x1p-2", "1_0"].map((v) => weakFloat32(v, "W"))).toEqual([undefined, undefined, undefined, undefined]);
    expect(weakFloat32("", "W")).toEqual({ problem: `cannot parse 'W' as float: strconv.ParseFloat: parsing "": invalid syntax` });
  });
});

describe("an entry's problems", () => {
  it("names every refused value by its mapstructure path, and the unused keys apart", () => {
    const problems = weakInputProblems("service-router", {
      Kind: "service-router",
      Name: "web",
      Routes: { Match: { HTTP: { Methods: [null, {}], Bogus: null } }, Destination: { NumRetries: "x" } },
    });
    expect(problems).toEqual({
      values: ["'Routes[0].Match.HTTP.Methods[1]' expected type 'string', got unconvertible type 'map[string]interface {}'", `cannot parse 'Routes[0].Destination.NumRetries' as uint: strconv.ParseUint: parsing "x": invalid syntax`],
      unusedKeys: ["Routes[0].Match.HTTP.Bogus"],
    });
    expect(mapstructureErrorText(problems.values)).toBe(
      `2 error(s) decoding:\n\n* 'Routes[0].Match.HTTP.Methods[1]' expected type 'string', got unconvertible type 'map[string]interface {}'\n* cannot parse 'Routes[0].Destination.NumRetries' as uint: strconv.ParseUint: parsing "x": invalid syntax`,
    );
  });
});
