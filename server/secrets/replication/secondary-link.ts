// A secondary's link to its primary: the handshake (merkle comparison, and a full copy of the
// primary's data when the roots differ), then WAL streaming by long-poll over the primary's cluster
// address. Each poll is also the heartbeat: the primary answers at once when it has new writes,
// and at the latest after one heartbeat interval with none. A failed call marks the primary
// `disconnected` at once; the link retries every heartbeat interval (with a new handshake) until it
// is stopped. See openapi/secrets/internal/openapi.yaml for the wire format.
import type { Storage } from "../store/storage.ts";
import type { PathsFilter } from "./domain/filter.ts";
import { isReplicatedKey, SEAL_KEY } from "./domain/keys.ts";
import { canonicalJson } from "./domain/merkle.ts";
import type { ReplicationMode } from "./domain/states.ts";
import { breach, follows, type Protocol, type SnapshotEntry } from "./internal-protocol.ts";
import { peerError, peerRequest, PeerUnreachableError } from "./peer-client.ts";

/** How long a secondary waits for a handshake answer (the primary's data when the roots differ). */
export const BOOTSTRAP_TIMEOUT_MS = 120_000;

export type SecondaryState = "connecting" | "merkle-sync" | "stream-wals";

export interface LinkConfig {
  mode: ReplicationMode;
  clusterId: string;
  secondaryId: string;
  credential: string;
  primaryApiAddr: string;
  primaryClusterAddr: string;
  /** PEM CA certificates for https addresses of the primary. */
  ca?: string[];
}

export interface LinkDeps {
  storage: Storage;
  clock: () => number;
  heartbeatMs: number;
  /** This cluster's own addresses, reported to the primary. */
  addresses(): { apiAddress: string; clusterAddress: string };
  /** Merkle root of this cluster's replicated data. */
  merkleRoot(): string;
}

/** The primary answered but refused the link (revoked, expired, not a primary any more). */
export class LinkRefusedError extends Error {
  override name = "LinkRefusedError";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export class SecondaryLink {
  state: SecondaryState = "connecting";
  lastRemoteWal: number;
  /** The primary's last_wal as last heard. */
  primaryLastWal = 0;
  lastHeartbeat?: number;
  connected = false;
  filter: PathsFilter | undefined;
  knownClusterAddrs: string[];
  /** Why the last call failed (shown in no answer; kept for debugging). */
  lastError = "";
  readonly #abort = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    readonly config: LinkConfig,
    private readonly deps: LinkDeps,
    lastRemoteWal: number,
  ) {
    this.lastRemoteWal = lastRemoteWal;
    this.knownClusterAddrs = [config.primaryClusterAddr];
  }

  get stopped(): boolean {
    return this.#abort.signal.aborted;
  }

