// Starts the mesh reference server in-process on 127.0.0.1:0 and gives a generated client for it.
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";
import { createMeshClient } from "../../generated/mesh/client.ts";
import { createMeshApp, MESH_BASE_PATH, type MeshAppOptions } from "../../server/mesh/app.ts";
import { createAppServer } from "../../server/shared/app-server.ts";

export const CLUSTER_ID = "11111111-2222-3333-4444-555555555555";
export const TRUST_DOMAIN = `${CLUSTER_ID}.mesh`;

export type MeshClient = ReturnType<typeof createMeshClient>;

export interface RunningMesh {
  baseUrl: string;
  client: MeshClient;
  /** A client that sends this token in X-Mesh-Token. */
  clientWithToken(token: string): MeshClient;
  service: ReturnType<typeof createMeshApp>["service"];
  close(): Promise<void>;
}

export async function startMesh(options: MeshAppOptions = {}): Promise<RunningMesh> {
  const { app, service, data } = createMeshApp({ clusterId: CLUSTER_ID, ...options });
  const server = await new Promise<import("node:http").Server>((resolve) => {
    const s = createAppServer(app).listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}${MESH_BASE_PATH}`;
  return {
    baseUrl,
    client: createMeshClient({ baseUrl }),
    clientWithToken: (token) => createMeshClient({ baseUrl, headers: { "X-Mesh-Token": token } }),
    service,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          data?.close();
          resolve();
        });
      }),
  };
}

/** The anonymous token's AccessorID (agent/structs ACLTokenAnonymousID): what a request without a token acts as. */
export const ANONYMOUS_ACCESSOR = "00000000-0000-0000-0000-000000000002";

/** A refusal as a server from 1.11 on words it (acl.PermissionDeniedError). */
export function denied(accessorId: string, permission: string, name?: string): string {
  return `Permission denied: token with AccessorID '${accessorId}' lacks permission '${permission}'${name === undefined ? "" : ` on ${JSON.stringify(name)}`}`;
}

/**
 * A fresh mesh for each test of the calling file (or describe block), closed after it, for files
 * whose tests all start the same one. The handle stands for the current test's mesh; `root` is its
 * client with the management token (the plain client when ACLs are off).
 */
export function meshPerTest(options: MeshAppOptions = {}): RunningMesh & { readonly root: MeshClient } {
  let current: { mesh: RunningMesh; root: MeshClient } | undefined;
  beforeEach(async () => {
    const mesh = await startMesh(options);
    current = { mesh, root: options.managementToken === undefined ? mesh.client : mesh.clientWithToken(options.managementToken) };
  });
  afterEach(async () => {
    await current?.mesh.close();
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error("meshPerTest: the mesh exists only while a test runs");
    return current;
  };
  return {
    get baseUrl() {
      return now().mesh.baseUrl;
    },
    get client() {
      return now().mesh.client;
    },
    get service() {
      return now().mesh.service;
    },
    get root() {
      return now().root;
    },
    clientWithToken: (token) => now().mesh.clientWithToken(token),
    close: () => now().mesh.close(),
  };
}

/** Reads a service's compiled chain as `client`'s token may: what ACL tests check a token against. */
export const readChain = (client: MeshClient, service: string) =>
  client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: service } } });
