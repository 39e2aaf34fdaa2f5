// Builds the published reference into dist/docs/: index.html, one self-contained Redoc page per API
// (<api>.html) and the docs bundles they show (openapi/<api>.json, with code samples).
// `npm run docs -- <api>...` builds the pages of those APIs only.
import path from "node:path";
import { APIS } from "./apis.ts";
import { buildDocs } from "./docs/build.ts";

const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = names.filter((n) => !APIS.some((a) => a.name === n));
if (unknown.length) {
  console.error(`docs: no API ${unknown.join(", ")} in redocly.yaml (APIs: ${APIS.map((a) => a.name).join(", ")})`);
  process.exit(2);
}
const apis = names.length ? APIS.filter((a) => names.includes(a.name)) : APIS;
console.log(`docs: building ${apis.map((a) => a.name).join(", ")} with Redocly (a few seconds)...`);
const build = await buildDocs({ apis });
const where = path.relative(process.cwd(), build.outDir) || ".";
for (const page of build.pages) console.log(`${where}/${page.file}: ${page.api.title}, ${page.operations} operations`);
console.log(`${where}/index.html: built in ${(build.milliseconds / 1000).toFixed(1)} s`);
