// The cloud credentials engine: configuration, roles and credentials of each of its mounts, kept in
// the cluster's storage under the mount's prefix (config/root, config/lease, role/<name>, and the
// legacy policy/<name> entries of earlier versions), with credentials issued by the cloud provider.
// Reached as every engine is: `cloudCredentialsEngine(cluster).at(mount)`, the engine at one mount.
// Refusals are InvalidRequestError (400, one message) or Refusal (any status, several messages).
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import type { SecretsCluster } from "../../cluster.ts";
import { InvalidRequestError } from "../../errors.ts";
import { internalError, Refusal } from "../../errors.ts";
import type { Storage } from "../../store/storage.ts";
import type { BodyRead } from "../../wire.ts";
import { fieldValidationFailure, lenientInteger, readDurationSecond } from "../../framework-fields.ts";
import { combinePolicyDocuments } from "./arns.ts";
import { localCredentials, NO_CREDENTIALS, regionOf, type ChainEnvironment, type CredentialSource } from "./credential-chain.ts";
import { formatGoDuration, nsToSeconds, parseGoDuration } from "../../../shared/go-duration.ts";
import { MountStorage, type RootConfig } from "./mount-storage.ts";
import { federatedUserName, iamUserName, randomAlphanumeric, roleSessionName, type NameSource } from "./names.ts";
import type { CloudProvider, ProviderClient } from "./provider.ts";
import {
  applyRoleWrite,
  chooseRoleArn,
  credentialTypeFor,
  roleResponse,
  upgradeLegacyEntry,
  type RoleEntry,
  type RoleWrite,
} from "./roles.ts";
import { SimulatedCloud } from "./simulation.ts";
import { stsTtl, type LeaseConfig } from "./ttl.ts";

/** The stored root configuration (secret_key included: it never leaves this module). */
export type RootConfigWrite = BodyRead<"CloudCredentialsRootConfigRequest">;

/** What a credentials request may carry (query of /creds, body of /sts). */
export type CredentialsRequest = BodyRead<"CloudCredentialsRequest">;

export interface IssuedCredentials {
  data: { access_key: string; secret_key: string; security_token: string | null; arn: string };
  /** What the lease table needs (lease/manager.ts): the path the lease id starts with, TTLs in seconds, what revocation needs. */
  lease: {
    path: string;
    renewable: boolean;
    ttl: number;
    maxTtl: number;
    internal: { username: string; is_sts: false } | { is_sts: true };
  };
}

/** The secret type of the engine's credentials in the lease table. */
export const ACCESS_KEYS_SECRET = "cloud-credentials/access_keys";

export interface CloudCredentialsOptions {
  /** The cloud provider; a simulation of the default account when absent. */
  provider?: CloudProvider;
  /** The environment the root credentials and region may come from; process.env when absent. */
  env?: Record<string, string | undefined>;
  /** The home directory of the default shared credentials file; $HOME, else the user's. */
  homeDir?: string;
  /** Milliseconds since the epoch; Date.now when absent. */
  now?: () => number;
}


/** The engine of a cluster: its provider and environment, shared by its mounts. */
export class CloudCredentialsEngine {
  readonly provider: CloudProvider;
  readonly #storage: Storage;
  readonly #settings: MountSettings;

  constructor(storage: Storage, options: CloudCredentialsOptions = {}) {
    this.#storage = storage;
    this.provider = options.provider ?? new SimulatedCloud({ ...(options.now ? { now: options.now } : {}) });
    this.#settings = { provider: this.provider, env: options.env ?? process.env, homeDir: options.homeDir, now: options.now ?? Date.now };
  }

  /** The engine at one of its mounts (its configuration, roles and credentials there). */
  at(mount: string): CloudCredentialsMount {
    return new CloudCredentialsMount(this.#storage, mount, this.#settings);
  }
}

interface MountSettings {
  provider: CloudProvider;
  env: Record<string, string | undefined>;
  homeDir: string | undefined;
  now: () => number;
}

/** The engine at one mount: what the mount's operations and leases do. */
export class CloudCredentialsMount {
  readonly provider: CloudProvider;
  readonly #store: MountStorage;
  readonly #env: Record<string, string | undefined>;
  readonly #homeDir: string | undefined;
  readonly #now: () => number;

  constructor(
    storage: Storage,
    readonly mount: string,
    settings: MountSettings,
  ) {
    this.#store = new MountStorage(storage, mount);
    this.provider = settings.provider;
    this.#env = settings.env;
    this.#homeDir = settings.homeDir;
    this.#now = settings.now;
  }

  // ---- config/root ----

