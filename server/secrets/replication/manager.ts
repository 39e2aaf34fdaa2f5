// Replication of one cluster: its WAL of replicated writes, its DR and performance modes, DR
// operation tokens, the request gate of a secondary, and the cluster protocol it serves to other
// clusters (cluster-app.ts). One per SecretsCluster; the server tells it where the cluster listens.
//
// Generic over the Storage: every write of a replicated key (domain/keys.ts) is a WAL entry that
// primaries stream to their secondaries, whatever engine or service made it.
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { InvalidRequestError } from "../errors.ts";
import type { Random } from "../random.ts";
import type { SealStore } from "../sys/seal-store.ts";
import type { StoredValue, Storage } from "../store/storage.ts";
import { ActivationTokenError, generateSigningKey, verifyActivationToken, type ActivationCredentials } from "./domain/activation.ts";
import { admitRequest, type RequestMethodName } from "./domain/admission.ts";
import { isReplicatedKey, MountIndex, type MountEntry } from "./domain/keys.ts";
import { MerkleTracker } from "./domain/merkle.ts";
import { modeLabel, roleRequired, type ReplicationMode } from "./domain/states.ts";
import { WalLog } from "./domain/wal.ts";
import { ModeReplication } from "./mode.ts";
import { OperationTokenService } from "./operation-tokens.ts";

export interface ReplicationOptions {
  /** How often heartbeats go between a primary and its secondaries (ms, default 5000). */
  heartbeatIntervalMs?: number;
  /** After how long without a heartbeat a peer is `disconnected` (ms, default 3 heartbeats). */
  disconnectAfterMs?: number;
  /** Port of the cluster listener (default: the API port + 1, or any free port when the API port is 0). */
  clusterPort?: number;
  /** The API address this cluster gives to secondaries (default: where it listens). */
  apiAddress?: string;
  /** The cluster address this cluster reports (default: where its cluster listener listens). */
  clusterAddress?: string;
  /** WAL entries kept for secondaries that fall behind (default 10000). */
  walRetention?: number;
  /** Bytes of JSON the WAL keeps at most (default 16 MiB). */
  walRetentionBytes?: number;
  /** Milliseconds since the epoch (tests may give their own clock). */
  clock?: () => number;
}

export interface ReplicationDeps {
  storage: Storage;
  seal: SealStore;
  random: Random;
  options?: ReplicationOptions;
}

const SIGNING_KEY = "core/replication/signing-key";

