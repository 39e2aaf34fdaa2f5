// Starts the org-platform reference server for server/main.ts and prints its address and the dev
// tokens of its world.
import { listen, portOf, type ServiceEntry } from "../shared/service-entry.ts";
import { createOrgPlatformApp, ORG_PLATFORM_BASE_PATH } from "./app.ts";
import { orgPlatformOptionsFromEnv, tokenSummary } from "./config.ts";
import { DataDirectoryError } from "../shared/data-dir.ts";
import { ORG_PLATFORM_RAW_ANSWERS } from "./domain/errors.ts";

export const orgPlatformEntry: ServiceEntry = {
  name: "org-platform",
  async start(host, env) {
    const options = orgPlatformOptionsFromEnv(env);
    let created: ReturnType<typeof createOrgPlatformApp>;
    try {
      created = createOrgPlatformApp(options);
    } catch (error) {
      // A foreign or damaged data directory: name the variable, start nothing.
      if (error instanceof DataDirectoryError) throw new Error(`ORG_PLATFORM_DATA_DIR=${options.dataDir}: ${error.message}`);
      throw error;
    }
    const { app, service, data } = created;
    let server;
    try {
      server = await listen(app, host, options.port, ORG_PLATFORM_RAW_ANSWERS);
    } catch (error) {
      data?.close();
      throw error;
    }
    server.once("close", () => data?.close());
    return {
      servers: [server],
      summary: [
        `org-platform (organization platform, JSON:API)  http://${host}:${portOf(server)}${ORG_PLATFORM_BASE_PATH}`,
        `  world: ${options.worldSource}; organizations: ${service.store
          .organizations()
          .map((o) => `${o.name} (${o.plan}${o.selfHostedRelease ? `, self-hosted ${o.selfHostedRelease}` : ""})`)
          .join(", ")}`,
        data
          ? `  data: ${data.path} (${data.created ? `new, seeded from the world ${options.worldSource}` : "kept state; the world is not read"})`
          : "  data: in memory (set ORG_PLATFORM_DATA_DIR to keep it across restarts)",
        ...tokenSummary(service.store).map((line) => `  ${line}`),
      ],
    };
  },
};
