// Starts the secrets reference server for server/main.ts (not served yet).
import type { ServiceEntry } from "../shared/service-entry.ts";

export const secretsEntry: ServiceEntry = { name: "secrets" };
