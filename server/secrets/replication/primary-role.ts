// A primary of one replication set: the secondaries it issued activation tokens to, their
// credentials and paths filters, and the primary's side of the cluster protocol (unwrap,
// handshake, WAL long-poll, probe). Heartbeats are measured here: every handshake and poll of a
// secondary updates its `last_heartbeat`; a secondary is `connected` while a poll is open or its
// last heartbeat is recent, and `disconnected` as soon as it drops a poll or stops polling.
import { createHash, randomBytes, timingSafeEqual, type KeyObject } from "node:crypto";
import type { Random } from "../random.ts";
import type { StoredValue, Storage } from "../store/storage.ts";
import type { Schemas } from "../wire.ts";
import { encryptToSecondary, signActivationToken, type ActivationClaims, type ActivationCredentials } from "./domain/activation.ts";
import { isMountReplicated, isNamespaceReplicated, type PathsFilter } from "./domain/filter.ts";
import { isReplicatedKey, type MountIndex } from "./domain/keys.ts";
import { merkleRoot } from "./domain/merkle.ts";
import type { ReplicationMode } from "./domain/states.ts";
import type { WalLog } from "./domain/wal.ts";
import type { Protocol, SnapshotEntry } from "./internal-protocol.ts";

export interface PrimaryDeps {
  storage: Storage;
  wal: WalLog;
  random: Random;
  clock: () => number;
  heartbeatMs: number;
  disconnectMs: number;
  mountIndex(): MountIndex;
  /** This cluster's own addresses. */
  addresses(): { apiAddress: string; clusterAddress: string };
  /** Something worth keeping changed outside an operation (a secondary activated, a token unwrapped). */
  changed(): void;
  /** The merkle root of all replicated data (what a secondary without a filter holds). */
  merkleRoot(): string;
}

/** What a primary keeps across restarts (heartbeats and open polls are not kept). */
export interface PrimarySnapshot {
  secondaries: Omit<SecondaryRecord, "openPolls" | "dropped" | "lastHeartbeat">[];
  filters: { id: string; filter: PathsFilter; generation: number }[];
  filterGeneration: number;
}

export interface SecondaryRecord {
  id: string;
  credentialHash: string;
  jti: string;
  type: "wrapping" | "encrypted";
  /** Until when (ms) the token may be unwrapped and the secondary make its first connection. */
  expiresAt: number;
  /** The credentials, kept until the wrapping token is unwrapped. */
  wrapped?: ActivationCredentials;
  activated: boolean;
  node?: { apiAddress: string; clusterAddress: string };
  lastHeartbeat?: number;
  openPolls: number;
  /** The secondary dropped its last poll before the answer (it stopped). */
  dropped: boolean;
  /** Generation of the paths filter the secondary last synced with. */
  filterGeneration: number;
}

export type SecondaryConnectionView = Schemas["ReplicationSecondaryConnection"];
export type PrimaryStatusView = Schemas["ReplicationPrimaryStatus"];

export interface IssuedToken {
  token: string;
  type: "wrapping" | "encrypted";
  ttlSeconds: number;
  creationTime: string;
}

/** An answer of the cluster protocol: a status and a JSON body. */
export interface ClusterAnswer {
  status: number;
  body: unknown;
}

type WakeReason = "wal" | "revoked" | "gone" | "filter" | "timeout" | "aborted";

interface Waiter {
  secondaryId: string;
  wake(reason: WakeReason): void;
}

const WAL_BATCH = 1000;

const refuse = (status: number, message: string): ClusterAnswer => ({ status, body: { errors: [message] } });

export class PrimaryRole {
  readonly secondaries = new Map<string, SecondaryRecord>();
  readonly #filters = new Map<string, { filter: PathsFilter; generation: number }>();
  #filterGeneration = 0;
  readonly #waiters = new Set<Waiter>();
  #closed = false;

  constructor(
    readonly mode: ReplicationMode,
    readonly clusterId: string,
    /** The cluster address given to secondaries when set (`primary_cluster_addr`), else "". */
    readonly advertisedClusterAddr: string,
    private readonly deps: PrimaryDeps,
  ) {}

