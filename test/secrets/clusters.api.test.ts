// Several clusters in one process, each on its own port with its own id, keys and tokens: the shape
// replication tests build on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rekey, startSecrets, type RunningTestSecrets } from "../helpers/secrets.ts";

let one: RunningTestSecrets;
let two: RunningTestSecrets;
beforeAll(async () => {
  [one, two] = await Promise.all([startSecrets(), startSecrets({ rootToken: "second-root", seal: "stored" })]);
});
afterAll(() => Promise.all([one.close(), two.close()]));

describe("clusters in one process", () => {
  it("have their own id, port, keys and tokens", async () => {
    expect(one.secrets.cluster.id).not.toBe(two.secrets.cluster.id);
    expect(one.secrets.port).not.toBe(two.secrets.port);
    expect((await one.clientWithToken("second-root").GET("/sys/rekey/init")).response.status).toBe(403);
    expect((await two.clientWithToken("second-root").GET("/sys/rekey/init")).data).toMatchObject({ started: false });

    // One cluster's shares do not rekey the other; its own do.
    const started = await two.clientWithToken("second-root").POST("/sys/rekey/init", { body: { secret_shares: 1, secret_threshold: 1 } });
    for (const key of one.keys.slice(0, 3)) await two.clientWithToken("second-root").POST("/sys/rekey/update", { body: { key, nonce: started.data!.nonce } });
    expect((await two.clientWithToken("second-root").GET("/sys/rekey/init")).data).toMatchObject({ progress: 0 });
    await two.clientWithToken("second-root").DELETE("/sys/rekey/init");
    expect((await rekey(one.client, one.keys.slice(0, 3), { secret_shares: 2, secret_threshold: 2 })).keys).toHaveLength(2);
    expect((await one.client.GET("/sys/rekey/init")).data).toMatchObject({ required: 2 });
    expect((await two.clientWithToken("second-root").GET("/sys/rekey/init")).data).toMatchObject({ required: 3 });
  });
});
