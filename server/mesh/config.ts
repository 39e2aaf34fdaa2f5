// The mesh server's settings from the environment, and the files they point to.
import { readDataFile } from "../shared/data-file.ts";
import type { DeclaredToken } from "./acl-service.ts";
import type { ConfigEntry } from "./domain/entries.ts";
import type { MeshAppOptions } from "./app.ts";

export interface MeshEnvironment extends MeshAppOptions {
  port: number;
}

export function meshOptionsFromEnv(env: NodeJS.ProcessEnv): MeshEnvironment {
  return {
    port: portOf(env),
    datacenter: env.MESH_DATACENTER || "dc1",
    version: env.MESH_VERSION || undefined,
    // Unset: random, or the one kept in MESH_DATA_DIR.
    clusterId: env.MESH_CLUSTER_ID || undefined,
    domain: env.MESH_DOMAIN || "mesh",
    managementToken: env.MESH_MANAGEMENT_TOKEN || undefined,
    entries: env.MESH_CONFIG_FILE ? entriesFromFile(env.MESH_CONFIG_FILE) : [],
    tokens: env.MESH_ACL_FILE ? tokensFromFile(env.MESH_ACL_FILE) : [],
    dataDir: env.MESH_DATA_DIR || undefined,
  };
}

function portOf(env: NodeJS.ProcessEnv): number {
  const port = Number(env.MESH_PORT ?? 8500);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || env.MESH_PORT?.trim() === "") {
    throw new Error(`MESH_PORT=${env.MESH_PORT}: not a port number`);
  }
  return port;
}

function entriesFromFile(file: string): ConfigEntry[] {
  const data = readDataFile(file, "MESH_CONFIG_FILE");
  if (!Array.isArray(data)) throw new Error(`MESH_CONFIG_FILE=${file}: expected a list of configuration entries`);
  return data as ConfigEntry[];
}

function tokensFromFile(file: string): DeclaredToken[] {
  const data = readDataFile(file, "MESH_ACL_FILE");
  if (!Array.isArray(data)) throw new Error(`MESH_ACL_FILE=${file}: expected a list of tokens`);
  data.forEach((token: Partial<DeclaredToken>, i) => {
    if (typeof token?.SecretID !== "string" || token.SecretID === "") {
      throw new Error(`MESH_ACL_FILE=${file}: token [${i}] needs a SecretID`);
    }
  });
  return data as DeclaredToken[];
}
