// An esbuild plugin for bundles of the servers (scripts/start.mjs, bench/profile.ts): modules find
// their data files (descriptions, schemas) from their own place in the tree, and in a bundle they
// keep that place (import.meta.dirname and import.meta.url written out per source file).
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
