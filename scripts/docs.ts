// Builds the published reference into dist/docs/: index.html, one self-contained Redoc page per API
// (<api>.html) and the docs bundles they show (openapi/<api>.json, with code samples).
import path from "node:path";
import { buildDocs } from "./docs/build.ts";

const build = await buildDocs();
const where = path.relative(process.cwd(), build.outDir) || ".";
for (const page of build.pages) console.log(`${where}/${page.file}: ${page.api.title}, ${page.operations} operations`);
console.log(`${where}/index.html: built in ${(build.milliseconds / 1000).toFixed(1)} s`);
