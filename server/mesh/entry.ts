// Starts the mesh reference server for server/main.ts.
import { listen, portOf, type ServiceEntry } from "../shared/service-entry.ts";
import { createMeshApp, MESH_BASE_PATH, MESH_DEFAULT_VERSION } from "./app.ts";
import { meshOptionsFromEnv } from "./config.ts";
import { MESH_RAW_ANSWERS } from "./errors.ts";

export const meshEntry: ServiceEntry = {
  name: "mesh",
  async start(host, env) {
    const options = meshOptionsFromEnv(env);
    const mesh = createMeshApp(options);
    let server;
    try {
      server = await listen(mesh.app, host, options.port, MESH_RAW_ANSWERS);
    } catch (error) {
      mesh.data?.close();
      throw error;
    }
    server.once("close", () => mesh.data?.close());
    const clusterId = mesh.service.settings.trustDomain.slice(0, -`.${options.domain}`.length);
    return {
      servers: [server],
      summary: [
        `mesh (service-mesh discovery chain)  http://${host}:${portOf(server)}${MESH_BASE_PATH}`,
        `  version ${options.version ?? MESH_DEFAULT_VERSION}, datacenter ${options.datacenter}, cluster id ${clusterId}, SNI domain ${options.domain}`,
        mesh.data
          ? `  data directory ${mesh.data.path} (${mesh.data.created ? "new" : "reopened"}): entries, ACLs and indexes survive restarts`
          : "  state in memory (set MESH_DATA_DIR to keep it)",
        options.managementToken
          ? `  ACLs enforced; management token (X-Mesh-Token): ${options.managementToken}`
          : "  ACLs off (set MESH_MANAGEMENT_TOKEN to enforce them)",
        `  ${options.entries?.length ?? 0} configuration entries loaded${env.MESH_CONFIG_FILE ? ` from ${env.MESH_CONFIG_FILE}` : ""}`,
      ],
    };
  },
};
