// The discovery-token engine at one mount: access configuration, roles, and tokens issued by the
// discovery backend. State lives in the cluster's storage under the mount's prefix
// (`logical/<mount uuid>/config/access`, `logical/<mount uuid>/roles/<name>`), so a new engine
// object per request sees everything and replication ships it.
import { randomBytes } from "node:crypto";
import { Refusal } from "../../errors.ts";
import type { Storage, StoredValue } from "../../store/storage.ts";
import { mountStoragePrefix } from "../mount-storage.ts";
import { checkAccess, type AccessConfig, type AccessInput } from "./access.ts";
import { BackendError, DiscoveryBackend } from "./backend.ts";
import { checkRole, leaseDuration, parseVersion, tokenApiFor, type RoleInput, type StoredRole } from "./role-rules.ts";

export const DISCOVERY_TOKEN_ENGINE = "discovery-token";

export interface IssuedLease {
  lease_id: string;
  lease_duration: number;
  renewable: true;
  data: { token: string; accessor?: string; local?: boolean; catalog_namespace?: string; partition?: string };
}

export class DiscoveryTokenEngine {
  readonly #prefix: string;

  constructor(
    private readonly storage: Storage,
    readonly mount: string,
    /** How long a backend call may take (ms). */
    private readonly backendTimeoutMs?: number,
  ) {
    this.#prefix = mountStoragePrefix(DISCOVERY_TOKEN_ENGINE, mount);
  }

  /** Checks the settings, learns the backend's version with them, and stores both. */
  async configure(input: AccessInput): Promise<void> {
    const checked = checkAccess(input);
    if ("problems" in checked) throw new Refusal(400, checked.problems);
    const backend = new DiscoveryBackend(checked.value, this.backendTimeoutMs);
    let version: string;
    try {
      version = await backend.version();
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      const message = redact(error.message, checked.value.token);
      throw new Refusal(400, [`could not read the version of the discovery backend at ${backend.origin} (GET /v1/agent/self): ${message}`]);
    }
    if (!parseVersion(version)) {
      throw new Refusal(400, [`the discovery backend at ${backend.origin} reports a version this engine cannot read: ${JSON.stringify(version)}`]);
    }
    const config: AccessConfig = { ...checked.value, backend_version: version };
    this.storage.put(this.#prefix + "config/access", config as unknown as StoredValue);
  }

  config(): AccessConfig | undefined {
    return this.storage.get(this.#prefix + "config/access") as AccessConfig | undefined;
  }

  writeRole(name: string, input: RoleInput): void {
    const config = this.#requireConfig();
    const checked = checkRole(input, config.backend_version);
    if ("problems" in checked) throw new Refusal(400, checked.problems);
    this.storage.put(this.#roleKey(name), checked.value as unknown as StoredValue);
  }

  readRole(name: string): StoredRole | undefined {
    return this.storage.get(this.#roleKey(name)) as StoredRole | undefined;
  }

  listRoles(): string[] {
    const prefix = this.#prefix + "roles/";
    return this.storage.list(prefix).map((key) => key.slice(prefix.length));
  }

  deleteRole(name: string): void {
    this.storage.delete(this.#roleKey(name));
  }

  /** A new token from the backend for the role, as a lease. `requester` names the caller in the token's description. */
  async issue(name: string, requester: string): Promise<IssuedLease> {
    const role = this.readRole(name);
    if (!role) throw new Refusal(404, [`role "${name}" not found`]);
    const config = this.#requireConfig();
    const api = tokenApiFor(role, config.backend_version);
    if (typeof api === "object") throw new Refusal(400, [`role "${name}" ${api.problem}`]);

    const backend = new DiscoveryBackend(config, this.backendTimeoutMs);
    const description = `secrets-service ${name} ${requester} ${Date.now()}`;
    const path = api === "legacy" ? "/v1/acl/create" : "/v1/acl/token";
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
      if (!(error instanceof BackendError)) throw error;
      const message = redact(error.message, config.token);
      throw new Refusal(502, [
        error.status === undefined
          ? `could not reach the discovery backend at ${backend.origin} (PUT ${path}): ${message}`
          : `the discovery backend at ${backend.origin} refused to create the token (PUT ${path}): ${message}`,
      ]);
    }
    return { lease_id: `${this.mount}/creds/${name}/${leaseSuffix()}`, lease_duration: leaseDuration(role), renewable: true, data };
  }

  #requireConfig(): AccessConfig {
    const config = this.config();
    if (!config) throw new Refusal(400, [`the access to the discovery backend is not configured: write ${this.mount}/config/access first`]);
    return config;
  }

  #roleKey(name: string): string {
    return `${this.#prefix}roles/${name}`;
  }
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 24 random base62 characters, the real system's lease id suffix. */
function leaseSuffix(): string {
  let text = "";
  while (text.length < 24) {
    for (const byte of randomBytes(32)) if (byte < 248 && text.length < 24) text += BASE62[byte % 62];
  }
  return text;
}

/** A backend's message with the management token taken out, should a backend ever echo it. */
function redact(message: string, token: string): string {
  return token ? message.split(token).join("<token>") : message;
}
