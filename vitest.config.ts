import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most test files wait more than they compute (servers and CLIs in child processes, Chromium,
    // Prism): two files per core keep the cores busy (vitest's default is one fewer than the cores).
    maxWorkers: 2 * availableParallelism(),
    // Files of one worker share loaded modules (express, the validator, the servers) instead of
    // loading them again for every file: a third of the suite's time went to imports. Test files
    // keep no module-level state that another could see: they build their own servers.
    isolate: false,
  },
});
