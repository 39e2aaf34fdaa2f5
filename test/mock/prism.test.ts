// The stateless mock on every API, as `npm run mock` starts it (the front of scripts/mock/front.ts,
// Prism behind it): each operation, called with the request its examples describe, answers as
// documented (so the front lets every valid request through to Prism); `Prefer: code=<status>` returns each documented answer, and
// `Prefer: example=<name>` each named example. Generic over scripts/apis.ts: an API's operations
// are covered as soon as they are in its bundle.
import { beforeAll, describe, expect, it } from "vitest";
import { APIS } from "../../scripts/apis.ts";
import { isJsonMediaType, mediaTypeOf, operationsOf, type Json, type OpenApiDoc, type Operation } from "../../scripts/contract/document.ts";
import { contractChecker } from "../../scripts/contract/checker.ts";
import { mediaExamples, responsesOf, type DocumentedResponse } from "../../scripts/docs/examples.ts";
import { bodyText, credentialHeaders, credentialQuery, exampleRequest, standInBody, wireParameters, type ExampleRequest } from "../../scripts/docs/requests.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import { bodyTheSchemaTakes, responseChecker } from "../helpers/contract.ts";
import { rawRequest } from "../helpers/raw-get.ts";
import { sharedMock } from "../helpers/shared-mock.ts";

type Prism = { baseUrl: string };

const apis = APIS.map((api) => {
  const doc = loadBundle(api.name) as OpenApiDoc;
  return { api, doc, operations: operationsOf(doc) };
});
// The run's shared mocks (test/setup/shared-mocks.ts), asked for at once (Prism takes about 2.5 s
// to start); each API's tests wait only for their own.
const started = new Map<string, Promise<Prism>>();

beforeAll(() => {
  for (const { api, operations } of apis) {
    if (!operations.length) continue;
    const prism = sharedMock(api.name).then((m) => ({ baseUrl: m.url }));
    prism.catch(() => undefined); // reported by that API's tests
    started.set(api.name, prism);
  }
});

interface Answer {
  status: number;
  contentType: string;
  /** Parsed JSON for JSON media types, else the text. */
  body: unknown;
  text: string;
  /** The operation's body schema takes no value (bodyTheSchemaTakes): the example was sent, for the mock to refuse. */
  noBodyTaken?: true;
}

/** What is wrong with the answer to a body the schema takes no value of: the mock's refusal of it (a 4xx naming the body). */
function refusedBody(answer: Answer): string[] {
  return answer.status >= 400 && answer.status < 500 && answer.text.includes("request body") ? [] : [`its body schema takes no value, yet answered ${answer.status}: ${answer.text.slice(0, 200)}`];
}

async function call(prism: Prism, doc: OpenApiDoc, operation: Operation, prefer?: string, bodyFrom = exampleBody): Promise<Answer> {
  // Values the description gives no example for are stand-ins shaped by their schemas (this
  // project's own descriptions have every one: test/docs/examples.test.ts).
  const request = exampleRequest(doc, operation);
  const given = request.body && bodyFrom(doc, operation, request.body);
  if (given) request.body = given;
  // A basic scheme's token is "user:password"; an API key goes where its scheme says (header, query or cookie).
  const token = request.credentials.some((c) => c.kind === "basic") ? "mock-user:mock-token" : "mock-token";
  const wire = wireParameters(request, credentialQuery(request.credentials, token));
  const headers: Record<string, string> = { ...credentialHeaders(request.credentials, token), ...wire.headers };
  if (request.body) headers["Content-Type"] = request.body.mediaType;
  if (prefer) headers.Prefer = prefer;
  // Node's HTTP client: fetch cannot read a 407 (the Fetch standard makes it a network error), and a
  // documented redirect is an answer to judge, not a place to go.
  const response = await rawRequest(prism.baseUrl + wire.path + wire.query, {
    method: operation.method.toUpperCase(),
    headers,
    ...(request.body ? { body: bodyText(request.body) } : {}),
  });
  const text = response.text;
  const contentType = response.headers["content-type"] ?? "";
  let body: unknown = text;
  if (text && isJsonMediaType(mediaTypeOf(contentType))) body = JSON.parse(text);
  return { status: response.status, contentType, body, text, ...(request.body && !given ? { noBodyTaken: true as const } : {}) };
}

