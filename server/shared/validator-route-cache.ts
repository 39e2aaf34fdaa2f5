// express-openapi-validator 5.6, made cheaper per request without changing what it answers. Each
// patch below was found with bench/profile.ts and is measured by `npm run bench` (docs/benchmarks.md).
//
// 1. Route expressions: its lookupRoute compiles a regular expression for every described path on
//    every request (pathToRegexp in its loop). The inputs are the same few route templates each
//    time, so the compiled expressions are memoized, in the path-to-regexp module instance the
//    validator itself loads. The regexps have no global flag, so sharing them is safe. (The three
//    APIs route with openapi.ts's own table; the library's loop still serves the internal
//    replication validator, which uses the library's middleware as it is.)
// 2. Query parameters: whether a parameter's schema is an object is worked out once per schema
//    instead of on every request. For object-valued parameters (the org platform's page[number],
//    page[size]) the library tries JSON.parse on the value, already an object, on every request;
//    the parse always throws (String(object) is "[object Object]") and the exception is caught and
//    ignored. Values that cannot be JSON are now left alone without the throw; the rest is parsed.
// 3. and 4. (below) start-up: no meta-schema compiled when it is not used; $refs found by pointer.
// The parameter mutator's work is also skipped or reused per query string (below, with 2).
// The metadata stage (route lookup), the request and response stages and the plumbing between
// them are in openapi.ts.
//
// It also gives openapi.ts the library's internal classes (one module instance with the patches).
import { createRequire } from "node:module";
import { BoundedCache } from "./bounded-cache.ts";
import path from "node:path";

const require = createRequire(import.meta.url);
const validatorEntry = require.resolve("express-openapi-validator");
const validatorDir = path.dirname(validatorEntry);
/** One of the validator's own files, as the validator itself loads it (with the patches below applied). */
export const fromValidator = (file: string) => require(path.join(validatorDir, file));

const pathToRegexpModule = require(require.resolve("path-to-regexp", { paths: [validatorDir] })) as {
  pathToRegexp: (route: string, options?: object) => unknown;
  __memoized?: boolean;
};

if (!pathToRegexpModule.__memoized) {
  const original = pathToRegexpModule.pathToRegexp;
  // route -> "<sensitive><strict>" -> compiled; the validator passes only those two options.
  const cache = new Map<string, Map<string, unknown>>();
  pathToRegexpModule.pathToRegexp = (route, options) => {
    const { sensitive, strict, ...other } = (options ?? {}) as { sensitive?: boolean; strict?: boolean };
    if (typeof route !== "string" || Object.keys(other).length > 0) return original(route, options);
    const flags = `${sensitive ? 1 : 0}${strict ? 1 : 0}`;
    let byFlags = cache.get(route);
    if (!byFlags) cache.set(route, (byFlags = new Map()));
    let compiled = byFlags.get(flags);
    if (compiled === undefined) {
      compiled = original(route, options);
      byFlags.set(flags, compiled);
    }
    return compiled;
  };
  pathToRegexpModule.__memoized = true;
}

const FIELDS: Record<string, string> = { query: "query", header: "headers", path: "params", cookie: "cookies" };