  /** Connects to the primary and returns its answer (a copy of its data when the roots differ). */
  async handshake(localRoot = this.deps.merkleRoot()): Promise<Protocol["ConnectResponse"]> {
    const { apiAddress, clusterAddress } = this.deps.addresses();
    const response = await this.#call("connect", {
      cluster_id: this.config.clusterId,
      secondary_id: this.config.secondaryId,
      merkle_root: localRoot,
      last_remote_wal: this.lastRemoteWal,
      api_address: apiAddress,
      cluster_address: clusterAddress,
    });
    if (response.status !== 200) throw new LinkRefusedError(peerError(response), response.status);
    if (!follows("ConnectResponse", response.body)) {
      throw new LinkRefusedError(`the answer is not a replication handshake (${breach("ConnectResponse", response.body)})`, response.status);
    }
    return response.body;
  }

  /** Takes a handshake answer: the primary's data when it differs from ours, and its position. */
  accept(answer: Protocol["ConnectResponse"]): void {
    if (answer.snapshot) {
      this.state = "merkle-sync";
      applySnapshot(this.deps.storage, answer.snapshot);
    }
    this.filter = answer.filter ?? undefined;
    this.knownClusterAddrs = answer.known_primary_cluster_addrs;
    this.lastRemoteWal = answer.last_wal;
    this.primaryLastWal = answer.last_wal;
    this.#heard();
    this.state = "stream-wals";
  }

  /** Streams in the background until stopped. */
  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    this.connected = false;
    await this.#running;
  }

  /**
   * Whether the primary still acts as the primary of this replication set (for promote's safety
   * check): `reachable` false when it does not answer.
   */
  async probe(timeoutMs: number): Promise<{ reachable: boolean; active: boolean; lastWal?: number }> {
    try {
      const response = await peerRequest({
        url: `${this.config.primaryClusterAddr}/v1/replication/${this.config.mode}/probe`,
        body: { cluster_id: this.config.clusterId },
        ca: this.config.ca,
        timeoutMs,
      });
      const { body } = response;
      if (response.status !== 200 || !follows("ProbeResponse", body)) return { reachable: true, active: false };
      return { reachable: true, active: body.active, ...(body.last_wal !== undefined && { lastWal: body.last_wal }) };
    } catch (error) {
      if (error instanceof PeerUnreachableError) return { reachable: false, active: false };
      throw error;
    }
  }

  async #run(): Promise<void> {
    let needHandshake = false;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        if (needHandshake) {
          this.state = "connecting";
          const answer = await this.handshake();
          if (signal.aborted) break;
          this.accept(answer);
          needHandshake = false;
        }
        const response = await this.#call("wal", { cluster_id: this.config.clusterId, after: this.lastRemoteWal }, this.deps.heartbeatMs * 2 + 1000);
        if (signal.aborted) break;
        if (response.status === 409) {
          needHandshake = true;
          continue;
        }
        if (response.status !== 200) throw new LinkRefusedError(peerError(response), response.status);
        if (!follows("WalResponse", response.body)) throw new LinkRefusedError(`the answer is not a WAL page (${breach("WalResponse", response.body)})`, response.status);
        this.#applyWal(response.body);
      } catch (error) {
        if (signal.aborted) break;
        this.connected = false;
        this.state = "connecting";
        this.lastError = (error as Error).message;
        needHandshake = true;
        await sleep(this.deps.heartbeatMs, signal);
      }
    }
  }

  #applyWal(answer: Protocol["WalResponse"]): void {
    const { storage } = this.deps;
    for (const entry of answer.entries) {
      if (entry.op === "delete") storage.delete(entry.key);
      else storage.put(entry.key, entry.value ?? null);
    }
    this.lastRemoteWal = answer.up_to;
    this.primaryLastWal = answer.last_wal;
    this.state = "stream-wals";
    this.#heard();
  }

  #heard(): void {
    this.connected = true;
    this.lastHeartbeat = this.deps.clock();
    this.lastError = "";
  }

  /**
   * A handshake may carry the primary's whole data set (a merkle sync): it gets BOOTSTRAP_TIMEOUT_MS,
   * not a heartbeat's worth of time, or a secondary could never join a primary with much data.
   */
  #call(what: "connect" | "wal", body: Protocol["ConnectRequest"] | Protocol["WalRequest"], timeoutMs = what === "connect" ? BOOTSTRAP_TIMEOUT_MS : Math.max(2000, this.deps.heartbeatMs * 2)) {
    return peerRequest({
      url: `${this.config.primaryClusterAddr}/v1/replication/${this.config.mode}/${what}`,
      body,
      bearer: this.config.credential,
      ca: this.config.ca,
      timeoutMs,
      signal: this.#abort.signal,
    });
  }
}

/** Makes the replicated data of the storage exactly the snapshot (deleting, adding, changing). */
export function applySnapshot(storage: Storage, snapshot: SnapshotEntry[]): void {
  const wanted = new Map(snapshot.map((entry) => [entry.key, entry.value]));
  for (const key of storage.list("")) {
    if (isReplicatedKey(key) && !wanted.has(key) && key !== SEAL_KEY) storage.delete(key);
  }
  for (const [key, value] of wanted) {
    const current = storage.get(key);
    if (current === undefined || canonicalJson(current) !== canonicalJson(value)) storage.put(key, value);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
