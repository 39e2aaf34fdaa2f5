// npm run proxy -- <api> <upstream-url> [--port N] [--host H] [--allow-unknown-query] [--violations-only] [--record FILE.har]
// A validating proxy in front of a real implementation of one of the APIs: clients call the proxy
// (same paths, same base path), the proxy forwards to <upstream-url> (base path included) and
// prints every exchange, with each way the request or the response breaks the description
// (scripts/contract/proxy.ts). --record FILE.har writes every exchange that passed through to a HAR
// file, kept up to date as they come (`npm run validate -- <api> FILE.har` reads it back). Ctrl-C
// prints a summary; the exit status is 1 if anything broke it.
import { APIS, readBundle } from "./apis.ts";
import { formatExchange, HarFileWriter, startValidatingProxy } from "./contract/proxy.ts";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const has = (name: string) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const portText = flag("--port");
const host = flag("--host") ?? "127.0.0.1";
const allowUnknownQuery = has("--allow-unknown-query");
const violationsOnly = has("--violations-only");
const record = flag("--record");
const [apiName, upstream] = args;
const api = APIS.find((a) => a.name === apiName);
const usage = `usage: npm run proxy -- <${APIS.map((a) => a.name).join("|")}> <upstream-url> [--port N] [--host H] [--allow-unknown-query] [--violations-only] [--record FILE.har]`;
if (!api || !upstream) {
  console.error(usage);
  process.exit(2);
}
try {
  const u = new URL(upstream);
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
} catch {
  console.error(`proxy: ${upstream} is not an http(s) URL\n${usage}`);
  process.exit(2);
}
// Default: the reference server's port + 1000 (9500 for 8500); any free port for an API served elsewhere.
const port = portText === undefined ? (api.hasReferenceServer ? api.serverPort + 1000 : 0) : Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`proxy: --port ${portText}: not a port number`);
  process.exit(2);
}

let exchanges = 0;
let broken = 0;
let recorder: HarFileWriter | undefined;
if (record) {
  try {
    recorder = new HarFileWriter(record);
  } catch (error) {
    console.error(`proxy: --record ${record}: ${(error as Error).message}`);
    process.exit(2);
  }
}
const doc = readBundle(api);
try {
  const proxy = await startValidatingProxy(
    {
      doc,
      basePath: api.basePath,
      upstream,
      unknownQueryParameters: allowUnknownQuery ? "allow" : "refuse",
      onExchange(e) {
        exchanges++;
        if (e.violations.length) broken++;
        try {
          recorder?.append(e.entry);
        } catch (error) {
          console.error(`proxy: --record ${record}: ${(error as Error).message}; recording stopped (the file holds the exchanges before)`);
          recorder = undefined;
        }
        if (!violationsOnly || e.violations.length) for (const line of formatExchange(e)) console.log(line);
      },
    },
    host,
    port,
  );
  console.log(`${api.title}: validating proxy on ${proxy.url} → ${upstream} (checked against generated/${api.name}/openapi.json). Ctrl-C stops.`);
  const stop = async () => {
    await proxy.close();
    console.log(`${exchanges} exchange(s), ${broken} breaking the description${record ? `; recorded in ${record}` : ""}`);
    process.exit(broken ? 1 : 0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(code === "EADDRINUSE" ? `proxy: --port ${port}: port ${port} on ${host} is in use` : `proxy: ${(error as Error).message}`);
  process.exit(2);
}
