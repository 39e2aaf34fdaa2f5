// The data the benchmarks load: a mesh of N services, an organization with N teams, N roles.
import type { ConfigEntry } from "../server/mesh/domain/entries.ts";
import { DEFAULT_WORLD } from "../server/org-platform/default-world.ts";
import type { WorldFile } from "../server/org-platform/domain/world.ts";

/** N http services; every other one splits 90/10 over subsets, every third routes /api onward. */
export function meshOf(size: number): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  const name = (i: number) => `svc-${i % size}`;
  for (let i = 0; i < size; i++) {
    entries.push({ Kind: "service-defaults", Name: name(i), Protocol: "http" });
    entries.push({
      Kind: "service-resolver",
      Name: name(i),
      ConnectTimeout: "3s",
      Subsets: { v1: { Filter: "Service.Meta.version == v1" }, v2: { Filter: "Service.Meta.version == v2" } },
      Failover: { "*": { Datacenters: ["dc2", "dc3"] } },
    });
    if (i % 2 === 0) {
      entries.push({ Kind: "service-splitter", Name: name(i), Splits: [{ Weight: 90, ServiceSubset: "v1" }, { Weight: 10, ServiceSubset: "v2" }] });
    }
    if (i % 3 === 0) {
      entries.push({
        Kind: "service-router",
        Name: name(i),
        Routes: [
          { Match: { HTTP: { PathPrefix: "/api" } }, Destination: { Service: name(i + 1) } },
          { Match: { HTTP: { Header: [{ Name: "x-version", Exact: "2" }] } }, Destination: { ServiceSubset: "v2" } },
        ],
      });
    }
  }
  // Loaded like writes, one by one: every service's protocol must be known before a router names it.
  const order = ["service-defaults", "service-resolver", "service-splitter", "service-router"];
  return entries.sort((a, b) => order.indexOf(a.Kind) - order.indexOf(b.Kind));
}

export const ORG_TOKEN = "alice.atlasv1.dev-user-token"; // owner of acme in the default world
export const BIG_TEAM = "team-BenchBigTeam0001";

/**
 * The default world with `teams` more teams in acme (team-bench-00001...) and `members` more
 * members of acme, all of them (and alice) in the team BIG_TEAM, the first of the added teams; the
 * others have no members.
 */
export function orgWorldOf(teams: number, members = 0): WorldFile {
  const world = structuredClone(DEFAULT_WORLD);
  const acme = world.organizations.find((o) => o.name === "acme")!;
  const users = Array.from({ length: members }, (_, i) => `bench-user-${String(i).padStart(5, "0")}`);
  for (const username of users) world.users.push({ username, email: `${username}@acme.example` });
  acme.members!.push(...users.map((user) => ({ user })));
  for (let i = 0; i < teams; i++) {
    acme.teams!.push({
      ...(i === 0 ? { id: BIG_TEAM } : {}),
      name: `bench-${String(i).padStart(5, "0")}`,
      visibility: "organization",
      members: i === 0 ? ["alice", ...users] : [],
      "created-at": "2024-01-01T00:00:00.000Z",
    });
  }
  return world;
}

export const SECRETS_TOKEN = "bench-root-token";
export const ROLE_BODY = JSON.stringify({ credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
