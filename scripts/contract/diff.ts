// Breaking-change detection between two versions of one API's bundle. Pure: two documents in, a
// list of changes out, each marked breaking for clients or not. A change is breaking when a client
// written against the old description can fail against the new one: requests must accept at least
// what they accepted (narrowing is breaking), responses must send at most what they sent (widening
// is breaking). $refs are followed inside each document.
import {
  deref,
  isMarked,
  isObject,
  operationsOf,
  parameterKey,
  pointer,
  type Json,
  type JsonObject,
  type OpenApiDoc,
  type Operation,
  type Parameter,
} from "./document.ts";

export type ChangeKind =
  | "operation-removed"
  | "operation-added"
  | "operation-id-changed"
  | "operation-deprecated"
  | "parameter-added-required"
  | "parameter-added-optional"
  | "parameter-removed"
  | "parameter-became-required"
  | "parameter-became-optional"
  | "parameter-style-changed"
  | "request-body-added"
  | "request-body-removed"
  | "request-body-became-required"
  | "request-body-became-optional"
  | "request-media-type-removed"
  | "request-media-type-added"
  | "request-property-added-required"
  | "request-property-added-optional"
  | "request-property-removed"
  | "request-property-became-required"
  | "request-property-became-optional"
  | "request-additional-properties-forbidden"
  | "request-additional-properties-allowed"
  | "request-enum-narrowed"
  | "request-enum-widened"
  | "request-type-changed"
  | "request-constraint-tightened"
  | "request-constraint-relaxed"
  | "request-variant-removed"
  | "request-variant-added"
  | "response-status-removed"
  | "response-status-added"
  | "response-media-type-removed"
  | "response-media-type-added"
  | "response-property-removed"
  | "response-property-added"
  | "response-property-became-optional"
  | "response-property-became-required"
  | "response-additional-properties-allowed"
  | "response-enum-widened"
  | "response-enum-narrowed"
  | "response-type-changed"
  | "response-constraint-relaxed"
  | "response-constraint-tightened"
  | "response-variant-added"
  | "response-variant-removed"
  | "response-header-removed"
  | "response-header-added"
  | "response-header-became-optional"
  // Security, named and classified as oasdiff names and classifies them (all informational there:
  // checker/rules.go gives every security rule the INFO level), so a reviewer sees them.
  | "api-global-security-added"
  | "api-global-security-removed"
  | "api-global-security-scope-added"
  | "api-global-security-scope-removed"
  | "api-security-added"
  | "api-security-removed"
  | "api-security-scope-added"
  | "api-security-scope-removed"
  | "api-security-component-added"
  | "api-security-component-removed"
  | "api-security-component-type-changed"
  | "api-security-component-oauth-scope-added"
  | "api-security-component-oauth-scope-removed";

export interface Change {
  kind: ChangeKind;
  breaking: boolean;
  /** "PUT /config (applyConfigEntry)" */
  operation: string;
  /** Logical JSON pointer from the operation, through $refs (in the new document; the old one for removals). */
  pointer: string;
  /** Where the changed schema is defined when a $ref led there: "#/components/schemas/ServiceSplit". */
  definedIn?: string;
  message: string;
}

type Direction = "request" | "response";

interface Context {
  before: OpenApiDoc;
  after: OpenApiDoc;
  operation: string;
  out: Change[];
}

export function diffDocuments(before: OpenApiDoc, after: OpenApiDoc): Change[] {
  const out: Change[] = [];
  const key = (o: Operation) => `${o.method} ${o.template.replace(/\{[^}]*\}/g, "{}")}`;
  const old = new Map(operationsOf(before).map((o) => [key(o), o]));
  const current = new Map(operationsOf(after).map((o) => [key(o), o]));
  for (const [k, o] of old) {
    if (!current.has(k)) push(out, "operation-removed", true, o.label, o.pointer, "the operation was removed");
  }
  for (const [k, o] of current) {
    const was = old.get(k);
    if (!was) {
      push(out, "operation-added", false, o.label, o.pointer, "the operation was added");
      continue;
    }
    const ctx: Context = { before, after, operation: o.label, out };
    if (was.operationId !== o.operationId) {
      add(ctx, "operation-id-changed", false, o.pointer + "/operationId", `operationId ${was.operationId} is now ${o.operationId}`);
    }
    if (was.operation.deprecated !== true && o.operation.deprecated === true) {
      add(ctx, "operation-deprecated", false, o.pointer + "/deprecated", "the operation is now deprecated");
    }
    compareParameters(ctx, was, o);
    compareRequestBody(ctx, was, o);
    compareResponses(ctx, was, o);
    compareOperationSecurity(ctx, was, o);
  }
  compareGlobalSecurity(before, after, out);
  compareSecuritySchemes(before, after, out);
  return out;
}

export type Bump = "major" | "minor" | "patch" | "none";

export interface Verdict {
  versionBefore?: string;
  versionAfter?: string;
  breaking: number;
  /**
   * The version bump the change needs (semver): major for a breaking change, minor for any other
   * change of the interface, patch when only text changed (descriptions, examples), none when equal.
   */
  required: Bump;
  /** The bump that was made: what moved in info.version; "decreased"; or "not semver". */
  made: Bump | "decreased" | "not semver";
  /** A breaking change without the major bump semver requires (below 1.0.0: a minor bump). */
  fails: boolean;
  /** Why it fails, when it does. */
  reason?: string;
}

