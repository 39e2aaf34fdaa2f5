// Starts the org-platform reference server for server/main.ts (not served yet).
import type { ServiceEntry } from "../shared/service-entry.ts";

export const orgPlatformEntry: ServiceEntry = { name: "org-platform" };
