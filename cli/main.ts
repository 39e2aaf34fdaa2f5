// contract-toolkit <verb> [options]: the toolkit as one command. Each verb is the script `npm run`
// runs in this repository (same options, same output); the installed package runs them from its
// JavaScript bundle (cli/build.ts), so nothing is compiled at run time. The Node.js version was
// checked before this module loaded (cli/bin.mjs).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

export interface Verb {
  /** The script, relative to the repository root; its bundle is dist/verb-<name>.mjs. */
  script: string;
  usage: string;
  summary: string;
}

export const VERBS: Record<string, Verb> = {
  serve: { script: "server/main.ts", usage: "serve", summary: "the stateful reference servers of org-platform, secrets and mesh (ports: ORG_PLATFORM_PORT, SECRETS_PORT, MESH_PORT)" },
  mock: { script: "scripts/mock.ts", usage: "mock [<api>...]", summary: "a mock of every API (or those named): examples for good requests, the API's error envelope for bad ones" },
  validate: { script: "scripts/validate-har.ts", usage: "validate <api> <file.har> [--base-path P] [--allow-unknown-query]", summary: "recorded traffic (HAR) checked against the description" },
  proxy: { script: "scripts/proxy.ts", usage: "proxy <api> <upstream-url> [--port N] [--record FILE.har]", summary: "a validating proxy in front of a server of the API" },
  diff: { script: "scripts/diff.ts", usage: "diff <git-ref> | diff <old> <new> [--markdown | --json]", summary: "breaking changes between two refs, two files or two URLs" },
  conformance: { script: "scripts/conformance.ts", usage: 'conformance <api> <base-url> [--header "Name: value"]... [--query name=value]...', summary: "a server checked against the description: the API's workflows, then generated requests" },
  docs: { script: "scripts/docs.ts", usage: "docs [<api>...]", summary: "the published reference, into dist/docs/" },
  lint: { script: "scripts/lint.ts", usage: "lint [<api>...]", summary: "Redocly lint of the descriptions, as redocly.yaml sets its rules (errors fail, warnings are printed)" },
  workflows: { script: "scripts/workflows.ts", usage: "workflows [<file.arazzo.yaml>...]", summary: "the Arazzo workflows against reference servers (or mocks) started for them" },
};

function help(version: string): string {
  return [
    `contract-toolkit ${version}: mocks, serves and checks OpenAPI 3.1 APIs`,
    "",
    "usage: contract-toolkit [--config redocly.yaml] <verb> [options]",
    "",
    ...Object.values(VERBS).flatMap((v) => [`  ${v.usage}`, `      ${v.summary}`]),
    "",
    "The APIs are those of redocly.yaml's `apis:` (--config, or the nearest redocly.yaml from here up);",
    "without one, the toolkit's own three APIs. `contract-toolkit <verb> --help` shows a verb's options.",
  ].join("\n");
}

/** Set by the package build (cli/build.ts): the CLI runs from its bundle. */
declare const __TOOLKIT_BUNDLE__: boolean | undefined;
declare const __TOOLKIT_VERSION__: string | undefined;
const bundled = typeof __TOOLKIT_BUNDLE__ !== "undefined" && __TOOLKIT_BUNDLE__;

/** Where the verb's module is: its bundle in the package's dist/, or the TypeScript source in the repository. */
function moduleOf(name: string, verb: Verb): string {
  const toolkit = path.resolve(import.meta.dirname, "..");
  return pathToFileURL(bundled ? path.join(toolkit, "dist", `verb-${name}.mjs`) : path.join(toolkit, verb.script)).href;
}

export async function main(argv: string[], version = typeof __TOOLKIT_VERSION__ === "string" ? __TOOLKIT_VERSION__ : "dev"): Promise<void> {
  const verbAt = argv.findIndex((a) => Object.hasOwn(VERBS, a));
  const globalArgs = verbAt < 0 ? argv : argv.slice(0, verbAt);
  let options: { config?: string; help?: boolean; version?: boolean };
  try {
    const parsed = parseArgs({ args: globalArgs, options: { config: { type: "string", short: "c" }, help: { type: "boolean", short: "h" }, version: { type: "boolean" } }, strict: true, allowPositionals: true });
    options = parsed.values;
    if (parsed.positionals.length) {
      console.error(`contract-toolkit: no verb ${JSON.stringify(parsed.positionals[0])}\n\n${help(version)}`);
      process.exit(2);
    }
  } catch (error) {
    console.error(`contract-toolkit: ${(error as Error).message}\n\n${help(version)}`);
    process.exit(2);
  }
  if (options.version) return void console.log(version);
  if (verbAt < 0) {
    return void console.log(help(version));
  }
  if (options.config) process.env.TOOLKIT_CONFIG = path.resolve(options.config);
  const name = argv[verbAt]!;
  const verb = VERBS[name]!;
  const rest = argv.slice(verbAt + 1);
  const file = moduleOf(name, verb);
  // The verb's script reads its arguments from process.argv, as under `npm run`, and knows it is
  // the program by its own (source) file name there.
  process.argv = [process.argv[0]!, path.resolve(import.meta.dirname, "..", verb.script), ...rest];
  try {
    await import(file);
  } catch (error) {
    // A sentence, not a stack trace: a missing redocly.yaml entry, a bundle not generated yet...
    console.error(`contract-toolkit ${name}: ${(error as Error).message}`);
    process.exit(2);
  }
}
