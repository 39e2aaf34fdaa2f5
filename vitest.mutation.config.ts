// Vitest as StrykerJS runs it (npm run mutation): the timeouts of vitest.config.ts, each file isolated
// (Stryker runs its own workers and swaps modules between mutants), and the
// test files are chosen per guard module by scripts/mutation.ts (Stryker's `testFiles`), so a
// mutant only ever runs the fast unit tests of the module it lives in.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["scripts/mutation-vitest-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