// semver.org's grammar with an optional leading "v" (oasdiff's checker/versioning_policy.go).
const SEMVER =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function parseSemver(version: string | undefined): [number, number, number] | undefined {
  const m = version === undefined ? null : SEMVER.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Which number moved from one version to the other (pre-release and build metadata do not count). */
export function bumpBetween(before: string | undefined, after: string | undefined): Verdict["made"] {
  const b = parseSemver(before);
  const a = parseSemver(after);
  if (!b || !a) return before === after ? "none" : "not semver";
  for (let i = 0; i < 3; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? "decreased" : (["major", "minor", "patch"] as const)[i]!;
  }
  return "none";
}

/** The documents without info.version, for "did anything but the version change?". */
function withoutVersion(doc: OpenApiDoc): string {
  return JSON.stringify({ ...doc, info: { ...doc.info, version: undefined } });
}

/**
 * The versioning policy, as oasdiff states it: a breaking change requires a major version increase.
 * It fails when the version stayed, went down, or moved by less than a major step (below 1.0.0
 * semver gives the minor number the major's role). A version that is not semver cannot show a major
 * bump, so with a breaking change it fails too: a gate should not pass what it cannot judge.
 */
export function verdict(before: OpenApiDoc, after: OpenApiDoc, changes: Change[]): Verdict {
  const breaking = changes.filter((c) => c.breaking).length;
  const versionBefore = before.info?.version;
  const versionAfter = after.info?.version;
  const required: Bump = breaking ? "major" : changes.length ? "minor" : withoutVersion(before) !== withoutVersion(after) ? "patch" : "none";
  const made = bumpBetween(versionBefore, versionAfter);
  const base: Verdict = { versionBefore, versionAfter, breaking, required, made, fails: false };
  if (!breaking) return base;
  const b = parseSemver(versionBefore);
  const a = parseSemver(versionAfter);
  let reason: string | undefined;
  if (versionBefore === versionAfter) reason = `info.version is still ${shownVersion(versionAfter)}`;
  else if (!b || !a) reason = `info.version ${shownVersion(versionBefore)} -> ${shownVersion(versionAfter)} is not semantic versioning (x.y.z): a major bump cannot be told`;
  else if (made === "decreased") reason = `info.version went down (${shownVersion(versionBefore)} -> ${shownVersion(versionAfter)})`;
  else if (b[0] === 0 && a[0] === 0 ? made !== "minor" : made !== "major") {
    reason = `info.version ${shownVersion(versionBefore)} -> ${shownVersion(versionAfter)} is a ${made} bump; a breaking change needs ${b[0] === 0 && a[0] === 0 ? `a new minor version below 1.0.0 (${a[0]}.${b[1] + 1}.0)` : `a new major version (${b[0] + 1}.0.0)`}`;
  }
  return reason ? { ...base, fails: true, reason } : base;
}

function push(out: Change[], kind: ChangeKind, breaking: boolean, operation: string, at: string, message: string, definedIn?: string) {
  out.push({ kind, breaking, operation, pointer: at, ...(definedIn ? { definedIn } : {}), message });
}

function add(ctx: Context, kind: ChangeKind, breaking: boolean, at: string, message: string, definedIn?: string) {
  push(ctx.out, kind, breaking, ctx.operation, at, message, definedIn);
}

// ---- parameters -------------------------------------------------------------------------------

function compareParameters(ctx: Context, was: Operation, now: Operation) {
  // Path parameters are matched by position: renaming one changes nothing on the wire.
  const keyOf = (p: Parameter, list: Parameter[]) =>
    p.in === "path" ? `path#${list.filter((q) => q.in === "path").indexOf(p)}` : parameterKey(p);
  const old = new Map(was.parameters.map((p) => [keyOf(p, was.parameters), p]));
  const current = new Map(now.parameters.map((p) => [keyOf(p, now.parameters), p]));
  for (const [k, p] of old) {
    if (current.has(k)) continue;
    // Servers here refuse unknown query parameters, so a client still sending it fails.
    add(ctx, "parameter-removed", true, paramPointer(was, p), `${p.in} parameter "${p.name}" was removed`);
  }
  for (const [k, p] of current) {
    const at = paramPointer(now, p);
    const previous = old.get(k);
    if (!previous) {
      if (p.required) add(ctx, "parameter-added-required", true, at, `new required ${p.in} parameter "${p.name}"`);
      else add(ctx, "parameter-added-optional", false, at, `new optional ${p.in} parameter "${p.name}"`);
      continue;
    }
    if (!previous.required && p.required) add(ctx, "parameter-became-required", true, at, `${p.in} parameter "${p.name}" is now required`);
    if (previous.required && !p.required) add(ctx, "parameter-became-optional", false, at, `${p.in} parameter "${p.name}" is now optional`);
    if (previous.raw.style !== p.raw.style || previous.raw.explode !== p.raw.explode) {
      add(ctx, "parameter-style-changed", true, at, `${p.in} parameter "${p.name}" is serialized differently (style/explode)`);
    }
    compareSchema(ctx, "request", previous.schema, p.schema, at + "/schema", []);
  }
}

function paramPointer(o: Operation, p: Parameter): string {
  return pointer(o.pointer, "parameters", `${p.in}:${p.name}`);
}

// ---- request body -----------------------------------------------------------------------------

function compareRequestBody(ctx: Context, was: Operation, now: Operation) {
  const at = now.pointer + "/requestBody";
  const before = was.operation.requestBody === undefined ? undefined : deref<JsonObject>(ctx.before, was.operation.requestBody).value;
  const after = now.operation.requestBody === undefined ? undefined : deref<JsonObject>(ctx.after, now.operation.requestBody).value;
  if (!before && !after) return;
  if (before && !after) return add(ctx, "request-body-removed", true, at, "the request body was removed");
  if (!before && after) {
    const required = after.required === true;
    return add(ctx, "request-body-added", required, at, `a ${required ? "required" : "optional"} request body was added`);
  }
  if (before!.required !== true && after!.required === true) add(ctx, "request-body-became-required", true, at, "the request body is now required");
  if (before!.required === true && after!.required !== true) add(ctx, "request-body-became-optional", false, at, "the request body is now optional");
  compareContent(ctx, "request", before!.content, after!.content, at + "/content");
}

function compareContent(ctx: Context, dir: Direction, before: Json | undefined, after: Json | undefined, at: string) {
  const old = isObject(before) ? before : {};
  const current = isObject(after) ? after : {};
  for (const type of Object.keys(old)) {
    if (!(type in current)) {
      add(ctx, dir === "request" ? "request-media-type-removed" : "response-media-type-removed", true, pointer(at, type), `media type ${type} was removed`);
    }
  }
  for (const [type, media] of Object.entries(current)) {
    const was = old[type];
    if (was === undefined) {
      add(ctx, dir === "request" ? "request-media-type-added" : "response-media-type-added", false, pointer(at, type), `media type ${type} was added`);
      continue;
    }
    const beforeSchema = isObject(was) ? was.schema : undefined;
    const afterSchema = isObject(media) ? media.schema : undefined;
    if (beforeSchema !== undefined || afterSchema !== undefined) {
      compareSchema(ctx, dir, beforeSchema ?? {}, afterSchema ?? {}, pointer(at, type, "schema"), []);
    }
  }
}

// ---- responses --------------------------------------------------------------------------------

function compareResponses(ctx: Context, was: Operation, now: Operation) {
  const old = isObject(was.operation.responses) ? was.operation.responses : {};
  const current = isObject(now.operation.responses) ? now.operation.responses : {};
  for (const status of Object.keys(old)) {
    if (!(status in current)) {
      add(ctx, "response-status-removed", true, pointer(was.pointer, "responses", status), `response status ${status} was removed`);
    }
  }
  for (const [status, raw] of Object.entries(current)) {
    const at = pointer(now.pointer, "responses", status);
    if (!(status in old)) {
      add(ctx, "response-status-added", false, at, `response status ${status} was added`);
      continue;
    }
    const before = deref<JsonObject>(ctx.before, old[status]).value;
    const after = deref<JsonObject>(ctx.after, raw).value;
    compareContent(ctx, "response", before.content, after.content, at + "/content");
    compareResponseHeaders(ctx, before.headers, after.headers, at + "/headers");
  }
}

function compareResponseHeaders(ctx: Context, before: Json | undefined, after: Json | undefined, at: string) {
  const lower = (headers: Json | undefined) =>
    new Map(Object.entries(isObject(headers) ? headers : {}).map(([name, h]) => [name.toLowerCase(), { name, h }]));
  const old = lower(before);
  const current = lower(after);
  for (const [k, { name }] of old) {
    if (!current.has(k)) add(ctx, "response-header-removed", true, pointer(at, name), `response header ${name} was removed`);
  }
  for (const [k, { name, h }] of current) {
    const previous = old.get(k);
    if (!previous) {
      add(ctx, "response-header-added", false, pointer(at, name), `response header ${name} was added`);
      continue;
    }
    const b = deref<JsonObject>(ctx.before, previous.h).value;
    const a = deref<JsonObject>(ctx.after, h).value;
    if (b.required === true && a.required !== true) {
      add(ctx, "response-header-became-optional", true, pointer(at, name), `response header ${name} is no longer always sent`);
    }
    if (b.schema !== undefined || a.schema !== undefined) compareSchema(ctx, "response", b.schema ?? {}, a.schema ?? {}, pointer(at, name, "schema"), []);
  }
}

// ---- schemas ----------------------------------------------------------------------------------

interface Effective {
  schema: JsonObject;
  ref?: string;
}

/** The schema after $refs, with allOf parts merged into it (properties, required, type). */
function effective(doc: OpenApiDoc, node: Json | undefined): Effective {
  const { value, ref } = deref<Json>(doc, node ?? {});
  const schema: JsonObject = isObject(value) ? value : value === false ? { not: {} } : {};
  if (!Array.isArray(schema.allOf)) return { schema, ref };
  const merged: JsonObject = { ...schema };
  delete merged.allOf;
  for (const part of schema.allOf) {
    const p = effective(doc, part).schema;
    for (const [k, v] of Object.entries(p)) {
      if (k === "properties" && isObject(v)) merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...v };
      else if (k === "required" && Array.isArray(v)) merged.required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...v])];
      else if (!(k in merged)) merged[k] = v;
    }
  }
  return { schema: merged, ref };
}

