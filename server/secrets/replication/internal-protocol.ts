// The cluster-to-cluster protocol as openapi/secrets/internal/openapi.yaml describes it (a
// standalone description kept out of the public reference): its wire types, generated from it
// (generated/secrets/internal-schema.ts), the description as each listener's validator reads it,
// and the check of a peer's answer against it before the link uses it. A peer of another version,
// or something else answering at a peer's address, cannot hand the link a value of another shape.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { ValidateFunction } from "ajv";
import { parse } from "yaml";
import type { components } from "../../../generated/secrets/internal-schema.ts";
import { schemaAjv, type SchemaAjv } from "../../shared/json-schema.ts";

/** The protocol's messages by their schema names (ConnectRequest, ConnectResponse, WalResponse...). */
export type Protocol = components["schemas"];
/** One stored key and value of a handshake's copy of the primary's data. */
export type SnapshotEntry = NonNullable<Protocol["ConnectResponse"]["snapshot"]>[number];

const root = path.resolve(import.meta.dirname, "..", "..", "..");
export const INTERNAL_DESCRIPTION = path.join(root, "openapi", "secrets", "internal", "openapi.yaml");

type Json = Record<string, unknown>;
let loaded: Json | undefined;

function description(): Json {
  loaded ??= parse(readFileSync(INTERNAL_DESCRIPTION, "utf8")) as Json;
  return loaded;
}

/**
 * The internal description as one listener's validator reads it: only the paths served there (the
 * API listener's have a path-level `servers` entry), with the base path /v1.
 */
export function internalDescription(listener: "api" | "cluster"): Json {
  const document = structuredClone(description());
  document.servers = [{ url: "/v1" }];
  const paths: Record<string, Json> = {};
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    if ((item.servers !== undefined) !== (listener === "api")) continue;
    delete item.servers;
    paths[template] = item;
  }
  document.paths = paths;
  return document;
}

let ajv: SchemaAjv | undefined;
const checks = new Map<keyof Protocol, ValidateFunction>();

/** The compiled check of one of the protocol's schemas (compiled on first use: most servers never replicate). */
function checkOf(name: keyof Protocol): ValidateFunction {
  let check = checks.get(name);
  if (!check) {
    if (!ajv) {
      // The description's own keywords (example, examples) are not JSON Schema's: not strict.
      ajv = schemaAjv({ strict: false, allErrors: false });
      ajv.addSchema({ $id: "internal-protocol", components: (description().components as Json) ?? {} });
    }
    check = ajv.compile({ $ref: `internal-protocol#/components/schemas/${name}` });
    checks.set(name, check);
  }
  return check;
}

/** Whether a value (a peer's answer, decrypted credentials) follows one of the protocol's schemas. */
export function follows<N extends keyof Protocol>(name: N, value: unknown): value is Protocol[N] {
  return checkOf(name)(value);
}

/** Where a value that does not follow a schema first breaks it, for an error message. */
export function breach(name: keyof Protocol, value: unknown): string {
  const check = checkOf(name);
  if (check(value)) return "";
  const [first] = check.errors ?? [];
  return first ? `${first.instancePath || "/"} ${first.message}` : "";
}
