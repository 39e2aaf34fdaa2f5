// Ajv for the JSON Schemas this project checks outside a request's validation (a world file, the
// answers of a replication peer, the contract tools' checks): draft 2020-12, as OpenAPI 3.1 writes
// schemas, with the formats.
// Ajv2020 is Ajv's documented entry for draft 2020-12 (ajv.js.org, "JSON Schema draft 2020-12"), the
// one import of it: the types come from the package's main entry.
import type { Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats, { type FormatName } from "ajv-formats";

/** Ajv as schemaAjv makes it. */
export type SchemaAjv = InstanceType<typeof Ajv2020>;

/** A draft 2020-12 Ajv instance that knows the formats (date-time, uri, uuid...), or only those named. */
export function schemaAjv(options: Options, formats?: FormatName[]): SchemaAjv {
  const ajv = new Ajv2020(options);
  // ajv-formats is a CommonJS module: under Node's ESM its default import is module.exports, whose
  // `default` is the plugin (it sets both).
  ajvFormats.default(ajv, formats);
  return ajv;
}
