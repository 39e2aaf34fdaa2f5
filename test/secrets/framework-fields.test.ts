// The real framework's weakly typed fields (sdk/framework/field_data.go getPrimitive with
// mapstructure.WeakDecode, on bodies decoded with UseNumber), as server/secrets/framework-fields.ts
// reads them before a handler runs.
import { describe, expect, it } from "vitest";
import { lenientBoolean, lenientDuration, lenientInteger, readBool, readDurationSecond, readFrameworkFields, readInt } from "../../server/secrets/framework-fields.ts";

describe("readBool (mapstructure decodeBool, weakly typed)", () => {
  it("takes booleans, strconv.ParseBool's spellings, the empty text, and the numbers 0 and 1", () => {
    for (const yes of [true, "1", "t", "T", "TRUE", "true", "True", 1]) expect(readBool(yes), String(yes)).toEqual({ value: true });
    for (const no of [false, "0", "f", "F", "FALSE", "false", "False", "", 0]) expect(readBool(no), String(no)).toEqual({ value: false });
  });

  it("refuses any other text or number, as ParseBool does (a JSON number is parsed as its text)", () => {
    expect(readBool("yes")).toEqual({ error: `cannot parse '' as bool: strconv.ParseBool: parsing "yes": invalid syntax` });
    expect(readBool(" true")).toEqual({ error: `cannot parse '' as bool: strconv.ParseBool: parsing " true": invalid syntax` });
    expect(readBool(2)).toEqual({ error: `cannot parse '' as bool: strconv.ParseBool: parsing "2": invalid syntax` });
    expect(readBool(-1)).toEqual({ error: `cannot parse '' as bool: strconv.ParseBool: parsing "-1": invalid syntax` });
    expect(readBool('say "no"\n')).toEqual({ error: `cannot parse '' as bool: strconv.ParseBool: parsing "say \\"no\\"\\n": invalid syntax` });
  });
});

describe("readInt (mapstructure decodeInt, weakly typed: strconv.ParseInt(text, 0, 64))", () => {
  it("takes whole numbers, booleans, the empty text (0) and text in Go's base-0 syntax", () => {
    const cases: [boolean | string | number, number][] = [
      [7, 7], [-7, -7], [true, 1], [false, 0], ["", 0], ["42", 42], ["+42", 42], ["-42", -42], ["0", 0], ["-0", 0],
      ["0x1F", 31], ["0X1f", 31], ["0b101", 5], ["0B1", 1], ["0o17", 15], ["0O17", 15], ["017", 15], ["1_000", 1000], ["0x_ff", 255],
      ["9223372036854775807", 9223372036854775807], ["-9223372036854775808", -9223372036854775808],
    ];
    for (const [sent, value] of cases) expect(readInt(sent), String(sent)).toEqual({ value });
  });

  it("refuses other text, fractions and numbers out of a 64-bit int, in ParseInt's words", () => {
    const syntax = (text: string) => ({ error: `cannot parse '' as int: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax` });
    for (const text of ["three", "1.5", "08", "0x", "1__0", "_1", "1_", " 1", "0b2", "1e3", "--1", "0x-1"]) expect(readInt(text), text).toEqual(syntax(text));
    expect(readInt(1.5)).toEqual(syntax("1.5"));
    expect(readInt("9223372036854775808")).toEqual({ error: `cannot parse '' as int: strconv.ParseInt: parsing "9223372036854775808": value out of range` });
    expect(readInt("-0x8000000000000001")).toEqual({ error: `cannot parse '' as int: strconv.ParseInt: parsing "-0x8000000000000001": value out of range` });
    // As Go's loop: the digit that overflows decides, before a later character that is no digit.
    expect(readInt("99999999999999999999x")).toEqual({ error: `cannot parse '' as int: strconv.ParseInt: parsing "99999999999999999999x": value out of range` });
    // A body may hold a MiB of digits: out of range, as ParseInt says, however long.
    const long = `1${"0".repeat(1 << 20)}`;
    expect(readInt(long)).toEqual({ error: `cannot parse '' as int: strconv.ParseInt: parsing "${long}": value out of range` });
    expect(readInt(`0x${"0".repeat(1 << 20)}1`)).toEqual({ value: 1 });
  });
});