/** Whether JSON.parse(value) certainly throws: a plain object, or a string that cannot start a JSON text. */
function cannotBeJson(value: unknown): boolean {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return true;
  if (typeof value !== "string") return false;
  const first = value.trimStart()[0];
  return first === undefined || !/[[{"\-0-9tfn]/.test(first);
}

const mutator = fromValidator("middlewares/parsers/req.parameter.mutator.js").RequestParameterMutator as {
  prototype: {
    modifyRequest(this: MutatorThis, req: { originalUrl: string; openapi: { schema: { parameters?: object[] } } }): void;
    __noQuery?: boolean;
    parseJsonAndMutateRequest(req: Record<string, Record<string, unknown>>, where: string, name: string): void;
    isObjectOrXOf(schema: object | undefined): boolean;
    __fast?: boolean;
  };
};
interface MutatorThis {
  ajv: unknown;
  _apiDocs: unknown;
}
const parameterUtil = fromValidator("middlewares/parsers/util.js") as {
  dereferenceParameter(apiDocs: unknown, parameter: object): { in: string; content?: unknown };
  normalizeParameter(ajv: unknown, parameter: object): { schema: { type?: unknown } };
};
/** What the parameters of a query string were worked out to, by operation (numbered) and query string. */
const parsedQueries = new BoundedCache<unknown>(10_000, 1 << 20);
const operationNumbers = new WeakMap<object, number>();
let operationsNumbered = 0;

if (!mutator.prototype.__noQuery) {
  // modifyRequest reparses the URL and works out every parameter of every request (qs for
  // deepObject parameters, the reserved-character checks...). What it makes of req.query depends
  // only on the operation and the query string, so the result for a query string is kept and a
  // copy given to the next request with the same one (its refusals are not kept: they throw again).
  // Without a query string, only a header, path or cookie parameter with content or an array or
  // object schema could change anything; an operation without one is left alone.
  const modifyRequest = mutator.prototype.modifyRequest;
  const changesWithoutQuery = new WeakMap<object, boolean>();
  mutator.prototype.modifyRequest = function (req) {
    const operation = req.openapi.schema;
    let changes = changesWithoutQuery.get(operation);
    if (changes === undefined) {
      changes = (operation.parameters ?? []).some((p) => {
        const parameter = parameterUtil.dereferenceParameter(this._apiDocs, p);
        if (parameter.in === "query") return false;
        const type = parameterUtil.normalizeParameter(this.ajv, parameter).schema?.type;
        return parameter.content !== undefined || type === "array" || type === "object" || typeof type !== "string";
      });
      changesWithoutQuery.set(operation, changes);
    }
    const at = req.originalUrl.indexOf("?");
    if (!changes && at < 0) return;
    if (changes) return modifyRequest.call(this, req);
    let number = operationNumbers.get(operation);
    if (number === undefined) operationNumbers.set(operation, (number = operationsNumbered++));
    const key = `${number} ${req.originalUrl.slice(at)}`;
    const parsed = parsedQueries.get(key);
    if (parsed !== undefined) {
      (req as unknown as { query: unknown }).query = structuredClone(parsed);
      return;
    }
    modifyRequest.call(this, req);
    parsedQueries.set(key, structuredClone((req as unknown as { query: unknown }).query));
  };
  mutator.prototype.__noQuery = true;
}
if (!mutator.prototype.__fast) {
  // isObjectOrXOf walks a parameter's schema (allocating arrays) for every parameter of every
  // request; the schemas are the loaded description's, which does not change, so once per schema.
  const isObjectOrXOf = mutator.prototype.isObjectOrXOf;
  const known = new WeakMap<object, boolean>();
  mutator.prototype.isObjectOrXOf = function (schema) {
    if (typeof schema !== "object" || schema === null) return isObjectOrXOf.call(this, schema);
    let answer = known.get(schema);
    if (answer === undefined) known.set(schema, (answer = isObjectOrXOf.call(this, schema)));
    return answer;
  };
  const original = mutator.prototype.parseJsonAndMutateRequest;
  mutator.prototype.parseJsonAndMutateRequest = function (req, where, name) {
    const field = FIELDS[where];
    const value = field ? req[field]?.[name] : undefined;
    if (field && value && cannotBeJson(value)) return; // the library would catch the parse error and keep the value
    return original.call(this, req, where, name);
  };
  mutator.prototype.__fast = true;
}

// 3. Start-up: every validator compiles the OpenAPI meta-schema with ajv to check its description,
//    even with validateApiSpec off, when the compiled checker is never called (the descriptions are
//    checked by Redocly's lint in CI instead). Off: no checker is built. On: one per OpenAPI
//    version is shared (it is stateless between calls; its errors are read right after each call).
const schemaValidatorModule = fromValidator("framework/openapi.schema.validator.js") as {
  OpenAPISchemaValidator: new (options: { version: string; validateApiSpec?: boolean }) => unknown;
  __shared?: boolean;
};
if (!schemaValidatorModule.__shared) {
  const Original = schemaValidatorModule.OpenAPISchemaValidator;
  const shared = new Map<string, unknown>();
  const unused = {
    validate(): never {
      throw new Error("the OpenAPI description checker is off (validateApiSpec: false)");
    },
  };
  schemaValidatorModule.OpenAPISchemaValidator = function SharedOpenAPISchemaValidator(options: { version: string; validateApiSpec?: boolean }) {
    if (!options.validateApiSpec) return unused;
    if (!shared.has(options.version)) shared.set(options.version, new Original(options));
    return shared.get(options.version);
  } as unknown as typeof Original;
  schemaValidatorModule.__shared = true;
}

// 4. Start-up: the schema preprocessor resolves every $ref it meets with ajv.getSchema, which
//    compiles the referenced schema into a validator only to read back the schema object it was
//    given (`.schema`): three quarters of the preprocessor's time, and of every service's start.
//    A local reference (#/...) is the object at that JSON pointer of the same description; found
//    there without compiling. Anything else (or a pointer that leads nowhere) goes the library's way.
const preprocessorModule = fromValidator("middlewares/parsers/schema.preprocessor.js") as {
  SchemaPreprocessor: {
    prototype: {
      resolveSchema(this: { apiDoc: unknown; resolvedSchemaCache: Map<string, unknown> }, schema: unknown): unknown;
      __pointers?: boolean;
    };
  };
};
if (!preprocessorModule.SchemaPreprocessor.prototype.__pointers) {
  const resolveSchema = preprocessorModule.SchemaPreprocessor.prototype.resolveSchema;
  preprocessorModule.SchemaPreprocessor.prototype.resolveSchema = function (schema) {
    const ref = (schema as { $ref?: unknown } | null | undefined)?.$ref;
    if (typeof ref === "string" && ref.startsWith("#/") && !this.resolvedSchemaCache.has(ref)) {
      const target = atPointer(this.apiDoc, ref.slice(1));
      if (target !== undefined) this.resolvedSchemaCache.set(ref, target);
    }
    return resolveSchema.call(this, schema);
  };
  preprocessorModule.SchemaPreprocessor.prototype.__pointers = true;
}

/** The value at a JSON pointer (RFC 6901, as a URI fragment: percent-decoded first), or undefined. */
export function atPointer(document: unknown, pointer: string): unknown {
  let value = document;
  for (const token of pointer.split("/").slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const responseValidator = fromValidator("middlewares/openapi.response.validator.js").ResponseValidator as {
  prototype: { canValidateContentType(contentType: string): boolean; __knownTypes?: boolean };
};
if (!responseValidator.prototype.__knownTypes) {
  // Asked for every answer, with a media type of the description's responses (a fixed set), and
  // answered by parsing it twice: the answer for each is kept.
  const canValidate = responseValidator.prototype.canValidateContentType;
  const known = new BoundedCache<boolean>(1_000, 1 << 16);
  responseValidator.prototype.canValidateContentType = function (contentType) {
    let answer = known.get(contentType);
    if (answer === undefined) known.set(contentType, (answer = canValidate.call(this, contentType)));
    return answer;
  };
  responseValidator.prototype.__knownTypes = true;
}

const responseUtil = fromValidator("middlewares/util.js") as {
  findResponseContent(accepts: string[], expectedTypes: string[]): string | null;
  __knownContent?: boolean;
};
if (!responseUtil.__knownContent) {
  // Which described media type an answer is checked against: asked for every answer, with the
  // client's Accept values and the response's described types, and answered by parsing every one
  // of them again. A pure function of the two lists: the answer for each pair is kept (bounded by
  // count; an Accept header over 1,000 characters is worked out every time).
  const find = responseUtil.findResponseContent;
  const known = new BoundedCache<string | null>(1_000, 1 << 20);
  responseUtil.findResponseContent = (accepts, expectedTypes) => {
    const key = `${accepts.join("\n")}\u0000${expectedTypes.join("\n")}`;
    if (key.length > 1_000) return find(accepts, expectedTypes);
    let answer = known.get(key);
    if (answer === undefined) known.set(key, (answer = find(accepts, expectedTypes)));
    return answer;
  };
  responseUtil.__knownContent = true;
}

/** The library's classes that openapi.ts assembles into one middleware. */
export const validatorLibrary = {
  OpenApiValidator: fromValidator("openapi.validator.js").OpenApiValidator,
  OpenApiSpecLoader: fromValidator("framework/openapi.spec.loader.js").OpenApiSpecLoader,
  ResponseValidator: fromValidator("middlewares/openapi.response.validator.js").ResponseValidator,
  RequestValidator: fromValidator("middlewares/openapi.request.validator.js").RequestValidator,
  ContentType: fromValidator("middlewares/util.js").ContentType as { fromString(type: string | undefined): unknown },
  OpenApiContext: fromValidator("framework/openapi.context.js").OpenApiContext,
  SchemaPreprocessor: fromValidator("middlewares/parsers/schema.preprocessor.js").SchemaPreprocessor,
  httpMethods: fromValidator("middlewares/parsers/schema.preprocessor.js").httpMethods as Set<string>,
  types: fromValidator("framework/types.js") as Record<"BadRequest" | "MethodNotAllowed" | "NotFound", new (options: object) => Error>,
  /** The path-to-regexp the validator loads (memoized above). */
  pathToRegexp: pathToRegexpModule.pathToRegexp,
};
