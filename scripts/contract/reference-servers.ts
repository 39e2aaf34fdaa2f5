// The reference servers the contract tools run against in-process: the property-based test sends
// generated requests to them, `npm run workflows` runs the Arazzo workflows against them. One entry
// per served API; an API without an entry is simply not exercised yet.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createMeshApp, MESH_BASE_PATH } from "../../server/mesh/app.ts";
import { createOrgPlatformApp, ORG_PLATFORM_BASE_PATH } from "../../server/org-platform/app.ts";
import { composeMounts, mountsOf } from "../../server/secrets/sys/mounts.ts";
import { startSecretsServer } from "../../server/secrets/server.ts";
import { createAppServer } from "../../server/shared/app-server.ts";
import { loadBundle } from "../../server/shared/openapi.ts";
import type { WireResponse } from "./checker.ts";
import type { GeneratedRequest } from "./arbitrary.ts";
import { mediaTypeOf, type OpenApiDoc } from "./document.ts";
import { keepIdleConnections } from "../../server/shared/service-entry.ts";

export interface RunningReferenceServer {
  /** With the base path: http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  close(): Promise<void>;
  /** Arazzo inputs known only once the server runs (its address, the key shares its start made). */
  workflowInputs?: Record<string, string>;
}

export interface ReferenceServer {
  /** The API's name in redocly.yaml (its bundle is generated/<api>/openapi.json). */
  api: string;
  /** Starts the server on 127.0.0.1, any free port. */
  start(): Promise<RunningReferenceServer>;
  /** The description as served, when it is not the bundle as it is (e.g. engines composed at their mounts). */
  description?(): OpenApiDoc;
  /** Whether the server refuses query parameters the description does not name (OpenAPI lets it ignore them). */
  refusesUnknownQueryParameters: boolean;
  /** Headers every generated request carries: the dev credentials that let it reach the handlers. */
  headers: Record<string, string>;
  /**
   * Arazzo inputs for the workflows that use this API (`redocly respect --input name=value`), with
   * those of the running server (RunningReferenceServer.workflowInputs) added.
   */
  workflowInputs: Record<string, string>;
  /** What is wrong with an error answer, judged by the service's error envelope; [] when it follows it. */
  errorEnvelope(response: WireResponse): string[];
  /** Adjusts a generated request before it is sent (e.g. keeps blocking queries short). */
  prepare?(request: GeneratedRequest): GeneratedRequest;
  /**
   * Mismatches between server and description that were reported and are not fixed yet. Invalid
   * requests broken this way are not generated, and a test checks that each one still happens:
   * when it fails, the issue is fixed and its entry must go.
   */
  knownIssues?: KnownIssue[];
  /**
   * The service answers some valid-looking requests with a described 5xx, as the real service does
   * (the mesh refuses entries that break a rule of their kind with 500 and the rule's message; the
   * secrets service's cloud engine fails rotate-root with 500).
   */
  describedServerErrors?: boolean;
}

export interface KnownIssue {
  operationId: string;
  /** The description of the mutation (scripts/contract/arbitrary.ts) that shows it. */
  mutation: string;
  issue: string;
}

async function listenOnFreePort(app: Express, basePath: string): Promise<RunningReferenceServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = keepIdleConnections(createAppServer(app).listen(0, "127.0.0.1", () => resolve(s)));
    s.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Plain-text errors (the mesh): a text/plain body that says something. */
export function plainTextEnvelope(response: WireResponse): string[] {
  const problems: string[] = [];
  if (mediaTypeOf(response.headers["content-type"]) !== "text/plain") problems.push(`content type is ${response.headers["content-type"]}, not text/plain`);
  if (!response.body?.trim()) problems.push("the error body is empty");
  return problems;
}

/**
 * JSON errors whose body is {"errors": [...]}, each item accepted by isItem: the secrets service
 * (strings, application/json; its 404s may carry an empty list, as the real system's do) and the
 * org platform (JSON:API error objects, application/vnd.api+json).
 */
export function jsonErrorsEnvelope(mediaType: string, isItem: (item: unknown) => boolean, { mayBeEmpty = false } = {}) {
  return (response: WireResponse): string[] => {
    if (mediaTypeOf(response.headers["content-type"]) !== mediaType) return [`content type is ${response.headers["content-type"]}, not ${mediaType}`];
    try {
      const errors = (JSON.parse(response.body ?? "") as { errors?: unknown })?.errors;
      if (!Array.isArray(errors) || (!errors.length && !mayBeEmpty)) return ['the body has no "errors" list'];
      return errors.every(isItem) ? [] : ['an item of "errors" has the wrong shape'];
    } catch {
      return ["the error body is not JSON"];
    }
  };
}

