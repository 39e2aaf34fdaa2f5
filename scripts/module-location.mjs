// How the servers are bundled (scripts/start.mjs for `npm start`; the benchmarks' children, bench/lib.ts):
// one ES module for Node 20, packages left to node_modules. Modules find their data files
// (descriptions, schemas) from their own place in the tree, and in a bundle they keep that place
// (import.meta.dirname and import.meta.url written out per source file).
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
