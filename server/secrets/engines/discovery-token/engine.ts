// The discovery-token engine, reached as every engine is: `discoveryTokenEngine(cluster).at(mount)`,
// the engine at one mount: access configuration, roles, and tokens issued by the discovery backend. State lives in the cluster's storage under the mount's prefix
// (`logical/<mount uuid>/config/access`, `logical/<mount uuid>/roles/<name>`), so a new engine
// object per request sees everything and replication ships it.
import type { SecretsCluster } from "../../cluster.ts";
import { Refusal } from "../../errors.ts";
import { StoredRecord, StoredRecords } from "../../store/records.ts";
import type { Storage } from "../../store/storage.ts";
import { mountStoragePrefix } from "../mount-storage.ts";
import { checkAccess, type AccessConfig, type AccessInput } from "./access.ts";
import { BackendError, DiscoveryBackend } from "./backend.ts";
import { checkRole, realEngineApi, tokenApiFor, type RoleInput, type StoredRole } from "./role-rules.ts";
import { goQuote } from "../../../shared/go-text.ts";

export const DISCOVERY_TOKEN_ENGINE = "discovery-token";

export interface IssuedLease {
  /** What the lease table needs (leases/manager.ts): the path the lease id starts with, TTLs in seconds, what revocation needs. */
  lease: { path: string; renewable: true; ttl: number; maxTtl: number; internal: TokenInternal };
  data: { token: string; accessor?: string; local?: boolean; catalog_namespace?: string; partition?: string };
}

/** What revoking a token needs, as the real engine keeps it: the accessor (the secret for a legacy token), the role, the API. */
export interface TokenInternal {
  [key: string]: string;
  token: string;
  role: string;
  /** `token` for the token API, "" for the legacy one. */
  version: string;
}

/** The secret type of the engine's tokens in the lease table. */
export const TOKEN_SECRET = "discovery-token/token";

/** The engine of a cluster: it keeps nothing of its own (every mount's state is in the cluster's storage). */
export class DiscoveryTokenEngine {
  constructor(
    private readonly storage: Storage,
    /** How long a backend call may take (ms). */
    private readonly backendTimeoutMs?: number,
  ) {}

  /** The engine at one of its mounts (its access configuration, roles and tokens there). */
  at(mount: string): DiscoveryTokenMount {
    return new DiscoveryTokenMount(this.storage, mount, this.backendTimeoutMs);
  }
}

/** The engine of a cluster, reached as every engine is: `discoveryTokenEngine(cluster).at(mount)`. */
export function discoveryTokenEngine(cluster: SecretsCluster): DiscoveryTokenEngine {
  return new DiscoveryTokenEngine(cluster.storage);
}

/** The engine at one mount: what the mount's operations and leases do. */
export class DiscoveryTokenMount {
  /** The access configuration, at config/access under the mount's prefix. */
  readonly #config: StoredRecord<AccessConfig>;
  /** The roles by name, under roles/. */
  readonly #roles: StoredRecords<StoredRole>;

  constructor(
    storage: Storage,
    readonly mount: string,
    /** How long a backend call may take (ms). */
    private readonly backendTimeoutMs?: number,
  ) {
    const prefix = mountStoragePrefix(DISCOVERY_TOKEN_ENGINE, mount);
    this.#config = new StoredRecord(storage, `${prefix}config/access`);
    this.#roles = new StoredRecords(storage, `${prefix}roles/`);
  }

  /**
   * Checks the settings and stores them. No call to the backend: the real engine only stores the
   * fields (builtin/logical/consul/path_config.go, pathConfigAccessWrite); the backend is first
   * reached when a token is issued.
   */
  configure(input: AccessInput): void {
    const checked = checkAccess(input);
    if ("problems" in checked) throw new Refusal(400, checked.problems);
    this.#config.put(checked.value);
  }

  config(): AccessConfig | undefined {
    return this.#config.get();
  }

  /**
   * Stores a role. Neither the configuration nor the backend's version is needed: the real engine
   * checks the role on its own (path_roles.go, pathRolesWrite) and the backend refuses at token
   * creation what its version does not have.
   */
  writeRole(name: string, input: RoleInput): void {
    const checked = checkRole(input);
    if ("problem" in checked) throw new Refusal(400, [checked.problem]);
    this.#roles.put(name, checked.value);
  }

  readRole(name: string): StoredRole | undefined {
    return this.#roles.get(name);
  }

  listRoles(): string[] {
    return this.#roles.names();
  }

  deleteRole(name: string): void {
    this.#roles.delete(name);
  }