/**
 * The profile of an API this toolkit has no server for: no default credentials (give them with
 * --header), unknown query parameters ignored (OpenAPI lets a server do so), and an error answer
 * judged by the description alone: it must have a body (its status, media type and schema are
 * checked against the description with every other answer).
 */
export function describedProfile(api: string): ReferenceServer {
  return {
    api,
    start: () => Promise.reject(new Error(`${api} has no reference server in this toolkit: give a server's URL`)),
    refusesUnknownQueryParameters: false,
    headers: {},
    workflowInputs: {},
    errorEnvelope: (response) => (response.body?.trim() ? [] : ["the error body is empty"]),
  };
}

const MESH_MANAGEMENT_TOKEN = "contract-tests-management-token";
const SECRETS_ROOT_TOKEN = "contract-tests-root-token";

export const REFERENCE_SERVERS: ReferenceServer[] = [
  {
    api: "mesh",
    // ACLs on, so that the ACL API does real work; 1.10 still has the legacy token API.
    start: async () => {
      const running = await listenOnFreePort(createMeshApp({ managementToken: MESH_MANAGEMENT_TOKEN, version: "1.10.0" }).app, MESH_BASE_PATH);
      // host:port, for workflows that point another service at the mesh (the discovery-token engine).
      return { ...running, workflowInputs: { meshAddress: new URL(running.baseUrl).host } };
    },
    // Unknown query parameters are ignored, as the real agent does (the description says so).
    refusesUnknownQueryParameters: false,
    // Entries that break a rule (split weights, subsets...) are a described 500, as in the real agent.
    describedServerErrors: true,
    headers: { "X-Mesh-Token": MESH_MANAGEMENT_TOKEN },
    workflowInputs: { meshToken: MESH_MANAGEMENT_TOKEN },
    errorEnvelope: plainTextEnvelope,
    prepare(request) {
      // A read with `index` blocks until a change or `wait` (default 5 minutes): keep it to 1ms,
      // unless `wait` itself is the broken part of an invalid request.
      if (request.params.query.index !== undefined && request.mutation?.pointer !== "/request/query/wait") {
        request.params.query.wait = "1ms";
      }
      // `stale` with `consistent` is refused whatever else the request says (the description says
      // so in words): a valid request keeps one of them, so that it reaches the handler.
      if (!request.mutation && "stale" in request.params.query && "consistent" in request.params.query) {
        delete request.params.query.consistent;
      }
      return request;
    },
  },
  {
    api: "org-platform",
    start: () => listenOnFreePort(createOrgPlatformApp().app, ORG_PLATFORM_BASE_PATH),
    // Unknown query parameters are ignored, as the platform does (the description says so).
    refusesUnknownQueryParameters: false,
    // The owner of acme in the default world, so that requests reach the handlers.
    headers: { Authorization: "Bearer alice.atlasv1.dev-user-token" },
    workflowInputs: { orgPlatformToken: "alice.atlasv1.dev-user-token" },
    errorEnvelope: jsonErrorsEnvelope("application/vnd.api+json", (e) => typeof e === "object" && e !== null && "status" in e),
  },
  {
    api: "secrets",
    start: async () => {
      const secrets = await startSecretsServer({ rootToken: SECRETS_ROOT_TOKEN });
      // The unseal key shares its start made (5, threshold 3), hex: secretsKey1...secretsKey5.
      const shares = Object.fromEntries(secrets.cluster.init.keys.map((key, i) => [`secretsKey${i + 1}`, Buffer.from(key).toString("hex")]));
      return { baseUrl: secrets.url, close: () => secrets.close(), workflowInputs: shares };
    },
    // The engines at the mounts the server serves (its default mount table: the bundle's own).
    description: () => {
      const bundle = loadBundle("secrets");
      return composeMounts(bundle, mountsOf(bundle)) as OpenApiDoc;
    },
    // Unknown query parameters are ignored, as the real system does (the description says so).
    refusesUnknownQueryParameters: false,
    // The cloud engine's rotate-root fails with a described 500 (no configuration, provider
    // refusals), as the real handler returns plain errors; an undescribed 5xx still fails the checks.
    describedServerErrors: true,
    headers: { "X-Secrets-Token": SECRETS_ROOT_TOKEN },
    workflowInputs: { secretsToken: SECRETS_ROOT_TOKEN },
    // Its 404s for objects that do not exist carry an empty list, as the real system's do.
    errorEnvelope: jsonErrorsEnvelope("application/json", (e) => typeof e === "string", { mayBeEmpty: true }),
  },
];
