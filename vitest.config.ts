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
    // One file per core. The toolkit's files wait on child processes, but those processes use the
    // cores themselves; each worker also loads the servers and compiles the descriptions' validators
    // once. Measured on two cores (docs/testing.md): four workers 246-263 s of CPU, 145-156 s wall;
    // three 238-248 s, 143-150 s; two 222-226 s, 144-146 s (vitest's default would be one).
    maxWorkers: availableParallelism(),
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
