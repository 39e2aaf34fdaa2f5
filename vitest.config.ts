import { availableParallelism } from "node:os";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

/**
 * The files that take longest (docs/testing.md), longest first. On a fresh clone vitest has no
 * durations of an earlier run and starts the largest files first; these are small files, and one of
 * them started last is the run's tail while the other workers are idle.
 */
export const LONGEST_FILES = [
  "test/toolkit/cli-package.test.ts",
  "test/toolkit/own-api.test.ts",
  "test/toolkit/ci-kit.test.ts",
  "test/docs/browser.test.ts",
  "test/contract/conformance.test.ts",
  "test/contract/properties.test.ts",
  "test/mock/truth.test.ts",
  "test/mock/prism.test.ts",
  "test/docs/client-packages.test.ts",
  "test/toolkit/diff-sources.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FILES.findIndex((long) => file.moduleId.endsWith(`/${long}`));
      return at < 0 ? LONGEST_FILES.length : at;
    };
    const rest = await super.sort(files.filter((f) => rank(f) === LONGEST_FILES.length));
    return [...files.filter((f) => rank(f) < LONGEST_FILES.length).sort((a, b) => rank(a) - rank(b)), ...rest];
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most test files wait more than they compute (servers and CLIs in child processes, Chromium,
    // Prism): more files than cores keep the cores busy (vitest's default is one fewer than the
    // cores). One fewer than two per core: each worker loads the servers and compiles the
    // descriptions' validators once, and on two cores a fourth worker cost about 20 s of CPU more
    // than it saved in waiting (npm test 143-146 s with three, 145-156 s with four; docs/testing.md).
    maxWorkers: Math.max(1, 2 * availableParallelism() - 1),
    // Files of one worker share loaded modules (express, the validator, the servers) instead of
    // loading them again for every file: a third of the suite's time went to imports. Test files
    // keep no module-level state that another could see: they build their own servers.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // One stateless mock per API for the run, started when a file first asks (test/setup/shared-mocks.ts).
    globalSetup: ["test/setup/shared-mocks.ts"],
    // TEST_CPU_LOG=<file>: each file's CPU time, in its worker and its child processes (docs/testing.md).
    setupFiles: process.env.TEST_CPU_LOG ? ["test/helpers/cpu-per-file.ts"] : [],
  },
});
