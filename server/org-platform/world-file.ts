// Checks a world (from ORG_PLATFORM_WORLD, or given to createOrgPlatformApp) against its JSON Schema,
// world.schema.json, before the server builds its state from it.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { schemaAjv } from "../shared/json-schema.ts";
import type { WorldFile } from "./domain/world.ts";

export const WORLD_SCHEMA_PATH = path.join(import.meta.dirname, "world.schema.json");

let validator: ValidateFunction | undefined;

function validate() {
  validator ??= schemaAjv({ allErrors: true, strict: true, useDefaults: false }).compile(JSON.parse(readFileSync(WORLD_SCHEMA_PATH, "utf8")));
  return validator;
}

/** The world, if it follows the schema; otherwise an error listing every problem with its place. */
export function checkWorldFile(data: unknown, source: string): WorldFile {
  const check = validate();
  if (check(data)) return data as WorldFile;
  const problems = (check.errors ?? []).map((e) => {
    const extra = e.keyword === "additionalProperties" ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : "";
    return `${e.instancePath || "/"} ${e.message}${extra}`;
  });
  throw new Error(`${source} does not follow world.schema.json:\n  ${problems.join("\n  ")}`);
}
