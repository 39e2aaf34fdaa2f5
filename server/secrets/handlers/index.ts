// HTTP handlers of the secrets service, keyed by operationId. The map must cover every operation
// of the description: a missing one fails the type check. Engines and replication add their maps.
import type { operations } from "../../../generated/secrets/schema.ts";
import { cloudCredentialsHandlers } from "../engines/cloud-credentials/handlers.ts";
import { discoveryTokenHandlers } from "../engines/discovery-token/handlers.ts";
import { pushMfaHandlers } from "../identity/handlers.ts";
import { leaseHandlers } from "../leases/handlers.ts";
import { replicationHandlers } from "../replication/handlers.ts";
import { rekeyHandlers } from "./rekey.ts";
import type { Handler } from "./types.ts";

export type { Handler } from "./types.ts";

export const secretsHandlers = {
  ...rekeyHandlers,
  ...replicationHandlers,
  ...discoveryTokenHandlers,
  ...cloudCredentialsHandlers,
  ...pushMfaHandlers,
  ...leaseHandlers,
} satisfies Record<keyof operations, Handler>;