/** The body to send; undefined when the operation's body schema takes no value at all. */
type BodyFrom = (doc: OpenApiDoc, operation: Operation, example: NonNullable<ExampleRequest["body"]>) => ExampleRequest["body"];
const exampleBody: BodyFrom = (_doc, _operation, example) => example;

/**
 * For a description added with add-api: the example body, or where the description's own schema
 * refuses it (GitHub's create-issue-field example lacks a required member), a body it takes
 * (bodyTheSchemaTakes), so that the mock is asked what the description allows (its front refuses the rest).
 */
function schemaTakenBody(checker: ReturnType<typeof contractChecker>): BodyFrom {
  return (doc, operation, example) => bodyTheSchemaTakes(doc, checker, operation, [example, standInBody(doc, operation, example.mediaType)]);
}

/**
 * Problems with an answer that should be `response` with the example `expected` (if given). With
 * `examplesChecked` off (a description added with add-api), only the status and the media type:
 * Prism answers with the description's examples, and whether those follow its schemas is its
 * lint's verdict under its rules (GitHub's break them in thousands of places), not the mock's.
 */
function judge(check: ReturnType<typeof responseChecker>, operation: Operation, response: DocumentedResponse, answer: Answer, expected: Json | undefined, examplesChecked: boolean): string[] {
  const problems: string[] = [];
  if (String(answer.status) !== response.status) return [`answered ${answer.status}, not ${response.status}: ${answer.text.slice(0, 200)}`];
  if (!Object.keys(response.content).length) {
    if (answer.text !== "") problems.push(`${response.status} has no documented body, got ${JSON.stringify(answer.text.slice(0, 100))}`);
    return problems;
  }
  if (!examplesChecked) {
    const documented = Object.keys(response.content).some((m) => mediaTypeOf(m) === mediaTypeOf(answer.contentType) || m === "*/*");
    return documented ? [] : [`${response.status} came as ${answer.contentType}, not as documented (${Object.keys(response.content).join(", ")})`];
  }
  problems.push(...check(operation.template, operation.method, answer.status, answer.contentType, answer.body).map((p) => `${response.status} does not follow the description: ${p}`));
  if (expected !== undefined) {
    try {
      expect(answer.body).toEqual(expected);
    } catch {
      problems.push(`${response.status} is not the documented example: got ${answer.text.slice(0, 200)}`);
    }
  }
  return problems;
}

/** The examples of the media type the answer came in (the first documented one if it matches none). */
function examplesFor(doc: OpenApiDoc, response: DocumentedResponse, contentType: string) {
  const mediaType = Object.keys(response.content).find((m) => mediaTypeOf(m) === mediaTypeOf(contentType)) ?? Object.keys(response.content)[0];
  return mediaType === undefined ? [] : mediaExamples(doc, response.content[mediaType]!);
}

