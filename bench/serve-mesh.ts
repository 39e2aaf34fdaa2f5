// A mesh reference server for the benchmark, in its own process: validation on unless
// BENCH_VALIDATE=0, loaded with the router example's entries. Prints its port.
import type { AddressInfo } from "node:net";
import { createMeshApp } from "../server/mesh/app.ts";
import { CHAIN_EXAMPLES } from "../test/mesh/fixtures/chain-examples.ts";

const { app } = createMeshApp({
  entries: CHAIN_EXAMPLES.ChainRouter!.entries,
  validate: process.env.BENCH_VALIDATE !== "0",
});
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`PORT ${(server.address() as AddressInfo).port}`);
});
