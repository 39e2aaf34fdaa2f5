// Checks an HTTP answer against the bundled description: documented status, content type and
// schema. Used on answers that did not come through the server's own validator (Prism's).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenApiDocument } from "../../server/shared/openapi.ts";

type Json = Record<string, unknown>;

export function responseChecker(bundle: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "bundle", ...bundle } as Json);

  const deref = (node: Json): Json => {
    const ref = node.$ref as string | undefined;
    if (!ref) return node;
    const target = ref.slice(2).split("/").reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, "/").replace(/~0/g, "~")], bundle);
    return deref(target as Json);
  };

  /** Returns the problems found; an empty list means the answer follows the description. */
  return function check(template: string, method: string, status: number, contentType: string, body: unknown): string[] {
    const operation = (bundle.paths[template] as Json | undefined)?.[method] as Json | undefined;
    if (!operation) return [`${method.toUpperCase()} ${template} is not described`];
    const responses = operation.responses as Json;
    const response = responses[String(status)] as Json | undefined;
    if (!response) return [`status ${status} is not documented for ${method.toUpperCase()} ${template}`];
    const content = deref(response).content as Json | undefined;
    const mediaType = contentType.split(";")[0]!.trim();
    if (!content?.[mediaType]) return [`content type ${mediaType} is not documented for ${status}`];
    const escaped = template.replace(/~/g, "~0").replace(/\//g, "~1");
    const pointer = `bundle#/paths/${escaped}/${method}/responses/${status}`;
    const base = (response.$ref as string | undefined)?.replace(/^#/, "bundle#") ?? pointer;
    const schemaRef = `${base}/content/${mediaType.replace(/\//g, "~1")}/schema`;
    const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  };
}
