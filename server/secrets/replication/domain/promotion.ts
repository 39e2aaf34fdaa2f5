// The safety checks a secondary makes before it promotes itself without `force`, as a pure
// function of what it knows: what its primary answered when asked (or that it did not answer), and
// how far the secondary has applied the writes it heard the primary make.

export interface PromotionFacts {
  /** The primary's answer to the probe: still the active primary of the set? */
  primaryActive: boolean;
  primaryClusterAddr: string;
  clusterId: string;
  /** The primary's WAL index up to which the secondary has applied the writes. */
  lastRemoteWal: number;
  /** The primary's last WAL index as last heard. */
  primaryLastWal: number;
}

/** Why the promotion is refused, or undefined when it may go ahead. */
export function promotionRefusal(facts: PromotionFacts): string | undefined {
  if (facts.primaryActive) {
    return (
      `the primary at ${facts.primaryClusterAddr} is still the active primary of replication set ${facts.clusterId}: ` +
      "demote or disable it first (only one primary may be active), or promote with force"
    );
  }
  if (facts.lastRemoteWal < facts.primaryLastWal) {
    return `this secondary has applied the primary's writes up to ${facts.lastRemoteWal} of ${facts.primaryLastWal}: promote with force to accept losing the rest`;
  }
  return undefined;
}
