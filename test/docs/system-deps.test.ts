// The README's promise for a fresh machine: scripts/system-deps.sh (first step of `npm test` and of
// .ci/run) installs the Debian packages the tests drive when missing as root, and otherwise names them
// and fails. Run with a PATH of fakes: `id` says who we are, `apt-get` records its arguments, `gpg` and
// `go` exist or not; Go sources and Python modules are folders that exist or not.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "../../scripts/system-deps.sh");
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function run(opts: { uid: number; gpg: boolean; chromium: boolean; aptGet?: boolean; go?: boolean; goTfe?: boolean; hvac?: boolean; consul?: boolean }) {
  const bin = mkdtempSync(path.join(tmpdir(), "system-deps-"));
  dirs.push(bin);
  const exe = (name: string, body: string) => {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  };
  exe("id", `echo ${opts.uid}`);
  if (opts.gpg) exe("gpg", "exit 0");
  if (opts.chromium) exe("chromium", "exit 0");
  // A python3 that can import the consul module (python3-consul2) or not.
  exe("python3", opts.consul === false ? "exit 1" : "exit 0");
  if (opts.aptGet !== false) exe("apt-get", `echo "$@" >> ${bin}/apt-get.log`);
  if (opts.go !== false) exe("go", "exit 0");
  if (opts.goTfe !== false) mkdirSync(path.join(bin, "gocode/src/github.com/hashicorp/go-tfe"), { recursive: true });
  if (opts.hvac !== false) mkdirSync(path.join(bin, "dist/hvac"), { recursive: true });
  if (opts.consul !== false) mkdirSync(path.join(bin, "dist/consul"), { recursive: true });
  const res = spawnSync("/bin/bash", [script], {
    encoding: "utf8",
    env: { PATH: bin, CHROMIUM_PATH: path.join(bin, "chromium"), GOCODE: path.join(bin, "gocode"), PYTHON_DIST: path.join(bin, "dist") },
  });
  const log = path.join(bin, "apt-get.log");
  return { status: res.status, stderr: res.stderr, apt: existsSync(log) ? readFileSync(log, "utf8") : "" };
}

describe("scripts/system-deps.sh", () => {
  it("does nothing when every package is there", () => {
    const r = run({ uid: 1000, gpg: true, chromium: true });
    expect(r).toMatchObject({ status: 0, stderr: "", apt: "" });
  });

  it("without root, names the missing packages and the command, and fails", () => {
    const r = run({ uid: 1000, gpg: false, chromium: false });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("chromium gnupg");
    expect(r.stderr).toContain("sudo apt-get install -y chromium gnupg");
    expect(r.apt).toBe("");
  });

  it("as root, installs only what is missing with apt-get", () => {
    const r = run({ uid: 0, gpg: true, chromium: false });
    expect(r.status).toBe(0);
    expect(r.apt).toBe("update -qq\ninstall -y -qq -o=Dpkg::Use-Pty=0 chromium\n");
  });

  it("as root, installs the real clients' packages that are missing: Go, go-tfe, hvac, python-consul2", () => {
    const r = run({ uid: 0, gpg: true, chromium: true, go: false, goTfe: false, hvac: false, consul: false });
    expect(r.status).toBe(0);
    expect(r.apt).toBe("update -qq\ninstall -y -qq -o=Dpkg::Use-Pty=0 golang-go golang-github-hashicorp-go-tfe-dev python3-hvac python3-consul2\n");
    expect(run({ uid: 0, gpg: true, chromium: true, hvac: false }).apt).toBe("update -qq\ninstall -y -qq -o=Dpkg::Use-Pty=0 python3-hvac\n");
  });

  it("as root without apt-get, names the packages and fails", () => {
    const r = run({ uid: 0, gpg: false, chromium: true, aptGet: false });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("gnupg");
  });

  it("is the first step of npm test and of .ci/run", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    expect(pkg.scripts.test).toBe("bash scripts/test.sh");
    const steps = readFileSync(path.join(root, "scripts/test.sh"), "utf8").split("\n").filter((line) => line !== "" && !line.startsWith("#") && !/^(set|cd) /.test(line));
    expect(steps[0]).toMatch(/^bash scripts\/system-deps\.sh /);
    expect(readFileSync(path.join(root, ".ci/run"), "utf8")).toMatch(/^bash scripts\/system-deps\.sh$/m);
  });
});
