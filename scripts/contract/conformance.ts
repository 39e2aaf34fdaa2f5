// The contract property check against any server implementing one of the APIs: for every
// operation, requests generated from the description (scripts/contract/arbitrary.ts) are sent to
// the server. Valid ones must get no 5xx and an answer that follows the description; invalid ones
// (one thing broken) a 4xx in the API's error envelope, also as described. The same rules as
// test/contract/properties.test.ts, which runs them on the reference servers in-process; here they
// run against a base URL and report instead of failing a test.
import fc from "fast-check";
import { invalidRequestArbitrary, toWire, UNKNOWN_PARAMETER, urlOf, validRequestArbitrary, type GeneratedRequest, type Mutation } from "./arbitrary.ts";
import { contractChecker, type WireRequest, type WireResponse } from "./checker.ts";
import { withOpenApi31Schemas, type OpenApiDoc, type Operation } from "./document.ts";
import type { ReferenceServer } from "./reference-servers.ts";

export interface PropertyOptions {
  doc: OpenApiDoc;
  baseUrl: string;
  /** Sent with every request: the credentials that let requests reach the operations. */
  headers: Record<string, string>;
  /** Query parameters sent with every request (an API key a security scheme puts in the query). */
  query?: [string, string][];
  /** The API's rules: error envelope, leniency, request preparation, known issues. */
  profile: Pick<ReferenceServer, "errorEnvelope" | "refusesUnknownQueryParameters" | "prepare" | "knownIssues" | "describedServerErrors">;
  numRuns: number;
  seed: number;
  /** Called after each operation and kind. */
  onResult?(result: PropertyResult): void;
}

export interface PropertyResult {
  operation: string;
  kind: "valid" | "invalid";
  /** Requests sent (generated requests the checker disagrees with are not sent). */
  sent: number;
  /** The first failing exchange, shrunk, with what is wrong; undefined when it holds. */
  failure?: string;
}

async function send(baseUrl: string, wire: WireRequest): Promise<WireResponse> {
  const response = await fetch(urlOf(baseUrl, wire), { method: wire.method, headers: wire.headers, body: wire.body, signal: AbortSignal.timeout(30_000) });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

function show(request: GeneratedRequest, wire: WireRequest, response: WireResponse): string {
  const mutation = request.mutation ? `broken: ${request.mutation.pointer} (${request.mutation.description})\n` : "";
  const query = wire.query.length ? `?${new URLSearchParams(wire.query)}` : "";
  return `${mutation}${wire.method} ${wire.path}${query} ${wire.body ?? ""}\n-> ${response.status} ${response.body?.slice(0, 300)}`;
}

class Broken extends Error {}

export async function checkProperties(options: PropertyOptions): Promise<PropertyResult[]> {
  const { baseUrl, headers, profile, numRuns, seed } = options;
  // Requests are generated from the schemas the checker reads (an OpenAPI 3.0 description's as 3.1).
  const doc = withOpenApi31Schemas(options.doc);
  const checker = contractChecker(doc, { unknownQueryParameters: profile.refusesUnknownQueryParameters ? "refuse" : "allow" });
  const results: PropertyResult[] = [];

  const wireOf = (generated: GeneratedRequest, expectValid: boolean): WireRequest | undefined => {
    const request = profile.prepare?.(generated) ?? generated;
    const wire = toWire(request, headers, options.query);
    const matched = checker.match(wire.method, wire.path);
    if (matched?.operation !== request.operation) return undefined;
    return (checker.checkRequest(matched, wire).length === 0) === expectValid ? wire : undefined;
  };

  const run = async (operation: Operation, kind: PropertyResult["kind"], arbitrary: fc.Arbitrary<GeneratedRequest>) => {
    let sent = 0;
    const outcome = await fc.check(
      fc.asyncProperty(arbitrary, async (generated) => {
        const wire = wireOf(generated, kind === "valid");
        fc.pre(wire !== undefined);
        sent++;
        const response = await send(baseUrl, wire!);
        const problems: string[] = [];
        if (kind === "valid") {
          // A 5xx only where the service describes one (checkResponse then holds it to the description).
          if (response.status >= 500 && !profile.describedServerErrors) problems.push(`status ${response.status}`);
          problems.push(...checker.checkResponse(operation, response).map((v) => `${v.pointer}: ${v.reason}`));
        } else {
          if (response.status < 400 || response.status >= 500) problems.push(`status ${response.status} is not a 4xx`);
          else problems.push(...profile.errorEnvelope(response));
          problems.push(...checker.checkResponse(operation, response).map((v) => `${v.pointer}: ${v.reason}`));
        }
        if (problems.length) throw new Broken(`${problems.join("; ")}\n${show(generated, wire!, response)}`);
      }),
      { seed, numRuns },
    );
    const result: PropertyResult = { operation: operation.label, kind, sent };
    if (outcome.failed) result.failure = outcome.errorInstance instanceof Broken ? outcome.errorInstance.message : describeThrown(outcome.errorInstance);
    results.push(result);
    options.onResult?.(result);
  };

  for (const operation of checker.operations) {
    await run(operation, "valid", validRequestArbitrary(doc, operation));
    const known = (profile.knownIssues ?? []).filter((k) => k.operationId === operation.operationId);
    const applies = (m: Mutation) => !known.some((k) => k.mutation === m.description) && (profile.refusesUnknownQueryParameters || m.description !== UNKNOWN_PARAMETER);
    const invalid = invalidRequestArbitrary(doc, operation, applies);
    if (invalid) await run(operation, "invalid", invalid);
  }
  return results;
}

/** An error with its causes ("fetch failed" alone names no reason: the cause says which socket error). */
function describeThrown(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && e !== null && parts.length < 5; e = (e as { cause?: unknown }).cause) {
    const { message, code } = e as { message?: string; code?: string };
    parts.push(code ? `${message ?? String(e)} (${code})` : (message ?? String(e)));
  }
  return parts.join(": ");
}
