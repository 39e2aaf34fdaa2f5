// A mesh behind the Consul shim, for the tests that drive it with a real Consul client: the meshes
// and shims a test starts are closed after it, shim first.
import { afterEach } from "vitest";
import { startConsulShim, type ConsulShim } from "./consul-shim.ts";
import { startMesh, type RunningMesh } from "./mesh.ts";
import type { MeshAppOptions } from "../../server/mesh/app.ts";

export interface ShimmedMesh {
  mesh: RunningMesh;
  shim: ConsulShim;
}

export function shimmedMeshesPerTest(): (options?: MeshAppOptions) => Promise<ShimmedMesh> {
  const running: ShimmedMesh[] = [];
  afterEach(async () => {
    for (const { mesh, shim } of running.splice(0)) {
      await shim.close();
      await mesh.close();
    }
  });
  return async (options = {}) => {
    const mesh = await startMesh(options);
    const started = { mesh, shim: await startConsulShim(mesh.baseUrl) };
    running.push(started);
    return started;
  };
}
