// StrykerJS settings shared by every guard module. `npm run mutation` (scripts/mutation.ts) runs
// one module at a time and adds what is per module: `mutate`, `testFiles` and `incrementalFile`.
// Running `npx stryker run` by hand works too, but then give those three yourself.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  coverageAnalysis: "perTest",
  // Mutants only executed while a module loads (constant tables) would need a fresh process each.
  ignoreStatic: true,
  incremental: true,
  // Two cores shared with other work: one test runner.
  concurrency: 1,
  timeoutMS: 10_000,
  // The 90% rule is applied per module by scripts/mutation.ts, with reviewed equivalent mutants
  // left out (see docs/mutation-testing.md); Stryker's own break would count them.
  thresholds: { high: 95, low: 90, break: null },
  reporters: ["clear-text", "progress"],
  clearTextReporter: { allowColor: false, logTests: false },
  // The sandbox holds only what tests need: files other work creates and removes at the top of the
  // checkout meanwhile (scratch configs, data directories) must not break the copy.
  ignorePatterns: [
    "/*",
    "!/server",
    "!/test",
    "!/scripts",
    "!/generated",
    "!/openapi",
    "!/package.json",
    "!/tsconfig.json",
    "!/redocly.yaml",
    "!/vitest.mutation.config.ts",
    "!/stryker.config.mjs",
  ],
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
