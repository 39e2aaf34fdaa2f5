// Go programs the tests run (the go-tfe driver, the differential tests' oracles): built once per
// content of their source, in GOPATH mode, with the Go that scripts/system-deps.sh installs
// (golang-go). Without Go the tests fail, naming what to install.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Builds `source` (when its content changed) and answers the binary's path. */
export function buildGoProgram(source: string, name: string, options: { gopath?: string } = {}): string {
  if (spawnSync("go", ["version"]).error) throw new Error(`${name} needs Go: apt-get install -y golang-go (scripts/system-deps.sh does it as root)`);
  const hash = createHash("sha256").update(readFileSync(source)).digest("hex").slice(0, 16);
  const binary = path.join(tmpdir(), `${name}-${hash}`);
  if (existsSync(binary)) return binary;
  const built = spawnSync("go", ["build", "-o", binary, source], {
    env: { ...process.env, GO111MODULE: "off", GOFLAGS: "", GOCACHE: path.join(tmpdir(), `${name}-cache`), ...(options.gopath ? { GOPATH: options.gopath } : {}) },
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`go build of ${name} failed:\n${built.stderr}`);
  return binary;
}

/**
 * Runs a differential test's oracle: one JSON string a line in, one JSON object a line out (the Go
 * answers for that text), as many as were sent.
 */
export function askOracle(binary: string, inputs: readonly string[]): Record<string, string>[] {
  const run = spawnSync(binary, { input: `${inputs.map((text) => JSON.stringify(text)).join("\n")}\n`, maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`${binary} failed:\n${run.stderr?.toString()}`);
  const answers = run.stdout.toString().trim().split("\n").map((line) => JSON.parse(line) as Record<string, string>);
  if (answers.length !== inputs.length) throw new Error(`${binary} answered ${answers.length} of ${inputs.length} texts`);
  return answers;
}

/** A seeded generator of numbers in [0, 1) (a linear congruential one: the same numbers every run). */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1103515245 + 12345) % 2147483648), state / 2147483648);
}

/** `count` texts of 1 to `maxPieces` pieces each, from a fixed seed. */
export function pieceTexts(pieces: readonly string[], count: number, seed: number, maxPieces: number): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let text = "";
    for (let n = 1 + Math.floor(next() * maxPieces); n > 0; n--) text += pieces[Math.floor(next() * pieces.length)];
    return text;
  });
}
