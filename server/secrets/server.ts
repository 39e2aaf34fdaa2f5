// Starts a secrets server: a cluster's app on an HTTP server that accepts the LIST method.
// Several can run in one process (each on its own port; port 0 picks a free one).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSecretsApp, SECRETS_BASE_PATH, type SecretsApp, type SecretsAppOptions } from "./app.ts";
import { acceptListMethod } from "./http/list-method.ts";

export interface RunningSecrets extends SecretsApp {
  server: Server;
  /** Base URL of the API, e.g. http://127.0.0.1:8200/v1 */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startSecretsServer(options: SecretsAppOptions = {}, host = "127.0.0.1", port = 0): Promise<RunningSecrets> {
  const secrets = await createSecretsApp(options);
  const server = createServer(secrets.app);
  acceptListMethod(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    ...secrets,
    server,
    port: actual,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}${SECRETS_BASE_PATH}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
