// One replication mode (`dr` or `performance`) of a cluster: its role in the state table
// (domain/states.ts), the primary it is (primary-role.ts) or the link to its primary
// (secondary-link.ts), and the operations of /sys/replication/<mode>/*. State changes run one at a
// time (the manager's queue); every refusal is a 400 that changes nothing.
import type { KeyObject } from "node:crypto";
import { InvalidRequestError, NotFoundError } from "../errors.ts";
import type { Random } from "../random.ts";
import type { Storage } from "../store/storage.ts";
import {
  ActivationTokenError,
  decryptForSecondary,
  generateSecondaryKeyPair,
  readActivationToken,
  readSecondaryPublicKey,
  type ActivationCredentials,
} from "./domain/activation.ts";
import { lenientDuration } from "../framework-fields.ts";
import { promotionRefusal } from "./domain/promotion.ts";
import { dynamicFilter, parsePathsFilter, type DynamicFilter, type PathsFilter } from "./domain/filter.ts";
import { SEAL_KEY, type MountIndex } from "./domain/keys.ts";
import { modeLabel, roleRequired, transition, type ReplicationEvent, type ReplicationMode, type ReplicationRole } from "./domain/states.ts";
import type { WalLog } from "./domain/wal.ts";
import { follows } from "./internal-protocol.ts";
import { loadCaCertificates, peerError, peerRequest, PeerUnreachableError } from "./peer-client.ts";
import { PrimaryRole, type IssuedToken, type PrimarySnapshot, type PrimaryStatusView } from "./primary-role.ts";
import { LinkRefusedError, SecondaryLink, type LinkConfig, type SecondaryState } from "./secondary-link.ts";
import { StoredRecord } from "../store/records.ts";
import type { BodyRead, Schemas } from "../wire.ts";

/** What a mode needs from its cluster (given by the manager). */
export interface ModeContext {
  storage: Storage;
  random: Random;
  wal: WalLog;
  clock: () => number;
  heartbeatMs: number;
  disconnectMs: number;
  signingKey(): { privateKey: KeyObject; publicKey: KeyObject };
  /** This cluster's API and cluster addresses; 400 when it does not listen (no server). */
  addresses(): { apiAddress: string; clusterAddress: string };
  mountIndex(): MountIndex;
  knownMounts(): string[];
  knownNamespaces(): string[];
  merkleRoot(): string;
  /** The other mode of the same cluster. */
  other(): ModeReplication;
  /** DR only: throws 400 unless the DR operation token is valid. */
  verifyOperationToken(token: string | undefined): void;
  /** Called when this mode stops being a secondary. */
  leftSecondary(): void;
  /** Called when a primary's state changed outside an operation: keep it. */
  changed(): void;
}

/**
 * What a mode keeps in its cluster's storage (`core/replication/<mode>`, never replicated), so that
 * a cluster restarted on its data directory is the same primary or secondary it was.
 */
type ModeSnapshot =
  | { role: "disabled" }
  | { role: "primary"; clusterId: string; advertised: string; primary: PrimarySnapshot }
  | { role: "secondary"; clusterId: string; secondaryId: string; lastRemoteWal: number; link: LinkConfig | null };

export const modeStateKey = (mode: ReplicationMode) => `core/replication/${mode}`;
/** How long a secondary activation token lasts when `ttl` is left out (30m), in seconds. */
const DEFAULT_SECONDARY_TOKEN_TTL = 30 * 60;
const isClusterOwnKey = (key: string) => key === "core/cluster" || key.startsWith("core/replication/");

type ModeState =
  | { role: "disabled" }
  | { role: "primary"; primary: PrimaryRole }
  | { role: "secondary"; clusterId: string; secondaryId: string; lastRemoteWal: number; link?: SecondaryLink };

export type SecondaryStatusView = Schemas["ReplicationSecondaryStatus"];

export type StatusView = PrimaryStatusView | SecondaryStatusView | Schemas["ReplicationDisabledStatus"];

