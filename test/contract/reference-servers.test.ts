// The table of reference servers: every entry names an API of redocly.yaml, starts, and answers
// under its base path; the error envelopes the property test judges refusals by.
import { describe, expect, it } from "vitest";
import { APIS, REFERENCE_SERVER_APIS } from "../../scripts/apis.ts";
import { jsonErrorsEnvelope, plainTextEnvelope, REFERENCE_SERVERS } from "../../scripts/contract/reference-servers.ts";

describe("reference servers", () => {
  it("are the APIs the registry says have one", () => {
    expect(REFERENCE_SERVERS.map((s) => s.api).sort()).toEqual([...REFERENCE_SERVER_APIS].sort());
    expect(APIS.filter((a) => a.hasReferenceServer).map((a) => a.name).sort()).toEqual([...REFERENCE_SERVER_APIS].sort());
  });

  for (const server of REFERENCE_SERVERS) {
    it(`${server.api}: an API of redocly.yaml, served in-process under its base path`, async () => {
      const api = APIS.find((a) => a.name === server.api);
      expect(api).toBeDefined();
      const running = await server.start();
      try {
        expect(new URL(running.baseUrl).pathname).toBe(api!.basePath);
        const response = await fetch(`${running.baseUrl}/no-such-path-${Date.now()}`, { headers: server.headers });
        expect(response.status).toBe(404);
      } finally {
        await running.close();
      }
    });
  }
});

describe("error envelopes", () => {
  const answer = (contentType: string, body: string) => ({ status: 400, headers: { "content-type": contentType }, body });

  it("plain text: a text/plain body that says something", () => {
    expect(plainTextEnvelope(answer("text/plain; charset=utf-8", "Request decoding failed: Name is required"))).toEqual([]);
    expect(plainTextEnvelope(answer("application/json", '{"error":"x"}'))).toEqual(["content type is application/json, not text/plain"]);
    expect(plainTextEnvelope(answer("text/plain", " "))).toEqual(["the error body is empty"]);
  });

  it('JSON: {"errors": [...]} of the right media type and items', () => {
    const strings = jsonErrorsEnvelope("application/json", (e) => typeof e === "string");
    expect(strings(answer("application/json", '{"errors":["permission denied"]}'))).toEqual([]);
    expect(strings(answer("application/json", '{"errors":[]}'))).toEqual(['the body has no "errors" list']);
    expect(jsonErrorsEnvelope("application/json", () => true, { mayBeEmpty: true })(answer("application/json", '{"errors":[]}'))).toEqual([]);
    expect(strings(answer("application/json", '{"errors":[{"detail":"x"}]}'))).toEqual(['an item of "errors" has the wrong shape']);
    expect(strings(answer("application/vnd.api+json", '{"errors":["x"]}'))).toEqual(["content type is application/vnd.api+json, not application/json"]);
    expect(strings(answer("application/json", "oops"))).toEqual(["the error body is not JSON"]);
  });
});
