// Starts the reference server of every API on its default address and prints how to reach it.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMeshApp, MESH_BASE_PATH } from "./mesh/app.ts";
import { meshOptionsFromEnv } from "./mesh/config.ts";

const host = process.env.HOST || "127.0.0.1";

function listen(app: import("express").Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, () => resolve(server));
    server.once("error", reject);
  });
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const servers: Server[] = [];
  const mesh = meshOptionsFromEnv(process.env);
  const { app: meshApp } = createMeshApp(mesh);
  const meshServer = await listen(meshApp, mesh.port);
  servers.push(meshServer);
  console.log(`mesh (service-mesh discovery chain)  http://${host}:${portOf(meshServer)}${MESH_BASE_PATH}`);
  console.log(`  datacenter ${mesh.datacenter}, cluster id ${mesh.clusterId}, SNI domain ${mesh.domain}`);
  console.log(
    mesh.managementToken
      ? `  ACLs enforced; management token (X-Mesh-Token): ${mesh.managementToken}`
      : "  ACLs off (set MESH_MANAGEMENT_TOKEN to enforce them)",
  );
  console.log(`  ${mesh.entries?.length ?? 0} configuration entries loaded${process.env.MESH_CONFIG_FILE ? ` from ${process.env.MESH_CONFIG_FILE}` : ""}`);
  console.log("Ready. Ctrl-C stops.");

  const stop = () => {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: Error) => {
  console.error(`could not start: ${error.message}`);
  process.exit(1);
});
