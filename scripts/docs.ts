// Builds the published reference: one Redocly page per API in dist/docs/, plus an index page.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { APIS } from "./apis.ts";

const root = path.resolve(import.meta.dirname, "..");
const outDir = path.join(root, "dist", "docs");
mkdirSync(outDir, { recursive: true });

for (const api of APIS) {
  execFileSync(path.join(root, "node_modules", ".bin", "redocly"), ["build-docs", api.redoclyName, "--output", path.join(outDir, `${api.name}.html`)], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
}

const items = APIS.map(
  (api) =>
    `<li><a href="${api.name}.html">${api.title}</a> &mdash; reference server <code>http://127.0.0.1:${api.serverPort}${api.basePath}</code>, Prism mock <code>http://127.0.0.1:${api.mockPort}</code></li>`,
).join("\n      ");
writeFileSync(
  path.join(outDir, "index.html"),
  `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>API reference</title></head>
  <body>
    <h1>API reference</h1>
    <p>Contract-first descriptions (OpenAPI 3.1) of the APIs below, with a stateful reference server
    (<code>npm start</code>) and a stateless Prism mock (<code>npm run mock</code>).</p>
    <ul>
      ${items}
    </ul>
  </body>
</html>
`,
);
console.log(`dist/docs: index.html, ${APIS.map((a) => `${a.name}.html`).join(", ")}`);
