// Vitest's globalSetup (vitest.config.ts): one stateless mock per API for the whole run, shared by
// the test files that only send it requests (test/mock/prism.test.ts, test/mock/truth.test.ts, the
// per-API mock.test.ts files). Prism costs about 2-3 s of CPU to start, and those files used to start
// it thirteen times a run; now it starts at most once per API. The mock is stateless, so files
// cannot see each other's requests. Files that test how a mock starts or stops (`npm run mock`, the
// CLI, own-api) still start their own.
//
// Started on demand, not here: a run of one unrelated file starts no Prism, and a file asking for a
// mock waits only for that API's. Workers ask through a small HTTP server on 127.0.0.1
// (`GET /<api>` answers `{ url, prismUrl }` once the mock is ready, or 500 with why it is not);
// its address goes to the files through vitest's provide/inject (test/helpers/shared-mock.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { APIS } from "../../scripts/apis.ts";
import { startMock, type RunningMock } from "../../scripts/mock/start.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** http://127.0.0.1:<port>: where a file asks for an API's shared mock (test/helpers/shared-mock.ts). */
    sharedMocks: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = new Map<string, Promise<RunningMock>>();
  const server = createServer((req, res) => {
    const api = decodeURIComponent((req.url ?? "/").slice(1));
    if (!APIS.some((a) => a.name === api)) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end(`no API named ${JSON.stringify(api)} in redocly.yaml`);
      return;
    }
    let mock = started.get(api);
    if (!mock) started.set(api, (mock = startMock(api)));
    mock.then(
      (m) => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ url: m.url, prismUrl: m.prismUrl })),
      (error: unknown) => res.writeHead(500, { "Content-Type": "text/plain" }).end(`the ${api} mock did not start: ${String(error)}`),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("sharedMocks", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    server.close();
    await Promise.all([...started.values()].map((m) => m.then((mock) => mock.close(), () => undefined)));
  };
}
