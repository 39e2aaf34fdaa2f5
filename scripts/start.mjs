// `npm start`: runs server/main.ts as one JavaScript bundle (esbuild, packages left to node_modules)
// instead of through tsx, which transforms every module on every start and runs the server in a
// second node process. The bundle is rebuilt when any file it was built from changed (or the
// checkout moved); otherwise the last one is run as it is. Measured with `npm run bench -- startup`.
import { build } from "esbuild";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { serverBundle } from "./module-location.mjs";

const root = path.resolve(import.meta.dirname, "..");
const entry = path.join(root, "server", "main.ts");
const outDir = path.join(root, ".build");
const bundle = path.join(outDir, "server.mjs");
const manifestFile = path.join(outDir, "server.inputs.json");

/** Whether the bundle was built here from exactly the files as they are now. */
function upToDate() {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    if (manifest.root !== root || manifest.node !== process.version) return false;
    statSync(bundle);
    return Object.entries(manifest.inputs).every(([file, mtime]) => statSync(path.join(root, file)).mtimeMs === mtime);
  } catch {
    return false;
  }
}

async function rebuild() {
  const result = await build({ ...serverBundle(root, entry, bundle), write: false, metafile: true, sourcemap: "linked" });
  mkdirSync(outDir, { recursive: true });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, statSync(path.join(root, file)).mtimeMs]));
  // Written aside and renamed: two starts at once never run half a file.
  const suffix = `.${process.pid}.tmp`;
  for (const file of result.outputFiles) {
    writeFileSync(file.path + suffix, file.contents);
    renameSync(file.path + suffix, file.path);
  }
  writeFileSync(manifestFile + suffix, JSON.stringify({ root, node: process.version, inputs }));
  renameSync(manifestFile + suffix, manifestFile);
}

if (!upToDate()) await rebuild();
process.setSourceMapsEnabled(true); // stack traces name the .ts files
await import(pathToFileURL(bundle).href);