  writeRootConfig(body: RootConfigWrite): void {
    const config: RootConfig = {
      access_key: body.access_key ?? "",
      secret_key: body.secret_key ?? "",
      region: body.region ?? "",
      iam_endpoint: body.iam_endpoint ?? "",
      sts_endpoint: body.sts_endpoint ?? "",
      max_retries: lenientInteger(body.max_retries, -1),
    };
    this.#store.rootConfig.put(config);
  }

  /** The configuration as it may be shown: everything but the secret key. */
  readRootConfig() {
    const config = this.#rootConfig(this.#store);
    if (!config) return undefined;
    return { access_key: config.access_key, region: config.region, iam_endpoint: config.iam_endpoint, sts_endpoint: config.sts_endpoint, max_retries: config.max_retries };
  }

  /**
   * Rotates the static root credentials; returns the new access key id. In the real handler's order
   * (builtin/logical/aws/path_config_rotate_root.go, pathConfigRotateRootUpdate): the client first
   * (which fails only for a half-configured static pair), then the stored configuration, then the
   * provider. Its failures are plain errors (500, internalError) except the check for static keys,
   * an ErrorResponse (400).
   */
  async rotateRoot(): Promise<string> {
    const storage = this.#store;
    const config = this.#rootConfig(storage);
    const local = localCredentials(config, this.#chain());
    if ("error" in local) throw internalError(local.error);
    if (!config) throw internalError("no configuration found for config/root");
    if (config.access_key === "" || config.secret_key === "") {
      throw new InvalidRequestError("Cannot call config/rotate-root when either access_key or secret_key is empty");
    }
    const client = (await this.#client(storage, "iam")).client;
    const step = <T>(doing: string, call: () => Promise<T>) => this.#step(doing, call, internalError);
    const user = await step("error calling GetUser", () => this.provider.getUser(client));
    const key = await step("error calling CreateAccessKey", () => this.provider.createAccessKey(client, user.userName));
    const old = config.access_key;
    storage.rootConfig.put({ ...config, access_key: key.accessKeyId, secret_key: key.secretAccessKey });
    await step("error deleting old access key", () => this.provider.deleteAccessKey(client, old, user.userName));
    return key.accessKeyId;
  }

  /** Where the root credentials of a mount come from now (for the README's curious, and tests). */
  async rootCredentialSource(): Promise<CredentialSource> {
    return (await this.#client(this.#store, "iam")).source;
  }

  // ---- config/lease ----

  writeLeaseConfig(body: { lease: string; lease_max: string }): void {
    const read = readLeaseConfigWrite(body);
    if ("problem" in read) throw new InvalidRequestError(read.problem);
    this.#store.leaseConfig.put({ lease: String(read.lease), lease_max: String(read.leaseMax) });
  }

  readLeaseConfig(): { lease: string; lease_max: string } | undefined {
    const stored = this.#leaseConfig(this.#store);
    if (!stored) return undefined;
    return { lease: formatGoDuration(stored.lease), lease_max: formatGoDuration(stored.leaseMax) };
  }

  // ---- roles ----

  /** Writes a role; returns the warnings (none for a plain write). */
  writeRole(name: string, body: RoleWrite): string[] {
    const storage = this.#store;
    const result = applyRoleWrite(this.#role(storage, name), body);
    if ("error" in result) throw result.status === 500 ? internalError(result.error) : new InvalidRequestError(result.error);
    storage.roles.put(name, result.role);
    if (storage.legacyRoles.has(name)) storage.legacyRoles.delete(name);
    return result.warnings;
  }

  readRole(name: string) {
    const role = this.#role(this.#store, name);
    return role ? roleResponse(role) : undefined;
  }

  /** Deletes a role; false when there was none. */
  deleteRole(name: string): boolean {
    const storage = this.#store;
    const exists = storage.roles.has(name) || storage.legacyRoles.has(name);
    storage.roles.delete(name);
    storage.legacyRoles.delete(name);
    return exists;
  }

  listRoles(): string[] {
    const storage = this.#store;
    return [...new Set([...storage.roles.names(), ...storage.legacyRoles.names()])].sort();
  }

  // ---- credentials ----

  async generate(roleName: string, path: "creds" | "sts", request: CredentialsRequest, displayName: string): Promise<IssuedCredentials> {
    // The framework reads `ttl` before the handler looks for the role: a body's was read already, a
    // query's (text) is read here, in the same words.
    const requested = request.ttl === undefined || request.ttl === "" ? undefined : durationField("ttl", request.ttl);
    const storage = this.#store;
    const role = this.#role(storage, roleName);
    // The era's words (builtin/logical/aws/path_user.go, pathCredsRead: "Role '%s' not found"; %q
    // only from August 2022). Role names cannot hold a quote (the path pattern).
    if (!role) throw new InvalidRequestError(`Role '${roleName}' not found`);
    const ttl = stsTtl({ requested, defaultStsTtl: role.default_sts_ttl, maxStsTtl: role.max_sts_ttl });
    const type = credentialTypeFor(role, path);
    if ("error" in type) throw new InvalidRequestError(type.error);
    const names: NameSource = { unixTime: Math.floor(this.#now() / 1000), random: randomAlphanumeric };
    const leasePath = `${this.mount}/${path}/${roleName}`;

    if (type.type === "iam_user") {
      const { data, userName } = await this.#createIamUser(storage, role, roleName, displayName, names);
      // As the real engine: the lease takes the mount's lease configuration (0: the mount's default and maximum).
      const config = this.#leaseSeconds(storage);
      return { data, lease: { path: leasePath, renewable: true, ttl: config?.lease ?? 0, maxTtl: config?.leaseMax ?? 0, internal: { username: userName, is_sts: false } } };
    }

    let roleArn = "";
    if (type.type === "assumed_role") {
      const chosen = chooseRoleArn(role, roleName, request.role_arn || undefined);
      if ("error" in chosen) throw new InvalidRequestError(chosen.error);
      roleArn = chosen.arn;
    }
    const { policy, policyArns } = await this.#sessionPolicies(storage, role);
    const sts = (await this.#client(storage, "sts")).client;
    if (type.type === "assumed_role") {
      const sessionName = roleSessionName(request.role_session_name, displayName, roleName, names);
      const result = await this.#step("Error assuming role", () =>
        this.provider.assumeRole(sts, {
          roleArn,
          roleSessionName: sessionName,
          durationSeconds: ttl,
          ...(policy ? { policy } : {}),
          ...(policyArns.length > 0 ? { policyArns } : {}),
        }),
      );
      return this.#stsAnswer(result.credentials, result.assumedRoleUser.arn, leasePath);
    }
    if (policy === "" && policyArns.length === 0) {
      throw new InvalidRequestError("must specify at least one of policy_arns or policy_document with federation_token credential_type");
    }
    const result = await this.#step("Error generating STS keys", () =>
      this.provider.getFederationToken(sts, {
        name: federatedUserName(names),
        durationSeconds: ttl,
        ...(policy ? { policy } : {}),
        ...(policyArns.length > 0 ? { policyArns } : {}),
      }),
    );
    return this.#stsAnswer(result.credentials, result.federatedUser.arn, leasePath);
  }

  async #createIamUser(storage: MountStorage, role: RoleEntry, roleName: string, displayName: string, names: NameSource) {
    const client = (await this.#client(storage, "iam")).client;
    const userName = iamUserName(displayName, roleName, names);
    const user = await this.#step("Error creating IAM user", () =>
      this.provider.createUser(client, {
        userName,
        path: role.user_path || "/",
        ...(role.permissions_boundary_arn ? { permissionsBoundary: role.permissions_boundary_arn } : {}),
      }),
    );
    try {
      for (const arn of role.policy_arns) await this.#step("Error attaching user policy", () => this.provider.attachUserPolicy(client, userName, arn));
      if (role.policy_document !== "") {
        await this.#step("Error putting user policy", () => this.provider.putUserPolicy(client, userName, roleName, role.policy_document));
      }
      for (const group of role.iam_groups) await this.#step("Error adding user to group", () => this.provider.addUserToGroup(client, userName, group));
      if (Object.keys(role.iam_tags).length > 0) await this.#step("Error adding tags to user", () => this.provider.tagUser(client, userName, role.iam_tags));
      const key = await this.#step("Error creating access keys", () => this.provider.createAccessKey(client, userName));
      return { data: { access_key: key.accessKeyId, secret_key: key.secretAccessKey, security_token: null, arn: user.arn }, userName };
    } catch (error) {
      // The real engine's write-ahead log removes a half-made user; here it is removed at once.
      await this.#removeUser(client, userName);
      throw error;
    }
  }

  /** Removes an IAM user and everything attached to it, as far as the provider lets it. */
  async #removeUser(client: ProviderClient, userName: string): Promise<void> {
    const p = this.provider;
    try {
      for (const id of await p.listAccessKeys(client, userName)) await p.deleteAccessKey(client, id, userName);
      for (const arn of await p.listAttachedUserPolicies(client, userName)) await p.detachUserPolicy(client, userName, arn);
      for (const name of await p.listUserPolicies(client, userName)) await p.deleteUserPolicy(client, userName, name);
      for (const group of await p.listGroupsForUser(client, userName)) await p.removeUserFromGroup(client, userName, group);
      await p.deleteUser(client, userName);
    } catch {
      // Left for the operator, as the real engine leaves it to a later rollback.
    }
  }

  /** The session policies of STS credentials: the role's, combined with its groups' policies. */
  async #sessionPolicies(storage: MountStorage, role: RoleEntry): Promise<{ policy: string; policyArns: string[] }> {
    let policy = role.policy_document;
    const policyArns = [...role.policy_arns];
    if (role.iam_groups.length === 0) return { policy, policyArns };
    const client = (await this.#client(storage, "iam")).client;
    const documents: string[] = [];
    await this.#step("", async () => {
      for (const group of role.iam_groups) {
        policyArns.push(...(await this.provider.listAttachedGroupPolicies(client, group)));
        for (const name of await this.provider.listGroupPolicies(client, group)) documents.push(await this.provider.getGroupPolicy(client, group, name));
      }
    });
    if (documents.length > 0) {
      try {
        policy = combinePolicyDocuments([...documents, policy]);
      } catch (error) {
        throw new InvalidRequestError(`cannot combine the groups' policies: ${(error as Error).message}`);
      }
    }
    return { policy, policyArns };
  }

  #stsAnswer(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiration: Date }, arn: string, leasePath: string): IssuedCredentials {
    // STS credentials end by themselves: their lease is not renewable and revoking it does nothing.
    const ttl = Math.max(1, Math.round((credentials.expiration.getTime() - this.#now()) / 1000));
    return {
      data: { access_key: credentials.accessKeyId, secret_key: credentials.secretAccessKey, security_token: credentials.sessionToken, arn },
      lease: { path: leasePath, renewable: false, ttl, maxTtl: 0, internal: { is_sts: true } },
    };
  }

  // ---- leases (secretAccessKeysRenew and secretAccessKeysRevoke of the real engine) ----

  /** The TTL and maximum TTL a renewed IAM-user lease takes: the mount's lease configuration now. */
  leaseTtls(): { ttl: number; maxTtl: number } {
    const config = this.#leaseSeconds(this.#store);
    return { ttl: config?.lease ?? 0, maxTtl: config?.leaseMax ?? 0 };
  }

  /**
   * Removes an IAM user the engine made, with its access keys, policies and group memberships (the
   * real engine's user rollback). A user that is already gone is fine; any other refusal is thrown.
   */
  async revokeUser(userName: string): Promise<void> {
    const client = (await this.#client(this.#store, "iam")).client;
    const p = this.provider;
    let groups: string[];
    try {
      groups = await p.listGroupsForUser(client, userName);
    } catch (error) {
      if ((error as { code?: unknown }).code === "NoSuchEntity") return;
      throw error;
    }
    for (const group of groups) await p.removeUserFromGroup(client, userName, group);
    for (const name of await p.listUserPolicies(client, userName)) await p.deleteUserPolicy(client, userName, name);
    for (const arn of await p.listAttachedUserPolicies(client, userName)) await p.detachUserPolicy(client, userName, arn);
    for (const id of await p.listAccessKeys(client, userName)) await p.deleteAccessKey(client, id, userName);
    await p.deleteUser(client, userName);
  }

  // ---- inside ----

  /**
   * A provider call; its refusal becomes a 400 with what the engine was doing in front (the real
   * engine's ErrorResponse), or what `refuse` makes of that text (rotate-root's plain errors).
   */
  async #step<T>(doing: string, call: () => Promise<T>, refuse: (text: string) => Error = (text) => new InvalidRequestError(text)): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof InvalidRequestError || error instanceof Refusal) throw error;
      const text = error instanceof Error && typeof (error as { code?: unknown }).code === "string" ? String(error) : (error as Error)?.message ?? String(error);
      throw refuse(doing ? `${doing}: ${text}` : text);
    }
  }

  /** Where the chain looks for credentials besides the configuration. */
  #chain(): ChainEnvironment {
    return { env: this.#env, homeDir: this.#homeDir ?? this.#env.HOME ?? homedir(), readFile: readTextFile };
  }

  /** The client the engine calls the provider with: the root credentials of the chain, region, endpoint. */
  async #client(storage: MountStorage, service: "iam" | "sts"): Promise<{ client: ProviderClient; source: CredentialSource }> {
    const config = this.#rootConfig(storage);
    const found = localCredentials(config, this.#chain());
    if ("error" in found) throw new InvalidRequestError(found.error);
    let credentials;
    let source: CredentialSource;
    if ("next" in found) {
      credentials = await this.provider.assignedRoleCredentials();
      if (!credentials) throw new Refusal(400, [NO_CREDENTIALS, ...found.next, "no role is assigned to the machine or container the service runs on"]);
      source = "assigned-role";
    } else {
      credentials = found.credentials;
      source = found.source;
    }
    const endpoint = (service === "iam" ? config?.iam_endpoint : config?.sts_endpoint) ?? "";
    return {
      client: { credentials, region: regionOf(config?.region, this.#env), endpoint, maxRetries: config?.max_retries ?? -1 },
      source,
    };
  }

  #rootConfig(storage: MountStorage): RootConfig | undefined {
    return storage.rootConfig.get();
  }

  #leaseConfig(storage: MountStorage): { lease: bigint; leaseMax: bigint } | undefined {
    const stored = storage.leaseConfig.get();
    if (!stored) return undefined;
    const ns = (value: string) => (/^-?\d+$/.test(value) ? BigInt(value) : 0n);
    return { lease: ns(stored.lease), leaseMax: ns(stored.lease_max) };
  }

  /** The configured lease in seconds; a negative one (the write takes it, as Go's ParseDuration does) is none: the mount's default and maximum. */
  #leaseSeconds(storage: MountStorage): LeaseConfig | undefined {
    const config = this.#leaseConfig(storage);
    return config && { lease: Math.max(0, nsToSeconds(config.lease)), leaseMax: Math.max(0, nsToSeconds(config.leaseMax)) };
  }

  /** A role, also one stored by an earlier version (a legacy policy/ entry, read as the role it stands for). */
  #role(storage: MountStorage, name: string): RoleEntry | undefined {
    const stored = storage.roles.get(name);
    if (stored !== undefined) return stored;
    const legacy = storage.legacyRoles.get(name);
    return legacy === undefined ? undefined : upgradeLegacyEntry(legacy);
  }
}

/**
 * A config/lease write read as the real handler reads it (builtin/logical/aws/path_config_lease.go,
 * pathLeaseWrite: TypeString fields, a member left out is ""): the first refusal, in its order (an
 * empty lease, an empty lease_max, then each parsed by Go's time.ParseDuration), or the durations in
 * nanoseconds. A negative duration parses, and is taken.
 */
export function readLeaseConfigWrite(body: { lease?: unknown; lease_max?: unknown }): { lease: bigint; leaseMax: bigint } | { problem: string } {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const leaseText = text(body.lease);
  const leaseMaxText = text(body.lease_max);
  if (leaseText === "") return { problem: "'lease' is a required parameter" };
  if (leaseMaxText === "") return { problem: "'lease_max' is a required parameter" };
  const lease = parseGoDuration(leaseText);
  if ("error" in lease) return { problem: `Invalid lease: ${lease.error}` };
  const leaseMax = parseGoDuration(leaseMaxText);
  if ("error" in leaseMax) return { problem: `Invalid lease_max: ${leaseMax.error}` };
  return { lease: lease.value, leaseMax: leaseMax.value };
}

/** A TypeDurationSecond field in whole seconds, or the framework's 400 (`Field validation failed: ...`). */
function durationField(name: string, raw: string | number): number {
  const read = readDurationSecond(raw);
  if ("error" in read) throw new InvalidRequestError(fieldValidationFailure(name, raw, read.error));
  return Number(read.value);
}

function readTextFile(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

// ---- One engine per cluster. ----

const engines = new WeakMap<SecretsCluster, CloudCredentialsEngine>();

/** The engine of a cluster, reached as every engine is (`.at(mount)`); made on first use, with the simulated provider of the cluster's world. */
export function cloudCredentialsEngine(cluster: SecretsCluster): CloudCredentialsEngine {
  let engine = engines.get(cluster);
  if (!engine) {
    const world = cluster.world.cloud;
    engine = new CloudCredentialsEngine(cluster.storage, { provider: new SimulatedCloud(world ? { world } : {}) });
    engines.set(cluster, engine);
  }
  return engine;
}

/** Gives a cluster's engine another provider, environment or clock (tests; embedding a real provider). */
export function configureCloudCredentials(cluster: SecretsCluster, options: CloudCredentialsOptions): CloudCredentialsEngine {
  const engine = new CloudCredentialsEngine(cluster.storage, options);
  engines.set(cluster, engine);
  return engine;
}

/** Stores a role the way an earlier version did (a legacy `policy/<name>` entry holding the raw data), for tests and migrations. */
export function storeLegacyRole(storage: Storage, mount: string, name: string, data: string): void {
  new MountStorage(storage, mount).legacyRoles.put(name, data);
}
