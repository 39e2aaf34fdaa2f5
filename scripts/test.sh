#!/usr/bin/env bash
# `npm test`: what CI runs. The generated files are checked first (the tests read them); then the
# lint (Redocly, tsc) runs beside vitest: both only read the tree, and the lint is one busy core
# while vitest's files mostly wait on servers, CLIs and a browser. Then the Arazzo workflows. The
# lint's output is printed whole after vitest's; the exit code is the first failure's.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
npm run -s check:generated || exit 1
npm run -s check:breaking || exit 1

lint_log="$(mktemp)"
trap 'rm -f "$lint_log"' EXIT
npm run -s lint > "$lint_log" 2>&1 &
lint=$!
npx vitest run
tests=$?
wait "$lint"
lint_status=$?
echo "--- npm run lint"
cat "$lint_log"
[ "$lint_status" -ne 0 ] && exit "$lint_status"
[ "$tests" -ne 0 ] && exit "$tests"
npm run -s workflows