/**
 * Compares two schemas at a logical pointer (from the operation, through $refs). `literal` is
 * where the new schema is written in the document, reported as definedIn when a $ref led there.
 */
function compareSchema(ctx: Context, dir: Direction, beforeNode: Json | undefined, afterNode: Json | undefined, at: string, stack: string[], literal = at) {
  const b = effective(ctx.before, beforeNode);
  const a = effective(ctx.after, afterNode);
  // Recursive schemas: stop when this pair of definitions is already being compared above.
  if (b.ref || a.ref) {
    const key = `${b.ref}|${a.ref}`;
    if (stack.includes(key)) return;
    stack = [...stack, key];
  }
  const here = (a.ref ?? b.ref)?.slice(1) ?? literal;
  const before = b.schema;
  const after = a.schema;
  const report: Report = (kind, breaking, message, ...tokens) =>
    add(ctx, kind, breaking, pointer(at, ...tokens), message, here !== at ? `#${pointer(here, ...tokens)}` : undefined);
  const child = (beforeChild: Json | undefined, afterChild: Json | undefined, ...tokens: string[]) =>
    compareSchema(ctx, dir, beforeChild, afterChild, pointer(at, ...tokens), stack, pointer(here, ...tokens));

  const bVariants = variantsOf(before);
  const aVariants = variantsOf(after);
  // A union on one side only: its alternatives are what compares, not the union's own keywords.
  if (!bVariants !== !aVariants) return compareUnionWithSingle(ctx, dir, before, after, bVariants, aVariants, child, report);
  compareTypes(dir, before, after, report);
  compareEnums(dir, before, after, report);
  compareConstraints(dir, before, after, report);
  compareProperties(ctx, dir, before, after, report, child);
  if (isObject(before.items) || isObject(after.items)) child(before.items ?? {}, after.items ?? {}, "items");
  if (bVariants && aVariants) compareVariants(dir, bVariants, aVariants, report, child);
}

