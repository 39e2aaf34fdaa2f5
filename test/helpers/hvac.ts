// hvac, the secrets service's Python client as Debian ships it (python3-hvac 0.11.2), unchanged, behind
// a small driver (test/secrets/hvac/driver.py): one call a line in, one answer a line out. It runs under
// Debian's /usr/bin/python3 (a python3 earlier on PATH, pyenv's say, does not see Debian's modules)
// and talks to the server through the token-header shim (hvac sends X-Vault-Token).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export const DEBIAN_PYTHON = "/usr/bin/python3";
const DRIVER = path.resolve(import.meta.dirname, "../secrets/hvac/driver.py");

/** Fails, naming what to install, when Debian's Python or hvac is missing. */
export function checkHvac(): void {
  const probe = spawnSync(DEBIAN_PYTHON, ["-c", "import hvac"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    throw new Error(`hvac tests need Debian's python3-hvac: apt-get install -y python3-hvac (scripts/system-deps.sh does it as root)\n${probe.stderr ?? probe.error}`);
  }
}

export interface HvacError {
  /** hvac's exception class: InvalidRequest (400), Forbidden (403), InvalidPath (404), UnexpectedError... */
  type: string;
  /** The `errors` of the answer, as hvac read them (null when it could not: not exactly application/json). */
  errors: string[] | null;
  text: string;
}

export interface HvacAnswer<T = Record<string, unknown>> {
  result?: T;
  error?: HvacError;
}

/** One hvac.Client with a token, driven call by call: `call("secrets.aws.read_role", { name: "x" })`. */
export class Hvac {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #answers: ((line: string) => void)[] = [];
  readonly #stderr: string[] = [];

  constructor(url: string, token: string | undefined) {
    this.#child = spawn(DEBIAN_PYTHON, [DRIVER], { env: { ...process.env, HVAC_URL: url, HVAC_TOKEN: token ?? "" } });
    this.#child.stderr.on("data", (chunk: Buffer) => this.#stderr.push(chunk.toString()));
    createInterface({ input: this.#child.stdout }).on("line", (line) => this.#answers.shift()?.(line));
  }

  call<T = Record<string, unknown>>(call: string, kwargs: Record<string, unknown> = {}): Promise<HvacAnswer<T>> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error(`hvac driver exited: ${this.#stderr.join("")}`));
      this.#child.once("exit", exited);
      this.#answers.push((line) => {
        this.#child.off("exit", exited);
        resolve(JSON.parse(line) as HvacAnswer<T>);
      });
      this.#child.stdin.write(JSON.stringify({ call, kwargs }) + "\n");
    });
  }

  close(): void {
    this.#child.stdin.end();
    this.#child.kill();
  }
}
