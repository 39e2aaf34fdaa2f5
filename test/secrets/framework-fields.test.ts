// The real framework's weakly typed fields (sdk/framework/field_data.go getPrimitive with
// mapstructure.WeakDecode, on bodies decoded with UseNumber), as server/secrets/framework-fields.ts
// reads them before a handler runs.
import { describe, expect, it } from "vitest";
import { lenientBoolean, lenientInteger, readBool, readFrameworkFields, readInt } from "../../server/secrets/framework-fields.ts";

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

  it("answers the first field it cannot read in the framework's words, and changes nothing then", () => {
    const body: Record<string, unknown> = { max_retries: "7", sync: "soon" };
    expect(readFrameworkFields(body, new Map([["max_retries", "int"], ["sync", "bool"]] as const))).toBe(
      `Field validation failed: error converting input soon for field "sync": cannot parse '' as bool: strconv.ParseBool: parsing "soon": invalid syntax`,
    );
    expect(body).toEqual({ max_retries: "7", sync: "soon" });
  });
});

describe("lenientBoolean and lenientInteger: a read field as a handler takes it", () => {
  it("gives the value, or the fallback when the member is absent", () => {
    expect(lenientBoolean(undefined, true)).toBe(true);
    expect(lenientBoolean("f", true)).toBe(false);
    expect(lenientBoolean(1, false)).toBe(true);
    expect(lenientInteger(undefined, -1)).toBe(-1);
    expect(lenientInteger("0b11", -1)).toBe(3);
    expect(lenientInteger(false, -1)).toBe(0);
  });

  it("throws on a value readFrameworkFields would have refused (a handler never gets one)", () => {
    expect(() => lenientInteger("x" as never, 0)).toThrow(/did not read/);
    expect(() => lenientBoolean("x" as never, false)).toThrow(/did not read/);
  });
});