type Child = (beforeChild: Json | undefined, afterChild: Json | undefined, ...tokens: string[]) => void;

/** Reports a change at this schema, or at a child of it named by pointer tokens. */
type Report = (kind: ChangeKind, breaking: boolean, message: string, ...tokens: string[]) => void;

function typesOf(schema: JsonObject): Set<string> | undefined {
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  if (typeof schema.type === "string") return new Set([schema.type]);
  return undefined;
}

/** Does a type set accept values of type t? (undefined accepts everything; number accepts integers) */
function accepts(types: Set<string> | undefined, t: string): boolean {
  return !types || types.has(t) || (t === "integer" && types.has("number"));
}

function compareTypes(dir: Direction, before: JsonObject, after: JsonObject, report: Report) {
  const b = typesOf(before);
  const a = typesOf(after);
  const show = (s: Set<string> | undefined) => (s ? [...s].join("|") : "any");
  if (show(b) === show(a)) return;
  const message = `type ${show(b)} is now ${show(a)}`;
  if (dir === "request") {
    // Breaking when a value the old schema accepted is refused now.
    const lost = !b ? !!a : [...b].some((t) => !accepts(a, t));
    report("request-type-changed", lost, message);
  } else {
    // Breaking when the server may now send a value the old schema did not allow.
    const gained = !a ? !!b : [...a].some((t) => !accepts(b, t));
    report("response-type-changed", gained, message);
  }
}

function enumOf(schema: JsonObject): Map<string, Json> | undefined {
  if ("const" in schema) return new Map([[JSON.stringify(schema.const), schema.const!]]);
  if (Array.isArray(schema.enum)) return new Map(schema.enum.map((v) => [JSON.stringify(v), v]));
  return undefined;
}

function compareEnums(dir: Direction, before: JsonObject, after: JsonObject, report: Report) {
  const b = enumOf(before);
  const a = enumOf(after);
  if (!b && !a) return;
  const list = (keys: string[]) => keys.join(", ");
  // "Narrowed" means some value allowed before is not allowed now.
  let removed: string[];
  let added: string[];
  if (!b) {
    removed = ["(any value)"];
    added = [];
  } else if (!a) {
    removed = [];
    added = ["(any value)"];
  } else {
    removed = [...b.keys()].filter((k) => !a.has(k));
    added = [...a.keys()].filter((k) => !b.has(k));
  }
  if (removed.length) {
    const message = b ? `enum value(s) ${list(removed)} removed` : `now limited to ${list([...a!.keys()])}`;
    if (dir === "request") report("request-enum-narrowed", true, message);
    else report("response-enum-narrowed", false, message);
  }
  if (added.length) {
    const message = a ? `enum value(s) ${list(added)} added` : "no longer limited to a list of values";
    if (dir === "request") report("request-enum-widened", false, message);
    else report("response-enum-widened", true, message);
  }
}

const LOWER_BOUNDS = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER_BOUNDS = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];
/** Keywords whose values cannot be ordered: any change may refuse what was accepted and the converse. */
const OPAQUE = ["pattern", "format", "multipleOf"];