  /** Makes an activation token for a new secondary. */
  issue(options: {
    id: string;
    ttlMs: number;
    apiAddress: string;
    clusterAddress: string;
    signingKey: KeyObject;
    secondaryKey?: KeyObject;
  }): IssuedToken {
    const { id, ttlMs, apiAddress, clusterAddress, signingKey, secondaryKey } = options;
    const now = this.deps.clock();
    const credential = randomBytes(32).toString("base64url");
    const credentials: ActivationCredentials = {
      mode: this.mode,
      cluster_id: this.clusterId,
      secondary_id: id,
      primary_cluster_addr: this.advertisedClusterAddr || clusterAddress,
      primary_api_addr: apiAddress,
      credential,
    };
    const jti = this.deps.random.token();
    const type = secondaryKey ? "encrypted" : "wrapping";
    const iat = Math.floor(now / 1000);
    const claims: ActivationClaims = { accessor: "", addr: apiAddress, exp: iat + Math.ceil(ttlMs / 1000), iat, jti, nbf: iat, type };
    if (secondaryKey) claims.enc = encryptToSecondary(JSON.stringify(credentials), secondaryKey);
    this.secondaries.set(id, {
      id,
      credentialHash: hash(credential),
      jti,
      type,
      expiresAt: now + ttlMs,
      ...(secondaryKey ? {} : { wrapped: credentials }),
      activated: false,
      openPolls: 0,
      dropped: false,
      filterGeneration: -1,
    });
    return { token: signActivationToken(claims, signingKey), type, ttlSeconds: Math.round(ttlMs / 1000), creationTime: new Date(now).toISOString() };
  }

