// The secrets server's settings from the environment, and the files they point to.
import { readDataFile } from "../shared/data-file.ts";
import type { SecretsAppOptions } from "./app.ts";
import { SEAL_TYPES, shareConfigProblem, type SealType } from "./sys/seal.ts";
import { parseWorld } from "./world.ts";

export interface SecretsEnvironment extends SecretsAppOptions {
  port: number;
  /** Where to write the keys and root token at start (SECRETS_INIT_FILE). */
  initFile?: string;
}

export function secretsOptionsFromEnv(env: NodeJS.ProcessEnv): SecretsEnvironment {
  const seal = (env.SECRETS_SEAL || "shamir") as SealType;
  if (!SEAL_TYPES.includes(seal)) throw new Error(`SECRETS_SEAL=${env.SECRETS_SEAL}: expected one of ${SEAL_TYPES.join(", ")}`);
  const shares = {
    secret_shares: integer(env, "SECRETS_DEV_SHARES", 5),
    secret_threshold: integer(env, "SECRETS_DEV_THRESHOLD", 3),
  };
  const problem = shareConfigProblem(shares);
  if (problem) throw new Error(`SECRETS_DEV_SHARES=${shares.secret_shares}, SECRETS_DEV_THRESHOLD=${shares.secret_threshold}: ${problem}`);
  return {
    port: integer(env, "SECRETS_PORT", 8200),
    seal,
    shares,
    rootToken: env.SECRETS_ROOT_TOKEN || undefined,
    world: env.SECRETS_WORLD ? parseWorld(readDataFile(env.SECRETS_WORLD, "SECRETS_WORLD"), `SECRETS_WORLD=${env.SECRETS_WORLD}`) : undefined,
    initFile: env.SECRETS_INIT_FILE || undefined,
    ...(env.SECRETS_DATA_DIR ? { dataDir: env.SECRETS_DATA_DIR } : {}),
    // The cluster listener (replication traffic): the API port + 1 unless set.
    ...(env.SECRETS_CLUSTER_PORT ? { replication: { clusterPort: integer(env, "SECRETS_CLUSTER_PORT", 8201) } } : {}),
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text)) throw new Error(`${name}=${text}: expected a whole number`);
  return Number(text);
}
