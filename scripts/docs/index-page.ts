// The docs site's index page: what each API is, where its reference server and Prism mock answer,
// how it authenticates and which wire conventions it follows. Authentication comes from each
// bundle's security schemes, so the page says what the description says. Pure: no I/O.
import { isObject, operationsOf, type JsonObject, type OpenApiDoc } from "../contract/document.ts";
import type { ApiInfo } from "../apis.ts";
import { baseUrlOf, tokenVariable } from "./code-samples.ts";

/** Wire conventions worth knowing before the first call, by API name (markdown code spans allowed). */
export const CONVENTIONS: Record<string, string[]> = {
  "org-platform": [
    "[JSON:API](https://jsonapi.org) documents with the media type `application/vnd.api+json`; attribute names are lower-case and hyphenated.",
    "Lists are paginated with `page[number]` and `page[size]` and answer `meta.pagination` and `links`.",
    'Errors are JSON:API error documents, `{"errors": [{"status", "title", "detail", "source"}]}`: `401` without a valid token, `404` for anything the caller may not see, `422` for a bad body.',
  ],
  secrets: [
    "JSON bodies with snake_case keys; `POST` and `PUT` mean the same.",
    'Errors are `{"errors": ["message"]}`: `400` bad input, `403` `permission denied`, `404` nothing mounted or no such object.',
    "List operations use the `LIST` method, also accepted as `GET` with `list=true`.",
  ],
  mesh: [
    "JSON bodies with PascalCase keys (configuration-entry writes also accept snake_case).",
    "Errors are plain text (`text/plain`): `400` bad input naming the field, `403` `Permission denied` or `ACL not found`, `404` no such entry.",
    "Reads are blocking queries: send an answer's `X-Mesh-Index` back as `index` (with `wait`) to wait for a change.",
  ],
};

export interface IndexEntry {
  api: ApiInfo;
  /** The bundle the page was built from. */
  doc: OpenApiDoc;
}

/** How the API's requests carry credentials, one line per alternative, from its security schemes. */
export function authenticationOf(doc: OpenApiDoc): { lines: string[]; optional: boolean } {
  const requirements = Array.isArray(doc.security) ? doc.security : [];
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const lines: string[] = [];
  let optional = false;
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const names = Object.keys(requirement);
    if (!names.length) optional = true;
    for (const name of names) {
      const scheme = schemes[name] as JsonObject | undefined;
      if (!isObject(scheme)) continue;
      let how: string;
      if (scheme.type === "apiKey") how = scheme.in === "header" ? `\`${scheme.name}: <token>\` header` : `\`${scheme.name}\` ${scheme.in} parameter`;
      else if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") how = "`Authorization: Basic <credentials>` header";
      else how = "`Authorization: Bearer <token>` header";
      lines.push(typeof scheme.description === "string" ? `${how}: ${scheme.description.trim()}` : how);
    }
  }
  return { lines, optional };
}

/** Tags that hold text rather than operations (`x-traitTag`), such as a changelog. */
export function traitTags(doc: OpenApiDoc): { name: string; displayName: string; description: string }[] {
  return (Array.isArray(doc.tags) ? doc.tags : [])
    .filter((t): t is JsonObject => isObject(t) && t["x-traitTag"] === true && typeof t.name === "string")
    .map((t) => ({
      name: String(t.name),
      displayName: typeof t["x-displayName"] === "string" ? t["x-displayName"] : String(t.name),
      description: typeof t.description === "string" ? t.description : "",
    }));
}

/** Redoc's route of a tag: "#/" and the tag's name, lower-cased, spaces as "-". */
export function tagRoute(name: string): string {
  return `#/${name.trim().toLowerCase().replace(/\s+/g, "-")}`;
}

