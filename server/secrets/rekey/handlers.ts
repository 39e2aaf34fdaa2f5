// Handlers of the nine rekey operations (/sys/rekey/*).
import type { SecretsHandlerTable } from "../handlers/types.ts";
import { envelope, NO_CONTENT } from "../handlers/types.ts";

export const rekeyHandlers = {
  readRekeyStatus: (_input, { cluster }) => ({ status: 200, body: cluster.rekey.status() }),

  startRekey: async ({ body }, { cluster }) => ({ status: 200, body: await cluster.rekey.start(body) }),

  cancelRekey: async (_input, { cluster }) => {
    await cluster.rekey.cancel();
    return NO_CONTENT;
  },

  readRekeyBackup: (_input, { cluster }) => ({ status: 200, body: envelope(cluster, cluster.rekey.backup()) }),

  deleteRekeyBackup: (_input, { cluster }) => {
    cluster.rekey.deleteBackup();
    return NO_CONTENT;
  },

  submitRekeyShare: async ({ body: { key, nonce = "" } }, { cluster }) => ({ status: 200, body: await cluster.rekey.submitShare(key, nonce) }),

  readRekeyVerification: (_input, { cluster }) => ({ status: 200, body: cluster.rekey.verificationStatus() }),

  submitRekeyVerificationShare: async ({ body: { key, nonce = "" } }, { cluster }) => ({
    status: 200,
    body: await cluster.rekey.submitVerificationShare(key, nonce),
  }),

  restartRekeyVerification: async (_input, { cluster }) => ({ status: 200, body: await cluster.rekey.restartVerification() }),
} satisfies Partial<SecretsHandlerTable>;
