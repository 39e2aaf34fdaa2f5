// Every transition the state table does not allow, for both modes, refused through the generated
// client with 400 and the state's own message, and changing nothing; and the operations that need
// a primary refused elsewhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modeLabel, REFUSALS, TRANSITIONS, type ReplicationEvent, type ReplicationRole } from "../../server/secrets/replication/domain/states.ts";
import { post, replicate, startCluster, status, type Mode } from "../helpers/replication.ts";
import type { RunningTestSecrets } from "../helpers/secrets.ts";

const EVENTS: Record<ReplicationEvent, (mode: Mode) => [string, Record<string, unknown>]> = {
  enablePrimary: () => ["primary/enable", {}],
  demote: () => ["primary/demote", {}],
  disablePrimary: () => ["primary/disable", {}],
  enableSecondary: () => ["secondary/enable", { token: "not-read-before-the-state-check" }],
  promote: (mode) => ["secondary/promote", mode === "dr" ? { dr_operation_token: "s.not-checked" } : {}],
  updatePrimary: (mode) => ["secondary/update-primary", mode === "dr" ? { dr_operation_token: "s.not-checked", token: "" } : { token: "" }],
  disableSecondary: () => ["secondary/disable", {}],
};

describe.each(["dr", "performance"] as const)("%s replication", (mode) => {
  const clusters = {} as Record<ReplicationRole, RunningTestSecrets>;
  let primaryOfSecondary: RunningTestSecrets;

  beforeAll(async () => {
    const [disabled, primary, secondary, other] = await Promise.all([startCluster(), startCluster(), startCluster(), startCluster()]);
    primaryOfSecondary = other;
    await replicate(other, secondary, mode, "refusals");
    await post(primary.client, mode, "primary/enable");
    Object.assign(clusters, { disabled, primary, secondary });
  });
  afterAll(() => Promise.all([...Object.values(clusters), primaryOfSecondary].map((c) => c.close())));

  const refused = (["disabled", "primary", "secondary"] as ReplicationRole[]).flatMap((role) =>
    (Object.keys(EVENTS) as ReplicationEvent[]).filter((event) => !TRANSITIONS[role][event]).map((event) => [role, event] as const),
  );

  it("covers the 14 refused pairs of the table", () => {
    expect(refused).toHaveLength(14);
  });

  it.each(refused)("from %s, %s is refused with 400 and changes nothing", async (role, event) => {
    const cluster = clusters[role];
    const before = await status(cluster.client, mode);
    const [path, body] = EVENTS[event](mode);
    const answer = await post(cluster.client, mode, path, body);
    expect(answer.response.status).toBe(400);
    expect(answer.error).toEqual({ errors: [REFUSALS[role][event]!(modeLabel(mode))] });
    const after = await status(cluster.client, mode);
    expect(after.mode).toBe(before.mode);
    if ("cluster_id" in before) expect(after).toMatchObject({ cluster_id: before.cluster_id });
  });

  it("refuses the primary's operations elsewhere", async () => {
    const m = modeLabel(mode);
    for (const role of ["disabled", "secondary"] as const) {
      const actual = role === "disabled" ? `${m} replication is not enabled on this cluster` : `it is a ${m} secondary`;
      const token = await post(clusters[role].client, mode, "primary/secondary-token", { id: "x" });
      expect(token.error).toEqual({ errors: [`cannot generate a secondary activation token: this cluster is not a ${m} primary (${actual})`] });
      const revoke = await post(clusters[role].client, mode, "primary/revoke-secondary", { id: "x" });
      expect(revoke.error).toEqual({ errors: [`cannot revoke a secondary: this cluster is not a ${m} primary (${actual})`] });
    }
    expect((await post(clusters.primary.client, mode, "secondary/generate-public-key")).error).toEqual({
      errors: [`cannot generate a secondary public key: this cluster is a ${m} primary`],
    });
  });

  it("answers bad bodies with 400 before any state check", async () => {
    const answer = await post(clusters.disabled.client, mode, "secondary/enable", {});
    expect(answer.error).toEqual({ errors: ["'token' must be specified in request body as JSON"] });
    const address = await post(clusters.disabled.client, mode, "primary/enable", { primary_cluster_addr: "replication" });
    expect(address.error).toEqual({ errors: ['primary_cluster_addr "replication" is not an address (such as https://10.0.0.1:8201)'] });
    expect(await status(clusters.disabled.client, mode)).toEqual({ mode: "disabled" });
  });
});
