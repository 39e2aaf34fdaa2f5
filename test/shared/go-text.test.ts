// Go's %q and go-multierror's message, byte for byte (strconv.Quote; go-multierror ListFormatFunc),
// and strconv.ParseBool's spellings.
import { describe, expect, it } from "vitest";
import { goMultiErrorText, goParseBool, goQuote } from "../../server/shared/go-text.ts";

describe("goQuote", () => {
  it("quotes as strconv.Quote does", () => {
    expect(goQuote("plain")).toBe('"plain"');
    expect(goQuote('say "hi" \\ there')).toBe('"say \\"hi\\" \\\\ there"');
    expect(goQuote("a\nb\tc\r\u0007\u0008\u000b\u000c")).toBe('"a\\nb\\tc\\r\\a\\b\\v\\f"');
    expect(goQuote("\u0000\u001f\u007f")).toBe('"\\x00\\x1f\\x7f"');
    expect(goQuote("é日本€")).toBe('"é日本€"');
    // Not printable in Go: no-break space, zero-width space (a format character), a private-use rune.
    expect(goQuote("\u00a0\u200b\ue000")).toBe('"\\u00a0\\u200b\\ue000"');
    expect(goQuote("\u{1F600}\u{10FFFD}")).toBe('"\u{1F600}\\U0010fffd"');
    expect(goQuote("x\ud800y")).toBe('"x\ufffdy"');
    expect(goQuote("")).toBe('""');
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
