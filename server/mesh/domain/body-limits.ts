// Limits checked on a decoded request body before anything walks it recursively. The real decoder
// never recurses into user data deeper than the entry's own structure (Meta is map[string]string),
// so a body nested deeper than any entry can be is refused as bad input, not followed.

/** Deeper than any configuration entry (a router's header match sits at depth 7). */
export const MAX_BODY_DEPTH = 32;
/** Objects, arrays and values in one body: far above any real entry, far below a stall. */
export const MAX_BODY_NODES = 100_000;

/** Why `body` is too deep or too large to decode, or undefined. Iterative: no stack to exhaust. */
export function checkBodyShape(body: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[body, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++nodes > MAX_BODY_NODES) return `body has more than ${MAX_BODY_NODES} values`;
    if (typeof value !== "object" || value === null) continue;
    if (depth > MAX_BODY_DEPTH) return `body is nested more than ${MAX_BODY_DEPTH} levels deep`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}
