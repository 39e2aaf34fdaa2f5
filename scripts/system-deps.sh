#!/usr/bin/env bash
# The Debian packages the tests drive, installed when missing: chromium (the docs browser test,
# test/docs/browser.test.ts, through playwright-core) and gnupg (the rekey interoperability test,
# test/secrets/rekey-pgp.api.test.ts) and python3-consul2 (the mesh's Python client, run by
# /usr/bin/python3 in test/mesh/python-consul2.test.ts). Used by `npm test` (its first step) and by .ci/run.
# As root it installs them with apt-get; otherwise it names them and exits 1.
# CHROMIUM_PATH points at another Chromium (the browser test reads it too); PYTHON3_PATH at another
# Python 3 that has the consul module (the system's /usr/bin/python3 is the one the test runs).
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
need=()
[ -x "$chromium" ] || need+=(chromium)
command -v gpg >/dev/null 2>&1 || need+=(gnupg)
python3="${PYTHON3_PATH:-/usr/bin/python3}"
[ -x "$python3" ] && "$python3" -c "import consul.base" >/dev/null 2>&1 || need+=(python3-consul2)
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
