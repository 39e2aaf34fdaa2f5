// npm run add-api -- <name> <file-or-URL> [--version v1]
// Adds an API to this project: its description (a file or an http(s) URL; YAML or JSON; external
// $refs resolved) is bundled with Redocly into openapi/<name>/openapi.yaml, an entry
// `<name>@<version>: { root }` is added to redocly.yaml's `apis:` (the one list every command reads;
// comments and order are kept), and what `npm run generate -- <name>` runs makes its bundle, types, client
// and client package. Then the lint's verdict and the commands that now work on it are printed.
// Nothing is written when the name or the description is refused. See docs/own-api.md.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import YAML from "yaml";
import { readApis } from "./apis.ts";
import { configFile, redoclyCommand, isProgram } from "./project.ts";

const USAGE = "usage: npm run add-api -- <name> <file-or-URL> [--version v1]";

/** Why a name cannot be an API's, or undefined. */
export function nameProblem(name: string, taken: string[]): string | undefined {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) return `"${name}" is not a name for an API: lower-case letters, digits and single hyphens, starting with a letter (it names openapi/<name>/, generated/<name>/ and the client package)`;
  if (name === "utilities") return `"utilities" is the workflows' helper description: choose another name`;
  if (taken.includes(name)) return `redocly.yaml already has an API named ${name}`;
  return undefined;
}

/** The redocly.yaml version suffix for a description version: 1.2.1 -> v1, 0.3.0 -> v0. */
export function versionTag(version: unknown): string {
  const major = /^v?(\d+)/.exec(String(version ?? ""))?.[1];
  return `v${major ?? "1"}`;
}

/** redocly.yaml's text with the entry added to `apis:`, comments and the other entries kept. */
export function withApiEntry(configText: string, key: string, root: string): string {
  const doc = YAML.parseDocument(configText);
  if (!doc.has("apis")) doc.set("apis", doc.createNode({}));
  doc.setIn(["apis", key], doc.createNode({ root }));
  return doc.toString();
}

function fail(message: string): never {
  console.error(`add-api: ${message}`);
  process.exit(2);
}

async function main(args: string[]): Promise<void> {
  const versionAt = args.indexOf("--version");
  const versionFlag = versionAt >= 0 ? args.splice(versionAt, 2)[1] : undefined;
  const [name, source, ...rest] = args;
  if (!name || !source || rest.length) fail(USAGE);
  const config = configFile();
  const root = path.dirname(config);
  const taken = existsSync(config) ? readApis(config).map((a) => a.name) : [];
  const problem = nameProblem(name, taken);
  if (problem) fail(problem);
  const isUrl = /^https?:\/\//i.test(source);
  if (!isUrl && !existsSync(source)) fail(`${source}: no such file (give a description file or an http(s) URL)`);
  const notOpenApi = (what: unknown) => `${source} is not an OpenAPI 3 description (its "openapi" field is ${JSON.stringify(what)})`;
  if (!isUrl) {
    // A local file is looked at first: Redocly's own refusal ("Unsupported specification") says less.
    let first: { openapi?: unknown } | undefined;
    try {
      first = YAML.parse(readFileSync(source, "utf8")) as typeof first;
    } catch (error) {
      fail(`${source} is neither YAML nor JSON: ${(error as Error).message.split("\n")[0]}`);
    }
    if (typeof first?.openapi !== "string" || !first.openapi.startsWith("3.")) fail(notOpenApi(first?.openapi));
  }

  // Bundled into a temporary file first: a description Redocly cannot read leaves the project untouched.
  const work = mkdtempSync(path.join(tmpdir(), "add-api-"));
  try {
    const bundled = path.join(work, "openapi.yaml");
    console.log(`add-api: reading ${source}...`);
    const bundle = redoclyCommand(["bundle", isUrl ? source : path.resolve(source), "--output", bundled, "--ext", "yaml"]);
    // Run outside the project: the project's decorators and rules are for its own descriptions.
    const run = spawnSync(bundle.command, bundle.args, { cwd: work, env: bundle.env, encoding: "utf8" });
    if (run.status !== 0 || !existsSync(bundled)) {
      const said = `${run.stdout}\n${run.stderr}`.split("\n").filter((l) => l.trim() && !/[║═╔╗╚╝]/.test(l));
      fail(`Redocly could not read ${source}:\n${said.slice(-10).join("\n")}`);
    }
    const doc = (YAML.parse(readFileSync(bundled, "utf8")) ?? {}) as { openapi?: unknown; info?: { title?: string; version?: string }; paths?: object; webhooks?: object };
    if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.")) fail(notOpenApi(doc.openapi));
    if (!doc.openapi.startsWith("3.1")) console.warn(`add-api: ${source} is OpenAPI ${doc.openapi}; the toolkit is made for 3.1 (the checks read 3.0's nullable and exclusive bounds as 3.0 means them)`);
    const hasPaths = Boolean(doc.paths && Object.keys(doc.paths).length);
    // OpenAPI 3.1 lets a description hold only webhooks (what the API sends): its docs, types and lint work; there is nothing to mock or check.
    if (!hasPaths && !(doc.webhooks && Object.keys(doc.webhooks).length)) fail(`${source} describes no paths and no webhooks: nothing to document, mock or check`);
    if (!hasPaths) console.warn(`add-api: ${source} describes only webhooks: its docs, types and lint work; the mock, validate, proxy and conformance have no paths to serve or check`);

    const relativeRoot = path.posix.join("openapi", name, "openapi.yaml");
    const target = path.join(root, relativeRoot);
    if (existsSync(target)) fail(`${relativeRoot} already exists: remove it or choose another name`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(bundled, "utf8"));
    const key = `${name}@${versionFlag ?? versionTag(doc.info?.version)}`;
    writeFileSync(config, withApiEntry(existsSync(config) ? readFileSync(config, "utf8") : "", key, relativeRoot));
    console.log(`add-api: ${relativeRoot} written; redocly.yaml: apis.${key} added`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  // What `npm run generate -- <name>` and `npm run lint:descriptions -- <name>` run, here in this
  // process (they were two more npm and tsx start-ups); loaded only now, so a refusal costs nothing.
  const added = readApis(config).filter((a) => a.name === name);
  const [{ generateApis }, { lintApis }] = await Promise.all([import("./generate.ts"), import("./lint.ts")]);
  console.log(`add-api: npm run generate -- ${name} (bundle, types, client, client package)...`);
  try {
    await generateApis(added);
  } catch (error) {
    console.error((error as Error).message);
    fail(`npm run generate -- ${name} failed (above); the description is in place: fix it and run it again`);
  }
  console.log(`add-api: npm run lint:descriptions -- ${name}...`);
  const lintPassed = lintApis(added, root);
  console.log(`
${name} is added${lintPassed ? "" : ` (the lint found problems, above: npm run lint:descriptions -- ${name} shows them again; to take the description as it is, npx redocly lint ${added[0]?.redoclyName ?? name} --generate-ignore-file records them)`}. Every command now knows it:
  npm run mock -- ${name}                      the mock, errors in the envelope its description documents
  npm run docs                                 dist/docs/${name}.html
  npm run proxy -- ${name} <server-url>        a validating proxy in front of a server of it
  npm run validate -- ${name} <file.har>       recorded traffic checked against it
  npm run conformance -- ${name} <server-url>  a server of it checked against it
  npm run diff -- <git-ref>                    breaking changes (commit it first)
Its client package is packages/${name}-client (npm run pack:clients). Walk-through: docs/own-api.md`);
}

if (isProgram(import.meta.url)) await main(process.argv.slice(2));
