// Starts one API's mock: the front (scripts/mock/front.ts) on the public address, Prism behind it
// on a free port of 127.0.0.1. The front binds first, so a port in use is reported at once, and
// Prism's output goes to `onPrismLine` (the mock script formats it; tests keep it for errors).
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import pLimit from "p-limit";
import { bundlePath, readBundle } from "../apis.ts";
import { MULTIPART_MEDIA_TYPE } from "../contract/multipart.ts";
import { deref, FORM_MEDIA_TYPE, HTTP_METHODS, isObject, mediaTypeOf, resolvePointer, typeNames, withoutParameters, withPathItems, type Json, type JsonObject, type OpenApiDoc } from "../contract/document.ts";
import { toolCommand } from "../project.ts";
import { describedErrorsProfile } from "./described-errors.ts";
import { listenFront, mockFront, MOCK_PROFILES } from "./front.ts";

export interface RunningMock {
  /** http://host:port, the mock's public address (no base path: Prism serves the paths as described). */
  url: string;
  /** Prism's own address behind the front (tests that check Prism itself call it directly). */
  prismUrl: string;
  /** The description file Prism serves: the bundle, or a copy without what Prism misreads (kept until Prism exits). */
  prismDescription: string;
  close(): Promise<void>;
  /** Settles when Prism stops on its own (not after close()). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}

export interface MockOptions {
  host?: string;
  /** 0: any free port. */
  port?: number;
  onPrismLine?(line: string): void;
  /** Lines about requests the front answered itself. */
  onFrontLine?(line: string): void;
  /** Prism's start-up time limit. */
  timeoutMs?: number;
  /** The project folder whose `generated/<api>/openapi.json` is mocked (the working directory's project). */
  root?: string;
}

/**
 * The description Prism is given: the bundle itself, or a copy in a folder of its own, which
 * `remove` deletes when Prism exits, without what Prism misreads (the front checks all of it
 * itself, by the description as it is):
 * - the parameters: Prism checked the header parameters OpenAPI ignores (Accept, Content-Type,
 *   Authorization: an Accept's enum refused `Accept: *\/*`, stoplightio/prism#2057), and its
 *   deserializers threw, stopping Prism's whole process, on an optional header of an array or
 *   object schema that was not sent (simple style splits it unguarded) and on a spaceDelimited or
 *   pipeDelimited query parameter of an object schema (which OpenAPI allows);
 * - the schema of a multipart body: Prism's parser stops the whole Prism process on a file part
 *   without a Content-Type (which RFC 7578 allows), and Prism reads every part as text, one per name
 *   (a JSON part, or repeated parts of an array, are refused);
 * - the schema of a form body that nests objects (`card[number]=4242`, `items[0][price]=p1`, as
 *   Stripe-like APIs write their forms): Prism reads an absent deepObject field as an empty object
 *   (so an optional `card` with a required `number` refuses every request without it), and refuses
 *   an array of objects written with brackets;
 * - the schema of a body that holds a discriminator: Prism checks a `oneOf` with a discriminator as
 *   plain JSON Schema (a value two alternatives take is refused), where the discriminator's value
 *   picks the one schema the value must follow, as the toolkit's checks read it.
 * Without a schema, Prism neither parses nor checks such a body; its answers do not depend on it.
 * Prism runs as its own process from the installed `@stoplight/prism-cli`, where a patch of it
 * would not reach an installed toolkit.
 */
function prismDocument(doc: OpenApiDoc, bundle: string): { file: string; remove(): void } {
  const unparameterized = withoutParametersForPrism(doc) ?? doc;
  const forPrism = withoutBodySchemasPrismMisreads(unparameterized) ?? unparameterized;
  if (forPrism === doc) return { file: bundle, remove: () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), "mock-"));
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(forPrism));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The document without its parameters (prismDocument): the front checks every one of them, by the
 * description as it is, and Prism's answers do not depend on them, while Prism's own reading of
 * them refused good requests and stopped Prism. Undefined when it has none.
 */
export function withoutParametersForPrism(doc: OpenApiDoc): OpenApiDoc | undefined {
  return withoutParameters(doc, () => true);
}

/** The document without the schemas of multipart bodies and of form bodies that nest objects (prismDocument); undefined when it has none. */
export function withoutBodySchemasPrismMisreads(doc: OpenApiDoc): OpenApiDoc | undefined {
  const misread = (type: string, media: Json | undefined) =>
    mediaTypeOf(type) === MULTIPART_MEDIA_TYPE ||
    (mediaTypeOf(type) === FORM_MEDIA_TYPE && isObject(media) && nestsObjects(doc, media)) ||
    (isObject(media) && holdsDiscriminator(doc, media.schema));
  return withPathItems(doc, (item) => {
    let changed = false;
    const rewritten: JsonObject = { ...item };
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || operation.requestBody === undefined) continue;
      const requestBody = deref<JsonObject>(doc, operation.requestBody).value;
      const content = isObject(requestBody.content) ? requestBody.content : {};
      if (!Object.entries(content).some(([type, media]) => misread(type, media))) continue;
      changed = true;
      const kept = Object.fromEntries(Object.entries(content).map(([type, media]) => [type, misread(type, media) ? {} : media]));
      rewritten[method] = { ...operation, requestBody: { ...requestBody, content: kept } };
    }
    return changed ? rewritten : undefined;
  });
}

