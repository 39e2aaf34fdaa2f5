// HTTP handlers of the secrets service, keyed by operationId: one typed table for every operation of
// the description, bound once. A missing or unknown operation, a parameter or body member the
// description lacks, an undocumented status or a body that breaks its status's schema fails tsc.
import type { operations } from "../../../generated/secrets/schema.ts";
import { bindHandlers } from "../../shared/handler-binding.ts";
import { cloudCredentialsHandlers } from "../engines/cloud-credentials/handlers.ts";
import { discoveryTokenHandlers } from "../engines/discovery-token/handlers.ts";
import { pushMfaHandlers } from "../push-mfa/handlers.ts";
import { leaseHandlers } from "../leases/handlers.ts";
import { replicationHandlers } from "../replication/handlers.ts";
import { rekeyHandlers } from "../rekey/handlers.ts";
import { tokenHandlers } from "../tokens/handlers.ts";
import type { SecretsContext, SecretsHandlerTable, SecretsInputs } from "./types.ts";

export type { SecretsContext } from "./types.ts";

export const secretsHandlers = {
  ...rekeyHandlers,
  ...replicationHandlers,
  ...discoveryTokenHandlers,
  ...cloudCredentialsHandlers,
  ...pushMfaHandlers,
  ...leaseHandlers,
  ...tokenHandlers,
} satisfies SecretsHandlerTable;

/** The table as one function of an operationId, run with the request's context. */
export const boundSecretsHandlers = bindHandlers<operations, SecretsContext, SecretsInputs>(secretsHandlers);