/** The body of a secondary's enable (and, with the DR operation token, of its update-primary). */
export type ActivationRequest = BodyRead<"ReplicationActivationRequest">;

export class ModeReplication {
  #state: ModeState = { role: "disabled" };
  #keyPair: { publicKey: string; privateKey: KeyObject } | undefined;
  /** A secondary's link kept in storage, started again once the server listens. */
  #linkToResume: LinkConfig | undefined;

  constructor(
    readonly mode: ReplicationMode,
    private readonly ctx: ModeContext,
  ) {
    this.#restore();
  }

  /** Writes the mode's state to its cluster's storage (after every change). */
  persist(): void {
    const state = this.#state;
    let snapshot: ModeSnapshot;
    if (state.role === "disabled") snapshot = { role: "disabled" };
    else if (state.role === "primary") snapshot = { role: "primary", clusterId: state.primary.clusterId, advertised: state.primary.advertisedClusterAddr, primary: state.primary.snapshot() };
    else {
      const link = state.link?.config ?? this.#linkToResume ?? null;
      snapshot = { role: "secondary", clusterId: state.clusterId, secondaryId: state.secondaryId, lastRemoteWal: state.link?.lastRemoteWal ?? state.lastRemoteWal, link };
    }
    const record = this.#snapshotRecord();
    if (JSON.stringify(record.get()) !== JSON.stringify(snapshot)) record.put(snapshot);
  }

  /** The server listens: a secondary restored from storage connects to its primary again. */
  resume(): void {
    const config = this.#linkToResume;
    const state = this.#state;
    this.#linkToResume = undefined;
    if (!config || state.role !== "secondary") return;
    const link = new SecondaryLink(config, this.#linkDeps(), state.lastRemoteWal);
    link.start();
    this.#state = { ...state, link };
  }

  /** Where the mode's snapshot is kept (the storage may be replaced, by a DR secondary's resync). */
  #snapshotRecord(): StoredRecord<ModeSnapshot> {
    return new StoredRecord(this.ctx.storage, modeStateKey(this.mode));
  }