function compareConstraints(dir: Direction, before: JsonObject, after: JsonObject, report: Report) {
  const tightened = (message: string) =>
    dir === "request" ? report("request-constraint-tightened", true, message) : report("response-constraint-tightened", false, message);
  const relaxed = (message: string) =>
    dir === "request" ? report("request-constraint-relaxed", false, message) : report("response-constraint-relaxed", true, message);
  for (const keyword of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
    const b = before[keyword];
    const a = after[keyword];
    if (b === a) continue;
    const lower = LOWER_BOUNDS.includes(keyword);
    const message = `${keyword} ${b ?? "(none)"} is now ${a ?? "(none)"}`;
    if (typeof a !== "number") relaxed(message);
    else if (typeof b !== "number") tightened(message);
    else if (lower ? a > b : a < b) tightened(message);
    else relaxed(message);
  }
  for (const keyword of OPAQUE) {
    const b = before[keyword];
    const a = after[keyword];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    const message = `${keyword} ${JSON.stringify(b) ?? "(none)"} is now ${JSON.stringify(a) ?? "(none)"}`;
    if (a === undefined) relaxed(message);
    else if (b === undefined) tightened(message);
    else report(dir === "request" ? "request-constraint-tightened" : "response-constraint-relaxed", true, message);
  }
  if (before.uniqueItems !== true && after.uniqueItems === true) tightened("items must now be unique");
  if (before.uniqueItems === true && after.uniqueItems !== true) relaxed("items no longer need to be unique");
}

/** Is a property not listed in properties refused by this object schema? */
function forbidsOthers(schema: JsonObject): boolean {
  return schema.additionalProperties === false || schema.unevaluatedProperties === false;
}

function compareProperties(ctx: Context, dir: Direction, before: JsonObject, after: JsonObject, report: Report, child: Child) {
  const bProps = isObject(before.properties) ? before.properties : {};
  const aProps = isObject(after.properties) ? after.properties : {};
  // OpenAPI: a required readOnly property is required in a response only, a writeOnly one in a request only.
  const notRequiredHere = dir === "request" ? "readOnly" : "writeOnly";
  const requiredOf = (doc: OpenApiDoc, schema: JsonObject, props: JsonObject) =>
    new Set((Array.isArray(schema.required) ? schema.required.map(String) : []).filter((name) => !(Object.hasOwn(props, name) && isMarked(doc, props[name]!, notRequiredHere))));
  const bRequired = requiredOf(ctx.before, before, bProps);
  const aRequired = requiredOf(ctx.after, after, aProps);
  const names = new Set([...Object.keys(bProps), ...Object.keys(aProps), ...bRequired, ...aRequired]);
  for (const name of names) {
    const wasThere = name in bProps || bRequired.has(name);
    const isThere = name in aProps || aRequired.has(name);
    if (wasThere && !isThere) {
      if (dir === "request") {
        const refused = forbidsOthers(after);
        report("request-property-removed", refused, `field "${name}" was removed${refused ? " and is now refused" : " (still accepted, no longer documented)"}`, "properties", name);
      } else {
        report("response-property-removed", true, `field "${name}" was removed`, "properties", name);
      }
      continue;
    }
    if (!wasThere && isThere) {
      if (dir === "request") {
        if (aRequired.has(name)) report("request-property-added-required", true, `new required field "${name}"`, "properties", name);
        else report("request-property-added-optional", false, `new optional field "${name}"`, "properties", name);
      } else {
        report("response-property-added", false, `new field "${name}"`, "properties", name);
      }
      continue;
    }
    if (!bRequired.has(name) && aRequired.has(name)) {
      if (dir === "request") report("request-property-became-required", true, `field "${name}" is now required`, "properties", name);
      else report("response-property-became-required", false, `field "${name}" is now always sent`, "properties", name);
    }
    if (bRequired.has(name) && !aRequired.has(name)) {
      if (dir === "request") report("request-property-became-optional", false, `field "${name}" is now optional`, "properties", name);
      else report("response-property-became-optional", true, `field "${name}" is no longer always sent`, "properties", name);
    }
    if (name in bProps && name in aProps) child(bProps[name], aProps[name], "properties", name);
  }
  const bForbids = forbidsOthers(before);
  const aForbids = forbidsOthers(after);
  if (dir === "request" && !bForbids && aForbids) report("request-additional-properties-forbidden", true, "fields not listed are now refused");
  if (dir === "request" && bForbids && !aForbids) report("request-additional-properties-allowed", false, "fields not listed are now accepted");
  if (dir === "response" && bForbids && !aForbids) report("response-additional-properties-allowed", false, "the object may now carry fields not listed");
  if (isObject(before.additionalProperties) && isObject(after.additionalProperties)) {
    child(before.additionalProperties, after.additionalProperties, "additionalProperties");
  }
}

/** oneOf/anyOf alternatives keyed by discriminator value, else $ref, else position. */
function variantsOf(schema: JsonObject): Map<string, Json> | undefined {
  const list = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!list) return undefined;
  const mapping = isObject(schema.discriminator) && isObject(schema.discriminator.mapping) ? schema.discriminator.mapping : {};
  const byRef = new Map(Object.entries(mapping).map(([value, ref]) => [String(ref), value]));
  return new Map(
    list.map((v, i) => {
      const ref = isObject(v) && typeof v.$ref === "string" ? v.$ref : undefined;
      return [ref ? (byRef.get(ref) ?? ref) : `#${i}`, v];
    }),
  );
}

function compareVariants(dir: Direction, b: Map<string, Json>, a: Map<string, Json>, report: Report, child: Child) {
  for (const [key] of b) {
    if (a.has(key)) continue;
    if (dir === "request") report("request-variant-removed", true, `alternative ${key} was removed`);
    else report("response-variant-removed", false, `alternative ${key} was removed`);
  }
  for (const [key, variant] of a) {
    const was = b.get(key);
    if (was === undefined) {
      if (dir === "request") report("request-variant-added", false, `alternative ${key} was added`);
      else report("response-variant-added", true, `alternative ${key} was added`);
      continue;
    }
    child(was, variant, "oneOf", key);
  }
}

