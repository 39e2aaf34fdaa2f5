// Every request example of every description, sent in document order to a fresh reference server
// (the world `npm start` serves, its dev credentials), as a reader trying the reference would: each
// example request follows its own description, and gets a described answer that is not a server
// error. A documented refusal is fine (an example of a delete runs before its resource exists), a
// 5xx or an answer the description does not have is not.
import { describe, expect, it } from "vitest";
import { toWire, type GeneratedRequest } from "../../scripts/contract/arbitrary.ts";
import { contractChecker, type WireRequest, type WireResponse } from "../../scripts/contract/checker.ts";
import type { JsonObject } from "../../scripts/contract/document.ts";
import { REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";
import { mediaExamples, parameterExample, requestBodyOf } from "../../scripts/docs/examples.ts";
import { referenceServerForBlock } from "../helpers/contract-servers.ts";

async function send(baseUrl: string, wire: WireRequest): Promise<WireResponse> {
  const query = wire.query.length ? `?${new URLSearchParams(wire.query)}` : "";
  const response = await fetch(`${baseUrl}${wire.path}${query}`, { method: wire.method, headers: wire.headers, body: wire.body });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

for (const server of REFERENCE_SERVERS) {
  describe(`${server.api}: the request examples, in order, on a fresh server`, () => {
    const { bundle, running } = referenceServerForBlock(server);
    const checker = contractChecker(bundle, { unknownQueryParameters: server.refusesUnknownQueryParameters ? "refuse" : "allow" });

    it("each runs: valid as described, answered as described, never a 5xx", async () => {
      const problems: string[] = [];
      let sent = 0;
      for (const operation of checker.operations) {
        const params: GeneratedRequest["params"] = { path: {}, query: {}, header: {}, cookie: {} };
        for (const parameter of operation.parameters) {
          const example = parameterExample(bundle, parameter);
          if (example === undefined || (parameter.in === "header" && !parameter.required)) continue;
          params[parameter.in][parameter.name] = example.value;
        }
        const body = requestBodyOf(bundle, operation);
        const bodies = Object.entries((body?.content ?? {}) as Record<string, JsonObject>).flatMap(([mediaType, media]) =>
          mediaExamples(bundle, media).map((example) => ({ name: example.name ?? mediaType, body: { mediaType, value: example.value as unknown } })),
        );
        for (const example of bodies.length > 0 ? bodies : [{ name: "no body", body: undefined }]) {
          const request: GeneratedRequest = { operation, params, ...(example.body && { body: example.body }) };
          const wire = toWire(server.prepare?.(request) ?? request, server.headers);
          const where = `${operation.label} example ${example.name}`;
          const matched = checker.match(wire.method, wire.path);
          if (matched?.operation !== operation) {
            problems.push(`${where}: its path ${wire.path} names another operation`);
            continue;
          }
          problems.push(...checker.checkRequest(matched, wire).map((v) => `${where}: the example breaks its description at ${v.pointer}: ${v.reason}`));
          const response = await send(running().baseUrl, wire);
          sent++;
          // A service that answers some requests with a described 5xx, as its real service does (the
          // mesh: an update of an ACL object the example's id names, which a fresh server has not),
          // may do so here; its own walker (test/mesh/examples.test.ts) runs them with their ids.
          if (response.status >= 500 && !server.describedServerErrors) problems.push(`${where}: ${response.status} ${(response.body ?? "").slice(0, 200)}`);
          problems.push(...checker.checkResponse(operation, response).map((v) => `${where}: answer ${response.status} at ${v.pointer}: ${v.reason}`));
        }
      }
      console.log(`${server.api}: ${sent} example requests`);
      expect(sent).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    });
  });
}
