// The replication state table of seed 001, for one replication mode (`dr` or `performance`), as a
// transition table. Pure: it says what a transition does (which cluster id to keep, whether to
// wipe, connect or drop the secondaries) and the manager carries it out.
//
//   role       event              next       cluster id   also
//   disabled   enablePrimary      primary    new UUID     optional primary_cluster_addr advertised
//   primary    demote             secondary  kept         idle: connects to no primary; can rejoin without a wipe
//   primary    disablePrimary     disabled   forgotten    secondaries can no longer connect
//   disabled   enableSecondary    secondary  adopted      all data cleared at once (activation token)
//   secondary  promote            primary    kept         stops streaming; other secondaries need new tokens
//   secondary  updatePrimary      secondary  kept         no wipe; a blank token forgets the primary
//   secondary  disableSecondary   disabled   forgotten    can no longer connect
//
// Every other (role, event) pair is refused (400) with the message in REFUSALS.

export type ReplicationMode = "dr" | "performance";
export const REPLICATION_MODES: readonly ReplicationMode[] = ["dr", "performance"];

export type ReplicationRole = "disabled" | "primary" | "secondary";

export type ReplicationEvent =
  | "enablePrimary"
  | "demote"
  | "disablePrimary"
  | "enableSecondary"
  | "promote"
  | "updatePrimary"
  | "disableSecondary";

export interface TransitionEffects {
  /** `new`: a fresh UUID; `keep`: unchanged; `adopt`: the one the activation token carries; `forget`: none. */
  clusterId: "new" | "keep" | "adopt" | "forget";
  /** Clear all (replicated) data of the cluster before taking the primary's. */
  wipe: boolean;
  /** Connect to the primary named by an activation token (update-primary: unless the token is blank). */
  connect: boolean;
  /** Stop streaming from the current primary. */
  disconnect: boolean;
  /** Disconnect every secondary of this primary and forget them. */
  dropSecondaries: boolean;
}

export interface Transition {
  next: ReplicationRole;
  effects: TransitionEffects;
}

const NONE: TransitionEffects = { clusterId: "keep", wipe: false, connect: false, disconnect: false, dropSecondaries: false };

export const TRANSITIONS: Readonly<Record<ReplicationRole, Partial<Record<ReplicationEvent, Transition>>>> = {
  disabled: {
    enablePrimary: { next: "primary", effects: { ...NONE, clusterId: "new" } },
    enableSecondary: { next: "secondary", effects: { ...NONE, clusterId: "adopt", wipe: true, connect: true } },
  },
  primary: {
    demote: { next: "secondary", effects: { ...NONE, dropSecondaries: true } },
    disablePrimary: { next: "disabled", effects: { ...NONE, clusterId: "forget", dropSecondaries: true } },
  },
  secondary: {
    promote: { next: "primary", effects: { ...NONE, disconnect: true } },
    updatePrimary: { next: "secondary", effects: { ...NONE, connect: true, disconnect: true } },
    disableSecondary: { next: "disabled", effects: { ...NONE, clusterId: "forget", disconnect: true } },
  },
};

/** The words for a mode in messages: `DR` or `performance`. */
export function modeLabel(mode: ReplicationMode): string {
  return mode === "dr" ? "DR" : "performance";
}

/** Why an event is refused in a role, in the service's words. */
export const REFUSALS: Readonly<Record<ReplicationRole, Partial<Record<ReplicationEvent, (m: string) => string>>>> = {
  disabled: {
    demote: (m) => `cannot demote: ${m} replication is not enabled on this cluster, so it is not a ${m} primary`,
    disablePrimary: (m) => `cannot disable the ${m} primary: ${m} replication is not enabled on this cluster`,
    promote: (m) => `cannot promote: ${m} replication is not enabled on this cluster, so it is not a ${m} secondary`,
    updatePrimary: (m) => `cannot update the primary: ${m} replication is not enabled on this cluster, so it is not a ${m} secondary`,
    disableSecondary: (m) => `cannot disable the ${m} secondary: ${m} replication is not enabled on this cluster`,
  },
  primary: {
    enablePrimary: (m) => `cannot enable ${m} primary: this cluster is already a ${m} primary`,
    enableSecondary: (m) => `cannot enable ${m} secondary: this cluster is a ${m} primary (demote or disable it first)`,
    promote: (m) => `cannot promote: this cluster is already a ${m} primary`,
    updatePrimary: (m) => `cannot update the primary: this cluster is a ${m} primary, not a secondary`,
    disableSecondary: (m) => `cannot disable the ${m} secondary: this cluster is a ${m} primary (use primary/disable)`,
  },
  secondary: {
    enablePrimary: (m) => `cannot enable ${m} primary: this cluster is a ${m} secondary (promote it, or disable it first)`,
    demote: (m) => `cannot demote: this cluster is a ${m} secondary, not a primary`,
    disablePrimary: (m) => `cannot disable the ${m} primary: this cluster is a ${m} secondary (use secondary/disable)`,
    enableSecondary: (m) => `cannot enable ${m} secondary: this cluster is already a ${m} secondary (use secondary/update-primary to change its primary)`,
  },
};

export type TransitionOutcome = { ok: true; transition: Transition } | { ok: false; refusal: string };

/** The transition an event makes from a role, or why it is refused. */
export function transition(mode: ReplicationMode, role: ReplicationRole, event: ReplicationEvent): TransitionOutcome {
  const found = TRANSITIONS[role][event];
  if (found) return { ok: true, transition: found };
  const refusal = REFUSALS[role][event];
  if (!refusal) throw new Error(`replication state table: no entry for ${role} + ${event}`);
  return { ok: false, refusal: refusal(modeLabel(mode)) };
}

/** Refusal of an operation that only a primary (or only a secondary) of the mode may make. */
export function roleRequired(mode: ReplicationMode, role: ReplicationRole, needed: "primary" | "secondary", what: string): string | undefined {
  if (role === needed) return undefined;
  const m = modeLabel(mode);
  const actual = role === "disabled" ? `${m} replication is not enabled on this cluster` : `it is a ${m} ${role}`;
  return `cannot ${what}: this cluster is not a ${m} ${needed} (${actual})`;
}
