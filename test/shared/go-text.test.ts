// Go's %q and go-multierror's message, byte for byte (strconv.Quote; go-multierror ListFormatFunc),
// strconv.ParseBool's spellings, ParseUint and ParseInt with base 0.
import { describe, expect, it } from "vitest";
import { goFormatV, goMultiErrorText, goParseBool, goQuote, goNumError, goParseInt, goParseUint } from "../../server/shared/go-text.ts";

describe("goFormatV (fmt's %v of a decoded JSON value)", () => {
  it("prints text as it is, lists with spaces, objects as sorted maps, null as <nil>", () => {
    const cases: [value: unknown, printed: string][] = [
      ["a b", "a b"],
      [12, "12"],
      [true, "true"],
      [null, "<nil>"],
      [["a=b", "c", 3, null], "[a=b c 3 <nil>]"],
      [{ z: "1", a: ["x"], m: { k: false } }, "map[a:[x] m:map[k:false] z:1]"],
      [[], "[]"],
      [{}, "map[]"],
    ];
    for (const [value, printed] of cases) expect(goFormatV(value), printed).toBe(printed);
  });
});

describe("goQuote", () => {
  it("quotes as strconv.Quote does", () => {
    const cases: [text: string, quoted: string][] = [
      ["plain", '"plain"'],
      ['say "hi" \\ there', '"say \\"hi\\" \\\\ there"'],
      ["a\nb\tc\r\u0007\u0008\u000b\u000c", '"a\\nb\\tc\\r\\a\\b\\v\\f"'],
      ["\u0000\u001f\u007f", '"\\x00\\x1f\\x7f"'],
      ["é日本€", '"é日本€"'],
      // Not printable in Go: no-break space, zero-width space (a format character), a private-use rune.
      ["\u00a0\u200b\ue000", '"\\u00a0\\u200b\\ue000"'],
      ["\u{1F600}\u{10FFFD}", '"\u{1F600}\\U0010fffd"'],
      ["x\ud800y", '"x\ufffdy"'],
      ["", '""'],
    ];
    for (const [text, quoted] of cases) expect(goQuote(text), JSON.stringify(text)).toBe(quoted);
  });
});

describe("goMultiErrorText", () => {
  it("lists one error or several", () => {
    expect(goMultiErrorText(["did not supply credential_type"])).toBe("1 error occurred:\n\t* did not supply credential_type\n\n");
    expect(goMultiErrorText(["a", "b"])).toBe("2 errors occurred:\n\t* a\n\t* b\n\n");
  });
});

describe("goParseBool", () => {
  it("reads strconv.ParseBool's spellings and nothing else", () => {
    for (const text of ["1", "t", "T", "TRUE", "true", "True"]) expect(goParseBool(text), text).toBe(true);
    for (const text of ["0", "f", "F", "FALSE", "false", "False"]) expect(goParseBool(text), text).toBe(false);
    for (const text of ["", "yes", "tRUE", "2", " true"]) expect(goParseBool(text), text).toBeUndefined();
  });
});

describe("goParseInt with base 10", () => {
  it("reads decimal digits only: no prefix, no _, a leading 0 is decimal", () => {
    expect(goParseInt("017", 64n, 10)).toBe(17n);
    expect(goParseInt("-0042", 64n, 10)).toBe(-42n);
    expect(goParseInt("+9223372036854775807", 64n, 10)).toBe(9223372036854775807n);
    for (const text of ["0x1f", "0b1", "0o7", "1_000", "1.5", "", "-", " 1"]) expect(goParseInt(text, 64n, 10), text).toBe("invalid syntax");
    expect(goParseInt("9223372036854775808", 64n, 10)).toBe("value out of range");
  });
});

describe("goParseUint and goParseInt (strconv with base 0)", () => {
  it("read the prefixes, a leading 0 as octal, and _ between digits", () => {
    expect(goParseUint("0x1F", 32n)).toBe(31n);
    expect(goParseUint("0b101", 8n)).toBe(5n);
    expect(goParseUint("0o17", 8n)).toBe(15n);
    expect(goParseUint("017", 8n)).toBe(15n);
    expect(goParseUint("1_000", 32n)).toBe(1000n);
    expect(goParseInt("-0x8000000000000000", 64n)).toBe(-(2n ** 63n));
    expect(goParseInt("+7", 8n)).toBe(7n);
  });

  it("refuse in strconv's words: the overflowing digit first, then syntax and misplaced _", () => {
    expect(goParseUint("256", 8n)).toBe("value out of range");
    expect(goParseInt("128", 8n)).toBe("value out of range");
    expect(goParseInt("-129", 8n)).toBe("value out of range");
    expect(goParseInt("-128", 8n)).toBe(-128n);
    expect(goParseUint("99999999999999999999x", 64n)).toBe("value out of range");
    for (const text of ["", "-", "0x", "08", "1_", "_1", "1__0", "0b2", "1.0", "-1"]) expect(goParseUint(text, 64n), text).toBe("invalid syntax");
    expect(goNumError("ParseInt", 'a"b', "invalid syntax")).toBe('strconv.ParseInt: parsing "a\\"b": invalid syntax');
  });

  it("read a long run of leading zeros without arithmetic on each", () => {
    expect(goParseUint(`${"0".repeat(1 << 20)}7`, 64n)).toBe(7n);
  });
});
