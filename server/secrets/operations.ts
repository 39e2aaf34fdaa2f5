// The operations of the (mount-composed) secrets description, indexed for the request pipeline:
// which operation a method and path name, what capabilities it needs, whether it is a LIST.
import type { Capability } from "./sys/policy.ts";
import { CAPABILITIES } from "./sys/policy.ts";
import { followRefs, type OpenApiDocument } from "../shared/openapi.ts";
import type { FrameworkFieldKind } from "./framework-fields.ts";

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** How the service sees a request's method: `list` for LIST and for GET with list=true. */
export type RequestMethod = HttpMethod | "list";

export interface SecretsOperation {
  operationId: string;
  /** How it is described: a LIST operation is described as `get`. */
  describedMethod: HttpMethod;
  method: RequestMethod;
  /** OpenAPI path template, e.g. /sys/rekey/init */
  template: string;
  /** The same for express, e.g. /consul/roles/:name */
  expressPath: string;
  capabilities: Capability[];
  /**
   * Whether it is served without a request token (`security: []`): what the request carries
   * authorizes it (the DR operation token, key shares), and no capability is needed.
   */
  unauthenticated: boolean;
  /** The mount an engine operation is served at. */
  mount?: string;
  /** The last path parameter, when it takes the rest of the path, `/` included (x-secrets-rest-of-path). */
  restParameter?: string;
}

export type Resolution =
  | { operation: SecretsOperation; params: Record<string, string> }
  | { problem: "not-found" }
  /** The path is served, not with this method: `allowed` are the methods it has (LIST included), for `Allow`. */
  | { problem: "unsupported"; allowed: string[] };

interface Template {
  template: string;
  segments: string[];
  /** The parameter each segment is (its name), undefined for a literal segment. */
  parameters: (string | undefined)[];
  literals: number;
  operations: Map<RequestMethod, SecretsOperation>;
  /** Whether the last segment, a parameter, takes every segment from there on. */
  rest: boolean;
}

export class OperationIndex {
  readonly #templates: Template[] = [];
  readonly #bySegmentCount = new Map<number, Template[]>();
  /** Templates whose last parameter takes the rest of the path: tried for paths at least as long. */
  readonly #restTemplates: Template[] = [];

