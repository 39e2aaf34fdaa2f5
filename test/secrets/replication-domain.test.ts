// The pure parts of replication: the state table, OTP encoding, merkle roots, paths filters, the
// WAL, durations, activation tokens and their encryption, DR operation token generation.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import * as openpgp from "openpgp";
import { describe, expect, it } from "vitest";
import { mountStoragePrefix } from "../../server/secrets/engines/mount-storage.ts";
import { toHex } from "../../server/secrets/sys/key-encoding.ts";
import { readPgpKeys } from "../../server/secrets/sys/pgp.ts";
import { createSeal } from "../../server/secrets/sys/seal.ts";
import { InvalidRequestError } from "../../server/secrets/errors.ts";
import {
  ActivationTokenError,
  decryptForSecondary,
  encryptToSecondary,
  generateSecondaryKeyPair,
  generateSigningKey,
  readActivationToken,
  readSecondaryPublicKey,
  signActivationToken,
  verifyActivationToken,
  type ActivationClaims,
} from "../../server/secrets/replication/domain/activation.ts";
import { thrownBy } from "../helpers/thrown.ts";
import {
  dynamicFilter,
  isMountReplicated,
  isNamespaceReplicated,
  mountFilterModeToPaths,
  namespacesOf,
  parsePathsFilter,
  pathsFilterModeToMount,
  type PathsFilter,
} from "../../server/secrets/replication/domain/filter.ts";
import { isReplicatedKey, MountIndex } from "../../server/secrets/replication/domain/keys.ts";
import { canonicalJson, MerkleTracker, merkleRoot } from "../../server/secrets/replication/domain/merkle.ts";
import { MemoryStorage } from "../../server/secrets/store/storage.ts";
import { operationTokenTransition, OPERATION_TOKEN_TRANSITIONS, type OperationTokenContext } from "../../server/secrets/replication/domain/operation-token.ts";
import { BASE62, decodeToken, encodeToken, generateOtp, isOtp, OTP_LENGTH } from "../../server/secrets/replication/domain/otp.ts";
import { promotionRefusal } from "../../server/secrets/replication/domain/promotion.ts";
import { REFUSALS, roleRequired, transition, TRANSITIONS, type ReplicationEvent, type ReplicationRole } from "../../server/secrets/replication/domain/states.ts";
import { WalLog } from "../../server/secrets/replication/domain/wal.ts";

const ROLES: ReplicationRole[] = ["disabled", "primary", "secondary"];
const EVENTS: ReplicationEvent[] = ["enablePrimary", "demote", "disablePrimary", "enableSecondary", "promote", "updatePrimary", "disableSecondary"];

