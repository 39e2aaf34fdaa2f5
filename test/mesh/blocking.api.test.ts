// Blocking queries: X-Mesh-Index on every read; with `index`, a read waits until one of the
// answer's inputs changes or `wait` passes. Consistency modes are accepted, not both at once.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startMesh, type RunningMesh } from "../helpers/mesh.ts";

let mesh: RunningMesh;
beforeEach(async () => {
  mesh = await startMesh();
});
afterEach(() => mesh.close());

const readChain = (query: { index?: number; wait?: string } = {}) =>
  mesh.client.GET("/discovery-chain/{service_name}", { params: { path: { service_name: "web" }, query } });

const indexOf = (response: Response) => Number(response.headers.get("x-mesh-index"));

/** Settles a promise's state without waiting for it: "pending" or "settled". */
const stateOf = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 150))]);

describe("blocking queries on the discovery chain", () => {
  it("answers at once when the index is older than the chain's", async () => {
    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "web", ConnectTimeout: "9s" } });
    const { response } = await readChain({ index: 0 });
    expect(indexOf(response)).toBe(1);
  });

  it("waits for a change to the chain's inputs, not to unrelated entries", async () => {
    const first = await readChain();
    const index = indexOf(first.response);
    const blocked = readChain({ index, wait: "20s" });
    expect(await stateOf(blocked)).toBe("pending");

    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "unrelated", ConnectTimeout: "1s" } });
    expect(await stateOf(blocked)).toBe("pending");

    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "web", ConnectTimeout: "9s" } });
    const { data, response } = await blocked;
    expect(indexOf(response)).toBeGreaterThan(index);
    expect(data?.Chain.Nodes["resolver:web.default.dc1"]?.Resolver?.ConnectTimeout).toBe("9s");
  });

  it("wakes when a service the chain reaches changes", async () => {
    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "web", Redirect: { Service: "api" } } });
    const first = await readChain();
    const blocked = readChain({ index: indexOf(first.response), wait: "20s" });
    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "api", ConnectTimeout: "4s" } });
    const { data } = await blocked;
    expect(data?.Chain.Nodes["resolver:api.default.dc1"]?.Resolver?.ConnectTimeout).toBe("4s");
  });

  it("returns the unchanged answer when wait passes", async () => {
    const first = await readChain();
    const started = Date.now();
    const { response } = await readChain({ index: indexOf(first.response), wait: "300ms" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(indexOf(response)).toBe(indexOf(first.response));
  });

  it("stops waiting as soon as its client goes away, leaving no listener and logging nothing", async () => {
    const store = mesh.service.store;
    const subscribe = store.subscribe.bind(store);
    let listening = 0;
    vi.spyOn(store, "subscribe").mockImplementation((listener) => {
      listening++;
      const unsubscribe = subscribe(listener);
      return () => {
        listening--;
        unsubscribe();
      };
    });
    const logged = vi.spyOn(console, "error");
    const first = await readChain();
    const client = new AbortController();
    const blocked = fetch(`${mesh.baseUrl}/discovery-chain/web?index=${indexOf(first.response)}&wait=30s`, { signal: client.signal });
    await vi.waitFor(() => expect(listening).toBe(1));
    client.abort();
    await expect(blocked).rejects.toThrow();
    await vi.waitFor(() => expect(listening).toBe(0), { timeout: 2000 });
    // The server goes on answering; nothing was logged for the client that left.
    expect((await readChain()).response.status).toBe(200);
    expect(logged).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it("refuses a wait without a unit as the agent does (agent/http.go parseWait)", async () => {
    const { response, error } = await readChain({ index: 1, wait: "30" });
    expect(response.status).toBe(400);
    expect(error).toBe("Invalid wait time");
  });
});

describe("blocking queries on configuration entries", () => {
  it("wakes a read of one entry when it is written", async () => {
    await mesh.client.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "tcp" } });
    const first = await mesh.client.GET("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    const blocked = mesh.client.GET("/config/{kind}/{name}", {
      params: { path: { kind: "service-defaults", name: "web" }, query: { index: indexOf(first.response), wait: "20s" } },
    });
    expect(await stateOf(blocked)).toBe("pending");
    await mesh.client.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "http" } });
    expect((await blocked).data).toMatchObject({ Protocol: "http", ModifyIndex: 2 });
  });

  it("wakes a list when an entry of its kind is deleted", async () => {
    await mesh.client.PUT("/config", { body: { Kind: "service-defaults", Name: "web", Protocol: "tcp" } });
    const first = await mesh.client.GET("/config/{kind}", { params: { path: { kind: "service-defaults" } } });
    const blocked = mesh.client.GET("/config/{kind}", {
      params: { path: { kind: "service-defaults" }, query: { index: indexOf(first.response), wait: "20s" } },
    });
    await mesh.client.PUT("/config", { body: { Kind: "service-resolver", Name: "web" } });
    expect(await stateOf(blocked)).toBe("pending");
    await mesh.client.DELETE("/config/{kind}/{name}", { params: { path: { kind: "service-defaults", name: "web" } } });
    const { data, response } = await blocked;
    expect(data).toEqual([]);
    expect(indexOf(response)).toBe(3);
  });
});

describe("consistency modes", () => {
  it("accepts ?stale and ?consistent alone, with the leader headers", async () => {
    for (const mode of ["stale", "consistent"]) {
      const response = await fetch(`${mesh.baseUrl}/discovery-chain/web?${mode}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-mesh-knownleader")).toBe("true");
      expect(response.headers.get("x-mesh-lastcontact")).toBe("0");
    }
  });

  it("refuses both at once", async () => {
    const response = await fetch(`${mesh.baseUrl}/discovery-chain/web?stale&consistent`);
    expect(response.status).toBe(400);
    expect(await response.text()).toBe("Cannot specify ?stale with ?consistent, conflicting semantics.");
  });
});