  constructor(document: OpenApiDocument) {
    for (const [template, item] of Object.entries(document.paths)) {
      const operations = new Map<RequestMethod, SecretsOperation>();
      const restParameter = typeof item["x-secrets-rest-of-path"] === "string" ? item["x-secrets-rest-of-path"] : undefined;
      if (restParameter !== undefined && !template.endsWith(`/{${restParameter}}`)) {
        throw new Error(`${template}: x-secrets-rest-of-path names ${restParameter}, which is not its last segment`);
      }
      for (const describedMethod of HTTP_METHODS) {
        const operation = item[describedMethod] as Record<string, unknown> | undefined;
        if (!operation) continue;
        const operationId = String(operation.operationId);
        const list = operation["x-http-method"] === "LIST";
        const method: RequestMethod = list ? "list" : describedMethod;
        const unauthenticated = Array.isArray(operation.security) && operation.security.length === 0;
        operations.set(method, {
          operationId,
          describedMethod,
          method,
          template,
          expressPath: template.replace(/\{([^}]+)\}/g, ":$1"),
          capabilities: unauthenticated ? noCapabilities(operationId, operation["x-secrets-capabilities"]) : capabilitiesOf(operationId, operation["x-secrets-capabilities"]),
          unauthenticated,
          ...(typeof item["x-secrets-mount"] === "string" ? { mount: item["x-secrets-mount"] } : {}),
          ...(restParameter !== undefined && { restParameter }),
        });
      }
      for (const { operationId } of operations.values()) {
        const zeros = nullableMembers(document, item, operationId);
        if (zeros.size > 0) this.nullReadsAs.set(operationId, zeros);
        const fields = frameworkFieldsOf(document, item, operationId);
        if (fields.size > 0) this.frameworkFields.set(operationId, fields);
      }
      const segments = template.split("/").slice(1);
      const parameters = segments.map((segment) => (isParameter(segment) ? segment.slice(1, -1) : undefined));
      const entry = { template, segments, parameters, literals: parameters.filter((p) => p === undefined).length, operations, rest: restParameter !== undefined };
      this.#templates.push(entry);
      if (entry.rest) this.#restTemplates.push(entry);
    }
    // The most literal templates first, so that /roles/list beats /roles/{name}.
    this.#templates.sort((a, b) => b.literals - a.literals);
    // Only templates of as many segments can match: each request looks at those alone, in the same order.
    for (const template of this.#templates) {
      const sameLength = this.#bySegmentCount.get(template.segments.length) ?? [];
      sameLength.push(template);
      this.#bySegmentCount.set(template.segments.length, sameLength);
    }
  }

  operations(): SecretsOperation[] {
    return this.#templates.flatMap((template) => [...template.operations.values()]);
  }

  /**
   * What a JSON `null` of each top-level body member that the description marks nullable reads as:
   * the zero value of its other type (0, "", false, [], {}), as the real server decodes a null into
   * a typed field, or NULL_IS_ABSENT for a duration (left out, so its default applies). By
   * operationId; members not listed keep their null (and the validator refuses it).
   */
  readonly nullReadsAs = new Map<string, ReadonlyMap<string, unknown>>();

  /**
   * The top-level body members the framework reads weakly typed (framework-fields.ts), by operationId:
   * those whose schema is LenientBoolean, LenientInteger or LenientDuration, alone or beside null.
   */
  readonly frameworkFields = new Map<string, ReadonlyMap<string, FrameworkFieldKind>>();

  /**
   * The operation a request names. POST and PUT stand for each other, as they do for the real
   * system: a PUT reaches the POST operation of a path that has no PUT one, and the other way round.
   */
  resolve(method: RequestMethod, path: string): Resolution {
    return this.resolveSegments(method, path.split("/").slice(1));
  }

  /** The same for a path already split at `/` (without the leading empty segment). */
  resolveSegments(method: RequestMethod, segments: readonly string[]): Resolution {
    const alias = method === "put" ? "post" : method === "post" ? "put" : undefined;
    let allowed: Set<string> | undefined;
    // Templates of as many segments, then those whose last parameter takes the rest of a longer path.
    for (const candidates of [this.#bySegmentCount.get(segments.length), this.#restTemplates]) {
      for (const template of candidates ?? []) {
        if (candidates === this.#restTemplates && template.segments.length >= segments.length) continue;
        const params = matchSegments(template, segments);
        if (!params) continue;
        const operation = template.operations.get(method) ?? (alias ? template.operations.get(alias) : undefined);
        if (operation) return { operation, params };
        allowed ??= new Set();
        for (const described of template.operations.keys()) allowed.add(described.toUpperCase());
      }
    }
    if (allowed === undefined) return { problem: "not-found" };
    // POST and PUT stand for each other (above), so either allows both.
    if (allowed.has("POST") || allowed.has("PUT")) allowed.add("POST").add("PUT");
    return { problem: "unsupported", allowed: [...allowed].sort() };
  }

  /** The path template a path falls under whatever the method, with its operations (help on a path). */
  templateAt(segments: readonly string[]): { template: string; operations: SecretsOperation[] } | undefined {
    for (const candidates of [this.#bySegmentCount.get(segments.length), this.#restTemplates]) {
      for (const template of candidates ?? []) {
        if (candidates === this.#restTemplates && template.segments.length >= segments.length) continue;
        if (matchSegments(template, segments)) return { template: template.template, operations: [...template.operations.values()] };
      }
    }
    return undefined;
  }
}

type Schema = { $ref?: string; type?: string | string[]; anyOf?: Schema[]; oneOf?: Schema[]; properties?: Record<string, Schema> };

function resolveRef(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  return followRefs(document, schema) as Schema | undefined;
}

const ZERO: Record<string, unknown> = { integer: 0, number: 0, string: "", boolean: false, array: [], object: {} };

/** The zero value of the first type a schema allows other than null. */
function zeroOf(document: OpenApiDocument, member: Schema | undefined): unknown {
  const schema = resolveRef(document, member);
  const types = Array.isArray(schema?.type) ? schema.type : schema?.type === undefined ? [] : [schema.type];
  const type = types.find((t) => t !== "null");
  if (type !== undefined) return ZERO[type];
  const first = (schema?.anyOf ?? schema?.oneOf ?? []).find((alternative) => resolveRef(document, alternative)?.type !== "null");
  return first === undefined ? undefined : zeroOf(document, first);
}

/** Whether a schema takes null: a type list with null, or an alternative that is null. */
function takesNull(document: OpenApiDocument, member: Schema | undefined): boolean {
  const schema = resolveRef(document, member);
  if (Array.isArray(schema?.type)) return schema.type.includes("null");
  return (schema?.anyOf ?? schema?.oneOf ?? []).some((alternative) => resolveRef(document, alternative)?.type === "null");
}

/** The members of an operation's JSON request body, as described. */
function bodyMembers(document: OpenApiDocument, item: Record<string, unknown>, operationId: string): [string, Schema][] {
  const operation = Object.values(item).find((o) => (o as { operationId?: string } | undefined)?.operationId === operationId) as
    | { requestBody?: { content?: Record<string, { schema?: Schema }> } }
    | undefined;
  const schema = resolveRef(document, operation?.requestBody?.content?.["application/json"]?.schema);
  return Object.entries(schema?.properties ?? {});
}

/** A member that null leaves out, as if it were not sent (nullReadsAs). */
export const NULL_IS_ABSENT = Symbol("null is absent");

const FRAMEWORK_FIELD_SCHEMAS: Readonly<Record<string, FrameworkFieldKind>> = {
  "#/components/schemas/LenientBoolean": "bool",
  "#/components/schemas/LenientInteger": "int",
  "#/components/schemas/LenientDuration": "duration",
};

/** The framework field a body member is, by its schema: LenientBoolean, LenientInteger or LenientDuration, alone or beside null. */
function frameworkKindOf(member: Schema): FrameworkFieldKind | undefined {
  return [member, ...(member.anyOf ?? [])].map((schema) => FRAMEWORK_FIELD_SCHEMAS[schema.$ref ?? ""]).find((k) => k !== undefined);
}

function frameworkFieldsOf(document: OpenApiDocument, item: Record<string, unknown>, operationId: string): Map<string, FrameworkFieldKind> {
  const fields = new Map<string, FrameworkFieldKind>();
  for (const [name, member] of bodyMembers(document, item, operationId)) {
    const kind = frameworkKindOf(member);
    if (kind !== undefined) fields.set(name, kind);
  }
  return fields;
}

function nullableMembers(document: OpenApiDocument, item: Record<string, unknown>, operationId: string): Map<string, unknown> {
  const zeros = new Map<string, unknown>();
  for (const [name, member] of bodyMembers(document, item, operationId)) {
    if (!takesNull(document, member)) continue;
    // The framework reads a duration sent as null as one not sent (getPrimitive: `case nil`), so its
    // default applies; any other field as its type's zero value (mapstructure.WeakDecode of nil).
    const zero = frameworkKindOf(member) === "duration" ? NULL_IS_ABSENT : zeroOf(document, member);
    if (zero !== undefined) zeros.set(name, zero);
  }
  return zeros;
}

/** A template's parameters in a path; with `rest`, its last parameter takes the remaining segments joined by `/`. */
function matchSegments({ segments, parameters, rest }: Template, path: readonly string[]): Record<string, string> | undefined {
  if (rest ? path.length < segments.length : segments.length !== path.length) return undefined;
  const last = segments.length - 1;
  // A rest parameter over more than one segment holds a `/`: never empty.
  const restSpans = rest && path.length > segments.length;
  for (let i = 0; i < segments.length; i++) {
    if (parameters[i] === undefined ? segments[i] !== path[i] : path[i] === "" && !(restSpans && i === last)) return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const name = parameters[i];
    if (name !== undefined) params[name] = rest && i === last ? path.slice(last).join("/") : path[i]!;
  }
  return params;
}

function isParameter(segment: string): boolean {
  return segment.startsWith("{") && segment.endsWith("}");
}

function capabilitiesOf(operationId: string, raw: unknown): Capability[] {
  if (!Array.isArray(raw) || raw.some((c) => !(CAPABILITIES as readonly unknown[]).includes(c))) {
    throw new Error(`operation ${operationId}: x-secrets-capabilities must list the capabilities it needs (${CAPABILITIES.join(", ")})`);
  }
  return raw as Capability[];
}

/** An operation served without a token needs no capability, and says none. */
function noCapabilities(operationId: string, raw: unknown): Capability[] {
  if (raw !== undefined) throw new Error(`operation ${operationId}: served without a token (security: []), it takes no x-secrets-capabilities`);
  return [];
}
