// `npm start`: runs server/main.ts as one JavaScript bundle (esbuild, packages left to node_modules)
// instead of through tsx, which transforms every module on every start and runs the server in a
// second node process. The bundle is rebuilt when any file it was built from changed (or the
// checkout moved); otherwise the last one is run as it is. Measured with `npm run bench -- startup`.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { upToDateBundle } from "./module-location.mjs";

const root = path.resolve(import.meta.dirname, "..");
const bundle = await upToDateBundle(root, path.join(root, "server", "main.ts"), path.join(root, ".build", "server.mjs"));
process.setSourceMapsEnabled(true); // stack traces name the .ts files
await import(pathToFileURL(bundle).href);
