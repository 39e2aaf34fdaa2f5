// npm run mutation [-- <module>... | --changed <git-ref>] [--force]
//
// Mutation testing (StrykerJS, vitest runner) of the modules that guard secrets and access, one
// module at a time, each against the unit tests that are its specification. Incremental: the
// results of the last run are kept in reports/mutation/<module>.incremental.json (committed), so a
// run only tests the mutants whose code or covering tests changed. A module scoring below 90% fails
// the run (exit 1); the table printed at the end is the one in docs/mutation-testing.md.
//
//   npm run mutation                      every guard module
//   npm run mutation -- secrets-policy    one module (names below)
//   npm run mutation -- --changed main    the modules whose source or tests differ from main
//   npm run mutation -- --force           ignore the incremental files, test every mutant again
//   npm run mutation -- --list            the modules and their tests
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Stryker } from "@stryker-mutator/core";
import type { MutantResult } from "@stryker-mutator/api/core";

const root = path.resolve(import.meta.dirname, "..");

export interface GuardModule {
  name: string;
  /** The file mutated. */
  mutate: string;
  /**
   * Only these functions of the file, each named by a pattern matching its first line: the lines
   * from there to its closing brace are mutated (found afresh each run, so edits do not shift them).
   */
  functions?: RegExp[];
  /** The unit tests that specify it (fast, no servers where possible). */
  tests: string[];
}

export const BREAK_AT = 90;

