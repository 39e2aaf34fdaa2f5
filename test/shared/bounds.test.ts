// The budgets of server/shared/bounds.ts on their own: how the limits come from the environment and
// the descriptor limit, and how connections and body bytes are shared between client addresses.
import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { BodyBudget, ConnectionBudget, DEFAULT_BODY_BYTES_IN_FLIGHT, limitsFromEnv } from "../../server/shared/bounds.ts";
import { environmentProblems } from "../../server/shared/startup-checks.ts";

describe("limitsFromEnv", () => {
  it("derives the connection budget from the descriptor limit, keeping an eighth (at least 64) for data directories and replication", () => {
    expect(limitsFromEnv({}, 1024).limits).toEqual({
      maxConnections: 896,
      maxConnectionsPerAddress: 224,
      maxBodyBytesInFlight: DEFAULT_BODY_BYTES_IN_FLIGHT,
      headersTimeoutMs: 10_000,
      maxHeaderBytes: 16_384,
    });
    expect(limitsFromEnv({}, 256).limits.maxConnections).toBe(192);
    expect(limitsFromEnv({}, 1_048_576).limits.maxConnections).toBe(917_504);
  });

  it("takes each knob from its variable and names a bad one", () => {
    const { limits, problems } = limitsFromEnv(
      { MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "10", MAX_BODY_BYTES_IN_FLIGHT: "1048576", HEADERS_TIMEOUT_SECONDS: "3", MAX_HEADER_BYTES: "8192" },
      1024,
    );
    expect(problems).toEqual([]);
    expect(limits).toEqual({ maxConnections: 100, maxConnectionsPerAddress: 10, maxBodyBytesInFlight: 1_048_576, headersTimeoutMs: 3000, maxHeaderBytes: 8192 });
    expect(limitsFromEnv({ MAX_CONNECTIONS: "100" }, 1024).limits.maxConnectionsPerAddress).toBe(25);
    expect(limitsFromEnv({ MAX_BODY_BYTES_IN_FLIGHT: "lots", HEADERS_TIMEOUT_SECONDS: "0" }, 1024).problems).toEqual([
      "MAX_BODY_BYTES_IN_FLIGHT=lots: not a positive whole number",
      "HEADERS_TIMEOUT_SECONDS=0: not a positive whole number",
    ]);
    expect(limitsFromEnv({ MAX_CONNECTIONS: "5000" }, 1024).problems).toEqual([
      "MAX_CONNECTIONS=5000: more than the 896 connections the open-files limit (1024, less 128 kept for data directories and replication) allows; raise `ulimit -n` or lower MAX_CONNECTIONS",
    ]);
    // npm start refuses to start on them, naming the variable.
    expect(environmentProblems({ MAX_HEADER_BYTES: "-1" })).toContain("MAX_HEADER_BYTES=-1: not a positive whole number");
  });

  it("reads the descriptor limit of the process it runs in", () => {
    const script = 'import("./server/shared/bounds.ts").then((m) => console.log(m.descriptorLimit(), m.limitsFromEnv({}).limits.maxConnections))';
    const output = execFileSync("prlimit", ["--nofile=777:777", process.execPath, "--import", "tsx", "-e", script], { cwd: process.cwd(), encoding: "utf8" });
    expect(output.trim()).toBe("777 680");
  });
});

/** A stand-in socket: what the budget reads (its address) and does (destroy, which closes it). */
function socket(address: string): Socket & { destroyed: boolean } {
  const fake = Object.assign(new EventEmitter(), {
    remoteAddress: address,
    destroyed: false,
    destroy() {
      fake.destroyed = true;
      fake.emit("close");
      return fake;
    },
  });
  return fake as unknown as Socket & { destroyed: boolean };
}

describe("ConnectionBudget", () => {
  it("refuses an address past its share, and takes the place of the largest holder's oldest idle connection when full", () => {
    const budget = new ConnectionBudget(10, 6);
    const attacker = Array.from({ length: 8 }, () => socket("10.0.0.2"));
    expect(attacker.map((s) => budget.admit(s))).toEqual([true, true, true, true, true, true, false, false]);
    const others = Array.from({ length: 4 }, () => socket("10.0.0.3"));
    expect(others.map((s) => budget.admit(s))).toEqual([true, true, true, true]);
    expect(budget.total).toBe(10);
    // Full: 10.0.0.4 holds none, the attacker 6: its oldest idle connection gives way.
    budget.busy(attacker[0]!, 1);
    const newcomer = socket("10.0.0.4");
    expect(budget.admit(newcomer)).toBe(true);
    expect(attacker[0]!.destroyed).toBe(false); // a request is being answered on it
    expect(attacker[1]!.destroyed).toBe(true);
    expect(budget.held("10.0.0.2")).toBe(5);
    expect(budget.total).toBe(10);
    // An address holding as many as the largest but one gets no one's place.
    budget.admit(socket("10.0.0.4"));
    budget.admit(socket("10.0.0.4"));
    expect(budget.held("10.0.0.2")).toBe(3);
    expect(budget.held("10.0.0.3")).toBe(4);
    expect(budget.admit(socket("10.0.0.3"))).toBe(false);
    // A closed connection gives its place back.
    others[0]!.destroy();
    expect(budget.total).toBe(9);
    expect(budget.admit(socket("10.0.0.5"))).toBe(true);
  });
});

describe("BodyBudget", () => {
  it("refuses what passes the budget, unless another address holds more: then its largest request gives way", () => {
    const budget = new BodyBudget(100);
    const evicted: string[] = [];
    const a1 = {};
    const a2 = {};
    expect(budget.take(a1, "attacker", 40, () => evicted.push("a1"))).toBe(true);
    expect(budget.take(a2, "attacker", 50, () => evicted.push("a2"))).toBe(true);
    // The attacker's own next chunk does not fit: refused, nothing counted.
    expect(budget.take({}, "attacker", 20, () => evicted.push("a3"))).toBe(false);
    expect(budget.total).toBe(90);
    // Another address's chunk: the attacker's largest request is refused to make room.
    const legit = {};
    expect(budget.take(legit, "client", 30, () => evicted.push("legit"))).toBe(true);
    expect(evicted).toEqual(["a2"]);
    expect(budget.total).toBe(70);
    // Giving back: everything the request held.
    budget.release(a1);
    budget.release(a1);
    expect(budget.total).toBe(30);
    budget.release(legit);
    expect(budget.total).toBe(0);
  });
});
