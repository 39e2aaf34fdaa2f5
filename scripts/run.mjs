// `node scripts/run.mjs <script.ts> [arguments]`: what the npm scripts run (package.json). The
// TypeScript script runs as `npm start` runs the servers: bundled by esbuild into .build/run/ (packages
// left to node_modules; rebuilt only when a file it was built from changed), then imported, with
// source maps on so that stack traces name the .ts files. Through tsx every start transformed and
// resolved each module through a loader thread, in a second node process: about 0.3-0.6 s of CPU a
// command more (docs/testing.md). The script sees the argv tsx gave it: [node, <script.ts>, ...].
import path from "node:path";
import { pathToFileURL } from "node:url";
import { upToDateBundle } from "./module-location.mjs";

const root = path.resolve(import.meta.dirname, "..");
const [given, ...args] = process.argv.slice(2);
if (!given || !given.endsWith(".ts")) {
  console.error("usage: node scripts/run.mjs <script.ts> [arguments]");
  process.exit(2);
}
const script = path.resolve(given);
const name = path.relative(root, script).replace(/\.ts$/, "").split(path.sep).join("-");
const bundle = await upToDateBundle(root, script, path.join(root, ".build", "run", `${name}.mjs`));
process.argv = [process.argv[0], script, ...args];
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundle).href);
