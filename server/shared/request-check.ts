// The request check of express-openapi-validator 5.6 for one operation and media type
// (RequestValidator.buildMiddleware), for apps whose req.query can be assigned (serviceApp).
//
// The library's check makes req.query writable on every request: Express 5 gives req.query as a
// getter, and the library's parameter parsing assigns it, so it reads the getter and defines an
// own property on the request with Object.defineProperty. Without that step the servers spend
// 8-9 µs less a write (server CPU a request: team PATCH 181 → 172, mesh write 190 → 182; A/B of
// bundles, medians of five; docs/benchmarks.md). serviceApp's req.query takes an assignment instead (it is
// kept for the request's URL), so the step is not needed; everything else is the library's, in its
// order, with its validators (compiled by the library's ajv instances, cached under the same keys),
// its coercions and its errors.
import type { Request } from "express";
import type { Stage } from "./stages.ts";
import { fromValidator, validatorLibrary } from "./validator-route-cache.ts";

type Ajv = { errorsText(errors: unknown[], options: object): string };
type AjvValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
interface Schema {
  properties?: Record<string, { _discriminator?: unknown } & Record<string, unknown>>;
  [key: string]: unknown;
}
interface OperationSchema {
  parameters?: unknown[];
  security?: Record<string, unknown>[];
  "x-eov-allow-unknown-query-parameters"?: boolean;
  [key: string]: unknown;
}
interface ApiDoc {
  paths: unknown;
  components?: { securitySchemes?: Record<string, { type?: string; in?: string; name?: string }> };
  security?: Record<string, unknown>[];
}

/** The library's RequestValidator instance: its ajv instances and the helper methods its check calls. */
export interface LibraryRequestValidator {
  apiDoc: ApiDoc;
  ajv: Ajv;
  ajvBody: Ajv;
  buildMiddleware(path: string, reqSchema: unknown, contentType: unknown, ajvCacheKey: string): Stage;
  warnUnknownQueryParametersKeyword(reqSchema: OperationSchema): boolean | undefined;
  processQueryParam(query: unknown, schema: unknown, whiteList?: string[]): void;
  discriminatorValidator(req: Request, discriminator: unknown): AjvValidate | null;
  multipartNested(req: Request, schemaBody: unknown): void;
}

const { ParametersSchemaParser } = fromValidator("middlewares/parsers/schema.parse.js") as {
  ParametersSchemaParser: new (ajv: Ajv, apiDoc: ApiDoc) => { parse(path: string, parameters?: unknown[]): Record<string, unknown> };
};
const { BodySchemaParser } = fromValidator("middlewares/parsers/body.parse.js") as {
  BodySchemaParser: new () => { parse(path: string, schema: unknown, contentType: unknown): Schema & { required?: boolean; format?: string } };
};
const { RequestParameterMutator } = fromValidator("middlewares/parsers/req.parameter.mutator.js") as {
  RequestParameterMutator: new (ajv: Ajv, apiDoc: ApiDoc, path: string, properties: unknown) => { modifyRequest(req: Request): void };
};
const util = fromValidator("middlewares/util.js") as {
  useAjvCache(ajv: Ajv, schema: object, key: string): AjvValidate;
  augmentAjvErrors(errors: unknown[]): unknown[];
  ajvErrorsToValidatorError(status: number, errors: unknown[]): { errors: unknown };
};
const { BadRequest, NotFound } = validatorLibrary.types as Record<"BadRequest" | "NotFound", new (options: object) => Error & { errors?: unknown }>;

/** The library's check of a request against one operation and media type, without making req.query writable. */
export function requestCheck(validator: LibraryRequestValidator, route: string, reqSchema: OperationSchema, contentType: { mediaType?: string }, ajvCacheKey: string): Stage {
  const apiDoc = validator.apiDoc;
  const parameters = new ParametersSchemaParser(validator.ajv, apiDoc).parse(route, reqSchema.parameters);
  const securityQueryParam = securityQueryParameters(apiDoc, reqSchema);
  const body = new BodySchemaParser().parse(route, reqSchema, contentType);
  // The library's Validator: one schema for the parameters (coercing), one for the body.
  const schemaGeneral = { paths: apiDoc.paths, components: apiDoc.components, required: ["query", "headers", "params"], properties: { ...parameters, body: {} } };
  const isBodyBinary = body?.format === "binary";
  const schemaBody: Schema & { required?: string[] } = {
    paths: apiDoc.paths,
    components: apiDoc.components,
    properties: { query: {}, headers: {}, params: {}, cookies: {}, body: isBodyBinary ? {} : body },
  };
  if (body.required && !isBodyBinary) schemaBody.required = ["body"];
  const allSchemaProperties: Record<string, unknown> = { ...schemaGeneral.properties, body: schemaBody.properties!.body };
  const validatorGeneral = util.useAjvCache(validator.ajv, schemaGeneral, ajvCacheKey);
  const validatorBodyOfSchema = util.useAjvCache(validator.ajvBody, schemaBody, ajvCacheKey);
  const allowUnknownQueryParameters = !!(reqSchema["x-eov-allow-unknown-query-parameters"] ?? validator.warnUnknownQueryParametersKeyword(reqSchema));

  return (req, _res, next) => {
    const openapi = (req as Request & { openapi: { pathParams: Record<string, string>; expressRoute: string } }).openapi;
    const pathParams = Object.keys(openapi.pathParams);
    if (pathParams.length > 0) {
      if (openapi.expressRoute.endsWith("*") && pathParams.filter((p) => openapi.pathParams[p]).length === 0) {
        throw new NotFound({ path: req.path, message: "not found" });
      }
      req.params = openapi.pathParams ?? req.params;
    }
    new RequestParameterMutator(validator.ajv, apiDoc, route, allSchemaProperties).modifyRequest(req);
    if (!allowUnknownQueryParameters) validator.processQueryParam(req.query, allSchemaProperties.query, securityQueryParam);
    if (contentType.mediaType === "multipart/form-data") {
      req.body ??= {};
      validator.multipartNested(req, schemaBody);
    }
    const { cookies, signedCookies } = req as Request & { cookies?: object; signedCookies?: object };
    const data = { query: req.query ?? {}, headers: req.headers, params: req.params, cookies: cookies ? { ...cookies, ...signedCookies } : undefined, body: req.body };
    const discriminatorValidator = validator.discriminatorValidator(req, schemaBody.properties?.body?._discriminator);
    const validatorBody = discriminatorValidator ?? validatorBodyOfSchema;
    const valid = validatorGeneral(data);
    const validBody = validatorBody(discriminatorValidator ? data.body : data);
    if (valid && validBody) return next();
    const errors = util.augmentAjvErrors([...(validatorGeneral.errors ?? []), ...(validatorBody.errors ?? [])]);
    const error = new BadRequest({ path: req.path, message: validator.ajv.errorsText(errors, { dataVar: "request" }) });
    error.errors = util.ajvErrorsToValidatorError(400, errors).errors;
    throw error;
  };
}

/** The names of the operation's (else the description's) apiKey security schemes sent in the query (the library's Security.queryParam). */
function securityQueryParameters(apiDoc: ApiDoc, operation: OperationSchema): string[] {
  const used = operation.security?.length ? operation.security : apiDoc.security?.length ? apiDoc.security : [];
  const schemes = apiDoc.components?.securitySchemes;
  if (!schemes) return [];
  return used
    .filter((requirement) => Object.entries(requirement).length !== 0)
    .map((requirement) => schemes[Object.keys(requirement)[0]!])
    .filter((scheme) => scheme?.type === "apiKey" && scheme.in === "query")
    .map((scheme) => scheme!.name!);
}
