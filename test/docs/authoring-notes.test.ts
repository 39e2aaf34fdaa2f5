// Published descriptions speak to an API reader: they state behaviour, never where it came from.
// Authoring notes ("the seed", "the real system", repository paths, "later versions of this
// document", pointers into the README) belong in code comments or docs/, never in the bundles the docs
// build publishes.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";

const root = path.resolve(import.meta.dirname, "../..");

const NOTES: [string, RegExp][] = [
  ["the seed", /\bthe seeds?\b|\bseed's\b/i],
  ["the real system", /\breal system/i],
  ["later versions of this document", /later versions of this document/i],
  ["a repository path", /(?<![\w.-])(?:server|scripts|openapi|generated|test|bench)\/[\w.-]+\/?/],
  ["the README", /\bsee the README\b|\bin the README\b|README\.md/],
];

/** Every string of the description, with the JSON pointer it sits at. */
function* strings(value: unknown, at = ""): Generator<[string, string]> {
  if (typeof value === "string") yield [at, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${at}/${i}`);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref") continue;
      yield* strings(v, `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
}

// This project's own descriptions (those with a reference server here); a description added with
// add-api was written elsewhere, in its own words.
describe.each(APIS.filter((a) => a.hasReferenceServer).map((a) => a.name))("published description of %s", (api) => {
  it("holds no authoring notes", () => {
    const bundle = JSON.parse(readFileSync(path.join(root, "generated", api, "openapi.json"), "utf8"));
    const found: string[] = [];
    for (const [at, text] of strings(bundle))
      for (const [what, re] of NOTES) {
        const m = re.exec(text);
        if (m) found.push(`${at}: ${what}: …${text.slice(Math.max(0, m.index - 40), m.index + 60).replace(/\n/g, " ")}…`);
      }
    expect(found).toEqual([]);
  });
});
