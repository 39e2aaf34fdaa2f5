// How the servers are bundled (scripts/start.mjs for `npm start`; the benchmarks' children, bench/lib.ts):
// one ES module for Node 20, packages left to node_modules. Modules find their data files
// (descriptions, schemas) from their own place in the tree, and in a bundle they keep that place
// (import.meta.dirname, import.meta.filename and import.meta.url written out per source file).
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const moduleLocation = {
  name: "module-location",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const contents = source
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path))
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: "ts" };
    });
  },
};

/** esbuild options for a bundle of `entry` (relative to `root`) written to `outfile`. */
export function serverBundle(root, entry, outfile) {
  return {
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile,
    logLevel: "warning",
    plugins: [moduleLocation],
  };
}

/**
 * Builds `outfile` from `entry` (absolute paths under `root`) unless it was built here from exactly
 * the files as they are now (their modification times, kept beside it in <name>.inputs.json with the
 * checkout's place and the Node.js version). Written aside and renamed: two builds at once never
 * leave half a file for a start to run. Used by `npm start` (scripts/start.mjs) and by the tests that
 * run servers as child processes (test/helpers/child-server.ts).
 */
export async function upToDateBundle(root, entry, outfile) {
  const manifestFile = outfile.replace(/\.mjs$/, "") + ".inputs.json";
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
    statSync(outfile);
    if (manifest.root === root && manifest.node === process.version && Object.entries(manifest.inputs).every(([file, mtime]) => statSync(path.join(root, file)).mtimeMs === mtime)) return outfile;
  } catch {
    // No bundle yet, or a file it was built from is gone: built below.
  }
  const { build } = await import("esbuild");
  const result = await build({ ...serverBundle(root, entry, outfile), write: false, metafile: true, sourcemap: "linked" });
  mkdirSync(path.dirname(outfile), { recursive: true });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((file) => [file, statSync(path.join(root, file)).mtimeMs]));
  const suffix = `.${process.pid}.tmp`;
  for (const file of result.outputFiles) {
    writeFileSync(file.path + suffix, file.contents);
    renameSync(file.path + suffix, file.path);
  }
  writeFileSync(manifestFile + suffix, JSON.stringify({ root, node: process.version, inputs }));
  renameSync(manifestFile + suffix, manifestFile);
  return outfile;
}
