// JSON texts kept for values that cannot change. A service that renders a resource once per state
// version marks it `unchanging` (frozen, all the way down); the writer then serializes a document
// around the kept texts of such resources instead of serializing them again on every answer
// (JSON.stringify is most of what a list answer costs: about 38 µs of a 16 KB team page, measured
// with bench/org-floor.ts). What is written is exactly JSON.stringify's text.

/** The values marked unchanging, with their JSON text once it was written (null until then). */
const texts = new WeakMap<object, string | null>();

/**
 * Freezes a value all the way down and marks it, so that its JSON text may be kept for as long as the
 * value lives. Returns the value.
 */
export function unchanging<T>(value: T): T {
  if (typeof value === "object" && value !== null && !texts.has(value)) {
    freezeDeeply(value);
    texts.set(value, null);
  }
  return value;
}

function freezeDeeply(value: object): void {
  Object.freeze(value);
  for (const member of Object.values(value)) {
    // A member marked before is frozen all the way down already.
    if (typeof member === "object" && member !== null && !texts.has(member)) freezeDeeply(member);
  }
}

/**
 * JSON.stringify(value)'s text, in which an unchanging value that is the value itself, one of its
 * members or an item of an array member (a JSON:API document's `data` and `included`) is written from
 * its kept text.
 */
export function jsonText(value: unknown): string | undefined {
  if (!isPlainObject(value) || texts.has(value)) {
    const written = memberText(value);
    return written === TO_JSON ? JSON.stringify(value) : written;
  }
  // Most answers hold nothing unchanging: written whole, at JSON.stringify's own speed.
  if (!holdsUnchanging(value)) return JSON.stringify(value);
  let text = "";
  for (const key of Object.keys(value)) {
    const member = value[key];
    const written = Array.isArray(member) && !hasToJson(member) ? arrayText(member) : memberText(member);
    // JSON.stringify leaves out a member it cannot write (undefined, a function, a symbol); a value
    // with a toJSON of its own is given to JSON.stringify whole (toJSON is called with the key).
    if (written === undefined) continue;
    if (written === TO_JSON) return JSON.stringify(value);
    text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${written}`;
  }
  return `{${text}}`;
}

function holdsUnchanging(value: Record<string, unknown>): boolean {
  for (const key in value) {
    const member = value[key];
    if (typeof member !== "object" || member === null) continue;
    if (texts.has(member)) return true;
    if (Array.isArray(member)) for (const item of member) if (typeof item === "object" && item !== null && texts.has(item)) return true;
  }
  return false;
}

/** Said of a member with a toJSON of its own. */
const TO_JSON = Symbol("toJSON");

function arrayText(items: unknown[]): string | typeof TO_JSON {
  let text = "[";
  for (let i = 0; i < items.length; i++) {
    const written = memberText(items[i]);
    if (written === TO_JSON) return TO_JSON;
    text += `${i === 0 ? "" : ","}${written ?? "null"}`;
  }
  return `${text}]`;
}

function memberText(member: unknown): string | undefined | typeof TO_JSON {
  if (typeof member !== "object" || member === null) return JSON.stringify(member);
  const kept = texts.get(member);
  if (kept) return kept;
  if (hasToJson(member)) return TO_JSON;
  const text = JSON.stringify(member);
  if (kept === null) texts.set(member, text);
  return text;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || hasToJson(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
