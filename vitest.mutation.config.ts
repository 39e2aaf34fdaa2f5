// Vitest as StrykerJS runs it (npm run mutation): the same settings as vitest.config.ts, but the
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