/** Whether a schema, or one it reaches (through `$ref`s too), has a discriminator. */
function holdsDiscriminator(doc: OpenApiDoc, schema: Json | undefined): boolean {
  const seen = new Set<Json>();
  const walk = (node: Json | undefined): boolean => {
    if (!isObject(node) && !Array.isArray(node)) return false;
    if (seen.has(node)) return false;
    seen.add(node);
    if (Array.isArray(node)) return node.some(walk);
    if (isObject(node.discriminator)) return true;
    if (typeof node.$ref === "string" && node.$ref.startsWith("#") && walk(resolvePointer(doc, node.$ref) as Json | undefined)) return true;
    return Object.entries(node).some(([key, value]) => key !== "$ref" && walk(value));
  };
  return walk(schema);
}

/** Whether a form's fields nest: a field in style deepObject, or one whose schema is an object or an array of objects. */
function nestsObjects(doc: OpenApiDoc, media: JsonObject): boolean {
  const encoding = isObject(media.encoding) ? media.encoding : {};
  if (Object.values(encoding).some((e) => isObject(e) && e.style === "deepObject")) return true;
  const schema = deref<JsonObject>(doc, media.schema ?? {}).value;
  const isObjectSchema = (node: Json | undefined) => {
    const field = deref<JsonObject>(doc, node ?? {}).value;
    return typeNames(field).includes("object") || isObject(field.properties);
  };
  return Object.values(isObject(schema.properties) ? schema.properties : {}).some((node) => {
    const field = deref<JsonObject>(doc, node).value;
    return isObjectSchema(field) || (typeNames(field).includes("array") && isObjectSchema(field.items));
  });
}

/**
 * How many Prisms start at once in this process: one per core. A start is about 2.5 s of CPU, and
 * forty started at once on two cores (`npm run mock` of forty APIs) passed their 30 s limit.
 */
const prismStarts = pLimit(availableParallelism());

interface StartedPrism {
  child: ChildProcessByStdio<null, Readable, Readable>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  internalPort: number;
}

/**
 * Prism on a free port of 127.0.0.1, once it says it listens. The port is chosen when its start
 * begins (prismStarts), and chosen again if something took it meanwhile (a free port is only free
 * until another process listens on it: one of forty mocks met one in a test run).
 */
async function startPrism(file: string, timeoutMs: number, attemptsLeft = 3): Promise<StartedPrism> {
  const [node, prism] = toolCommand("@stoplight/prism-cli", "prism");
  const started = await prismStarts(async () => {
    const internalPort = await freePort();
    const child = spawn(node, [...prism, "mock", "--host", "127.0.0.1", "--port", String(internalPort), file], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once("exit", (code, signal) => done({ code, signal })));
    let output = "";
    try {
      // Its start-up limit counts from its own start.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Prism did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes("Prism is listening")) {
            clearTimeout(timer);
            child.stdout.off("data", onData);
            child.stderr.off("data", onData);
            resolve();
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        void exited.then(({ code, signal }) => {
          clearTimeout(timer);
          reject(new Error(`Prism stopped (${signal ?? `exit code ${code}`}) before listening:\n${output.slice(-2000)}`));
        });
      });
    } catch (error) {
      child.kill("SIGTERM");
      if (output.includes("EADDRINUSE") && attemptsLeft > 1) return undefined;
      throw error;
    }
    return { child, exited, internalPort };
  });
  return started ?? startPrism(file, timeoutMs, attemptsLeft - 1);
}

export async function startMock(api: string, options: MockOptions = {}): Promise<RunningMock> {
  const doc = readBundle<OpenApiDoc>({ name: api }, options.root);
  // This toolkit's APIs have a profile written from their servers; any other answers in the envelope its description documents.
  const profile = MOCK_PROFILES[api] ?? describedErrorsProfile(doc);
  // The port is taken at once (a port in use fails before Prism starts); requests wait for Prism.
  let handler!: ReturnType<typeof mockFront>;
  let prismReady!: () => void;
  const ready = new Promise<void>((resolve) => (prismReady = resolve));
  const front = await listenFront(async (req, res) => {
    await ready;
    return handler(req, res);
  }, options.host ?? "127.0.0.1", options.port ?? 0, { listMethod: profile.listMethod });
  const { address, port } = front.address() as AddressInfo;
  const closeFront = () => new Promise<void>((resolve) => { front.closeAllConnections(); front.close(() => resolve()); });

  const described = prismDocument(doc, bundlePath({ name: api }, options.root));
  let prism: StartedPrism;
  try {
    prism = await startPrism(described.file, options.timeoutMs ?? 30_000);
  } catch (error) {
    await closeFront();
    described.remove();
    throw error;
  }
  const { child, exited, internalPort } = prism;
  let closing = false;
  handler = mockFront({ doc, profile, upstream: `http://127.0.0.1:${internalPort}`, log: options.onFrontLine });
  // Prism's copy of the description stays while Prism runs: Prism watches the file it was given
  // (chokidar), and a copy removed while the watch was being set up threw in chokidar, which stopped
  // Prism's server process; the port then refused every connection (each request a 502).
  void exited.then(() => described.remove());
  prismReady();
  // Prism's output is always read (a full pipe would stall it); lines go to onPrismLine if given.
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on("line", (line) => options.onPrismLine?.(line));
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    prismUrl: `http://127.0.0.1:${internalPort}`,
    prismDescription: described.file,
    exited: exited.then((r) => (closing ? new Promise<never>(() => undefined) : r)),
    close: async () => {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      await closeFront();
    },
  };
}