/**
 * One side is a union and the other is not. Every old value must still be accepted (requests),
 * every new value must have been possible (responses): for the side whose values must be covered,
 * each alternative is compared; for the side that must cover, the closest alternative is enough.
 */
function compareUnionWithSingle(
  ctx: Context,
  dir: Direction,
  before: JsonObject,
  after: JsonObject,
  b: Map<string, Json> | undefined,
  a: Map<string, Json> | undefined,
  child: Child,
  report: Report,
) {
  const alternatives = (b ?? a)!;
  const compareWith = (key: string, variant: Json) => child(b ? variant : before, b ? after : variant, "oneOf", key);
  // Alternatives that must each be covered: the old ones in a request, the new ones in a response.
  if ((dir === "request") === !!b) {
    for (const [key, variant] of alternatives) compareWith(key, variant);
    return;
  }
  // The single side must be covered. A list of types is itself a union: each type may be covered
  // by another alternative (`type: [boolean, "null"]` by `anyOf: [{$ref: Flag}, {type: "null"}]`).
  const single = b ? after : before;
  const parts = Array.isArray(single.type) && single.type.length > 1 ? single.type.map((type) => ({ ...single, type })) : [single];
  const covered: Change[] = [];
  for (const part of parts) {
    let best: Change[] | undefined;
    for (const [key, variant] of alternatives) {
      const start = ctx.out.length;
      child(b ? variant : part, b ? part : variant, "oneOf", key);
      const changes = ctx.out.splice(start);
      if (!best || changes.filter((c) => c.breaking).length < best.filter((c) => c.breaking).length) best = changes;
    }
    covered.push(...(best ?? []));
  }
  if (!covered.some((c) => c.breaking)) {
    if (dir === "request") report("request-variant-added", false, "the schema became a union that still accepts the old values");
    else report("response-variant-removed", false, "the schema is now one of the old alternatives");
    return;
  }
  ctx.out.push(...covered);
}

// ---- security ---------------------------------------------------------------------------------
//
// A security list is an OR of alternatives; the schemes of one alternative, and the scopes of one
// scheme, are AND-ed. Alternatives have no name, so they are matched as oasdiff matches them
// (diff/security_requirements_diff.go): identical ones cancel out; a leftover whose set of scheme
// names is unique on both sides is compared scope by scope; the rest were removed or added.

type Alternative = Record<string, string[]>;

function alternativesOf(security: unknown): Alternative[] {
  if (!Array.isArray(security)) return [];
  return security.filter(isObject).map((alt) =>
    Object.fromEntries(Object.entries(alt).map(([scheme, scopes]) => [scheme, Array.isArray(scopes) ? scopes.map(String) : []])),
  );
}

/** "oauth: [read, write] AND apiKey", sorted; `{}` (no authentication needed) shows as "{}". */
export function showAlternative(alt: Alternative): string {
  const schemes = Object.keys(alt).sort();
  if (!schemes.length) return "{}";
  return schemes.map((s) => (alt[s]!.length ? `${s}: [${[...alt[s]!].sort().join(", ")}]` : s)).join(" AND ");
}

const schemeSet = (alt: Alternative) => Object.keys(alt).sort().join("\u0000");

interface ScopeChange {
  scheme: string;
  added: string[];
  removed: string[];
}

function scopeChanges(before: Alternative, after: Alternative): ScopeChange[] {
  const changes: ScopeChange[] = [];
  for (const [scheme, scopes] of Object.entries(before)) {
    const now = after[scheme];
    if (!now) continue;
    const added = now.filter((s) => !scopes.includes(s));
    const removed = scopes.filter((s) => !now.includes(s));
    if (added.length || removed.length) changes.push({ scheme, added, removed });
  }
  return changes;
}

export interface SecurityListDiff {
  added: Alternative[];
  removed: Alternative[];
  scopes: ScopeChange[];
}

export function diffSecurityLists(beforeList: unknown, afterList: unknown): SecurityListDiff {
  const before = alternativesOf(beforeList);
  const after = alternativesOf(afterList);
  const usedBefore = before.map(() => false);
  const usedAfter = after.map(() => false);
  const find = (alt: Alternative, exact: boolean) =>
    after.findIndex((c, j) => !usedAfter[j] && schemeSet(c) === schemeSet(alt) && (!exact || scopeChanges(alt, c).length === 0));
  const unique = (list: Alternative[], used: boolean[], set: string) => list.filter((c, i) => !used[i] && schemeSet(c) === set).length === 1;
  // 1: identical alternatives cancel out.
  before.forEach((alt, i) => {
    const j = find(alt, true);
    if (j >= 0) [usedBefore[i], usedAfter[j]] = [true, true];
  });
  // 2: an alternative whose scheme set is unambiguous on both sides changed its scopes.
  const scopes: ScopeChange[] = [];
  before.forEach((alt, i) => {
    if (usedBefore[i] || !unique(before, usedBefore, schemeSet(alt))) return;
    const j = find(alt, false);
    if (j < 0 || !unique(after, usedAfter, schemeSet(after[j]!))) return;
    [usedBefore[i], usedAfter[j]] = [true, true];
    scopes.push(...scopeChanges(alt, after[j]!));
  });
  // 3: the rest was removed or added.
  return { removed: before.filter((_, i) => !usedBefore[i]), added: after.filter((_, j) => !usedAfter[j]), scopes };
}

