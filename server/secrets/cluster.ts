// One cluster: a running secrets server's state, with its own id, storage, seal, tokens and rekey
// attempt. Nothing is shared between clusters, so one process can run several (replication tests
// start two or three on port 0).
import { createSeal, SEAL_TYPES, type SealType } from "./sys/seal.ts";
import type { ShareConfig } from "./sys/shamir.ts";
import { AccessControl } from "./sys/auth.ts";
import { PushMfaMethods } from "./push-mfa/methods.ts";
import { EMPTY_IDENTITY } from "./push-mfa/world.ts";
import { cryptoRandom, type Random } from "./random.ts";
import { RekeyService } from "./rekey/service.ts";
import { ReplicationManager, type ReplicationOptions } from "./replication/manager.ts";
import { SealStore } from "./sys/seal-store.ts";
import { MemoryStorage, type Storage } from "./store/storage.ts";
import { DurableStorage } from "./store/durable-storage.ts";
import { DataDirectory, DataDirectoryError } from "../shared/data-dir.ts";
import { EMPTY_WORLD, type World } from "./world.ts";
import { StoredRecord } from "./store/records.ts";

export interface ClusterOptions {
  /** The cluster id (a UUID); random when absent. */
  clusterId?: string;
  /** `shamir` (default): unseal key shares of the root key; `stored`: the seal stores the root key and operators hold recovery key shares. */
  seal?: SealType;
  /** Number and threshold of the operators' shares made at start (default 5 and 3). */
  shares?: ShareConfig;
  /** The root token; generated when absent. */
  rootToken?: string;
  world?: World;
  storage?: Storage;
  /**
   * A data directory (SECRETS_DATA_DIR) holding the cluster's storage: the first start initializes
   * the cluster there; later starts restore it (cluster id, root key, root token, everything
   * stored) and unseal it from there, and the shares given out at initialization still apply.
   */
  dataDir?: string;
  random?: Random;
  /** Replication timing and addresses (heartbeat interval, cluster port...). */
  replication?: ReplicationOptions;
}

/** What initialization hands to the operators (printed at start and written to SECRETS_INIT_FILE). */
export interface ClusterInit {
  seal: SealType;
  shares: ShareConfig;
  rootToken: string;
  /** Unseal key shares (`shamir`); empty with stored keys. */
  keys: Uint8Array[];
  /** Recovery key shares (`stored`); empty with the default seal. */
  recoveryKeys: Uint8Array[];
  /** True when the cluster was restored from its data directory (then no shares are known here). */
  restored: boolean;
}

/** What a cluster keeps about itself under `core/` (never replicated). */
interface ClusterRecord {
  id: string;
  root_token: string;
}
const CLUSTER_KEY = "core/cluster";

export class SecretsCluster {
  readonly id: string;
  readonly storage: Storage;
  readonly seal: SealStore;
  readonly auth: AccessControl;
  readonly rekey: RekeyService;
  /** DR and performance replication of this cluster with others. */
  readonly replication: ReplicationManager;
  /** Push-MFA methods of the identity store (the world's are stored at start). */
  readonly mfa: PushMfaMethods;
  readonly init: ClusterInit;
  /** The world the cluster was started with (engines read their fixtures from it). */
  readonly world: World;
  readonly #random: Random;
  readonly #directory: DataDirectory | undefined;

  private constructor(options: ClusterOptions, storage: Storage, random: Random, init: ClusterInit, id: string, directory?: DataDirectory) {
    this.id = id;
    this.#directory = directory;
    this.storage = storage;
    this.seal = new SealStore(storage);
    this.auth = new AccessControl(init.rootToken, options.world ?? EMPTY_WORLD, () => random.uuid());
    this.rekey = new RekeyService(this.seal, random);
    this.replication = new ReplicationManager({ storage, seal: this.seal, random, ...(options.replication ? { options: options.replication } : {}) });
    this.mfa = new PushMfaMethods(storage, options.world?.identity ?? EMPTY_IDENTITY, () => random.uuid());
    this.init = init;
    this.world = options.world ?? EMPTY_WORLD;
    this.#random = random;
  }

  /** Closes the data directory, if any (after the servers stopped). */
  close(): void {
    this.#directory?.close();
  }

  /** A new request id (a UUID) for a response envelope. */
  newRequestId(): string {
    return this.#random.uuid();
  }

  /** A new, initialized cluster: fresh keys split into the operators' shares, and a root token. */
  static async create(options: ClusterOptions = {}): Promise<SecretsCluster> {
    const random = options.random ?? cryptoRandom;
    const type = options.seal ?? "shamir";
    if (!SEAL_TYPES.includes(type)) throw new Error(`unknown seal type "${type}" (known: ${SEAL_TYPES.join(", ")})`);
    const shares = options.shares ?? { secret_shares: 5, secret_threshold: 3 };
    const directory = options.dataDir ? DataDirectory.open(options.dataDir, "secrets") : undefined;
    try {
      const storage = options.storage ?? (directory ? new DurableStorage(directory) : new MemoryStorage());
      const record = new StoredRecord<ClusterRecord>(storage, CLUSTER_KEY);
      const kept = record.get();
      if (kept) return SecretsCluster.#restore(options, storage, random, kept, type, directory);
      const { state, operatorShares } = await createSeal(type, shares, () => random.key());
      const rootToken = options.rootToken || random.token();
      const id = options.clusterId ?? random.uuid();
      new SealStore(storage).put(state);
      record.put({ id, root_token: rootToken });
      const init: ClusterInit = {
        seal: type,
        shares: { ...shares },
        rootToken,
        keys: type === "shamir" ? operatorShares : [],
        recoveryKeys: type === "stored" ? operatorShares : [],
        restored: false,
      };
      return new SecretsCluster(options, storage, random, init, id, directory);
    } catch (error) {
      directory?.close();
      throw error;
    }
  }

  /** A cluster from its data directory: its own id, seal and root token; the options must agree. */
  static #restore(options: ClusterOptions, storage: Storage, random: Random, kept: ClusterRecord, type: SealType, directory?: DataDirectory): SecretsCluster {
    const seal = new SealStore(storage).get();
    const where = options.dataDir ? `the data directory ${options.dataDir}` : "the storage";
    if (seal.type !== type) throw new DataDirectoryError(`${where} holds a cluster with the ${seal.type} seal, not ${type} (SECRETS_SEAL)`);
    if (options.rootToken && options.rootToken !== kept.root_token) {
      throw new DataDirectoryError(`${where} holds a cluster with another root token than SECRETS_ROOT_TOKEN; leave it unset to use the kept one`);
    }
    const init: ClusterInit = { seal: seal.type, shares: { ...seal.shares }, rootToken: kept.root_token, keys: [], recoveryKeys: [], restored: true };
    return new SecretsCluster(options, storage, random, init, kept.id, directory);
  }
}
