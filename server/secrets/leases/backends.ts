// What renewing and revoking means for the secrets of each engine, as the real engines define it:
// - cloud credentials (builtin/logical/aws/secret_access_keys.go): an IAM user's lease renews with
//   the mount's lease configuration as it is now; revoking removes the user with its access keys,
//   policies and group memberships. STS credentials end by themselves: not renewable, and revoking
//   them does nothing.
// - discovery tokens (builtin/logical/consul/secret_token.go): a lease renews with its role's TTLs
//   as they are now (refused once the role is gone); revoking deletes the token from the backend,
//   so that it stops working there.
import type { SecretsCluster } from "../cluster.ts";
import { ACCESS_KEYS_SECRET, cloudCredentialsEngine } from "../engines/cloud-credentials/engine.ts";
import { discoveryTokenEngine, TOKEN_SECRET, type TokenInternal } from "../engines/discovery-token/engine.ts";
import type { LeaseEntry } from "./lease.ts";
import type { LeaseBackend } from "./manager.ts";

export function engineLeaseBackends(cluster: SecretsCluster): Record<string, LeaseBackend> {
  const accessKeys: LeaseBackend = {
    renew: async (entry) => cloudCredentialsEngine(cluster).at(entry.mount).leaseTtls(),
    revoke: async (entry) => {
      if (entry.internal.is_sts === true) return;
      const username = entry.internal.username;
      if (typeof username !== "string" || username === "") throw new Error("secret is missing username internal data");
      await cloudCredentialsEngine(cluster).at(entry.mount).revokeUser(username);
    },
  };
  const tokens: LeaseBackend = {
    renew: async (entry) => discoveryTokenEngine(cluster).at(entry.mount).leaseTtls(String(entry.internal.role ?? "")),
    revoke: async (entry) => discoveryTokenEngine(cluster).at(entry.mount).revokeToken(tokenInternal(entry)),
  };
  return { [ACCESS_KEYS_SECRET]: accessKeys, [TOKEN_SECRET]: tokens };
}

function tokenInternal(entry: LeaseEntry): TokenInternal {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const token = text(entry.internal.token);
  if (token === "") throw new Error("secret is missing token internal data");
  return { token, role: text(entry.internal.role), version: text(entry.internal.version) };
}
