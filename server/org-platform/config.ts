// The org-platform server's settings from the environment, the world file they point to, and the
// token summary printed at start.
import { readDataFile } from "../shared/data-file.ts";
import type { OrgPlatformAppOptions } from "./app.ts";
import type { ApiToken } from "./domain/model.ts";
import type { OrgPlatformStore } from "./store/store.ts";
import { checkWorldFile } from "./world-file.ts";

export interface OrgPlatformEnvironment extends OrgPlatformAppOptions {
  port: number;
  /** Where the world came from, for the start-up summary. */
  worldSource: string;
}

export function orgPlatformOptionsFromEnv(env: NodeJS.ProcessEnv): OrgPlatformEnvironment {
  const port = Number(env.ORG_PLATFORM_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`ORG_PLATFORM_PORT=${env.ORG_PLATFORM_PORT}: not a port number`);
  // Opt-in durable state; unset keeps everything in memory.
  const dataDir = env.ORG_PLATFORM_DATA_DIR || undefined;
  const file = env.ORG_PLATFORM_WORLD;
  if (!file) return { port, worldSource: "default (see docs/org-platform.md)", ...(dataDir && { dataDir }) };
  const world = checkWorldFile(readDataFile(file, "ORG_PLATFORM_WORLD"), `ORG_PLATFORM_WORLD=${file}`);
  return { port, world, worldSource: file, ...(dataDir && { dataDir }) };
}

/** One line per API token: what it acts as, and the token to send as `Authorization: Bearer`. */
export function tokenSummary(store: OrgPlatformStore): string[] {
  const describe = (token: ApiToken): string => {
    switch (token.kind) {
      case "user": {
        const user = store.user(token.userId);
        const orgs = store
          .organizations()
          .map((o) => {
            const membership = store.memberships(o.name).find((m) => m.userId === token.userId);
            if (!membership) return undefined;
            const owner = store.teams(o.name).some((t) => t.name === "owners" && t.userIds.includes(token.userId));
            return `${o.name}${membership.status === "invited" ? " (invited)" : owner ? " (owner)" : ""}`;
          })
          .filter(Boolean);
        return `user ${user?.username} [${orgs.join(", ") || "no organization"}]`;
      }
      case "team": {
        const team = store.team(token.teamId);
        return `team ${team?.organization}/${team?.name}`;
      }
      case "organization":
        return `organization ${token.organization}`;
    }
  };
  const rows = store.apiTokens().map((t) => [describe(t), t.secret] as const);
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return ["API tokens (Authorization: Bearer <token>):", ...rows.map(([label, secret]) => `  ${label.padEnd(width)}  ${secret}`)];
}