describe("the replication state table", () => {
  it("has the seed's seven transitions exactly", () => {
    const rows = ROLES.flatMap((role) => EVENTS.filter((event) => TRANSITIONS[role][event]).map((event) => `${role} ${event} -> ${TRANSITIONS[role][event]!.next}`));
    expect(rows.sort()).toEqual(
      [
        "disabled enablePrimary -> primary",
        "primary demote -> secondary",
        "primary disablePrimary -> disabled",
        "disabled enableSecondary -> secondary",
        "secondary promote -> primary",
        "secondary updatePrimary -> secondary",
        "secondary disableSecondary -> disabled",
      ].sort(),
    );
  });

  it("says what each transition does to the cluster id, the data and the links", () => {
    expect(TRANSITIONS.disabled.enablePrimary!.effects).toMatchObject({ clusterId: "new", wipe: false });
    expect(TRANSITIONS.primary.demote!.effects).toMatchObject({ clusterId: "keep", wipe: false, dropSecondaries: true });
    expect(TRANSITIONS.primary.disablePrimary!.effects).toMatchObject({ clusterId: "forget", dropSecondaries: true });
    expect(TRANSITIONS.disabled.enableSecondary!.effects).toMatchObject({ clusterId: "adopt", wipe: true, connect: true });
    expect(TRANSITIONS.secondary.promote!.effects).toMatchObject({ clusterId: "keep", wipe: false, disconnect: true });
    expect(TRANSITIONS.secondary.updatePrimary!.effects).toMatchObject({ clusterId: "keep", wipe: false, connect: true });
    expect(TRANSITIONS.secondary.disableSecondary!.effects).toMatchObject({ clusterId: "forget", disconnect: true });
  });

  it("refuses every other pair with a message naming the mode and the state", () => {
    let refused = 0;
    for (const role of ROLES) {
      for (const event of EVENTS) {
        const dr = transition("dr", role, event);
        const performance = transition("performance", role, event);
        expect(dr.ok).toBe(performance.ok);
        if (dr.ok) continue;
        refused++;
        expect(REFUSALS[role][event]).toBeDefined();
        expect(dr.ok === false && dr.refusal).toMatch(/DR/);
        expect(performance.ok === false && performance.refusal).toMatch(/performance/);
      }
    }
    expect(refused).toBe(ROLES.length * EVENTS.length - 7);
    expect(transition("dr", "secondary", "enablePrimary")).toEqual({
      ok: false,
      refusal: "cannot enable DR primary: this cluster is a DR secondary (promote it, or disable it first)",
    });
  });

  it("words operations that need a role", () => {
    expect(roleRequired("dr", "primary", "primary", "x")).toBeUndefined();
    expect(roleRequired("dr", "disabled", "primary", "revoke a secondary")).toBe(
      "cannot revoke a secondary: this cluster is not a DR primary (DR replication is not enabled on this cluster)",
    );
    expect(roleRequired("performance", "primary", "secondary", "read it")).toBe("cannot read it: this cluster is not a performance secondary (it is a performance primary)");
  });
});

describe("OTP encoding", () => {
  it("makes base62 OTPs as long as a token, every character possible", () => {
    const otp = generateOtp(OTP_LENGTH, (n) => new Uint8Array(randomBytes(n)));
    expect(otp).toHaveLength(26);
    expect(isOtp(otp)).toBe(true);
    const seen = new Set([...Array.from({ length: 200 }, () => generateOtp(26, (n) => new Uint8Array(randomBytes(n))))].join(""));
    expect(seen.size).toBe(62);
    // Bytes from 248 up are skipped (no bias toward the first characters).
    expect(generateOtp(2, () => new Uint8Array([255, 248, 0, 61]))).toBe("0z");
  });

  it("encodes as the real system: base64 without padding of token XOR OTP, decoded by the same XOR", () => {
    const token = "s.R8vX2mK5qL0pW3nZ7bT1cY4d";
    const otp = "X7rrEGKCLiWBgDX71y8LCN0GhB";
    const encoded = encodeToken(token, otp);
    const expected = Buffer.from([...Buffer.from(token)].map((byte, i) => byte ^ otp.charCodeAt(i))).toString("base64").replace(/=+$/, "");
    expect(encoded).toBe(expected);
    expect(encoded).not.toContain("=");
    expect(decodeToken(encoded, otp)).toBe(token);
    expect(decodeToken(`${encoded}=`, otp)).toBe(token);
    expect(() => encodeToken(token, "short")).toThrow(/length/);
    expect(() => encodeToken("", otp)).toThrow(/no token/);
    expect(isOtp("X7rrEGKCLiWBgDX71y8LCN0Gh!")).toBe(false);
    expect(BASE62).toHaveLength(62);
  });
});

