// A client program driven one call a line: a JSON request written to its stdin, one JSON answer
// read from its stdout, in order. The go-tfe and hvac drivers (helpers/go-tfe.ts, helpers/hvac.ts)
// are such programs, each running a real client library unchanged.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

export class LineDriver {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: ((line: string) => void)[] = [];
  readonly #stderr: string[] = [];

  constructor(command: string, args: string[], env: Record<string, string>) {
    this.#child = spawn(command, args, { env: { ...process.env, ...env } });
    this.#child.stderr.on("data", (chunk: Buffer) => this.#stderr.push(chunk.toString()));
    createInterface({ input: this.#child.stdout }).on("line", (line) => this.#answers.shift()?.(line));
  }

  /** Sends one request and answers the program's reply to it; rejects when the program exits first. */
  request<T>(request: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error(`${this.#child.spawnfile} exited: ${this.#stderr.join("")}`));
      this.#child.once("exit", exited);
      this.#answers.push((line) => {
        this.#child.off("exit", exited);
        resolve(JSON.parse(line) as T);
      });
      this.#child.stdin.write(JSON.stringify(request) + "\n");
    });
  }

  close(): void {
    this.#child.stdin.end();
    this.#child.kill();
  }
}
