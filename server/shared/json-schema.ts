// Ajv for the JSON Schemas this project checks outside a request's validation (a world file, the
// answers of a replication peer): draft 2020-12, as OpenAPI 3.1 writes schemas, with the formats.
import { Ajv2020, type Options } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";

/** A draft 2020-12 Ajv instance that knows the formats (date-time, uri, uuid...). */
export function schemaAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  // ajv-formats is a CommonJS module: under Node's ESM its default import is module.exports, whose
  // `default` is the plugin (it sets both).
  ajvFormats.default(ajv);
  return ajv;
}
