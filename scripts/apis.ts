// The registry of APIs: redocly.yaml's `apis:` (Redocly's own list, `<name>@<version>: { root }`)
// is the one list every command reads. What the toolkit needs beyond Redocly's fields is read
// from the description itself (title, server URL, base path) or from the entry's `x-toolkit`
// extension (mockPort), which Redocly accepts and ignores.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { configFile, projectRoot } from "./project.ts";

export interface ApiInfo {
  /** Folder under generated/, and the redocly.yaml api name before "@". */
  name: string;
  /** Name of the entry in redocly.yaml. */
  redoclyName: string;
  /** The description's root file, relative to the project root (openapi/<api>/openapi.yaml). */
  root: string;
  title: string;
  /** The description's first server URL, its variables at their defaults; "" when it has none. */
  serverUrl: string;
  /** Path of that URL: the base path under which the operations' paths are served. */
  basePath: string;
  /** Port of that URL (its scheme's default when it names none). */
  serverPort: number;
  mockPort: number;
  /** Name of the client factory exported by generated/<api>/client.ts. */
  clientFactory: string;
  /** Whether this toolkit has a stateful reference server for it (`npm start`, `serve`). */
  hasReferenceServer: boolean;
  /** The servers the published reference (and its try-it console) lists, when configured (x-toolkit.servers). */
  docsServers?: { url: string; description?: string }[];
}

/** The APIs this toolkit implements (server/<api>/): every other API gets the description-only tools. */
export const REFERENCE_SERVER_APIS = ["mesh", "org-platform", "secrets"];

/** The first mock port, and the step between APIs (4010, 4020, ...). */
const MOCK_PORT_BASE = 4000;

interface Entry {
  root?: string;
  "x-toolkit"?: { mockPort?: number; servers?: { url: string; description?: string }[] };
}

const camel = (name: string) => name.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, _sep, c: string) => c.toUpperCase());

/** The server URL with its variables at their defaults; relative URLs stay relative. */
export function serverUrlOf(doc: { servers?: { url?: string; variables?: Record<string, { default?: string }> }[] }): string {
  const server = doc.servers?.[0];
  if (!server?.url) return "";
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => server.variables?.[name]?.default ?? whole).replace(/\/+$/, "");
}

function urlParts(url: string): { basePath: string; port: number } {
  try {
    const u = new URL(url);
    return { basePath: u.pathname.replace(/\/+$/, ""), port: u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80 };
  } catch {
    // A relative server URL ("/v1"): a path only.
    return { basePath: url.startsWith("/") ? url.replace(/\/+$/, "") : "", port: 80 };
  }
}

/** The `apis:` entries of a redocly.yaml, as the toolkit sees them. Throws with a sentence on a bad entry. */
export function readApis(file = configFile()): ApiInfo[] {
  const root = path.dirname(file);
  if (!existsSync(file)) throw new Error(`${file} does not exist: the list of APIs is redocly.yaml's \`apis:\` (npm run add-api adds one)`);
  const config = (YAML.parse(readFileSync(file, "utf8")) ?? {}) as { apis?: Record<string, Entry> };
  const entries = Object.entries(config.apis ?? {});
  const used = new Set(entries.map(([, e]) => e["x-toolkit"]?.mockPort).filter((p): p is number => typeof p === "number"));
  let next = MOCK_PORT_BASE;
  return entries.map(([redoclyName, entry]) => {
    const name = redoclyName.split("@")[0]!;
    if (!entry?.root) throw new Error(`${path.basename(file)}: apis.${redoclyName} has no root`);
    const rootFile = path.resolve(root, entry.root);
    if (!existsSync(rootFile)) throw new Error(`${path.basename(file)}: apis.${redoclyName}: ${entry.root} does not exist`);
    const doc = (YAML.parse(readFileSync(rootFile, "utf8")) ?? {}) as { info?: { title?: string }; servers?: { url?: string }[] };
    const serverUrl = serverUrlOf(doc);
    const { basePath, port } = urlParts(serverUrl);
    let mockPort = entry["x-toolkit"]?.mockPort;
    if (mockPort === undefined) {
      do next += 10;
      while (used.has(next));
      mockPort = next;
      used.add(next);
    }
    return {
      name,
      redoclyName,
      root: path.relative(root, rootFile),
      title: doc.info?.title ?? name,
      serverUrl,
      basePath,
      serverPort: port,
      mockPort,
      clientFactory: `create${camel(name)}Client`,
      hasReferenceServer: REFERENCE_SERVER_APIS.includes(name),
      ...(Array.isArray(entry["x-toolkit"]?.servers) ? { docsServers: entry["x-toolkit"].servers } : {}),
    };
  });
}

/** Every API of the project's redocly.yaml. */
export const APIS: ApiInfo[] = readApis();

/** The API of that name; undefined when redocly.yaml has none. */
export const findApi = (name: string | undefined): ApiInfo | undefined => APIS.find((a) => a.name === name);

/** The project root the registry was read from. */
export const PROJECT_ROOT = path.dirname(configFile());

/** The bundle `npm run generate` wrote for an API: generated/<api>/openapi.json. */
export function bundlePath(api: Pick<ApiInfo, "name">, root = PROJECT_ROOT): string {
  return path.join(root, "generated", api.name, "openapi.json");
}

/** The API's bundle, parsed. Says how to make it when it is missing. */
export function readBundle<T = Record<string, unknown>>(api: Pick<ApiInfo, "name">, root = PROJECT_ROOT): T {
  const file = bundlePath(api, root);
  if (!existsSync(file)) throw new Error(`${path.relative(process.cwd(), file) || file} is missing: run \`npm run generate\` first`);
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

export { projectRoot };