export const GUARD_MODULES: GuardModule[] = [
  {
    name: "secrets-policy",
    mutate: "server/secrets/domain/policy.ts",
    tests: ["test/secrets/policy.test.ts", "test/secrets/policy-precedence.test.ts"],
  },
  {
    name: "mesh-acl-rules",
    mutate: "server/mesh/domain/acl-rules.ts",
    tests: ["test/mesh/acl-rules.test.ts", "test/mesh/acl-rule-precedence.test.ts"],
  },
  {
    name: "mesh-acl",
    mutate: "server/mesh/domain/acl.ts",
    tests: ["test/mesh/acl-rules.test.ts", "test/mesh/acl-rule-precedence.test.ts"],
  },
  {
    // Token resolution: secret -> token -> policies and roles -> merged rules (or 403).
    name: "mesh-token-resolution",
    mutate: "server/mesh/acl-service.ts",
    functions: [/^\s+resolve\(secret/, /^\s+private expired\(/],
    tests: ["test/mesh/token-resolution-precedence.test.ts", "test/mesh/acl.api.test.ts"],
  },
  {
    name: "secrets-rekey",
    mutate: "server/secrets/domain/rekey.ts",
    tests: ["test/secrets/rekey-machine.test.ts", "test/secrets/rekey-refusal-precedence.test.ts"],
  },
  {
    name: "secrets-shamir",
    mutate: "server/secrets/domain/shamir.ts",
    tests: ["test/secrets/shamir.test.ts", "test/secrets/rekey-machine.test.ts"],
  },
  {
    name: "secrets-list-method",
    mutate: "server/secrets/http/list-method.ts",
    tests: ["test/secrets/list-method.test.ts", "test/secrets/list-method-framing-precedence.test.ts"],
  },
  {
    name: "org-access",
    mutate: "server/org-platform/domain/access.ts",
    tests: ["test/org-platform/domain.test.ts", "test/org-platform/access-precedence.test.ts"],
  },
  {
    name: "replication-filter",
    mutate: "server/secrets/replication/domain/filter.ts",
    tests: ["test/secrets/replication-domain.test.ts", "test/secrets/replication-filter-precedence.test.ts"],
  },
  {
    name: "secrets-canonical-path",
    mutate: "server/secrets/http/canonical-path.ts",
    tests: ["test/secrets/canonical-path-precedence.test.ts", "test/secrets/adversarial-paths.api.test.ts"],
  },
];

export interface ModuleScore {
  name: string;
  file: string;
  score: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  errors: number;
}

/** Stryker's mutation score: detected / (detected + undetected); ignored and erroneous mutants do not count. */
export function scoreOf(name: string, file: string, results: Pick<MutantResult, "status">[]): ModuleScore {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  return {
    name,
    file,
    score: valid === 0 ? 100 : ((killed + timeout) / valid) * 100,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: count("Ignored"),
    errors: count("CompileError") + count("RuntimeError"),
  };
}

export function formatTable(scores: ModuleScore[]): string[] {
  return [
    "| module | file | score | killed | timeout | survived | no coverage | static (ignored) |",
    "|---|---|---|---|---|---|---|---|",
    ...scores.map(
      (s) =>
        `| ${s.name} | \`${s.file}\` | ${s.score.toFixed(1)}% | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.ignored} |`,
    ),
  ];
}

function changedSince(ref: string): Set<string> {
  const out = execFileSync("git", ["diff", "--name-only", ref, "--"], { cwd: root, encoding: "utf8" });
  const untracked = execFileSync("git", ["ls-files", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  return new Set([...out.split("\n"), ...untracked.split("\n")].filter(Boolean));
}

/** `file:from-to` for each function named by a pattern, from its first line to its closing brace. */
export function functionRanges(file: string, source: string, patterns: RegExp[]): string[] {
  const lines = source.split("\n");
  return patterns.map((pattern) => {
    const start = lines.findIndex((line) => pattern.test(line));
    if (start < 0) throw new Error(`${file}: no line matches ${pattern}`);
    let depth = 0;
    for (let i = start; i < lines.length; i++) {
      for (const ch of lines[i]!) depth += ch === "{" ? 1 : ch === "}" ? -1 : 0;
      if (depth === 0 && lines[i]!.includes("}")) return `${file}:${start + 1}-${i + 1}`;
    }
    throw new Error(`${file}: the function at line ${start + 1} does not end`);
  });
}

async function runModule(module: GuardModule, force: boolean): Promise<ModuleScore> {
  const file = module.mutate;
  const mutate = module.functions ? functionRanges(file, readFileSync(path.join(root, file), "utf8"), module.functions) : [file];
  mkdirSync(path.join(root, "reports", "mutation"), { recursive: true });
  const stryker = new Stryker({
    configFile: path.join(root, "stryker.config.mjs"),
    mutate,
    testFiles: module.tests.filter((t) => existsSync(path.join(root, t))),
    incrementalFile: `reports/mutation/${module.name}.incremental.json`,
    force,
  });
  const results = await stryker.runMutationTest();
  return scoreOf(module.name, file, results);
}

async function main() {
  const args = process.argv.slice(2);
  const force = args.includes("--force");
  const changedAt = args.indexOf("--changed");
  const named = args.filter((a, i) => !a.startsWith("--") && (changedAt < 0 || i !== changedAt + 1));
  const unknown = named.filter((n) => !GUARD_MODULES.some((m) => m.name === n));
  if (unknown.length) {
    console.error(`unknown module(s): ${unknown.join(", ")}; known: ${GUARD_MODULES.map((m) => m.name).join(", ")}`);
    process.exit(2);
  }
  if (args.includes("--list")) {
    for (const m of GUARD_MODULES) {
      const where = m.functions && existsSync(path.join(root, m.mutate)) ? functionRanges(m.mutate, readFileSync(path.join(root, m.mutate), "utf8"), m.functions).join(" ") : m.mutate;
      console.log(`${m.name}: ${where} <- ${m.tests.join(", ")}`);
    }
    return;
  }
  // A module whose file is not there (yet) is left out, and said so.
  let selected = GUARD_MODULES.filter((m) => (named.length ? named.includes(m.name) : true));
  for (const m of selected.filter((m) => !existsSync(path.join(root, m.mutate)))) {
    console.log(`${m.name}: ${m.mutate} does not exist, skipped`);
  }
  selected = selected.filter((m) => existsSync(path.join(root, m.mutate)));
  if (changedAt >= 0) {
    const ref = args[changedAt + 1];
    if (!ref) {
      console.error("--changed needs a git ref");
      process.exit(2);
    }
    const changed = changedSince(ref);
    selected = selected.filter((m) => [m.mutate, ...m.tests].some((f) => changed.has(f)));
    if (!selected.length) {
      console.log(`no guard module or its tests changed since ${ref}`);
      return;
    }
  }
  const scores: ModuleScore[] = [];
  const failed: string[] = [];
  for (const module of selected) {
    console.log(`\n== ${module.name}: ${module.mutate}${module.functions ? ` (${module.functions.length} function(s))` : ""}`);
    // A run that breaks (a file removed while the sandbox is copied, say) is tried once more.
    for (let attempt = 1; ; attempt++) {
      try {
        scores.push(await runModule(module, force));
        break;
      } catch (error) {
        console.error(`${module.name}: Stryker failed (${(error as Error).message.split("\n")[0]})${attempt < 2 ? "; trying again" : ""}`);
        if (attempt >= 2) {
          failed.push(module.name);
          break;
        }
      }
    }
  }
  console.log("");
  for (const line of formatTable(scores)) console.log(line);
  const low = scores.filter((s) => s.score < BREAK_AT);
  if (low.length) console.error(`\nbelow ${BREAK_AT}%: ${low.map((s) => `${s.name} ${s.score.toFixed(1)}%`).join(", ")}`);
  if (failed.length) console.error(`\nnot measured (Stryker failed twice): ${failed.join(", ")}`);
  process.exitCode = low.length || failed.length ? 1 : 0;
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("scripts/mutation.ts")) await main();
