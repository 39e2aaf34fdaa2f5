// Where things are. The project is the user's: redocly.yaml (its `apis:` list), the descriptions,
// generated/, workflows/, dist/. The toolkit is this code and the tools it runs (Redocly, Prism):
// inside this repository both are one folder; with the installed CLI the project is wherever it is
// run, and the tools are the package's dependencies.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Whether the module whose `import.meta.url` this is is the program node runs (`process.argv[1]`:
 * under `npm run`, scripts/run.mjs sets it to the script; the CLI to its verb's script), not a
 * module another one imported. Bundles keep each module's own URL (scripts/module-location.mjs).
 */
export function isProgram(moduleUrl: string): boolean {
  const program = process.argv[1];
  return program !== undefined && moduleUrl === pathToFileURL(path.resolve(program)).href;
}

/** The toolkit's own folder: this repository, or the installed package (which ships its three APIs). */
export const TOOLKIT_ROOT = path.resolve(import.meta.dirname, "..");

/**
 * The project's root: the folder of TOOLKIT_CONFIG (a redocly.yaml) when set, else the nearest
 * folder from the working directory up that holds a redocly.yaml, else the toolkit's own (its three
 * APIs: the installed CLI mocks, validates and checks them from an empty folder).
 */
export function projectRoot(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (env.TOOLKIT_CONFIG) return path.dirname(path.resolve(cwd, env.TOOLKIT_CONFIG));
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "redocly.yaml"))) return dir;
    if (path.dirname(dir) === dir) return TOOLKIT_ROOT;
  }
}

/** Where commands write what they make (dist/docs, dist/workflows): the project, or the working directory when the project is the toolkit's own. */
export function outputRoot(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const root = projectRoot(env, cwd);
  return root === TOOLKIT_ROOT && !path.resolve(cwd).startsWith(TOOLKIT_ROOT) ? path.resolve(cwd) : root;
}

/** The project's configuration file: TOOLKIT_CONFIG, or redocly.yaml at the project root. */
export function configFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  return env.TOOLKIT_CONFIG ? path.resolve(cwd, env.TOOLKIT_CONFIG) : path.join(projectRoot(env, cwd), "redocly.yaml");
}

const require = createRequire(import.meta.url);

/**
 * The command that runs a tool of a dependency (`node <its bin file>`), found through Node's module
 * resolution from this file: the repository's node_modules, or the installed package's.
 */
export function toolCommand(pkg: "@redocly/cli" | "@stoplight/prism-cli", bin: string): [string, string[]] {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin: bins } = require(manifest) as { bin: Record<string, string> };
  return [process.execPath, [path.join(path.dirname(manifest), bins[bin]!)]];
}

/** Redocly's command with `args` appended, and the environment that keeps it quiet. */
export function redoclyCommand(args: string[]): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const [command, prefix] = toolCommand("@redocly/cli", "redocly");
  return { command, args: [...prefix, ...args], env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } };
}