describe.each(apis.map((entry) => [entry.api.name, entry] as const))("Prism mock of %s", (name, { api, doc, operations }) => {
  const check = responseChecker(doc as never);
  const examplesChecked = api.hasReferenceServer;
  const bodyFrom = examplesChecked ? exampleBody : schemaTakenBody(contractChecker(doc, { unknownQueryParameters: "allow" }));
  // A minute, and more for a description of many operations (GitHub's 1,223).
  const timeout = 60_000 + 100 * operations.length;
  const statusOf = (r: DocumentedResponse) => (/^\d{3}$/.test(r.status) ? Number(r.status) : undefined);
  /**
   * What Prism answers without a Prefer header: the lowest documented 2xx, else `default` (as a 200),
   * else the first documented answer (an added API's operation may document only a redirect, as
   * GitHub's downloads do, or only an error). This project's descriptions document a 2xx for each.
   */
  const successOf = (operation: Operation): DocumentedResponse | undefined => {
    const responses = responsesOf(doc, operation);
    const lowest = responses.filter((r) => (statusOf(r) ?? 0) >= 200 && statusOf(r)! < 300).sort((a, b) => statusOf(a)! - statusOf(b)!)[0];
    if (lowest || examplesChecked) return lowest;
    const fallback = responses.find((r) => r.status === "default");
    return fallback ? { ...fallback, status: "200" } : responses[0];
  };
  /** An informational status, which the mock answers with a 501 that says HTTP takes none as an answer. */
  const informational = (r: DocumentedResponse) => (statusOf(r) ?? 0) >= 100 && statusOf(r)! < 200;
  const notAnAnswer = (answer: Answer, status: string) =>
    answer.status === 501 && (answer.body as { detail?: string }).detail === `the mock cannot answer ${status}: an informational (1xx) status is not an answer in HTTP`
      ? []
      : [`answered ${answer.status}, not the 501 for an informational status: ${answer.text.slice(0, 200)}`];
  /**
   * What is wrong with the mock's answer for the documented `response` (asked for with `prefer`, none
   * for the success): an informational status must be the 501, any other the answer as documented
   * with its first example; with several examples, each one asked for by name is checked too.
   */
  const judgeDocumented = async (prism: Prism, operation: Operation, response: DocumentedResponse, answer: Answer, prefer: string | undefined, at: (p: string) => string) => {
    if (informational(response)) return notAnAnswer(answer, response.status).map(at);
    const examples = examplesFor(doc, response, answer.contentType);
    const problems = judge(check, operation, response, answer, examples[0]?.value, examplesChecked).map(at);
    for (const example of examples.length > 1 ? examples : []) {
      const named = await call(prism, doc, operation, `${prefer ? `${prefer}, ` : ""}example=${example.name}`, bodyFrom);
      problems.push(...judge(check, operation, response, named, example.value, examplesChecked).map((p) => at(`example ${example.name}: ${p}`)));
    }
    return problems;
  };

  it("answers every operation's example request with its documented success", { timeout }, async () => {
    const problems: string[] = [];
    if (!operations.length) return expect(Object.keys(doc.paths ?? {})).toEqual([]);
    const prism = await started.get(name)!;
    for (const operation of operations) {
      const at = (p: string) => `${operation.label}: ${p}`;
      const success = successOf(operation);
      if (!success && examplesChecked) {
        problems.push(at("documents no 2xx answer"));
        continue;
      }
      try {
        const answer = await call(prism, doc, operation, undefined, bodyFrom);
        if (answer.noBodyTaken) {
          problems.push(...refusedBody(answer).map(at));
          continue;
        }
        if (!success) {
          // Nothing documented (OpenAPI 3.1 makes responses optional): Prism says it has no answer.
          if (answer.status !== 500 || !answer.text.includes("#NO_RESPONSE_RESPONSE_DEFINED")) problems.push(at(`documents no answer: answered ${answer.status}: ${answer.text.slice(0, 200)}`));
          continue;
        }
        problems.push(...(await judgeDocumented(prism, operation, success, answer, undefined, at)));
      } catch (error) {
        problems.push(at(String(error)));
      }
    }
    expect(problems).toEqual([]);
  });

  it("answers Prefer: code=<status> with each documented answer and example", { timeout }, async () => {
    const problems: string[] = [];
    if (!operations.length) return expect(Object.keys(doc.paths ?? {})).toEqual([]);
    const prism = await started.get(name)!;
    let asked = 0;
    for (const operation of operations) {
      const success = successOf(operation);
      for (const response of responsesOf(doc, operation)) {
        if (response === success || statusOf(response) === undefined) continue;
        const at = (p: string) => `${operation.label} Prefer: code=${response.status}: ${p}`;
        try {
          const answer = await call(prism, doc, operation, `code=${response.status}`, bodyFrom);
          asked++;
          if (answer.noBodyTaken) {
            problems.push(...refusedBody(answer).map(at));
            continue;
          }
          problems.push(...(await judgeDocumented(prism, operation, response, answer, `code=${response.status}`, at)));
        } catch (error) {
          problems.push(at(String(error)));
        }
      }
    }
    expect(problems).toEqual([]);
    // Every operation of this project's APIs documents its errors; one of an added API may document one answer only.
    if (examplesChecked) expect(asked).toBeGreaterThan(0);
  });
});