describe("merkle roots", () => {
  it("tracked as the storage is written, equal to the root computed from scratch after every write and delete", () => {
    const storage = new MemoryStorage();
    storage.put("logical/a/1", { n: 1 });
    storage.put("core/secret", { not: "replicated" });
    const tracker = new MerkleTracker(storage, isReplicatedKey);
    const fromScratch = () =>
      merkleRoot(storage.list("").filter(isReplicatedKey).map((key) => [key, storage.get(key)!] as const));
    expect(tracker.root()).toBe(fromScratch());
    const steps: Array<() => void> = [
      () => storage.put("logical/a/2", { n: 2 }),
      () => storage.put("logical/a/1", { n: 10, nested: { b: [1, 2] } }),
      () => storage.put("core/other", { ignored: true }),
      () => storage.delete("logical/a/2"),
      () => storage.put("identity/x", "y"),
      () => storage.delete("logical/a/1"),
      () => storage.delete("identity/x"),
    ];
    for (const step of steps) {
      step();
      expect(tracker.root()).toBe(fromScratch());
    }
    expect(tracker.root()).toBe(merkleRoot([]));
  });

  it("fingerprint the data, whatever the order of keys and of object properties", () => {
    const a = merkleRoot([
      ["a", { x: 1, y: [1, 2] }],
      ["b", "two"],
      ["c", null],
    ]);
    const b = merkleRoot([
      ["c", null],
      ["a", { y: [1, 2], x: 1 }],
      ["b", "two"],
    ]);
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(merkleRoot([["a", { x: 1, y: [1, 2] }], ["b", "two"]])).not.toBe(a);
    expect(merkleRoot([["a", { x: 2, y: [1, 2] }], ["b", "two"], ["c", null]])).not.toBe(a);
    expect(merkleRoot([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(canonicalJson({ b: 1, a: [true, { d: "x", c: null }] })).toBe('{"a":[true,{"c":null,"d":"x"}],"b":1}');
  });
});

describe("paths filters", () => {
  const allow = (paths: string[]): PathsFilter => (parsePathsFilter("allow", paths) as { filter: PathsFilter }).filter;
  const deny = (paths: string[]): PathsFilter => (parsePathsFilter("deny", paths) as { filter: PathsFilter }).filter;

  it("normalizes paths and checks them", () => {
    expect(parsePathsFilter(undefined, ["/consul", "team-a/", "consul/"])).toEqual({ filter: { mode: "allow", paths: ["consul/", "team-a/"] } });
    expect(parsePathsFilter("deny", undefined)).toEqual({ filter: { mode: "deny", paths: [] } });
    expect(parsePathsFilter("whitelist", [])).toEqual({ problem: 'mode must be "allow" or "deny", not "whitelist"' });
    expect(parsePathsFilter("allow", ["a b"])).toMatchObject({ problem: expect.stringContaining('"a b" is not a mount or namespace path') });
    expect(parsePathsFilter("allow", ["x/../y"])).toMatchObject({ problem: expect.stringContaining("not a mount or namespace path") });
    expect(parsePathsFilter("deny", ["sys/"])).toMatchObject({ problem: expect.stringContaining("always replicated") });
    expect(parsePathsFilter("deny", [3])).toEqual({ problem: "paths must be a list of mount or namespace paths" });
  });

  it("keeps or drops mounts and namespaces", () => {
    expect(isMountReplicated(undefined, "aws")).toBe(true);
    expect(isMountReplicated(allow(["consul"]), "consul")).toBe(true);
    expect(isMountReplicated(allow(["consul"]), "aws")).toBe(false);
    expect(isMountReplicated(allow(["team-a"]), "team-a/aws")).toBe(true);
    expect(isMountReplicated(allow(["team-a"]), "team-ab/aws")).toBe(false);
    expect(isMountReplicated(deny(["aws"]), "aws")).toBe(false);
    expect(isMountReplicated(deny(["aws"]), "consul")).toBe(true);
    expect(isMountReplicated(deny(["team-a/"]), "team-a/aws")).toBe(false);
    expect(isNamespaceReplicated(deny(["team-a"]), "team-a/")).toBe(false);
    expect(isNamespaceReplicated(deny(["team-a"]), "team-a/dev")).toBe(false);
    expect(isNamespaceReplicated(deny(["team-a"]), "team-b/")).toBe(true);
    expect(isNamespaceReplicated(allow(["team-a/kv"]), "team-a")).toBe(true);
    expect(isNamespaceReplicated(allow(["consul"]), "team-a")).toBe(false);
    expect(isNamespaceReplicated(allow(["consul"]), "")).toBe(true);
  });

  it("reports what is filtered now (the dynamic filter)", () => {
    const mounts = ["aws", "consul", "team-a/aws", "team-b/kv"];
    expect(namespacesOf(mounts)).toEqual(["team-a/", "team-b/"]);
    expect(dynamicFilter(undefined, mounts)).toEqual({ dynamic_filtered_mounts: [], dynamic_filtered_namespaces: [] });
    expect(dynamicFilter(deny(["aws", "team-b"]), mounts)).toEqual({ dynamic_filtered_mounts: ["aws/", "team-b/kv/"], dynamic_filtered_namespaces: ["team-b/"] });
    expect(dynamicFilter(allow(["consul", "team-a/aws"]), mounts, ["team-c"])).toEqual({
      dynamic_filtered_mounts: ["aws/", "team-b/kv/"],
      dynamic_filtered_namespaces: ["team-b/", "team-c/"],
    });
  });

  it("translates the deprecated mount filter's modes", () => {
    expect(mountFilterModeToPaths("whitelist")).toBe("allow");
    expect(mountFilterModeToPaths("blacklist")).toBe("deny");
    expect(pathsFilterModeToMount("allow")).toBe("whitelist");
    expect(pathsFilterModeToMount("deny")).toBe("blacklist");
  });
});

describe("replicated keys and their mounts", () => {
  it("ships everything but the cluster's own core/ keys, except the seal", () => {
    expect(isReplicatedKey("sys/policy/x")).toBe(true);
    expect(isReplicatedKey("logical/abc/roles/x")).toBe(true);
    expect(isReplicatedKey("identity/mfa/method/1")).toBe(true);
    expect(isReplicatedKey("core/seal")).toBe(true);
    expect(isReplicatedKey("core/unseal-keys-backup")).toBe(false);
  });

  it("finds the mount of an engine key by the engines' mount UUID, and the namespace of identity data", () => {
    const index = new MountIndex([{ path: "team-a/aws", engine: "cloud-credentials" }]);
    expect(index.mountOf(`${mountStoragePrefix("cloud-credentials", "team-a/aws")}roles/r`)).toBe("team-a/aws");
    expect(index.mountOf("logical/consul/roles/x")).toBe("consul");
    expect(index.mountOf("sys/x")).toBeUndefined();
    expect(index.namespaceOf("identity/mfa/method/1", { namespace_path: "team-a/" })).toBe("team-a/");
    expect(index.namespaceOf("identity/mfa/method/1", { id: "1" })).toBe("");
    expect(index.namespaceOf("logical/x", { namespace_path: "team-a/" })).toBe("");
  });
});

describe("the WAL", () => {
  it("numbers writes and hands out what came after an index, until it no longer holds it", () => {
    const wal = new WalLog(3);
    expect(wal.last).toBe(0);
    expect(wal.since(0)).toEqual({ entries: [] });
    for (const key of ["a", "b", "c", "d"]) wal.append(key, key);
    wal.append("a", undefined);
    expect(wal.last).toBe(5);
    expect(wal.since(2)).toEqual({
      entries: [
        { index: 3, key: "c", value: "c" },
        { index: 4, key: "d", value: "d" },
        { index: 5, key: "a", value: undefined },
      ],
    });
    expect(wal.since(3, 1)).toEqual({ entries: [{ index: 4, key: "d", value: "d" }] });
    expect(wal.since(1)).toEqual({ truncated: true });
    expect(wal.since(5)).toEqual({ entries: [] });
    expect(() => new WalLog(0)).toThrow();
  });

  it("keeps the newest entries within its count and bytes however long it runs", () => {
    const wal = new WalLog(3, 1_000);
    for (let i = 1; i <= 100; i++) wal.append(`k${i}`, i);
    expect(wal.size).toBe(3);
    expect(wal.since(97)).toEqual({ entries: [98, 99, 100].map((i) => ({ index: i, key: `k${i}`, value: i })) });
    expect(wal.since(96)).toEqual({ truncated: true });

    const small = new WalLog(100, 10);
    for (const key of ["aaaa", "bbbb", "cccc"]) small.append(key, undefined, 4);
    // 12 bytes held would pass 10: the oldest went.
    expect(small.bytes).toBe(8);
    expect(small.since(1)).toEqual({ entries: [2, 3].map((i) => ({ index: i, key: ["aaaa", "bbbb", "cccc"][i - 1], value: undefined })) });
    expect(small.since(0)).toEqual({ truncated: true });
  });
});

const claims: ActivationClaims = { accessor: "", addr: "http://127.0.0.1:8200", exp: 2000, iat: 1000, jti: "s.abc", nbf: 1000, type: "wrapping" };

describe("activation tokens", () => {

  it("are ES512 JWTs with the real system's claims, verified by the primary's key only", () => {
    const key = generateSigningKey();
    const token = signActivationToken(claims, key.privateKey);
    const [header] = token.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toEqual({ alg: "ES512", typ: "JWT" });
    expect(readActivationToken(token)).toEqual(claims);
    expect(verifyActivationToken(token, key.publicKey)).toEqual(claims);
    expect(() => verifyActivationToken(token, generateSigningKey().publicKey)).toThrow(ActivationTokenError);
    const [h, , s] = token.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, jti: "s.other" })).toString("base64url")}.${s}`;
    expect(() => verifyActivationToken(forged, key.publicKey)).toThrow(/signature/);
    expect(() => readActivationToken("abc")).toThrow(/not a JWT/);
    expect(() => readActivationToken("a.b.c")).toThrow(/base64url JSON/);
  });

  it("carry credentials encrypted to the secondary's P-521 key, which only it can read", () => {
    const secondary = generateSecondaryKeyPair();
    const publicKey = readSecondaryPublicKey(secondary.publicKey);
    const sealed = encryptToSecondary('{"credential":"x"}', publicKey);
    expect(sealed).not.toContain("credential");
    expect(decryptForSecondary(sealed, secondary.privateKey)).toBe('{"credential":"x"}');
    expect(() => decryptForSecondary(sealed, generateSecondaryKeyPair().privateKey)).toThrow(
      new ActivationTokenError("its credentials cannot be decrypted with this cluster's key (made by the last generate-public-key)"),
    );
    expect(() => readSecondaryPublicKey("bm90IGEga2V5")).toThrow(/not a base64 DER public key/);
    const ed25519 = "MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=";
    expect(() => readSecondaryPublicKey(ed25519)).toThrow(/not a P-521 key/);
    // An EC key on another curve is no P-521 key either.
    const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
    expect(() => readSecondaryPublicKey(p256)).toThrow(/not a P-521 key/);
  });
});

describe("activation tokens refused before use, each with its reason", () => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  /** A token with this header and these claims (its signature is not checked by readActivationToken). */
  const token = (header: unknown, body: unknown) => `${part(header)}.${part(body)}.c2ln`;
  const refusal = (text: string): string => {
    const error = thrownBy(() => readActivationToken(text));
    expect(error).toBeInstanceOf(ActivationTokenError);
    expect((error as Error).name).toBe("ActivationTokenError");
    return (error as Error).message;
  };

  it("not three parts, or parts that are not base64url JSON", () => {
    for (const text of ["abc", "a.b", "a.b.c.d", ""]) expect(refusal(text), text).toBe("not a JWT (three base64url parts separated by dots)");
    expect(refusal(`${part({ alg: "ES512" })}.bm90IGpzb24.c2ln`)).toBe("its header or claims are not base64url JSON");
    expect(refusal(`bm90IGpzb24.${part(claims)}.c2ln`)).toBe("its header or claims are not base64url JSON");
  });

  it("a signing algorithm other than ES512, or none", () => {
    expect(refusal(token({ alg: "HS256", typ: "JWT" }, claims))).toBe('unexpected signing algorithm "HS256"');
    expect(refusal(token({ alg: "none" }, claims))).toBe('unexpected signing algorithm "none"');
    expect(refusal(token({ typ: "JWT" }, claims))).toBe("unexpected signing algorithm undefined");
  });

  it("claims without addr, jti or exp, or of another type", () => {
    const header = { alg: "ES512", typ: "JWT" };
    for (const broken of [{ addr: undefined }, { jti: undefined }, { exp: undefined }, { addr: 1 }, { jti: 2 }, { exp: "2000" }]) {
      expect(refusal(token(header, { ...claims, ...broken })), JSON.stringify(broken)).toBe("its claims lack addr, jti or exp");
    }
  });

  it("a type other than wrapping and encrypted, or an encrypted token without its enc claim", () => {
    const header = { alg: "ES512", typ: "JWT" };
    expect(refusal(token(header, { ...claims, type: "other" }))).toBe('unknown token type "other"');
    expect(refusal(token(header, { ...claims, type: undefined }))).toBe("unknown token type undefined");
    expect(refusal(token(header, { ...claims, type: "encrypted" }))).toBe("an encrypted token has no enc claim");
    expect(refusal(token(header, { ...claims, type: "encrypted", enc: 1 }))).toBe("an encrypted token has no enc claim");
    // Both types are read when whole.
    expect(readActivationToken(token(header, claims))).toEqual(claims);
    expect(readActivationToken(token(header, { ...claims, type: "encrypted", enc: "sealed" }))).toEqual({ ...claims, type: "encrypted", enc: "sealed" });
  });
});

describe("DR operation token generation", () => {
  async function context(type: "shamir" | "stored" = "shamir"): Promise<{ ctx: OperationTokenContext; shares: Uint8Array[] }> {
    const { state, operatorShares } = await createSeal(type, { secret_shares: 3, secret_threshold: 2 }, () => new Uint8Array(randomBytes(32)));
    let n = 0;
    return {
      shares: operatorShares,
      ctx: { seal: state, newNonce: () => `nonce-${++n}`, newOtp: () => "X7rrEGKCLiWBgDX71y8LCN0GhB", newToken: () => "s.R8vX2mK5qL0pW3nZ7bT1cY4d" },
    };
  }

  it("follows the seed's table: start, one attempt at a time, progress, completion, cancel", async () => {
    const { ctx, shares } = await context();
    expect(Object.keys(OPERATION_TOKEN_TRANSITIONS)).toEqual(["none", "started"]);
    await expect(operationTokenTransition(undefined, { type: "submitShare", nonce: "x", share: shares[0]! }, ctx)).rejects.toThrow("no root generation in progress");
    const { attempt } = await operationTokenTransition(undefined, { type: "start" }, ctx);
    expect(attempt).toMatchObject({ nonce: "nonce-1", otp: "X7rrEGKCLiWBgDX71y8LCN0GhB", progress: [] });
    await expect(operationTokenTransition(attempt, { type: "start" }, ctx)).rejects.toThrow("root generation already in progress");
    await expect(operationTokenTransition(attempt, { type: "submitShare", nonce: "wrong", share: shares[0]! }, ctx)).rejects.toThrow(/incorrect nonce/);
    const one = await operationTokenTransition(attempt, { type: "submitShare", nonce: "nonce-1", share: shares[0]! }, ctx);
    expect(one.attempt!.progress).toHaveLength(1);
    await expect(operationTokenTransition(one.attempt, { type: "submitShare", nonce: "nonce-1", share: shares[0]! }, ctx)).rejects.toThrow(/already been provided/);
    await expect(operationTokenTransition(one.attempt, { type: "submitShare", nonce: "nonce-1", share: shares[1]!.slice(1) }, ctx)).rejects.toThrow(InvalidRequestError);
    const done = await operationTokenTransition(one.attempt, { type: "submitShare", nonce: "nonce-1", share: shares[2]! }, ctx);
    expect(done.attempt).toBeUndefined();
    expect(done.token).toEqual({ token: "s.R8vX2mK5qL0pW3nZ7bT1cY4d", otp: "X7rrEGKCLiWBgDX71y8LCN0GhB", nonce: "nonce-1", progress: 2 });
    expect((await operationTokenTransition(one.attempt, { type: "cancel" }, ctx)).attempt).toBeUndefined();
  });

  it("clears the progress when the shares are not the seal's", async () => {
    const { ctx } = await context();
    const other = await context();
    const { attempt } = await operationTokenTransition(undefined, { type: "start" }, ctx);
    const one = await operationTokenTransition(attempt, { type: "submitShare", nonce: "nonce-1", share: other.shares[0]! }, ctx);
    const wrong = await operationTokenTransition(one.attempt, { type: "submitShare", nonce: "nonce-1", share: other.shares[1]! }, ctx);
    // In the root generation's words (vault/generate_root.go GenerateRootUpdate and the strategy's authenticate).
    expect(wrong.refusal).toBe("root generation aborted: unable to authenticate: invalid key: failed to decrypt keys from storage: cipher: message authentication failed");
    expect(wrong.attempt).toMatchObject({ nonce: "nonce-1", progress: [] });
    expect(wrong.token).toBeUndefined();
    // A seal that stores its keys compares the recovery key.
    const stored = await context("stored");
    const otherStored = await context("stored");
    const started = await operationTokenTransition(undefined, { type: "start" }, stored.ctx);
    const first = await operationTokenTransition(started.attempt, { type: "submitShare", nonce: "nonce-1", share: otherStored.shares[0]! }, stored.ctx);
    const refused = await operationTokenTransition(first.attempt, { type: "submitShare", nonce: "nonce-1", share: otherStored.shares[1]! }, stored.ctx);
    expect(refused.refusal).toBe("root generation aborted: unable to authenticate: recovery key verification failed: recovery key does not match submitted values");
    // Shares that cannot be combined at all: shamir.Combine's words after `failed to compute root key: `.
    const { ctx: c2, shares: s2 } = await context();
    const a2 = await operationTokenTransition(undefined, { type: "start" }, c2);
    const same = await operationTokenTransition(a2.attempt, { type: "submitShare", nonce: "nonce-1", share: s2[0]! }, c2);
    const twin = Uint8Array.from(s2[1]!);
    twin[twin.length - 1] = s2[0]![s2[0]!.length - 1]!; // the same x coordinate as the first share
    const uncombinable = await operationTokenTransition(same.attempt, { type: "submitShare", nonce: "nonce-1", share: twin }, c2);
    expect(uncombinable.refusal).toBe("failed to compute root key: duplicate part detected");
    expect(toHex(other.shares[0]!)).toHaveLength(66);
  });

  it("takes no OTP when a PGP key is given", async () => {
    const { ctx } = await context();
    const { publicKey } = await openpgp.generateKey({ type: "ecc", curve: "curve25519Legacy", userIDs: [{ name: "op" }], format: "binary" });
    const [pgp] = await readPgpKeys([Buffer.from(publicKey).toString("base64")]);
    const { attempt } = await operationTokenTransition(undefined, { type: "start", pgp: pgp! }, ctx);
    expect(attempt).toMatchObject({ otp: "", pgp: { fingerprint: pgp!.fingerprint } });
  });
});

describe("promotion safety checks", () => {
  const facts = { primaryActive: false, primaryClusterAddr: "http://127.0.0.1:8201", clusterId: "c", lastRemoteWal: 42, primaryLastWal: 42 };
  it("let a caught-up secondary of a gone primary promote", () => {
    expect(promotionRefusal(facts)).toBeUndefined();
  });
  it("refuse while the primary is active, and while writes it made are not applied", () => {
    expect(promotionRefusal({ ...facts, primaryActive: true })).toBe(
      "the primary at http://127.0.0.1:8201 is still the active primary of replication set c: demote or disable it first (only one primary may be active), or promote with force",
    );
    expect(promotionRefusal({ ...facts, lastRemoteWal: 40 })).toBe("this secondary has applied the primary's writes up to 40 of 42: promote with force to accept losing the rest");
  });
});
