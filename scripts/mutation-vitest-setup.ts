// Vitest setup file for mutation runs only (vitest.mutation.config.ts). StrykerJS 9.5's vitest
// runner hands its coverage and hit counts over in `afterAll(({ meta }) => ...)`; from vitest 4.1
// the first argument of afterAll is a fixture context and the suite is the second, so without this
// file Stryker receives no per-test coverage: it cannot tell static mutants apart, cannot limit a
// mutant to the tests that cover it, and its incremental mode reuses every old survivor.
import { afterAll, inject } from "vitest";

type Namespace = { mutantCoverage?: unknown; hitCount?: number };
const name = (inject as (key: string) => unknown)("globalNamespace") as string | undefined;
if (name) {
  const mode = (inject as (key: string) => unknown)("mode");
  afterAll(({}, suite) => {
    const ns = (globalThis as unknown as Record<string, Namespace | undefined>)[name];
    if (!ns) return;
    const meta = suite.meta as Namespace;
    if (mode === "mutant") meta.hitCount = ns.hitCount;
    else meta.mutantCoverage = ns.mutantCoverage;
  });
}