function compareOperationSecurity(ctx: Context, was: Operation, now: Operation) {
  // The operation's own `security` only, as oasdiff compares it (an inherited document-level list
  // is compared once, below).
  const d = diffSecurityLists(was.operation.security, now.operation.security);
  const at = now.pointer + "/security";
  // An empty alternative on an operation ("also without authentication") is not reported by oasdiff.
  for (const alt of d.added.filter((a) => Object.keys(a).length)) {
    add(ctx, "api-security-added", false, at, `the endpoint scheme security ${showAlternative(alt)} was added to the API`);
  }
  for (const alt of d.removed.filter((a) => Object.keys(a).length)) {
    add(ctx, "api-security-removed", false, at, `the endpoint scheme security ${showAlternative(alt)} was removed from the API`);
  }
  for (const { scheme, added, removed } of d.scopes) {
    for (const scope of added) add(ctx, "api-security-scope-added", false, at, `the security scope ${scope} was added to the endpoint's security scheme ${scheme}`);
    for (const scope of removed) add(ctx, "api-security-scope-removed", false, at, `the security scope ${scope} was removed from the endpoint's security scheme ${scheme}`);
  }
}

/** Document-level changes are reported against this pseudo-operation. */
export const WHOLE_API = "(all operations)";

function compareGlobalSecurity(before: OpenApiDoc, after: OpenApiDoc, out: Change[]) {
  const d = diffSecurityLists(before.security, after.security);
  for (const alt of d.added) push(out, "api-global-security-added", false, WHOLE_API, "/security", `the security scheme ${showAlternative(alt)} was added to the API`);
  for (const alt of d.removed) push(out, "api-global-security-removed", false, WHOLE_API, "/security", `the security scheme ${showAlternative(alt)} was removed from the API`);
  for (const { scheme, added, removed } of d.scopes) {
    for (const scope of added) push(out, "api-global-security-scope-added", false, WHOLE_API, "/security", `the security scope ${scope} was added to the global security scheme ${scheme}`);
    for (const scope of removed) push(out, "api-global-security-scope-removed", false, WHOLE_API, "/security", `the security scope ${scope} was removed from the global security scheme ${scheme}`);
  }
}

/** Scopes an OAuth 2 scheme defines, over all its flows (oasdiff looks at the implicit flow only). */
function oauthScopes(scheme: JsonObject): Set<string> {
  const scopes = new Set<string>();
  if (isObject(scheme.flows)) {
    for (const flow of Object.values(scheme.flows)) if (isObject(flow) && isObject(flow.scopes)) for (const s of Object.keys(flow.scopes)) scopes.add(s);
  }
  return scopes;
}

function compareSecuritySchemes(before: OpenApiDoc, after: OpenApiDoc, out: Change[]) {
  const schemes = (doc: OpenApiDoc) => (isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {});
  const old = schemes(before);
  const current = schemes(after);
  const at = (name: string) => pointer("/components/securitySchemes", name);
  for (const name of Object.keys(old)) {
    if (!(name in current)) push(out, "api-security-component-removed", false, WHOLE_API, at(name), `the component security scheme ${name} was removed`);
  }
  for (const [name, raw] of Object.entries(current)) {
    if (!(name in old)) {
      push(out, "api-security-component-added", false, WHOLE_API, at(name), `the component security scheme ${name} was added`);
      continue;
    }
    const b = deref<JsonObject>(before, old[name]).value;
    const a = deref<JsonObject>(after, raw).value;
    if (b.type !== a.type) {
      push(out, "api-security-component-type-changed", false, WHOLE_API, at(name), `the component security scheme ${name} type changed from ${String(b.type)} to ${String(a.type)}`);
    }
    const bScopes = oauthScopes(b);
    const aScopes = oauthScopes(a);
    for (const s of aScopes) if (!bScopes.has(s)) push(out, "api-security-component-oauth-scope-added", false, WHOLE_API, at(name), `the component security scheme ${name} oauth scope ${s} was added`);
    for (const s of bScopes) if (!aScopes.has(s)) push(out, "api-security-component-oauth-scope-removed", false, WHOLE_API, at(name), `the component security scheme ${name} oauth scope ${s} was removed`);
  }
}

// ---- report -----------------------------------------------------------------------------------

export interface ApiDiff {
  api: string;
  /** Absent at the baseline: every operation is new and nothing can break. */
  isNew: boolean;
  changes: Change[];
  verdict: Verdict;
}

/** Compares one API; before is undefined when the API did not exist at the baseline. */
export function diffApi(api: string, before: OpenApiDoc | undefined, after: OpenApiDoc): ApiDiff {
  if (!before) {
    return { api, isNew: true, changes: [], verdict: { versionAfter: after.info?.version, breaking: 0, required: "none", made: "none", fails: false } };
  }
  const changes = diffDocuments(before, after);
  return { api, isNew: false, changes, verdict: verdict(before, after, changes) };
}

