// The service JSON writer's kept texts (server/shared/json-text.ts): what it writes is
// JSON.stringify's text, whatever the value; an unchanging value is written from its kept text
// and cannot change under it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonText, unchanging } from "../../server/shared/json-text.ts";

/** An object whose member `value` counts how often it is read (JSON.stringify reads it once a write). */
function counted(value: unknown): { object: Record<string, unknown>; reads: () => number } {
  let reads = 0;
  const object = {
    get value() {
      reads++;
      return value;
    },
  };
  return { object, reads: () => reads };
}

describe("jsonText", () => {
  it("writes JSON.stringify's text for any value", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true, withSparseArray: true, withBoxedValues: true }), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it("writes JSON.stringify's text for documents whose members and array items are unchanging", () => {
    const member = fc.tuple(fc.jsonValue(), fc.boolean()).map(([value, mark]) => (mark ? unchanging(value) : value));
    const document = fc.dictionary(fc.string(), fc.oneof(member, fc.array(member)));
    fc.assert(
      fc.property(document, (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
        // Written again, from the texts kept by the first write.
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it("writes members the way JSON.stringify does: undefined, functions and symbols left out of objects, null in arrays", () => {
    const value = { a: undefined, b: () => 1, c: Symbol("c"), d: [undefined, () => 1, Symbol("d"), unchanging({ x: 1 })], e: 1 };
    expect(jsonText(value)).toBe('{"d":[null,null,null,{"x":1}],"e":1}');
    expect(jsonText({ only: undefined, kept: [unchanging({})] })).toBe('{"kept":[{}]}');
    expect(jsonText({ only: undefined })).toBe("{}");
    expect(jsonText({ only: undefined, kept: unchanging([]) })).toBe('{"kept":[]}');
    expect(jsonText(undefined)).toBe(undefined);
  });

  it("calls toJSON with its key, as JSON.stringify does, beside unchanging members too", () => {
    const keyed = { toJSON: (key: string) => `written as ${key}` };
    const kept = unchanging({ x: 1 });
    expect(jsonText({ first: keyed, list: [keyed] })).toBe('{"first":"written as first","list":["written as 0"]}');
    expect(jsonText({ kept, first: keyed })).toBe('{"kept":{"x":1},"first":"written as first"}');
    expect(jsonText({ list: [kept, keyed] })).toBe('{"list":[{"x":1},"written as 1"]}');
    expect(jsonText({ kept, when: new Date(0) })).toBe('{"kept":{"x":1},"when":"1970-01-01T00:00:00.000Z"}');
    const withOwn = { data: [kept], toJSON: () => "whole" };
    expect(jsonText(withOwn)).toBe('"whole"');
    expect(jsonText({ kept, data: Object.assign([1, 2], { toJSON: () => "array" }) })).toBe('{"kept":{"x":1},"data":"array"}');
  });

  it("writes an unchanging item from the text kept at its first write", () => {
    const { object, reads } = counted("team");
    const resource = unchanging(object);
    const marked = reads();
    const page = (n: number) => ({ data: [resource], links: { self: `/teams?page=${n}` } });
    expect(jsonText(page(1))).toBe('{"data":[{"value":"team"}],"links":{"self":"/teams?page=1"}}');
    expect(jsonText(page(2))).toBe('{"data":[{"value":"team"}],"links":{"self":"/teams?page=2"}}');
    expect(jsonText({ data: resource })).toBe('{"data":{"value":"team"}}');
    expect(jsonText(resource)).toBe('{"value":"team"}');
    expect(reads() - marked).toBe(1);
  });

  it("writes a value not marked unchanging afresh each time, beside unchanging ones too", () => {
    const { object, reads } = counted("team");
    const kept = unchanging({ id: 1 });
    jsonText({ data: [object] });
    jsonText({ data: [kept, object] });
    jsonText({ kept, data: object });
    jsonText({ kept, data: [object] });
    expect(reads()).toBe(4);
  });

  it("writes a boxed primitive as JSON.stringify does (its value), whatever members it was given", () => {
    const boxed = Object.assign(new String("ab"), { kept: unchanging({ x: 1 }) });
    expect(jsonText(boxed)).toBe('"ab"');
    expect(jsonText({ boxed, kept: unchanging({}) })).toBe('{"boxed":"ab","kept":{}}');
  });

  it("writes a document without a prototype, with unchanging members", () => {
    const document = Object.assign(Object.create(null) as Record<string, unknown>, { data: [unchanging({ id: 1 })], links: { self: "/" } });
    expect(jsonText(document)).toBe('{"data":[{"id":1}],"links":{"self":"/"}}');
  });
});

describe("unchanging", () => {
  it("freezes the value all the way down, so a kept text cannot go stale", () => {
    const resource = unchanging({ id: "team-1", attributes: { name: "a", tags: ["x"] }, relationships: { users: { data: [{ id: "user-1" }] } } });
    expect(() => {
      resource.attributes.name = "b";
    }).toThrow(TypeError);
    expect(() => resource.attributes.tags.push("y")).toThrow(TypeError);
    expect(() => {
      resource.relationships.users.data[0]!.id = "user-2";
    }).toThrow(TypeError);
    expect(jsonText({ data: [resource] })).toBe('{"data":[{"id":"team-1","attributes":{"name":"a","tags":["x"]},"relationships":{"users":{"data":[{"id":"user-1"}]}}}]}');
  });

  it("freezes what a value marked before holds, even when it is reached through a frozen member", () => {
    const inner = { name: "a" };
    const frozenMember = Object.freeze({ inner });
    unchanging({ frozenMember });
    expect(Object.isFrozen(inner)).toBe(true);
  });

  it("freezes members of every kind: null, arrays, nested objects", () => {
    const resource = unchanging({ none: null, list: [null, { a: 1 }], nested: { deeper: { n: 1 } } });
    expect(Object.isFrozen(resource.list)).toBe(true);
    expect(Object.isFrozen(resource.list[1])).toBe(true);
    expect(Object.isFrozen(resource.nested.deeper)).toBe(true);
  });

  it("leaves primitives as they are", () => {
    expect(unchanging("text")).toBe("text");
    expect(unchanging(null)).toBe(null);
  });
});
