// Help on a path: a request with a non-empty `help` query parameter is answered with what the
// description says of the operations at its path, and runs none of them. The real server does this
// in a wrapper around its whole HTTP mux (http/help.go wrapHelpHandler: `help` not empty, or the
// HELP method), as a HelpOperation that the token check lets through without any capability
// (vault/acl.go AllowOperation: "Help is always allowed"), answered with the backend's help
// (sdk/framework/path.go helpCallback, logical.HelpResponse: `help`, `openapi`, `see_also`) written
// as it is, outside the usual response envelope (http/help.go handleHelp: respondOk(w, resp.Data)).
import type { Request } from "express";
import { atPointer, followRefs, type OpenApiDocument } from "../../shared/openapi.ts";
import type { OperationIndex, SecretsOperation } from "../operations.ts";

/** Whether the request asks for help: a `help` query parameter whose first value is not empty (Go's Query().Get). */
export function wantsHelp(req: Request): boolean {
  const query = req.url.indexOf("?");
  if (query === -1 || !req.url.includes("help", query)) return false;
  const value = new URLSearchParams(req.url.slice(query + 1)).get("help");
  return value !== null && value !== "";
}

/** The operations at a path, whatever the method; a list's trailing `/` is taken as the list's path. */
export function helpTarget(operations: OperationIndex, segments: readonly string[]): { template: string; operations: SecretsOperation[] } | undefined {
  return operations.templateAt(segments) ?? (segments.at(-1) === "" ? operations.templateAt(segments.slice(0, -1)) : undefined);
}

type Json = Record<string, unknown>;

/** What is answered: the help text, the path's part of the description, no other paths to see. */
export function helpAnswer(document: OpenApiDocument, path: string, template: string): { help: string; openapi: Json; see_also: null } {
  const item = (document.paths as Record<string, Json>)[template] ?? {};
  return { help: helpText(document, path, template, item), openapi: pathDocument(document, template, item), see_also: null };
}

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

function helpText(document: OpenApiDocument, path: string, template: string, item: Json): string {
  const operations = METHODS.flatMap((method) => (item[method] ? [[method, item[method] as Json] as const] : []));
  const lines = [`Request:        ${path}`, `Matching Route: ${template}`, ""];
  for (const [method, operation] of operations) {
    const shown = operation["x-http-method"] === "LIST" ? "LIST" : method.toUpperCase();
    lines.push(`${shown}: ${String(operation.summary ?? "<no summary>")}`);
  }
  const parameters = new Map<string, Json>();
  for (const raw of [...asList(item.parameters), ...operations.flatMap(([, operation]) => asList(operation.parameters))]) {
    const parameter = resolve(document, raw);
    if (typeof parameter.name === "string" && !parameters.has(parameter.name)) parameters.set(parameter.name, parameter);
  }
  if (parameters.size > 0) {
    lines.push("", "## PARAMETERS");
    for (const name of [...parameters.keys()].sort()) {
      const parameter = parameters.get(name)!;
      const type = (resolve(document, parameter.schema).type as string | string[] | undefined) ?? "string";
      lines.push("", `    ${name} (${Array.isArray(type) ? type.filter((t) => t !== "null").join("|") : type})`, "");
      lines.push(...indent(String(parameter.description ?? "<no description>").trim(), 8));
    }
  }
  lines.push("", "## DESCRIPTION");
  for (const [method, operation] of operations) {
    const shown = operation["x-http-method"] === "LIST" ? "LIST" : method.toUpperCase();
    lines.push("", `${shown}: ${String(operation.description ?? "<no description>").trim()}`);
  }
  return `\n${lines.join("\n")}\n`;
}

function indent(text: string, by: number): string[] {
  return text.split("\n").map((line) => (line === "" ? "" : " ".repeat(by) + line));
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A `$ref` into the document, followed. */
function resolve(document: OpenApiDocument, value: unknown): Json {
  return (followRefs(document, value) as Json | undefined) ?? {};
}

/** A description of this one path: the path item and the components it refers to, nothing else. */
function pathDocument(document: OpenApiDocument, template: string, item: Json): Json {
  const components: Record<string, Json> = {};
  const seen = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== "object") return;
    const ref = (value as Json).$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/") && !seen.has(ref)) {
      seen.add(ref);
      const [kind, name] = ref.slice("#/components/".length).split("/") as [string, string];
      const target = atPointer(document, ref) as Json | undefined;
      if (target !== undefined) {
        (components[kind] ??= {})[name] = target;
        walk(target);
      }
    }
    for (const member of Object.values(value)) walk(member);
  };
  walk(item);
  const info = document.info as Json;
  return { openapi: document.openapi, info: { title: info.title, version: info.version }, paths: { [template]: item }, ...(seen.size > 0 && { components }) };
}