  /** A new token from the backend for the role, as a lease. `requester` names the caller in the token's description. */
  async issue(name: string, requester: string): Promise<IssuedLease> {
    const role = this.readRole(name);
    // The real engine's words and status (builtin/logical/consul/path_token.go): 400 `role "<name>" not found`.
    if (!role) throw new Refusal(400, [`role ${goQuote(name)} not found`]);
    const config = this.config();
    if (!config) throw new Refusal(400, [NOT_CONFIGURED]);
    const backend = new DiscoveryBackend(config, this.backendTimeoutMs);
    const pathOf = (which: "legacy" | "token") => (which === "legacy" ? "/v1/acl/create" : "/v1/acl/token");
    // Failures are answered as the real engine answers them: 400 with the backend client's error
    // text (path_token.go, pathTokenRead: logical.ErrorResponse(err.Error())).
    const fail: (error: unknown, path: string) => never = (error, path) => {
      if (!(error instanceof BackendError)) throw error;
      throw new Refusal(400, [redact(clientErrorText(error, `${backend.origin}${path}`, backend.address), config.token)]);
    };

    // Only a management role needs the backend's version (see tokenApiFor); it is asked for now,
    // so that an upgraded backend is seen at once.
    let version: string | undefined;
    if (role.token_type === "management") {
      try {
        version = await backend.version();
      } catch (error) {
        // The real engine would have failed at its create call: name that one.
        fail(error, pathOf(realEngineApi(role)));
      }
    }
    const api = tokenApiFor(role, version);
    if (typeof api === "object") throw new Refusal(400, [`role "${name}": ${api.problem}`]);

    const description = `secrets-service ${name} ${requester} ${Date.now()}`;
    const path = pathOf(api);
    let data: IssuedLease["data"];
    try {
      if (api === "legacy") {
        data = { token: await backend.createLegacyToken({ Name: description, Type: role.token_type, Rules: role.policy }) };
      } else {
        const policies = [...new Set([...(role.token_type === "management" ? ["global-management"] : []), ...role.policies])];
        const issued = await backend.createToken({
          Description: description,
          Policies: policies.map((Name) => ({ Name })),
          Roles: role.catalog_roles.map((Name) => ({ Name })),
          Local: role.local,
          ...(role.catalog_namespace ? { Namespace: role.catalog_namespace } : {}),
          ...(role.partition && role.partition !== "default" ? { Partition: role.partition } : {}),
        });
        data = {
          token: issued.SecretID,
          accessor: issued.AccessorID,
          local: issued.Local ?? role.local,
          catalog_namespace: issued.Namespace ?? (role.catalog_namespace || "default"),
          partition: issued.Partition ?? role.partition,
        };
      }
    } catch (error) {
      fail(error, path);
    }
    const internal: TokenInternal =
      api === "legacy" ? { token: data.token, role: name, version: "" } : { token: data.accessor!, role: name, version: "token" };
    // The role's TTLs as they are: the lease table applies the mount's default and maximum.
    return { lease: { path: `${this.mount}/creds/${name}`, renewable: true, ttl: role.ttl, maxTtl: role.max_ttl, internal }, data };
  }

  /** The TTLs a renewed lease takes: its role's now; a refusal when the role is gone (secretTokenRenew). */
  leaseTtls(role: string): { ttl: number; maxTtl: number } | { error: string } {
    const stored = this.readRole(role);
    if (!stored) return { error: `issuing role ${goQuote(role)} not found` };
    return { ttl: stored.ttl, maxTtl: stored.max_ttl };
  }

  /** Deletes a token from the backend so that it stops working (secretTokenRevoke); throws when the backend refuses. */
  async revokeToken(internal: TokenInternal): Promise<void> {
    const config = this.config();
    if (!config) throw new Error(NOT_CONFIGURED);
    const backend = new DiscoveryBackend(config, this.backendTimeoutMs);
    try {
      if (internal.version === "token") await backend.deleteToken(internal.token);
      else await backend.destroyLegacyToken(internal.token);
    } catch (error) {
      if (error instanceof BackendError) throw new Error(redact(error.message, config.token));
      throw error;
    }
  }
}

/** The real engine's words when config/access was never written (builtin/logical/consul/path_config.go). */
export const NOT_CONFIGURED = "access credentials for the backend itself haven't been configured; please configure them at the '/config/access' endpoint";

/**
 * What the backend's Go API client says of a failed call, which the real engine passes on: a status
 * other than 200 is `Unexpected response code: <status> (<body>)` (api/api.go, requireOK); a
 * transport failure is Go's url.Error, `Put "<url>": <cause>`, with a refused connection in Go's
 * words. An answer that cannot be used keeps the engine's own words.
 */
export function clientErrorText(error: BackendError, url: string, address: string): string {
  if (error.status !== undefined && error.body !== undefined) return `Unexpected response code: ${error.status} (${error.body})`;
  if (error.status !== undefined) return error.message;
  const cause = error.code === "ECONNREFUSED" ? `dial tcp ${address}: connect: connection refused` : error.message;
  return `Put ${JSON.stringify(url)}: ${cause}`;
}

/** A backend's message with the management token taken out, should a backend ever echo it. */
function redact(message: string, token: string): string {
  return token ? message.split(token).join("<token>") : message;
}
