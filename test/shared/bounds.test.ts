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

describe("ConnectionBudget, at its edges", () => {
  /** A socket whose close comes only when the test says (a real one closes in a later turn). */
  function lateSocket(address: string) {
    const fake = socket(address);
    Object.assign(fake, { destroy: () => Object.assign(fake, { destroyed: true }) });
    return fake;
  }

  it("an address holding exactly one more than the newcomer's gets no one's place; one more than that does", () => {
    const budget = new ConnectionBudget(4, 4);
    const a = [socket("a"), socket("a")];
    for (const s of [...a, socket("b"), socket("c")]) expect(budget.admit(s)).toBe(true);
    expect(budget.admit(socket("b"))).toBe(false);
    expect(budget.admit(socket("d"))).toBe(true); // a holds 2, d none: a's oldest gives way
    expect(a[0]!.destroyed).toBe(true);
    expect(budget.held("a")).toBe(1);
  });

  it("takes the place of the address holding the most, not of the first one met", () => {
    const budget = new ConnectionBudget(5, 5);
    const first = socket("first");
    const most = [socket("most"), socket("most"), socket("most")];
    for (const s of [first, ...most, socket("other")]) expect(budget.admit(s)).toBe(true);
    expect(budget.admit(socket("newcomer"))).toBe(true);
    expect(first.destroyed).toBe(false);
    expect(most[0]!.destroyed).toBe(true);
  });

  it("refuses a newcomer when every connection of the largest holder is answering a request", () => {
    const budget = new ConnectionBudget(3, 3);
    const busy = [socket("a"), socket("a"), socket("a")];
    for (const s of busy) {
      expect(budget.admit(s)).toBe(true);
      budget.busy(s, 1);
    }
    expect(budget.admit(socket("b"))).toBe(false);
    expect(busy.some((s) => s.destroyed)).toBe(false);
  });

  it("knows whether a connection is answering a request, and ignores connections it does not count", () => {
    const budget = new ConnectionBudget(2, 2);
    const s = socket("a");
    budget.admit(s);
    expect(budget.isBusy(s)).toBe(false);
    budget.busy(s, 1);
    expect(budget.isBusy(s)).toBe(true);
    budget.busy(s, -1);
    expect(budget.isBusy(s)).toBe(false);
    const stranger = socket("b");
    expect(() => budget.busy(stranger, 1)).not.toThrow();
    expect(budget.isBusy(stranger)).toBe(false);
  });

  it("counts a connection pushed out once, also when its close comes after its address's last connection closed", () => {
    const budget = new ConnectionBudget(3, 3);
    const [a1, a2] = [lateSocket("a"), lateSocket("a")];
    for (const s of [a1, a2, socket("b")]) expect(budget.admit(s)).toBe(true);
    expect(budget.admit(socket("c"))).toBe(true); // a1 gives way: destroyed, its close not yet come
    expect(a1.destroyed).toBe(true);
    a2.emit("close");
    expect(budget.held("a")).toBe(0);
    expect(() => a1.emit("close")).not.toThrow();
    expect(budget.total).toBe(2);
  });
});

describe("BodyBudget, at its edges", () => {
  it("takes bytes up to exactly the budget, and not one more", () => {
    const budget = new BodyBudget(100);
    expect(budget.take({}, "a", 100, () => undefined)).toBe(true);
    expect(budget.take({}, "a", 1, () => undefined)).toBe(false);
    expect(budget.total).toBe(100);
  });

  it("adds up the chunks of one request, and gives them all back at once", () => {
    const budget = new BodyBudget(100);
    const request = {};
    budget.take(request, "a", 10, () => undefined);
    budget.take(request, "a", 5, () => undefined);
    expect(budget.total).toBe(15);
    budget.release(request);
    expect(budget.total).toBe(0);
  });

  it("pushes out another address only when it holds strictly more than the asking address would, its own bytes counted", () => {
    // Equal holdings: no one gives way.
    const even = new BodyBudget(90);
    even.take({}, "a", 50, () => undefined);
    expect(even.take({}, "b", 50, () => undefined)).toBe(false);
    // The asking address's own bytes count: b would hold 70, a holds 60: refused.
    const own = new BodyBudget(100);
    own.take({}, "b", 40, () => undefined);
    own.take({}, "a", 60, () => undefined);
    expect(own.take({}, "b", 30, () => undefined)).toBe(false);
    // What an address holds after one of its requests gave its bytes back: the rest only.
    const after = new BodyBudget(100);
    const [first, second] = [{}, {}];
    after.take(first, "a", 30, () => undefined);
    after.take(second, "a", 30, () => undefined);
    after.release(first);
    expect(after.take({}, "b", 80, () => undefined)).toBe(false); // a holds 30, b would hold 80
    expect(after.total).toBe(30);
  });

  it("pushes out the largest requests of the address holding the most, one after the other, until the chunk fits", () => {
    const budget = new BodyBudget(100);
    const evicted: number[] = [];
    for (const bytes of [10, 30, 25, 20]) budget.take({}, "a", bytes, () => evicted.push(bytes));
    budget.take({}, "c", 10, () => evicted.push(-10));
    expect(budget.take({}, "b", 40, () => evicted.push(-40))).toBe(true);
    expect(evicted).toEqual([30, 25]);
    expect(budget.total).toBe(80);
  });

  it("pushes out a request of the address holding the most, even when another address has one larger request", () => {
    const budget = new BodyBudget(100);
    const evicted: string[] = [];
    for (const n of [1, 2, 3]) budget.take({}, "many", 20, () => evicted.push(`many ${n}`));
    budget.take({}, "one", 30, () => evicted.push("one"));
    expect(budget.take({}, "newcomer", 25, () => evicted.push("newcomer"))).toBe(true);
    expect(evicted).toEqual(["many 1"]);
  });

  it("stops pushing out once no address holds more than the asking one would: the chunk is then refused", () => {
    const budget = new BodyBudget(100);
    const evicted: number[] = [];
    for (const bytes of [10, 40, 30]) budget.take({}, "a", bytes, () => evicted.push(bytes));
    budget.take({}, "c", 15, () => evicted.push(-15));
    expect(budget.take({}, "b", 60, () => evicted.push(-60))).toBe(false);
    expect(evicted).toEqual([40]); // a then held 40, less than b's 60
    expect(budget.total).toBe(55);
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
