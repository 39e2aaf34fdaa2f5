// Shared wiring between an OpenAPI bundle and an express app: routes by operationId and the
// request/response validator. Every service uses this; only its handlers and envelope differ.
import { readFileSync } from "node:fs";
import path from "node:path";
import express from "express";
import * as OpenApiValidator from "express-openapi-validator";
import "./validator-route-cache.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const METHODS = ["get", "put", "post", "delete", "patch", "options", "head"] as const;

export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  servers?: { url: string }[];
  [key: string]: unknown;
};

export function loadBundle(api: string): OpenApiDocument {
  return JSON.parse(readFileSync(path.join(root, "generated", api, "openapi.json"), "utf8"));
}

export interface Route {
  method: (typeof METHODS)[number];
  /** Express path, e.g. /discovery-chain/:service_name */
  path: string;
  operationId: string;
  /** The description says the request must have a body. */
  bodyRequired: boolean;
}

export function routesOf(bundle: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(bundle.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: string; requestBody?: { required?: boolean } } | undefined;
      if (!operation?.operationId) continue;
      routes.push({
        method,
        path: template.replace(/\{([^}]+)\}/g, ":$1"),
        operationId: operation.operationId,
        bodyRequired: operation.requestBody?.required === true,
      });
    }
  }
  return routes;
}

export interface ValidatorOptions {
  basePath: string;
  validateResponses: boolean;
  /** Query parameters the description does not name are let through (the org platform ignores them). */
  allowUnknownQueryParameters?: boolean;
}

/** express-openapi-validator for a bundle served under basePath (other server URLs are ignored). */
export function openApiValidator(bundle: OpenApiDocument, options: ValidatorOptions) {
  const apiSpec = structuredClone({ ...bundle, servers: [{ url: options.basePath }] });
  return OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: options.allowUnknownQueryParameters === true },
    validateResponses: options.validateResponses ? { allErrors: false } : false,
    validateSecurity: false,
    validateFormats: true,
  });
}

/** One problem found by the validator, with the field it concerns. */
export interface ValidationProblem {
  /** Where: body, query, path, headers, response. */
  location: string;
  /** The field inside it, e.g. Splits[0].Weight (empty for the whole part). */
  field: string;
  message: string;
}

/** The validator's path prefixes, by the name of the request part they stand for. */
const LOCATIONS: Record<string, string> = {
  body: "body",
  query: "query",
  params: "path",
  path: "path",
  headers: "header",
  cookies: "cookie",
  response: "response",
};

/**
 * The validator's errors, with JSON-ish field paths; undefined if the error is not from it.
 * The validator is not consistent: body paths come with or without "/body", and a discriminator
 * error carries the request path (the field is then named in the message).
 */
export function validationProblems(error: unknown, requestPath: string): ValidationProblem[] | undefined {
  const errors = (error as { errors?: { path?: string; message?: string }[] })?.errors;
  if (!Array.isArray(errors)) return undefined;
  return errors.map(({ path: where = "", message = "is invalid" }) => {
    if (where === requestPath) return { location: "body", field: "", message };
    const parts = where.replace(/^[./]/, "").split(/[./]/);
    const location = LOCATIONS[parts[0] ?? ""] ? LOCATIONS[parts.shift()!]! : "body";
    const field = parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
    return { location, field, message };
  });
}

export { express };
