// Runs a command to its end (asynchronously, so servers of the test keep answering meanwhile) and
// keeps its output; a long-running one (a mock, a proxy) is started and read until a line appears.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.on("data", (c: Buffer) => ((stdout += c), (output += c)));
    child.stderr.on("data", (c: Buffer) => ((stderr += c), (output += c)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} took more than ${options.timeoutMs ?? 120_000} ms:\n${output}`));
    }, options.timeoutMs ?? 120_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, output });
    });
  });
}

export interface Started {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a long-running command and resolves once its output matches `ready`. */
export function start(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number }): Promise<Started> {
  return new Promise((resolve, reject) => {
    // Its own process group, so that stop() reaches the children it starts (Prism).
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("close", () => done());
        process.kill(-child.pid!, "SIGINT");
      });
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} ${args.join(" ")} did not print ${options.ready} within ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (c: Buffer) => {
      output += c;
      if (options.ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, stop });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(" ")} stopped (${code}) before it was ready:\n${output}`));
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}

/** Resolves once a started command's output matches `pattern`: it waits on the output, not on a clock (the test's timeout bounds it). */
export function outputMatching(started: Started, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    // start() registered its own listeners first: output() already holds a chunk when this sees it.
    const check = () => {
      if (!pattern.test(started.output())) return false;
      cleanup();
      resolve(started.output());
      return true;
    };
    const onData = () => void check();
    const onClose = () => {
      cleanup();
      reject(new Error(`stopped before printing ${pattern}:\n${started.output()}`));
    };
    const cleanup = () => {
      started.child.stdout?.off("data", onData);
      started.child.stderr?.off("data", onData);
      started.child.off("close", onClose);
    };
    if (check()) return;
    started.child.stdout?.on("data", onData);
    started.child.stderr?.on("data", onData);
    started.child.once("close", onClose);
  });
}

/** Waits until `condition` holds, looking again every 20 ms (the test's timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}