describe("readDurationSecond (parseutil.ParseDurationSecond, then getPrimitive's whole seconds, not negative)", () => {
  it("takes seconds, days and Go durations, as text or as whole numbers (go-secure-stdlib's own table)", () => {
    const cases: [string | number, number][] = [
      [9876, 9876], [5, 5], [0, 0], ["9876", 9876], ["9876s", 9876], ["50ms", 0], ["0.5m", 30], ["0.5s", 0], ["5m", 300],
      ["6h", 21_600], ["5d", 432_000], ["05d", 432_000], ["500d", 43_200_000], ["4352s", 4352], ["", 0], ["+90", 90], ["-0", 0],
      ["1h30m", 5400], ["1.5h", 5400], ["1500ms", 1], ["1us", 0], ["2µs", 0], ["3μs", 0], ["-0.5s", 0], ["0", 0],
      // The most a duration holds: 2^63-1 ns, whole seconds of it.
      ["9223372036s", 9_223_372_036], ["2562047h", 9_223_369_200],
    ];
    for (const [sent, value] of cases) expect(readDurationSecond(sent), String(sent)).toEqual({ value });
  });

  it("refuses what parseutil refuses, in its words (a JSON number is read as its text)", () => {
    const cases: [string | number | boolean, string][] = [
      ["soon", 'time: invalid duration "soon"'],
      ["5 s", 'time: unknown unit " s" in duration "5 s"'],
      ["5sa", 'time: unknown unit "sa" in duration "5sa"'],
      [" 5m", 'time: invalid duration " 5m"'],
      ["5h ", 'time: unknown unit "h " in duration "5h "'],
      ["5days", 'time: unknown unit "days" in duration "5days"'],
      ["9876q", 'time: unknown unit "q" in duration "9876q"'],
      ["s20ms", 'time: invalid duration "s20ms"'],
      ["10S", 'time: unknown unit "S" in duration "10S"'],
      ["ad", 'strconv.ParseInt: parsing "a": invalid syntax'],
      ["0.5d", 'strconv.ParseInt: parsing "0.5": invalid syntax'],
      ["d", 'strconv.ParseInt: parsing "": invalid syntax'],
      ["4世", 'time: unknown unit "\\xe4\\xb8\\x96" in duration "4\\xe4\\xb8\\x96"'],
      ["m", 'time: invalid duration "m"'],
      ["1.5", 'time: missing unit in duration "1.5"'],
      [1.5, 'time: missing unit in duration "1.5"'],
      ["1_000", 'time: unknown unit "_" in duration "1_000"'],
      [true, "could not parse duration from input"],
      [false, "could not parse duration from input"],
      // Past what a duration holds: overflowMul's words for seconds and days, Go's for the rest.
      ["10000000000", "multiplication of durations resulted in overflow, one operand may be too large"],
      ["106752d", "multiplication of durations resulted in overflow, one operand may be too large"],
      ["9223372037s", 'time: invalid duration "9223372037s"'],
      // Go's leadingInt overflows before the missing unit is seen.
      ["99999999999999999999", 'time: invalid duration "99999999999999999999"'],
      // getPrimitive: a TypeDurationSecond is not negative.
      [-5, "cannot provide negative value '-5'"],
      ["-5", "cannot provide negative value '-5'"],
      ["-1h", "cannot provide negative value '-3600'"],
      ["-2d", "cannot provide negative value '-172800'"],
      ["-1.5s", "cannot provide negative value '-1'"],
    ];
    for (const [sent, error] of cases) expect(readDurationSecond(sent), String(sent)).toEqual({ error });
  });

  it("reads a MiB of digits in time that grows with its length (a body may hold one)", () => {
    const digits = "9".repeat(1 << 20);
    expect(readDurationSecond(`${digits}s`)).toEqual({ error: `time: invalid duration "${digits}s"` });
    // Fraction digits past 63 bits are skipped; Go scales the rest in floating point: 0.999... is 1.
    expect(readDurationSecond(`1.${digits}s`)).toEqual({ value: 2 });
    expect(readDurationSecond("1s".repeat(1 << 18))).toEqual({ value: 1 << 18 });
  });
});

describe("readFrameworkFields", () => {
  const fields = new Map([["sync", "bool"], ["max_retries", "int"]] as const);

  it("reads each field in place, leaving other members and non-scalars to the description's check", () => {
    const body: Record<string, unknown> = { sync: "false", max_retries: "0x10", name: "5", nested: { sync: "x" } };
    expect(readFrameworkFields(body, fields)).toBeUndefined();
    expect(body).toEqual({ sync: false, max_retries: 16, name: "5", nested: { sync: "x" } });
    const list: Record<string, unknown> = { sync: ["true"] };
    expect(readFrameworkFields(list, fields)).toBeUndefined();
    expect(list).toEqual({ sync: ["true"] });
  });

  it("reads durations to whole seconds, refused in the framework's words", () => {
    const durations = new Map([["ttl", "duration"], ["sync", "bool"]] as const);
    const body: Record<string, unknown> = { ttl: "1h", sync: "t" };
    expect(readFrameworkFields(body, durations)).toBeUndefined();
    expect(body).toEqual({ ttl: 3600, sync: true });
    const bad: Record<string, unknown> = { ttl: "-1h", sync: "t" };
    expect(readFrameworkFields(bad, durations)).toBe(`Field validation failed: error converting input -1h for field "ttl": cannot provide negative value '-3600'`);
    expect(bad).toEqual({ ttl: "-1h", sync: "t" });
  });

  it("answers the first field it cannot read in the framework's words, and changes nothing then", () => {
    const body: Record<string, unknown> = { max_retries: "7", sync: "soon" };
    expect(readFrameworkFields(body, new Map([["max_retries", "int"], ["sync", "bool"]] as const))).toBe(
      `Field validation failed: error converting input soon for field "sync": cannot parse '' as bool: strconv.ParseBool: parsing "soon": invalid syntax`,
    );
    expect(body).toEqual({ max_retries: "7", sync: "soon" });
  });
});

describe("lenientBoolean, lenientInteger and lenientDuration: a read field as a handler takes it", () => {
  it("gives the value, or the fallback when the member is absent", () => {
    expect(lenientBoolean(undefined, true)).toBe(true);
    expect(lenientBoolean("f", true)).toBe(false);
    expect(lenientBoolean(1, false)).toBe(true);
    expect(lenientInteger(undefined, -1)).toBe(-1);
    expect(lenientInteger("0b11", -1)).toBe(3);
    expect(lenientInteger(false, -1)).toBe(0);
    expect(lenientDuration(undefined, 1800)).toBe(1800);
    expect(lenientDuration("2d", 0)).toBe(172_800);
    expect(lenientDuration(90, 0)).toBe(90);
  });

  it("throws on a value readFrameworkFields would have refused (a handler never gets one)", () => {
    expect(() => lenientInteger("x" as never, 0)).toThrow(/did not read/);
    expect(() => lenientBoolean("x" as never, false)).toThrow(/did not read/);
    expect(() => lenientDuration("soon", 0)).toThrow(/did not read/);
  });
});