  #restore(): void {
    const snapshot = this.#snapshotRecord().get();
    if (!snapshot || snapshot.role === "disabled") return;
    if (snapshot.role === "primary") {
      const primary = this.#newPrimary(snapshot.clusterId, snapshot.advertised);
      primary.restore(snapshot.primary);
      this.#state = { role: "primary", primary };
      return;
    }
    this.#state = { role: "secondary", clusterId: snapshot.clusterId, secondaryId: snapshot.secondaryId, lastRemoteWal: snapshot.lastRemoteWal };
    this.#linkToResume = snapshot.link ?? undefined;
  }

  get role(): ReplicationRole {
    return this.#state.role;
  }

  /** The paths filter a performance secondary received from its primary. */
  get secondaryFilter(): PathsFilter | undefined {
    return this.#state.role === "secondary" ? this.#state.link?.filter : undefined;
  }

  /** The primary's API address, when this is a secondary that knows one. */
  get primaryApiAddr(): string | undefined {
    return this.#state.role === "secondary" ? this.#state.link?.config.primaryApiAddr : undefined;
  }

  status(): StatusView {
    const state = this.#state;
    if (state.role === "disabled") return { mode: "disabled" };
    if (state.role === "primary") return state.primary.status();
    const link = state.link;
    return {
      cluster_id: state.clusterId,
      known_primary_cluster_addrs: link ? [...link.knownClusterAddrs] : [],
      last_remote_wal: link?.lastRemoteWal ?? state.lastRemoteWal,
      merkle_root: this.ctx.merkleRoot(),
      mode: "secondary",
      primaries: link
        ? [
            {
              api_address: link.config.primaryApiAddr,
              cluster_address: link.config.primaryClusterAddr,
              connection_status: this.#primaryConnected(link) ? "connected" : "disconnected",
              ...(link.lastHeartbeat !== undefined ? { last_heartbeat: new Date(link.lastHeartbeat).toISOString() } : {}),
            },
          ]
        : [],
      primary_cluster_addr: link?.config.primaryClusterAddr ?? "",
      secondary_id: state.secondaryId,
      state: link ? link.state : "idle",
    };
  }

  // --- the state table -------------------------------------------------------------------------

  enablePrimary(body: { primary_cluster_addr?: string }): void {
    this.#step("enablePrimary");
    const advertised = body.primary_cluster_addr ?? "";
    if (advertised !== "") checkAddress(advertised, "primary_cluster_addr");
    this.ctx.addresses();
    this.#state = { role: "primary", primary: this.#newPrimary(this.ctx.random.uuid(), advertised) };
  }

  demote(): void {
    this.#step("demote");
    const { primary } = this.#state as Extract<ModeState, { role: "primary" }>;
    primary.close();
    this.#state = { role: "secondary", clusterId: primary.clusterId, secondaryId: "", lastRemoteWal: 0 };
  }

  disablePrimary(): void {
    this.#step("disablePrimary");
    (this.#state as Extract<ModeState, { role: "primary" }>).primary.close();
    this.#state = { role: "disabled" };
  }

  async enableSecondary(body: ActivationRequest): Promise<void> {
    this.#step("enableSecondary");
    const activation = await this.#activate(body);
    const link = this.#newLink(activation, 0);
    const answer = await this.#bootstrap(link, "");
    // All data of the cluster is cleared at once, and the primary's taken in its place. The seal
    // is replaced by the primary's (part of the copy) rather than deleted.
    // The cluster's own record (id, root token) and replication state are not data: they stay.
    for (const key of this.ctx.storage.list("")) if (key !== SEAL_KEY && !isClusterOwnKey(key)) this.ctx.storage.delete(key);
    link.accept(answer);
    link.start();
    this.#state = { role: "secondary", clusterId: activation.credentials.cluster_id, secondaryId: activation.credentials.secondary_id, lastRemoteWal: link.lastRemoteWal, link };
  }

  async promote(body: { force?: boolean; primary_cluster_addr?: string; dr_operation_token?: string }): Promise<void> {
    this.#step("promote");
    if (this.mode === "dr") this.ctx.verifyOperationToken(body.dr_operation_token);
    const advertised = body.primary_cluster_addr ?? "";
    if (advertised !== "") checkAddress(advertised, "primary_cluster_addr");
    this.ctx.addresses();
    const state = this.#state as Extract<ModeState, { role: "secondary" }>;
    if (!body.force && state.link) await this.#promotionSafetyChecks(state.clusterId, state.link);
    if (this.#state !== state) throw new InvalidRequestError("the replication state changed during the promotion; try again");
    await state.link?.stop();
    this.ctx.leftSecondary();
    this.#state = { role: "primary", primary: this.#newPrimary(state.clusterId, advertised) };
  }

  async updatePrimary(body: ActivationRequest & { dr_operation_token?: string }): Promise<void> {
    this.#step("updatePrimary");
    if (this.mode === "dr") this.ctx.verifyOperationToken(body.dr_operation_token);
    const state = this.#state as Extract<ModeState, { role: "secondary" }>;
    const lastRemoteWal = state.link?.lastRemoteWal ?? state.lastRemoteWal;
    if (body.token === "") {
      // A blank token keeps the secondary (and its data and cluster id) but forgets its primary.
      await state.link?.stop();
      this.#state = { ...state, lastRemoteWal, link: undefined };
      return;
    }
    const activation = await this.#activate(body);
    const joining = activation.credentials.cluster_id;
    if (joining !== state.clusterId) {
      throw new InvalidRequestError(
        `the activation token is for replication set ${joining}, but this secondary belongs to replication set ${state.clusterId}: ` +
          `to join another replication set (for example after its primary was disabled and enabled again, which changes its cluster id) ` +
          `disable this secondary and enable it again, which wipes its data`,
      );
    }
    const link = this.#newLink(activation, lastRemoteWal);
    const answer = await this.#bootstrap(link, this.ctx.merkleRoot());
    if (this.#state !== state) {
      await link.stop();
      throw new InvalidRequestError("the replication state changed during the update; try again");
    }
    await state.link?.stop();
    link.accept(answer);
    link.start();
    this.#state = { role: "secondary", clusterId: state.clusterId, secondaryId: activation.credentials.secondary_id, lastRemoteWal: link.lastRemoteWal, link };
  }

  async disableSecondary(): Promise<void> {
    this.#step("disableSecondary");
    const state = this.#state as Extract<ModeState, { role: "secondary" }>;
    await state.link?.stop();
    this.ctx.leftSecondary();
    this.#state = { role: "disabled" };
  }

  // --- activation tokens -----------------------------------------------------------------------

  secondaryToken(body: { id: string; ttl?: string | number; secondary_public_key?: string }): IssuedToken {
    const primary = this.#primary("generate a secondary activation token");
    const id = body.id.trim();
    if (id === "") throw new InvalidRequestError("'id' must be a non-empty string");
    // The framework read `ttl` before the handler ran (LenientDuration); 30m when left out.
    const ttlMs = lenientDuration(body.ttl, DEFAULT_SECONDARY_TOKEN_TTL) * 1000;
    if (ttlMs < 1000) throw new InvalidRequestError("ttl must be at least one second");
    if (primary.secondaries.has(id)) {
      throw new InvalidRequestError(`a secondary with id "${id}" already exists: ids are unique (revoke it first to issue it a new activation token)`);
    }
    let secondaryKey: KeyObject | undefined;
    if (body.secondary_public_key) {
      try {
        secondaryKey = readSecondaryPublicKey(body.secondary_public_key);
      } catch (error) {
        if (error instanceof ActivationTokenError) throw new InvalidRequestError(error.message);
        throw error;
      }
    }
    const { apiAddress, clusterAddress } = this.ctx.addresses();
    return primary.issue({ id, ttlMs, apiAddress, clusterAddress, signingKey: this.ctx.signingKey().privateKey, ...(secondaryKey ? { secondaryKey } : {}) });
  }

  revokeSecondary(body: { id: string }): void {
    const primary = this.#primary("revoke a secondary");
    if (!primary.revoke(body.id)) throw new InvalidRequestError(`no secondary with id "${body.id}" is known to this primary`);
  }

  generatePublicKey(): string {
    if (this.#state.role === "primary") {
      throw new InvalidRequestError(`cannot generate a secondary public key: this cluster is a ${modeLabel(this.mode)} primary`);
    }
    this.#refuseOnDrSecondary();
    const pair = generateSecondaryKeyPair();
    this.#keyPair = pair;
    return pair.publicKey;
  }

  // --- paths filters (performance) --------------------------------------------------------------

  readPathsFilter(id: string): PathsFilter {
    const filter = this.#primary("read a paths filter").filterOf(id);
    if (!filter) throw new NotFoundError(`no paths filter is set for secondary "${id}"`);
    return filter;
  }

  writePathsFilter(id: string, body: { mode?: string; paths?: unknown }): void {
    const primary = this.#primary("set a paths filter");
    const parsed = parsePathsFilter(body.mode, body.paths);
    if ("problem" in parsed) throw new InvalidRequestError(parsed.problem);
    primary.setFilter(id, parsed.filter);
  }

  deletePathsFilter(id: string): void {
    this.#primary("delete a paths filter").deleteFilter(id);
  }

  primaryDynamicFilter(id: string): DynamicFilter {
    const primary = this.#primary("read a dynamic filter");
    return dynamicFilter(primary.filterOf(id), this.ctx.knownMounts(), this.ctx.knownNamespaces());
  }

  secondaryDynamicFilter(id: string): DynamicFilter {
    this.#refuseOnDrSecondary();
    const refusal = roleRequired(this.mode, this.#state.role, "secondary", "read the dynamic filter of this secondary");
    if (refusal) throw new InvalidRequestError(refusal);
    const state = this.#state as Extract<ModeState, { role: "secondary" }>;
    if (id !== state.secondaryId) {
      throw new InvalidRequestError(`"${id}" is not the id of this secondary (${state.secondaryId ? `"${state.secondaryId}"` : "it has no primary"})`);
    }
    return dynamicFilter(state.link?.filter, this.ctx.knownMounts(), this.ctx.knownNamespaces());
  }

  // --- for the manager ---------------------------------------------------------------------------

  /** The primary of this mode, for the cluster protocol (undefined unless primary). */
  get primary(): PrimaryRole | undefined {
    return this.#state.role === "primary" ? this.#state.primary : undefined;
  }

  notifyWal(): void {
    this.primary?.notifyWal();
  }

  /** Stops streaming and answers open polls (the server is closing). */
  async stop(): Promise<void> {
    const state = this.#state;
    if (state.role === "secondary") await state.link?.stop();
    if (state.role === "primary") state.primary.close();
  }

  // --- internals ---------------------------------------------------------------------------------

  #step(event: ReplicationEvent): void {
    this.#refuseOnDrSecondary();
    this.#crossModeCheck(event);
    const outcome = transition(this.mode, this.#state.role, event);
    if (!outcome.ok) throw new InvalidRequestError(outcome.refusal);
  }

  /** A DR secondary replicates everything and serves nothing: no performance replication on it. */
  #refuseOnDrSecondary(): void {
    if (this.mode === "performance" && this.ctx.other().role === "secondary") {
      throw new InvalidRequestError("performance replication operations are disabled on a DR secondary");
    }
  }

  #crossModeCheck(event: ReplicationEvent): void {
    if (this.mode === "dr" && event === "enableSecondary" && this.ctx.other().role !== "disabled") {
      throw new InvalidRequestError(
        "cannot enable DR secondary: performance replication is enabled on this cluster (a DR secondary serves no requests; disable performance replication first)",
      );
    }
  }

  #primary(what: string): PrimaryRole {
    this.#refuseOnDrSecondary();
    const refusal = roleRequired(this.mode, this.#state.role, "primary", what);
    if (refusal) throw new InvalidRequestError(refusal);
    return (this.#state as Extract<ModeState, { role: "primary" }>).primary;
  }

  #newPrimary(clusterId: string, advertised: string): PrimaryRole {
    const ctx = this.ctx;
    return new PrimaryRole(this.mode, clusterId, advertised, {
      storage: ctx.storage,
      wal: ctx.wal,
      random: ctx.random,
      clock: ctx.clock,
      heartbeatMs: ctx.heartbeatMs,
      disconnectMs: ctx.disconnectMs,
      mountIndex: () => ctx.mountIndex(),
      addresses: () => ctx.addresses(),
      changed: () => ctx.changed(),
      merkleRoot: () => ctx.merkleRoot(),
    });
  }

  #linkDeps() {
    return { storage: this.ctx.storage, clock: this.ctx.clock, heartbeatMs: this.ctx.heartbeatMs, addresses: () => this.ctx.addresses(), merkleRoot: () => this.ctx.merkleRoot() };
  }

  #newLink(activation: Activation, lastRemoteWal: number): SecondaryLink {
    const { credentials, ca, apiAddr } = activation;
    return new SecondaryLink(
      {
        mode: this.mode,
        clusterId: credentials.cluster_id,
        secondaryId: credentials.secondary_id,
        credential: credentials.credential,
        primaryApiAddr: apiAddr,
        primaryClusterAddr: credentials.primary_cluster_addr,
        ...(ca ? { ca } : {}),
      },
      this.#linkDeps(),
      lastRemoteWal,
    );
  }

  /** The first handshake with the primary (the bootstrap package); nothing changes when it fails. */
  async #bootstrap(link: SecondaryLink, localRoot: string) {
    try {
      return await link.handshake(localRoot);
    } catch (error) {
      if (error instanceof PeerUnreachableError || error instanceof LinkRefusedError) {
        throw new InvalidRequestError(`error fetching secondary bootstrap package from ${link.config.primaryClusterAddr}: ${error.message}`);
      }
      throw error;
    }
  }

  /** Reads an activation token and gets its credentials (unwrapped from the primary, or decrypted). */
  async #activate(body: ActivationRequest): Promise<Activation> {
    this.ctx.addresses();
    let claims;
    try {
      claims = readActivationToken(body.token);
    } catch (error) {
      if (error instanceof ActivationTokenError) throw new InvalidRequestError(`invalid secondary activation token: ${error.message}`);
      throw error;
    }
    if (this.ctx.clock() >= claims.exp * 1000) {
      throw new InvalidRequestError(`the secondary activation token expired at ${new Date(claims.exp * 1000).toISOString()}`);
    }
    const ca = loadCaCertificates(body.ca_file, body.ca_path);
    if (body.primary_api_addr) checkAddress(body.primary_api_addr, "primary_api_addr");
    const apiAddr = body.primary_api_addr || claims.addr;
    let credentials: unknown;
    if (claims.type === "encrypted") {
      if (!this.#keyPair) {
        throw new InvalidRequestError(
          "the activation token is encrypted to a secondary public key, but this cluster has made none: call secondary/generate-public-key and issue a new token with that key",
        );
      }
      try {
        credentials = JSON.parse(decryptForSecondary(claims.enc!, this.#keyPair.privateKey));
      } catch (error) {
        if (error instanceof ActivationTokenError) throw new InvalidRequestError(`invalid secondary activation token: ${error.message}`);
        throw error;
      }
    } else {
      if (!body.primary_api_addr) checkAddress(claims.addr, "the activation token's addr");
      let response;
      try {
        response = await peerRequest({ url: `${apiAddr}/v1/sys/wrapping/unwrap`, body: { token: body.token, mode: this.mode }, ...(ca ? { ca } : {}), timeoutMs: Math.max(2000, this.ctx.heartbeatMs * 2) });
      } catch (error) {
        throw new InvalidRequestError(`error unwrapping secondary activation token from ${apiAddr}: ${(error as Error).message}`);
      }
      if (response.status !== 200) throw new InvalidRequestError(`error unwrapping secondary activation token from ${apiAddr}: ${peerError(response)}`);
      if (!follows("UnwrapResponse", response.body)) throw new InvalidRequestError(`error unwrapping secondary activation token from ${apiAddr}: the answer is not activation credentials`);
      credentials = response.body.data;
    }
    if (!follows("ActivationCredentials", credentials)) throw new InvalidRequestError("invalid secondary activation token: its credentials are incomplete");
    if (credentials.mode !== this.mode) {
      throw new InvalidRequestError(`the activation token is for ${modeLabel(credentials.mode)} replication, not ${modeLabel(this.mode)} replication`);
    }
    return { credentials, ca, apiAddr: body.primary_api_addr || credentials.primary_api_addr };
  }

  /** Without `force`: the primary must not be active any more, and every write heard of applied. */
  async #promotionSafetyChecks(clusterId: string, link: SecondaryLink): Promise<void> {
    const probe = await link.probe(Math.max(1000, this.ctx.heartbeatMs * 2));
    const refusal = promotionRefusal({
      primaryActive: probe.active,
      primaryClusterAddr: link.config.primaryClusterAddr,
      clusterId,
      lastRemoteWal: link.lastRemoteWal,
      primaryLastWal: link.primaryLastWal,
    });
    if (refusal) throw new InvalidRequestError(refusal);
  }

  #primaryConnected(link: SecondaryLink): boolean {
    return link.connected && link.lastHeartbeat !== undefined && this.ctx.clock() - link.lastHeartbeat <= this.ctx.disconnectMs;
  }
}

interface Activation {
  credentials: ActivationCredentials;
  ca: string[] | undefined;
  /** The primary's API address (primary_api_addr, or the one the token names). */
  apiAddr: string;
}

function checkAddress(address: string, parameter: string): void {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new InvalidRequestError(`${parameter} ${JSON.stringify(address)} is not an address (such as https://10.0.0.1:8201)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidRequestError(`${parameter} must be an http or https address`);
}

