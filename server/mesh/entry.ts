// Starts the mesh reference server for server/main.ts.
import { listen, portOf, type ServiceEntry } from "../shared/service-entry.ts";
import { createMeshApp, MESH_BASE_PATH, MESH_DEFAULT_VERSION } from "./app.ts";
import { meshOptionsFromEnv } from "./config.ts";

export const meshEntry: ServiceEntry = {
  name: "mesh",
  async start(host, env) {
    const options = meshOptionsFromEnv(env);
    const server = await listen(createMeshApp(options).app, host, options.port);
    return {
      servers: [server],
      summary: [
        `mesh (service-mesh discovery chain)  http://${host}:${portOf(server)}${MESH_BASE_PATH}`,
        `  version ${options.version ?? MESH_DEFAULT_VERSION}, datacenter ${options.datacenter}, cluster id ${options.clusterId}, SNI domain ${options.domain}`,
        options.managementToken
          ? `  ACLs enforced; management token (X-Mesh-Token): ${options.managementToken}`
          : "  ACLs off (set MESH_MANAGEMENT_TOKEN to enforce them)",
        `  ${options.entries?.length ?? 0} configuration entries loaded${env.MESH_CONFIG_FILE ? ` from ${env.MESH_CONFIG_FILE}` : ""}`,
      ],
    };
  },
};