  snapshot(): PrimarySnapshot {
    return {
      secondaries: [...this.secondaries.values()].map(({ openPolls: _polls, dropped: _dropped, lastHeartbeat: _heard, ...kept }) => kept),
      filters: [...this.#filters].map(([id, { filter, generation }]) => ({ id, filter, generation })),
      filterGeneration: this.#filterGeneration,
    };
  }

  restore(snapshot: PrimarySnapshot): void {
    for (const record of snapshot.secondaries) this.secondaries.set(record.id, { ...record, openPolls: 0, dropped: false });
    for (const { id, filter, generation } of snapshot.filters) this.#filters.set(id, { filter, generation });
    this.#filterGeneration = snapshot.filterGeneration;
  }

  /** Revokes a secondary: its open polls are answered 403 at once and its credential stops working. */
  revoke(id: string): boolean {
    if (!this.secondaries.delete(id)) return false;
    this.#wake((waiter) => waiter.secondaryId === id, "revoked");
    return true;
  }

  /** Whether a wrapping token of this primary is still waiting to be unwrapped. */
  holds(jti: string): boolean {
    for (const record of this.secondaries.values()) if (record.jti === jti && record.wrapped) return true;
    return false;
  }

  /** The credentials of a wrapping token (once, before it expires), else undefined. */
  unwrap(jti: string): ActivationCredentials | undefined {
    for (const record of this.secondaries.values()) {
      if (record.jti !== jti || !record.wrapped) continue;
      if (this.deps.clock() > record.expiresAt) return undefined;
      const credentials = record.wrapped;
      delete record.wrapped;
      this.deps.changed();
      return credentials;
    }
    return undefined;
  }

  filterOf(id: string): PathsFilter | undefined {
    return this.#filters.get(id)?.filter;
  }

  setFilter(id: string, filter: PathsFilter): void {
    this.#filters.set(id, { filter, generation: ++this.#filterGeneration });
    this.#wake((waiter) => waiter.secondaryId === id, "filter");
  }

  deleteFilter(id: string): boolean {
    const existed = this.#filters.delete(id);
    if (existed) this.#wake((waiter) => waiter.secondaryId === id, "filter");
    return existed;
  }

  /** New writes: open polls answer with them. */
  notifyWal(): void {
    this.#wake(() => true, "wal");
  }

  /** This cluster stops being this primary (demote, disable): every open poll is answered 410. */
  close(): void {
    this.#closed = true;
    this.#wake(() => true, "gone");
  }

  status(): PrimaryStatusView {
    const records = [...this.secondaries.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    return {
      cluster_id: this.clusterId,
      known_secondaries: records.map((record) => record.id),
      last_wal: this.deps.wal.last,
      merkle_root: this.deps.merkleRoot(),
      mode: "primary",
      primary_cluster_addr: this.advertisedClusterAddr,
      secondaries: records
        .filter((record) => record.node && record.lastHeartbeat !== undefined)
        .map((record) => ({
          node_id: record.id,
          api_address: record.node!.apiAddress,
          cluster_address: record.node!.clusterAddress,
          connection_status: this.#connected(record) ? "connected" : "disconnected",
          last_heartbeat: new Date(record.lastHeartbeat!).toISOString(),
        })),
      state: "running",
    };
  }

  /** POST /v1/replication/{mode}/connect: the handshake of a secondary. */
  connect(credential: string | undefined, body: Protocol["ConnectRequest"]): ClusterAnswer {
    const record = this.#authenticate(credential);
    if (!record) return refuse(403, "unknown or revoked secondary credential");
    const now = this.deps.clock();
    if (!record.activated && now > record.expiresAt) return refuse(403, "the secondary activation token has expired");
    if (body.secondary_id !== record.id) return refuse(403, `the credential is not that of secondary "${body.secondary_id}"`);
    if (body.cluster_id !== this.clusterId) return refuse(409, `this primary serves replication set ${this.clusterId}, not ${body.cluster_id}`);
    if (!record.activated) {
      record.activated = true;
      this.deps.changed();
    }
    record.node = { apiAddress: body.api_address, clusterAddress: body.cluster_address };
    record.lastHeartbeat = now;
    record.dropped = false;
    record.filterGeneration = this.#filters.get(record.id)?.generation ?? 0;
    const filter = this.filterOf(record.id);
    const entries = this.#entries(filter);
    const root = merkleRoot(entries.map((entry) => [entry.key, entry.value] as const));
    const own = this.deps.addresses();
    const clusterAddr = this.advertisedClusterAddr || own.clusterAddress;
    const answer: Protocol["ConnectResponse"] = {
      cluster_id: this.clusterId,
      primary_api_addr: own.apiAddress,
      primary_cluster_addr: clusterAddr,
      known_primary_cluster_addrs: clusterAddr ? [clusterAddr] : [],
      last_wal: this.deps.wal.last,
      merkle_root: root,
      filter: filter ? { mode: filter.mode, paths: [...filter.paths] } : null,
      snapshot: root === body.merkle_root ? null : entries,
    };
    return { status: 200, body: answer };
  }

  /** POST /v1/replication/{mode}/wal: the writes after `after`, waiting up to a heartbeat for some. */
  async wal(credential: string | undefined, body: Protocol["WalRequest"], signal: AbortSignal): Promise<ClusterAnswer> {
    const record = this.#authenticate(credential);
    if (!record) return refuse(403, "unknown or revoked secondary credential");
    if (this.#closed) return refuse(410, `this cluster is no longer the primary of replication set ${this.clusterId}`);
    if (!record.activated) return refuse(403, "the secondary has not made its handshake (connect) yet");
    if (body.cluster_id !== this.clusterId) return refuse(409, `this primary serves replication set ${this.clusterId}, not ${body.cluster_id}`);
    if (this.#resyncNeeded(record, body.after)) return refuse(409, "resync: make a new handshake");
    record.openPolls++;
    record.dropped = false;
    record.lastHeartbeat = this.deps.clock();
    let reason: WakeReason = "wal";
    try {
      if (this.deps.wal.last === body.after) reason = await this.#wait(record.id, signal);
    } finally {
      record.openPolls--;
      if (reason === "aborted") record.dropped = true;
      else if (this.secondaries.get(record.id) === record) record.lastHeartbeat = this.deps.clock();
    }
    switch (reason) {
      case "revoked":
        return refuse(403, "unknown or revoked secondary credential");
      case "gone":
        return refuse(410, `this cluster is no longer the primary of replication set ${this.clusterId}`);
      case "filter":
        return refuse(409, "resync: the paths filter of this secondary changed");
      case "aborted":
        return refuse(499, "the secondary left");
    }
    if (this.#resyncNeeded(record, body.after)) return refuse(409, "resync: make a new handshake");
    return { status: 200, body: this.#walAnswer(record.id, body.after) };
  }

  /** POST /v1/replication/{mode}/probe: whether this cluster is the active primary of a set. */
  probe(body: Protocol["ProbeRequest"]): ClusterAnswer {
    const active = !this.#closed && body.cluster_id === this.clusterId;
    return { status: 200, body: active ? { active, cluster_id: this.clusterId, last_wal: this.deps.wal.last } : { active } };
  }

  #walAnswer(id: string, after: number): Protocol["WalResponse"] {
    const read = this.deps.wal.since(after, WAL_BATCH);
    const raw = "entries" in read ? read.entries : [];
    const filter = this.filterOf(id);
    const index = this.deps.mountIndex();
    const entries = raw
      .filter((entry) => this.#visible(entry.key, entry.value, filter, index))
      .map((entry) => (entry.value === undefined ? { index: entry.index, op: "delete" as const, key: entry.key } : { index: entry.index, op: "put" as const, key: entry.key, value: entry.value }));
    const upTo = raw.length === WAL_BATCH ? raw[raw.length - 1]!.index : this.deps.wal.last;
    return { cluster_id: this.clusterId, up_to: upTo, last_wal: this.deps.wal.last, entries };
  }

  #resyncNeeded(record: SecondaryRecord, after: number): boolean {
    if (record.filterGeneration !== (this.#filters.get(record.id)?.generation ?? 0)) return true;
    if (after > this.deps.wal.last) return true;
    return "truncated" in this.deps.wal.since(after, 1);
  }

  /** The replicated data a secondary with this filter may hold. */
  #entries(filter: PathsFilter | undefined): SnapshotEntry[] {
    const { storage } = this.deps;
    const index = this.deps.mountIndex();
    const entries: SnapshotEntry[] = [];
    for (const key of storage.list("")) {
      if (!isReplicatedKey(key)) continue;
      const value = storage.get(key);
      if (value !== undefined && this.#visible(key, value, filter, index)) entries.push({ key, value: value as StoredValue });
    }
    return entries;
  }

  /** Whether a secondary with this filter may hold the key (a delete, without value, always goes). */
  #visible(key: string, value: StoredValue | undefined, filter: PathsFilter | undefined, index: MountIndex): boolean {
    if (!isReplicatedKey(key)) return false;
    if (!filter) return true;
    const mount = index.mountOf(key);
    if (mount !== undefined) return isMountReplicated(filter, mount);
    return value === undefined || isNamespaceReplicated(filter, index.namespaceOf(key, value));
  }

  #connected(record: SecondaryRecord): boolean {
    if (record.openPolls > 0) return true;
    if (record.dropped || record.lastHeartbeat === undefined) return false;
    return this.deps.clock() - record.lastHeartbeat <= this.deps.disconnectMs;
  }

  #authenticate(credential: string | undefined): SecondaryRecord | undefined {
    if (!credential) return undefined;
    const wanted = Buffer.from(hash(credential), "hex");
    for (const record of this.secondaries.values()) {
      const stored = Buffer.from(record.credentialHash, "hex");
      if (stored.length === wanted.length && timingSafeEqual(stored, wanted)) return record;
    }
    return undefined;
  }

  #wait(secondaryId: string, signal: AbortSignal): Promise<WakeReason> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        secondaryId,
        wake: (reason) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          this.#waiters.delete(waiter);
          resolve(reason);
        },
      };
      const onAbort = () => waiter.wake("aborted");
      const timer = setTimeout(() => waiter.wake("timeout"), this.deps.heartbeatMs);
      if (signal.aborted) return waiter.wake("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  #wake(which: (waiter: Waiter) => boolean, reason: WakeReason): void {
    for (const waiter of [...this.#waiters]) if (which(waiter)) waiter.wake(reason);
  }
}

function hash(credential: string): string {
  return createHash("sha256").update(credential).digest("hex");
}
