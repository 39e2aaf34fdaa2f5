// A secondary reads its primary's answers only as the internal protocol describes them
// (openapi/secrets/internal/openapi.yaml, server/secrets/replication/internal-protocol.ts): an
// answer of another shape (a peer of another version, something else at the address) is refused with
// a message that says where it breaks the description, never used as it came.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { generateSigningKey, signActivationToken } from "../../server/secrets/replication/domain/activation.ts";
import { breach, follows } from "../../server/secrets/replication/internal-protocol.ts";
import { peerError } from "../../server/secrets/replication/peer-client.ts";
import { clustersPerTest, post } from "../helpers/replication.ts";

const CLUSTER_ID = "5d4e4a1e-8f4b-4e57-9a40-2f0b6c7e1d93";

const handshake = {
  cluster_id: CLUSTER_ID,
  primary_api_addr: "http://127.0.0.1:8200",
  primary_cluster_addr: "http://127.0.0.1:8201",
  known_primary_cluster_addrs: ["http://127.0.0.1:8201"],
  last_wal: 42,
  merkle_root: "",
  filter: null,
  snapshot: [
    { key: "core/mounts", value: { consul: { type: "consul", options: [1, "two", true, null, { nested: [[]] }] } } },
    { key: "logical/consul/count", value: 3 },
  ],
};

describe("the protocol's checks", () => {
  it("take a handshake whose stored values are any JSON, nested as deep as they come", () => {
    expect(follows("ConnectResponse", handshake)).toBe(true);
    expect(breach("ConnectResponse", handshake)).toBe("");
    expect(follows("ConnectResponse", { ...handshake, snapshot: null, filter: { mode: "deny", paths: ["aws/"] } })).toBe(true);
  });

  it("refuse an answer that breaks the description, saying where", () => {
    const { last_wal: _dropped, ...withoutWal } = handshake;
    expect(follows("ConnectResponse", withoutWal)).toBe(false);
    expect(breach("ConnectResponse", withoutWal)).toBe("/ must have required property 'last_wal'");
    expect(breach("ConnectResponse", { ...handshake, last_wal: "42" })).toBe("/last_wal must be integer");
    expect(breach("ConnectResponse", { ...handshake, cluster_id: "not-a-uuid" })).toBe('/cluster_id must match format "uuid"');
    expect(breach("ConnectResponse", { ...handshake, snapshot: [{ key: "a" }] })).toBe("/snapshot must be null");
    expect(follows("ConnectResponse", "<html>hello</html>")).toBe(false);
    expect(follows("WalResponse", { cluster_id: CLUSTER_ID, up_to: 1, last_wal: 1, entries: [{ index: 0, op: "put", key: "a", value: 1 }] })).toBe(false);
    expect(follows("WalResponse", { cluster_id: CLUSTER_ID, up_to: 1, last_wal: 1, entries: [{ index: 1, op: "move", key: "a" }] })).toBe(false);
    expect(follows("WalResponse", { cluster_id: CLUSTER_ID, up_to: 1, last_wal: 1, entries: [{ index: 1, op: "delete", key: "a" }] })).toBe(true);
  });

  it("take activation credentials only whole: every member, none empty, none extra", () => {
    const credentials = {
      mode: "dr",
      cluster_id: CLUSTER_ID,
      secondary_id: "us-east-1",
      primary_cluster_addr: "http://127.0.0.1:8201",
      primary_api_addr: "http://127.0.0.1:8200",
      credential: "q3Zb0m3xqk8vJw2Lr9T1hYc6pN4sD7fGa5eU0iK8oMw",
    };
    expect(follows("ActivationCredentials", credentials)).toBe(true);
    expect(follows("ActivationCredentials", { ...credentials, credential: "" })).toBe(false);
    expect(follows("ActivationCredentials", { ...credentials, secondary_id: "" })).toBe(false);
    expect(follows("ActivationCredentials", { ...credentials, mode: "both" })).toBe(false);
    expect(follows("ActivationCredentials", { ...credentials, extra: 1 })).toBe(false);
    expect(follows("UnwrapResponse", { data: credentials })).toBe(true);
    expect(follows("UnwrapResponse", credentials)).toBe(false);
  });

  it("read a refusal's messages only from the protocol's error envelope", () => {
    expect(peerError({ status: 403, body: { errors: ["unknown or revoked secondary credential", "second"] } })).toBe("unknown or revoked secondary credential; second");
    expect(peerError({ status: 403, body: { errors: [] } })).toBe("status 403");
    expect(peerError({ status: 502, body: { errors: [{ text: "an object" }] } })).toBe("status 502");
    expect(peerError({ status: 500, body: "<html>busy</html>" })).toBe("status 500");
    expect(peerError({ status: 404, body: undefined })).toBe("status 404");
  });
});

describe("a secondary joining a peer that answers outside the protocol", () => {
  const cluster = clustersPerTest();

  /** A peer that unwraps any token to credentials naming itself, and answers the handshake with `connectAnswer`. */
  async function fakePrimary(connectAnswer: unknown) {
    const calls: string[] = [];
    const server = http.createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer =
        req.url === "/v1/sys/wrapping/unwrap"
          ? { data: { mode: "dr", cluster_id: CLUSTER_ID, secondary_id: "s1", primary_cluster_addr: address, primary_api_addr: address, credential: "c".repeat(43) } }
          : connectAnswer;
      req.resume().on("end", () => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(answer)));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const now = Math.floor(Date.now() / 1000);
    const token = signActivationToken({ accessor: "", addr: address, exp: now + 600, iat: now, jti: "s.peer", nbf: now, type: "wrapping" }, generateSigningKey().privateKey);
    const close = () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    };
    return { address, token, calls, close };
  }

  it("refuses a handshake answer that breaks the description (400 naming the breach), and stays disabled", async () => {
    const s = await cluster();
    const peer = await fakePrimary({ ...handshake, last_wal: "42" });
    try {
      const enabled = await post(s.client, "dr", "secondary/enable", { token: peer.token });
      expect(enabled.response.status).toBe(400);
      expect(enabled.error).toEqual({
        errors: [`error fetching secondary bootstrap package from ${peer.address}: the answer is not a replication handshake (/last_wal must be integer)`],
      });
      expect(peer.calls).toEqual(["POST /v1/sys/wrapping/unwrap", "POST /v1/replication/dr/connect"]);
      expect((await s.client.GET("/sys/replication/dr/status")).data!.data).toEqual({ mode: "disabled" });
    } finally {
      await peer.close();
    }
  });

  it("joins when the same peer's handshake follows the description", async () => {
    const s = await cluster();
    const peer = await fakePrimary({ ...handshake, snapshot: null, merkle_root: "" });
    try {
      const enabled = await post(s.client, "dr", "secondary/enable", { token: peer.token });
      expect(enabled.response.status).toBe(204);
      expect(peer.calls.slice(0, 2)).toEqual(["POST /v1/sys/wrapping/unwrap", "POST /v1/replication/dr/connect"]);
      expect((await s.client.GET("/sys/replication/dr/status")).data!.data).toMatchObject({ mode: "secondary", cluster_id: CLUSTER_ID });
    } finally {
      await peer.close();
    }
  });
});
