// Handlers of the nine rekey operations (/sys/rekey/*).
import type { RekeyRequest } from "../domain/rekey.ts";
import { envelope, noContent, type Handler, type RequestBody } from "./types.ts";

type RekeyOperation =
  | "readRekeyStatus"
  | "startRekey"
  | "cancelRekey"
  | "readRekeyBackup"
  | "deleteRekeyBackup"
  | "submitRekeyShare"
  | "readRekeyVerification"
  | "submitRekeyVerificationShare"
  | "restartRekeyVerification";

type ShareBody = RequestBody<"submitRekeyShare">;

export const rekeyHandlers = {
  readRekeyStatus: (cluster, _req, res) => {
    res.json(cluster.rekey.status());
  },

  startRekey: async (cluster, req, res) => {
    res.json(await cluster.rekey.start(req.body as RekeyRequest));
  },

  cancelRekey: async (cluster, _req, res) => {
    await cluster.rekey.cancel();
    noContent(res);
  },

  readRekeyBackup: (cluster, _req, res) => {
    res.json(envelope(cluster, cluster.rekey.backup()));
  },

  deleteRekeyBackup: (cluster, _req, res) => {
    cluster.rekey.deleteBackup();
    noContent(res);
  },

  submitRekeyShare: async (cluster, req, res) => {
    const { key, nonce = "" } = req.body as ShareBody;
    res.json(await cluster.rekey.submitShare(key, nonce));
  },

  readRekeyVerification: (cluster, _req, res) => {
    res.json(cluster.rekey.verificationStatus());
  },

  submitRekeyVerificationShare: async (cluster, req, res) => {
    const { key, nonce = "" } = req.body as ShareBody;
    res.json(await cluster.rekey.submitVerificationShare(key, nonce));
  },

  restartRekeyVerification: async (cluster, _req, res) => {
    res.json(await cluster.rekey.restartVerification());
  },
} satisfies Record<RekeyOperation, Handler>;
