// A reference server in a child process, for the crash tests: started as a user starts it (bundled, as
// `npm start` runs it), killed with SIGKILL. One way to start, wait for and kill it, whatever the service.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { upToDateBundle } from "../../scripts/module-location.mjs";

const root = path.resolve(import.meta.dirname, "..", "..");

export interface ChildServer {
  process: ChildProcess;
  stdout: string;
  /** stdout and stderr as printed until it was ready. */
  output: string;
}

/** The fixture that starts one service's entry: `startChildServer(entryScript("mesh"), env)`. */
export const entryScript = (service: "mesh" | "org-platform" | "secrets") => ["test/fixtures/run-entry.ts", service];

/**
 * Runs the TypeScript script `args[0]` (with the arguments after it) in the project, with the
 * environment added to this one, as `npm start` runs the servers: bundled by esbuild (the bundle
 * kept under .build/test/ and rebuilt when a file it was built from changed), with source maps.
 * A start through tsx cost about twice the CPU (1 s), and these tests start servers a dozen times.
 * Resolves once it printed `Ready.`; rejects when it exits first or takes too long, with the message
 * `exited with <code>: <stderr>` and `code`, `stdout`, `stderr`, `output` (both, interleaved).
 */
export async function startChildServer(args: string[], env: Record<string, string>, timeoutMs = 30_000, wrapper: string[] = []): Promise<ChildServer> {
  const [script, ...rest] = args;
  const bundle = await upToDateBundle(root, path.join(root, script!), path.join(root, ".build", "test", `${script!.replace(/\.ts$/, "").replace(/[\\/]/g, "-")}.mjs`));
  // `wrapper` runs node under another command (`prlimit --nofile=1024`): the first word, then the rest and node's own.
  const [command, ...prefix] = [...wrapper, process.execPath];
  const child = spawn(command!, [...prefix, "--enable-source-maps", bundle, ...rest], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let stdout = "";
  let stderr = "";
  return new Promise((resolve, reject) => {
    const fail = (message: string, code: number | null) => reject(Object.assign(new Error(`${message}: ${stderr}`), { code, stdout, stderr, output }));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(`did not start within ${timeoutMs} ms`, null);
    }, timeoutMs);
    child.stderr!.on("data", (chunk) => {
      stderr += chunk;
      output += chunk;
    });
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
      if (!stdout.includes("Ready.")) return;
      clearTimeout(timer);
      resolve({ process: child, stdout, output });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(`exited with ${code}`, code);
    });
  });
}

/** Kills the child with SIGKILL (nothing flushed, nothing closed) and waits until it is gone. */
export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
