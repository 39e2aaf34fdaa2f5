// hvac, the secrets service's Python client as Debian ships it (python3-hvac 0.11.2), unchanged, behind
// a small driver (test/secrets/hvac/driver.py): one call a line in, one answer a line out. It runs under
// Debian's /usr/bin/python3 (a python3 earlier on PATH, pyenv's say, does not see Debian's modules)
// and talks to the server through the token-header shim (hvac sends X-Vault-Token).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { LineDriver } from "./line-driver.ts";

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
  readonly #driver: LineDriver;

  constructor(url: string, token: string | undefined) {
    this.#driver = new LineDriver(DEBIAN_PYTHON, [DRIVER], { HVAC_URL: url, HVAC_TOKEN: token ?? "" });
  }

  call<T = Record<string, unknown>>(call: string, kwargs: Record<string, unknown> = {}): Promise<HvacAnswer<T>> {
    return this.#driver.request({ call, kwargs });
  }

  close(): void {
    this.#driver.close();
  }
}
