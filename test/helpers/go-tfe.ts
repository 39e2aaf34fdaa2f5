// go-tfe, the platform's Go client as Debian ships it (golang-github-hashicorp-go-tfe-dev, 0.11.1),
// unchanged, behind a small driver program (test/org-platform/go-tfe/driver.go): one call a line in,
// one answer a line out. Built once per content of the driver, in GOPATH mode from /usr/share/gocode.
// Without Go or the package the tests fail, naming what to install: `.ci/run` installs both through
// scripts/system-deps.sh.
import { existsSync } from "node:fs";
import path from "node:path";
import { buildGoProgram } from "./go-program.ts";
import { LineDriver } from "./line-driver.ts";

const DRIVER_SOURCE = path.resolve(import.meta.dirname, "../org-platform/go-tfe/driver.go");
export const GO_TFE_SOURCE = "/usr/share/gocode/src/github.com/hashicorp/go-tfe";

/** Builds the driver (when its source changed) and answers the binary's path. */
export function buildGoTfeDriver(): string {
  if (!existsSync(GO_TFE_SOURCE)) throw new Error("go-tfe tests need go-tfe: apt-get install -y golang-github-hashicorp-go-tfe-dev (scripts/system-deps.sh does it as root)");
  return buildGoProgram(DRIVER_SOURCE, "go-tfe-driver", { gopath: "/usr/share/gocode" });
}

export interface GoTfeAnswer<T = Record<string, unknown>> {
  result?: T;
  /** The error text go-tfe hands its caller (ErrResourceNotFound is "resource not found"). */
  error?: string;
}

export interface GoTfeCall {
  call: string;
  org?: string;
  id?: string;
  /** go-tfe's options struct, by Go field name (nested structs by their json tags). */
  options?: Record<string, unknown>;
}

/** One go-tfe client (tfe.NewClient: it pings the server first) with a token, driven call by call. */
export class GoTfe {
  readonly #driver: LineDriver;

  constructor(binary: string, origin: string, token: string) {
    this.#driver = new LineDriver(binary, [], { TFE_ADDRESS: origin, TFE_TOKEN: token });
  }

  call<T = Record<string, unknown>>(call: GoTfeCall): Promise<GoTfeAnswer<T>> {
    return this.#driver.request(call);
  }

  close(): void {
    this.#driver.close();
  }
}