/** The smallest version carrying a bump of this level: 1.4.2 + minor = 1.5.0; below 1.0.0 a major step is a minor one. */
export function nextVersion(version: string | undefined, bump: Bump): string | undefined {
  const v = parseSemver(version);
  if (!v || bump === "none") return undefined;
  const [major, minor, patch] = v;
  const prefix = version!.startsWith("v") ? "v" : "";
  if (bump === "major") return prefix + (major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`);
  if (bump === "minor") return prefix + `${major}.${minor + 1}.0`;
  return prefix + `${major}.${minor}.${patch + 1}`;
}

const BUMP_REASON: Record<Bump, string> = {
  major: "breaking changes",
  minor: "changes that break no client",
  patch: "only text changed",
  none: "nothing changed",
};

/** One sentence on the version: what the change needs and what was made. */
/** A description's info.version as the reports say it: "(no version)" when it has none. */
const shownVersion = (version: string | undefined) => version ?? "(no version)";

/** The version, or its move: "1.2.0", "1.2.0 -> 2.0.0". */
const shownChange = (v: Verdict, arrow = "->") => (v.versionBefore === v.versionAfter ? shownVersion(v.versionAfter) : `${shownVersion(v.versionBefore)} ${arrow} ${shownVersion(v.versionAfter)}`);

export function versionSentence(v: Verdict): string {
  const version = shownChange(v);
  const next = nextVersion(v.versionBefore, v.required);
  const made = v.made === "none" ? `info.version is still ${shownVersion(v.versionAfter)}` : v.made === "not semver" || v.made === "decreased" ? `info.version ${version} (${v.made})` : `info.version ${version} is a ${v.made} bump`;
  if (v.required === "none") return `no version bump needed; ${made}`;
  return `needs a ${v.required} version bump (${BUMP_REASON[v.required]})${next ? `, at least ${next}` : ""}; ${made}`;
}

const sortChanges = (changes: Change[]) => [...changes].sort((a, b) => Number(b.breaking) - Number(a.breaking) || a.kind.localeCompare(b.kind));

/** Lines for a terminal: breaking changes first, grouped by kind. */
export function formatApiDiff({ api, isNew, changes, verdict: v }: ApiDiff): string[] {
  if (isNew) return [`${api}: new (${shownVersion(v.versionAfter)}), nothing to compare with`];
  const version = shownChange(v);
  if (!changes.length) return [`${api} ${version}: ${v.required === "patch" ? "no interface changes (text only)" : "no changes"}`];
  const lines = [`${api} ${version}: ${v.breaking} breaking, ${changes.length - v.breaking} other`];
  for (const c of sortChanges(changes)) {
    lines.push(`  ${c.breaking ? "BREAKING" : "ok      "} ${c.kind}  ${c.operation}: ${c.message}`);
    lines.push(`           at ${c.pointer}${c.definedIn ? ` (defined in ${c.definedIn})` : ""}`);
  }
  lines.push(`  version: ${versionSentence(v)}`);
  if (v.fails) lines.push(`  FAIL: ${v.breaking} breaking change(s) and ${v.reason}: bump the major version or change the description`);
  else if (v.breaking) lines.push(`  passes: the ${v.made} bump (${version}) carries the breaking change(s)`);
  return lines;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * The report as Markdown, for a pull request comment or a CI job summary: a verdict line per API,
 * then a table of its changes, breaking ones first.
 */
export function formatMarkdown(results: ApiDiff[], baseline?: string): string {
  const failed = results.filter((r) => r.verdict.fails);
  const lines = [
    `## Breaking-change check${baseline ? ` against \`${baseline}\`` : ""}`,
    "",
    // The reasons are said once, in each API's section; the verdict line only names the APIs.
    failed.length
      ? `**Fails**: ${failed.map((r) => `${r.api} (${r.verdict.breaking} breaking change${r.verdict.breaking === 1 ? "" : "s"} without a major version bump)`).join("; ")}.`
      : "**Passes**: no breaking change without a major version bump.",
    "",
    "| API | version | breaking | other | needs | verdict |",
    "|---|---|---|---|---|---|",
  ];
  for (const { api, isNew, changes, verdict: v } of results) {
    const version = isNew ? `${shownVersion(v.versionAfter)} (new)` : shownChange(v, "→");
    const next = nextVersion(v.versionBefore, v.required);
    const needs = isNew ? "–" : v.required === "none" ? "no bump" : `${v.required}${next ? ` (≥ ${next})` : ""}`;
    const outcome = v.fails ? "❌ fails" : v.breaking ? "✅ passes (major bump)" : "✅ passes";
    lines.push(`| ${api} | ${cell(version)} | ${v.breaking} | ${changes.length - v.breaking} | ${needs} | ${outcome} |`);
  }
  for (const { api, changes, verdict: v } of results) {
    if (!changes.length) continue;
    const sentence = versionSentence(v);
    // The version sentence already says what was needed and what was made ("info.version is still
    // 1.0.0", "... is a minor bump"); only a version that is not semver needs the reason spelled out.
    const verdictText = !v.fails ? "" : v.made === "not semver" && v.reason ? ` **${v.reason}.**` : " **Fails.**";
    lines.push("", `### ${api}`, "", `${sentence}.${verdictText}`, "");
    lines.push("| | change | operation | what | where |", "|---|---|---|---|---|");
    for (const c of sortChanges(changes)) {
      const where = `\`${c.pointer}\`${c.definedIn ? ` (defined in \`${c.definedIn}\`)` : ""}`;
      lines.push(`| ${c.breaking ? "**breaking**" : "ok"} | \`${c.kind}\` | ${cell(c.operation)} | ${cell(c.message)} | ${cell(where)} |`);
    }
  }
  return lines.join("\n") + "\n";
}
