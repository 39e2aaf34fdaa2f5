// Starts the secrets reference server for server/main.ts: prints its address, cluster id, root
// token and key shares, and writes them to SECRETS_INIT_FILE when it is set.
import { writeFileSync } from "node:fs";
import type { ServiceEntry } from "../shared/service-entry.ts";
import type { ClusterInit } from "./cluster.ts";
import { secretsOptionsFromEnv } from "./config.ts";
import { toBase64, toHex } from "./sys/key-encoding.ts";
import { startSecretsServer } from "./server.ts";

export const secretsEntry: ServiceEntry = {
  name: "secrets",
  async start(host, env) {
    const { port, initFile, ...options } = secretsOptionsFromEnv(env);
    const running = await startSecretsServer(options, host, port);
    // Closing the API server (npm start's stop, a test) stops the rest: leases, replication, the data directory.
    running.server.once("close", () => void running.close());
    const init = running.cluster.init;
    if (initFile && !init.restored) writeFileSync(initFile, JSON.stringify(initFileContent(init), null, 2) + "\n", { mode: 0o600 });
    const world = options.world;
    return {
      servers: [running.server, running.clusterServer],
      summary: [
        `secrets (secrets service)  ${running.url}`,
        `  cluster address (replication between clusters) ${running.clusterUrl}`,
        `  cluster id ${running.cluster.id}; seal ${init.seal}, ${init.shares.secret_shares} ${init.seal === "stored" ? "recovery key" : "unseal key"} shares, threshold ${init.shares.secret_threshold}`,
        `  root token (X-Secrets-Token): ${init.rootToken}`,
        ...(options.dataDir
          ? [
              init.restored
                ? `  restored from SECRETS_DATA_DIR=${options.dataDir} and unsealed from it: the key shares given out when it was initialized still apply`
                : `  initialized in SECRETS_DATA_DIR=${options.dataDir} (mode 700; it holds the root key): keep these key shares, they are printed only now`,
            ]
          : []),
        ...init.keys.map((key, i) => `  Unseal Key ${i + 1}: ${toBase64(key)}`),
        ...init.recoveryKeys.map((key, i) => `  Recovery Key ${i + 1}: ${toBase64(key)}`),
        world ? `  ${world.tokens.length} tokens and ${world.policies.length} policies from SECRETS_WORLD=${env.SECRETS_WORLD}` : "  no world file (SECRETS_WORLD): only the root token",
        ...(initFile ? [`  keys (hex and base64) and root token written to ${initFile}`] : []),
      ],
    };
  },
};

/** The init file, in the real system's `operator init -format=json` shape. */
export function initFileContent(init: ClusterInit) {
  return {
    keys: init.keys.map(toHex),
    keys_base64: init.keys.map(toBase64),
    ...(init.seal === "stored"
      ? { recovery_keys: init.recoveryKeys.map(toHex), recovery_keys_base64: init.recoveryKeys.map(toBase64) }
      : {}),
    root_token: init.rootToken,
  };
}
