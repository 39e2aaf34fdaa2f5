// Starts the org-platform reference server for server/main.ts and prints its address and the dev
// tokens of its world.
import { listen, portOf, type ServiceEntry } from "../shared/service-entry.ts";
import { createOrgPlatformApp, ORG_PLATFORM_BASE_PATH } from "./app.ts";
import { orgPlatformOptionsFromEnv, tokenSummary } from "./config.ts";

export const orgPlatformEntry: ServiceEntry = {
  name: "org-platform",
  async start(host, env) {
    const options = orgPlatformOptionsFromEnv(env);
    const { app, service } = createOrgPlatformApp(options);
    const server = await listen(app, host, options.port);
    return {
      servers: [server],
      summary: [
        `org-platform (organization platform, JSON:API)  http://${host}:${portOf(server)}${ORG_PLATFORM_BASE_PATH}`,
        `  world: ${options.worldSource}; organizations: ${service.store
          .organizations()
          .map((o) => `${o.name} (${o.plan}${o.selfHostedRelease ? `, self-hosted ${o.selfHostedRelease}` : ""})`)
          .join(", ")}`,
        ...tokenSummary(service.store).map((line) => `  ${line}`),
      ],
    };
  },
};