/** The key activation tokens are signed with, as kept in storage (tokens issued before a restart stay valid). */
function readSigningKey(storage: Storage): { privateKey: KeyObject; publicKey: KeyObject } | undefined {
  const pem = storage.get<string>(SIGNING_KEY);
  if (!pem) return undefined;
  const privateKey = createPrivateKey(pem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

function keepSigningKey(storage: Storage, key: { privateKey: KeyObject; publicKey: KeyObject }) {
  storage.put(SIGNING_KEY, key.privateKey.export({ type: "pkcs8", format: "pem" }).toString());
  return key;
}

export class ReplicationManager {
  readonly wal: WalLog;
  readonly dr: ModeReplication;
  readonly performance: ModeReplication;
  readonly operationTokens: OperationTokenService;
  readonly heartbeatMs: number;
  readonly disconnectMs: number;
  readonly clock: () => number;
  readonly options: ReplicationOptions;
  readonly #storage: Storage;
  #merkle: MerkleTracker | undefined;
  #addresses: { apiAddress: string; clusterAddress: string } | undefined;
  #mounts: MountEntry[] = [];
  #signingKey: { privateKey: KeyObject; publicKey: KeyObject } | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor({ storage, seal, random, options = {} }: ReplicationDeps) {
    this.options = options;
    this.#storage = storage;
    this.heartbeatMs = options.heartbeatIntervalMs ?? 5000;
    this.disconnectMs = options.disconnectAfterMs ?? this.heartbeatMs * 3;
    this.clock = options.clock ?? Date.now;
    this.wal = new WalLog(options.walRetention, options.walRetentionBytes);
    // A cluster restored from its data directory numbers its new writes after every write it ever
    // made, so that no secondary's position can be mistaken for a newer one.
    this.wal.startAt(storage.index());
    this.#signingKey = readSigningKey(storage);
    const context = (mode: ReplicationMode) => ({
      storage,
      random,
      wal: this.wal,
      clock: this.clock,
      heartbeatMs: this.heartbeatMs,
      disconnectMs: this.disconnectMs,
      signingKey: () => (this.#signingKey ??= keepSigningKey(storage, generateSigningKey())),
      changed: () => this.persist(),
      addresses: () => this.addresses(),
      mountIndex: () => this.mountIndex(),
      knownMounts: () => this.knownMounts(),
      knownNamespaces: () => this.knownNamespaces(),
      merkleRoot: () => this.merkleRoot(),
      other: () => (mode === "dr" ? this.performance : this.dr),
      verifyOperationToken: (token: string | undefined) => this.operationTokens.verify(token),
      leftSecondary: () => {
        if (mode === "dr") this.operationTokens.abandonAttempt();
      },
    });
    this.dr = new ModeReplication("dr", context("dr"));
    this.performance = new ModeReplication("performance", context("performance"));
    this.operationTokens = new OperationTokenService(seal, random, (what) => roleRequired("dr", this.dr.role, "secondary", what));
    storage.subscribe((write) => {
      if (!isReplicatedKey(write.key)) return;
      // Only a primary ships its writes. A cluster that is no primary numbers them and keeps none
      // (16 MiB of memory otherwise): a secondary that joins it later starts from the handshake's
      // full copy, not from its WAL.
      if (this.dr.role === "primary" || this.performance.role === "primary") this.wal.append(write.key, write.value, write.bytes);
      else this.wal.advance();
      this.dr.notifyWal();
      this.performance.notifyWal();
    });
  }

  mode(mode: ReplicationMode): ModeReplication {
    return mode === "dr" ? this.dr : this.performance;
  }

  /** The server listens: where its API and its cluster listener are. */
  listening(addresses: { apiAddress: string; clusterAddress: string }): void {
    this.#addresses = {
      apiAddress: this.options.apiAddress ?? addresses.apiAddress,
      clusterAddress: this.options.clusterAddress ?? addresses.clusterAddress,
    };
    this.dr.resume();
    this.performance.resume();
  }

  addresses(): { apiAddress: string; clusterAddress: string } {
    if (!this.#addresses) throw new InvalidRequestError("replication needs a listening server: this cluster has no API and cluster address");
    return this.#addresses;
  }

  /** The mounts the server serves (for paths filters and dynamic filters). */
  useMounts(mounts: MountEntry[]): void {
    this.#mounts = mounts.map(({ path, engine }) => ({ path, engine }));
  }

  mountIndex(): MountIndex {
    return new MountIndex(this.#mounts);
  }

  /** Mounts served or holding data. */
  knownMounts(): string[] {
    const index = this.mountIndex();
    const mounts = new Set(this.#mounts.map((mount) => mount.path));
    for (const key of this.#storage.list("logical/")) {
      const mount = index.mountOf(key);
      if (mount) mounts.add(mount);
    }
    return [...mounts].sort();
  }

  /** Namespaces that hold data of their own (MFA methods). */
  knownNamespaces(): string[] {
    const index = this.mountIndex();
    const namespaces = new Set<string>();
    for (const key of this.#storage.list("identity/")) {
      const namespace = index.namespaceOf(key, this.#storage.get(key));
      if (namespace !== "") namespaces.add(namespace);
    }
    return [...namespaces].sort();
  }

  /** The merkle root of this cluster's replicated data (tracked from the first time it is asked for). */
  merkleRoot(): string {
    this.#merkle ??= new MerkleTracker(this.#storage, isReplicatedKey);
    return this.#merkle.root();
  }

  /** Whether a request may run on this cluster in its replication roles now (throws when not: domain/admission.ts). */
  admit(method: RequestMethodName, path: string, mount: string | undefined): void {
    admitRequest(method, path, mount, this.dr.role, this.performance);
  }

  /**
   * POST /v1/sys/wrapping/unwrap on the API listener: the credentials of a wrapping activation token
   * for a secondary of `mode`. A token of the other mode is refused without being used up.
   */
  unwrap(token: string, mode: ReplicationMode): ActivationCredentials {
    const invalid = () => new InvalidRequestError("wrapping token is not valid or does not exist");
    if (!this.#signingKey) throw invalid();
    let claims;
    try {
      claims = verifyActivationToken(token, this.#signingKey.publicKey);
    } catch (error) {
      if (error instanceof ActivationTokenError) throw invalid();
      throw error;
    }
    if (claims.type !== "wrapping") throw invalid();
    const other: ReplicationMode = mode === "dr" ? "performance" : "dr";
    if (this.mode(other).primary?.holds(claims.jti)) {
      throw new InvalidRequestError(`the activation token is for ${modeLabel(other)} replication, not ${modeLabel(mode)} replication`);
    }
    const credentials = this.mode(mode).primary?.unwrap(claims.jti);
    if (!credentials) throw invalid();
    return credentials;
  }

  /** Keeps both modes' state in the cluster's storage. */
  persist(): void {
    this.dr.persist();
    this.performance.persist();
  }

  /** Runs state changes one after the other; what they changed is kept. */
  serialized<T>(run: () => T | Promise<T>): Promise<T> {
    const runAndKeep = async () => {
      try {
        return await run();
      } finally {
        this.persist();
      }
    };
    const result = this.#queue.then(runAndKeep, runAndKeep);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** The server closes: streaming stops and open polls are answered. */
  async stop(): Promise<void> {
    await Promise.all([this.dr.stop(), this.performance.stop()]);
  }
}