export function indexPage(entries: IndexEntry[]): string {
  const sections = entries.map(({ api, doc }) => apiSection(api, doc)).join("\n");
  const toc = entries.map(({ api }) => `<li><a href="${api.name}.html">${escapeHtml(api.title)}</a></li>`).join("\n        ");
  return htmlPage(
    "API reference",
    `    <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
      h1 { margin-bottom: 0.25rem; }
      section { border-top: 1px solid #d0d7de; margin-top: 2rem; }
      dt { font-weight: 600; margin-top: 0.75rem; }
      dd { margin-left: 1rem; }
      code { background: #f6f8fa; padding: 0.1em 0.3em; border-radius: 4px; font-size: 90%; }
      ul { padding-left: 1.25rem; margin: 0.25rem 0; }
    </style>`,
    `    <h1>API reference</h1>
    <p>Hand-written OpenAPI 3.1 descriptions are the single source of truth for these APIs. Each has a
    stateful <strong>reference server</strong> (<code>npm start</code>) that implements the real behaviour and
    validates every request and response against its description, and a stateless <strong>Prism mock</strong>
    (<code>npm run mock</code>) that answers from the description's examples.</p>
    <nav>
      <ul>
        ${toc}
      </ul>
    </nav>
    <p>Every operation's page shows request and response examples and code samples: <code>curl</code> and
    TypeScript with the generated <a href="https://openapi-ts.dev/openapi-fetch/">openapi-fetch</a> client
    (the package <code>@contract-first/&lt;api&gt;-client</code>, built by <code>npm run pack:clients</code>). The samples call the reference server and read the token
    from an environment variable. Against the mock, pick a documented answer with the
    <code>Prefer</code> header: <code>Prefer: code=404</code>, <code>Prefer: example=&lt;name&gt;</code>, or both.</p>
${sections}`,
  );
}

/** A page of the published docs: its title, what its head adds (styles, scripts) and its body, each given indented. */
export function htmlPage(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>${escapeHtml(title)}</title>
${head}
  </head>
  <body>
${body}
  </body>
</html>
`;
}

function apiSection(api: ApiInfo, doc: OpenApiDoc): string {
  const info = isObject(doc.info) ? doc.info : {};
  const operations = operationsOf(doc).length;
  const summary = typeof info.summary === "string" ? info.summary : "";
  const auth = authenticationOf(doc);
  const authItems = auth.lines.map((line) => `<li>${inline(line)}</li>`);
  if (auth.optional) authItems.push("<li>Optional: the description also allows requests without credentials.</li>");
  const conventions = (CONVENTIONS[api.name] ?? []).map((c) => `<li>${inline(c)}</li>`);
  const extra = traitTags(doc).map((t) => `<li><a href="${api.name}.html${tagRoute(t.name)}">${escapeHtml(t.displayName)}</a></li>`);
  const list = (items: string[], none: string) => (items.length ? `<ul>\n          ${items.join("\n          ")}\n        </ul>` : none);
  return `    <section id="${api.name}">
      <h2><a href="${api.name}.html">${escapeHtml(api.title)}</a></h2>
      <p>${summary ? inline(summary) : "Not described yet."} <a href="${api.name}.html">Reference</a> (${operations} operation${operations === 1 ? "" : "s"}),
      <a href="${api.name}-try.html">try it</a> (send requests from this page),
      <a href="openapi/${api.name}.json">description with code samples</a> (JSON).</p>
      <dl>
        <dt>${api.hasReferenceServer ? "Reference server" : "Server"}</dt>
        <dd><code>${baseUrlOf(api)}</code> (${api.hasReferenceServer ? "<code>npm start</code>" : "from the description"})</dd>
        <dt>Prism mock</dt>
        <dd><code>http://127.0.0.1:${api.mockPort}</code> (<code>npm run mock</code>; the same paths, without the <code>${escapeHtml(api.basePath)}</code> prefix)</dd>
        <dt>Authentication</dt>
        <dd>${list(authItems, "Not described yet.")}
          The code samples read the token from <code>$${tokenVariable(api)}</code>.</dd>
        <dt>Conventions</dt>
        <dd>${list(conventions, "See the reference.")}</dd>${extra.length ? `\n        <dt>Also in the reference</dt>\n        <dd>${list(extra, "")}</dd>` : ""}
      </dl>
    </section>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Escapes text and renders markdown code spans and links, the only markdown the index uses. */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}
