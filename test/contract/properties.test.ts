// Property-based contract test: for every operation of every API with a reference server
// (scripts/contract/reference-servers.ts), requests generated from the description are sent to the
// in-process server. Valid ones: no 5xx, and the answer follows the description. Invalid ones (one
// thing broken): refused with a 4xx in the service's error envelope, also as described.
// Runs are bounded (CONTRACT_RUNS, default 25 per operation and kind); CONTRACT_SEED replays a run.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  invalidRequestArbitrary,
  toWire,
  UNKNOWN_PARAMETER,
  urlOf,
  validRequestArbitrary,
  type GeneratedRequest,
  type Mutation,
} from "../../scripts/contract/arbitrary.ts";
import { contractChecker, type WireRequest, type WireResponse } from "../../scripts/contract/checker.ts";
import type { OpenApiDoc } from "../../scripts/contract/document.ts";
import { REFERENCE_SERVERS, type RunningReferenceServer } from "../../scripts/contract/reference-servers.ts";
import { loadBundle } from "../../server/shared/openapi.ts";

const seed = Number(process.env.CONTRACT_SEED ?? Math.floor(Math.random() * 2 ** 31));
const numRuns = Number(process.env.CONTRACT_RUNS ?? 25);
console.log(`contract properties: seed ${seed}, ${numRuns} runs per operation (replay with CONTRACT_SEED=${seed})`);

async function send(baseUrl: string, wire: WireRequest): Promise<WireResponse> {
  const response = await fetch(urlOf(baseUrl, wire), { method: wire.method, headers: wire.headers, body: wire.body });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

function show(request: GeneratedRequest, wire: WireRequest, response: WireResponse): string {
  const mutation = request.mutation ? `broken: ${request.mutation.pointer} (${request.mutation.description})\n` : "";
  const query = wire.query.length ? `?${new URLSearchParams(wire.query)}` : "";
  return `${mutation}${wire.method} ${wire.path}${query} ${wire.body ?? ""}\n-> ${response.status} ${response.body?.slice(0, 300)}`;
}

/**
 * The schema check's words (ajv's, as the services pass them on) in a refusal: a server stricter than
 * its description. Undefined for an answer that is no such refusal.
 */
const SCHEMA_WORDS =
  /must (be (string|integer|number|boolean|object|array|null)\b|be equal to one of|be [<>]=? |be (a )?(multiple|unique)|have required property|NOT have (more|fewer)|NOT be (longer|shorter)|match (pattern|format|a schema|exactly)|be url encoded)|Unknown query parameter|Empty value found/;
function validatorRefusal(response: WireResponse): string | undefined {
  if (response.status < 400 || response.status >= 500) return undefined;
  return SCHEMA_WORDS.exec(response.body ?? "")?.[0];
}

for (const server of REFERENCE_SERVERS) {
  describe(`${server.api} reference server, generated requests`, () => {
    const bundle = server.description?.() ?? (loadBundle(server.api) as OpenApiDoc);
    const checker = contractChecker(bundle, { unknownQueryParameters: server.refusesUnknownQueryParameters ? "refuse" : "allow" });
    const knownIssues = server.knownIssues ?? [];
    let running: RunningReferenceServer;
    beforeAll(async () => {
      running = await server.start();
    });
    afterAll(() => running?.close());

    /** Prepared for the server and serialized; undefined when the checker disagrees with the generator. */
    function wireOf(generated: GeneratedRequest, expectValid: boolean): WireRequest | undefined {
      const request = server.prepare?.(generated) ?? generated;
      const wire = toWire(request, server.headers);
      const matched = checker.match(wire.method, wire.path);
      if (matched?.operation !== request.operation) return undefined;
      const valid = checker.checkRequest(matched, wire).length === 0;
      return valid === expectValid ? wire : undefined;
    }

    /** What is wrong with the server's answer to an invalid request; [] when it is right. */
    async function refusalProblems(generated: GeneratedRequest, wire: WireRequest): Promise<{ problems: string[]; context: string }> {
      const response = await send(running.baseUrl, wire);
      const problems: string[] = [];
      if (response.status < 400 || response.status >= 500) problems.push(`status ${response.status} is not a 4xx`);
      else problems.push(...server.errorEnvelope(response));
      problems.push(...checker.checkResponse(generated.operation, response).map((v) => `${v.pointer}: ${v.reason}`));
      return { problems, context: show(generated, wire, response) };
    }

    for (const operation of checker.operations) {
      it(`${operation.label}: valid requests get a described answer, never a 5xx`, async () => {
        await fc.assert(
          fc.asyncProperty(validRequestArbitrary(bundle, operation), async (generated) => {
            const wire = wireOf(generated, true);
            fc.pre(wire !== undefined);
            const response = await send(running.baseUrl, wire!);
            const context = show(generated, wire!, response);
            // A 5xx only where the service describes one (and then it must be the described answer).
            if (!server.describedServerErrors) expect(response.status, context).toBeLessThan(500);
            // The other direction: what the description allows, the server's own check of the
            // request does not refuse (a refusal may only come from a rule of the service's state).
            expect(validatorRefusal(response), context).toBeUndefined();
            expect(checker.checkResponse(operation, response), context).toEqual([]);
          }),
          { seed, numRuns },
        );
      });

      const known = knownIssues.filter((k) => k.operationId === operation.operationId);
      const applies = (m: Mutation) =>
        !known.some((k) => k.mutation === m.description) && (server.refusesUnknownQueryParameters || m.description !== UNKNOWN_PARAMETER);
      const invalid = invalidRequestArbitrary(bundle, operation, applies);
      // Only known issues can break this operation's requests: their own tests below cover it.
      if (!invalid) continue;
      it(`${operation.label}: invalid requests are refused with a 4xx in the error envelope`, async () => {
        await fc.assert(
          fc.asyncProperty(invalid, async (generated) => {
            const wire = wireOf(generated, false);
            fc.pre(wire !== undefined);
            const { problems, context } = await refusalProblems(generated, wire!);
            expect(problems, context).toEqual([]);
          }),
          { seed, numRuns },
        );
      });
    }

    for (const issue of knownIssues) {
      it(`known issue, still present (remove it from reference-servers.ts once fixed): ${issue.issue}`, async () => {
        const operation = checker.operations.find((o) => o.operationId === issue.operationId);
        expect(operation, `no operation ${issue.operationId}`).toBeDefined();
        const arbitrary = invalidRequestArbitrary(bundle, operation!, (m) => m.description === issue.mutation);
        expect(arbitrary, `no mutation "${issue.mutation}" applies to ${issue.operationId}`).toBeDefined();
        const samples = fc.sample(arbitrary!, { seed, numRuns: 5 });
        const outcomes = [];
        for (const generated of samples) {
          const wire = wireOf(generated, false);
          if (wire) outcomes.push(await refusalProblems(generated, wire));
        }
        expect(outcomes.length).toBeGreaterThan(0);
        expect(outcomes.some((o) => o.problems.length > 0), outcomes.map((o) => o.context).join("\n")).toBe(true);
      });
    }
  });
}
