#!/usr/bin/env bash
# The Debian packages the tests drive, installed when missing:
#   chromium                            the docs browser test (test/docs/browser.test.ts, playwright-core)
#   gnupg                               the rekey interoperability test (test/secrets/rekey-pgp.api.test.ts)
#   golang-go, golang-github-hashicorp-go-tfe-dev
#                                       go-tfe, the platform's Go client (test/org-platform/go-tfe.client.test.ts)
#   python3-hvac                        hvac, the secrets service's Python client (test/secrets/hvac.client.test.ts)
#   python3-consul2                     python-consul2, the mesh's Python client (test/mesh/)
# Used by `npm test` (its first step) and by .ci/run. As root it installs them with apt-get; otherwise
# it names them and exits 1. CHROMIUM_PATH points at another Chromium (the browser test reads it too);
# GOCODE and PYTHON_DIST are where Debian puts Go sources and Python modules (overridden in its test).
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
gocode="${GOCODE:-/usr/share/gocode}"
python_dist="${PYTHON_DIST:-/usr/lib/python3/dist-packages}"
need=()
[ -x "$chromium" ] || need+=(chromium)
command -v gpg >/dev/null 2>&1 || need+=(gnupg)
command -v go >/dev/null 2>&1 || need+=(golang-go)
[ -d "$gocode/src/github.com/hashicorp/go-tfe" ] || need+=(golang-github-hashicorp-go-tfe-dev)
[ -d "$python_dist/hvac" ] || need+=(python3-hvac)
[ -d "$python_dist/consul" ] || need+=(python3-consul2)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: the tests need the Debian package(s) ${need[*]}, which are not installed." >&2
  echo "system-deps: install them as root:  sudo apt-get install -y ${need[*]}" >&2
  echo "system-deps: (or set CHROMIUM_PATH to a Chromium binary)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: missing ${need[*]} and no apt-get to install them: install them with your package manager." >&2
  exit 1
fi
echo "system-deps: installing ${need[*]} with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq -o=Dpkg::Use-Pty=0 "${need[@]}" >/dev/null
echo "system-deps: installed ${need[*]}" >&2
