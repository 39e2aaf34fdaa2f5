#!/usr/bin/env bash
# `npm test`: what CI runs. The generated files are checked first (the tests read them), then the
# breaking-change gate; then vitest; then the lint (Redocly, tsc) beside the Arazzo workflows. The
# lint comes after vitest on purpose: the CI kit's test (test/toolkit/ci-kit.test.ts) runs the same
# `npm run -s lint` on a copy of this tree, and tsc's incremental state (node_modules/.cache/tsc,
# reached from the copy through its node_modules link) lets this one check only what differs
# instead of type-checking everything a second time (docs/testing.md). The lint's output is printed
# whole after the workflows'; the exit code is the first failure's (lint, tests, workflows).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1
npm run -s check:generated || exit 1
npm run -s check:breaking || exit 1

npx vitest run
tests=$?
lint_log="$(mktemp)"
trap 'rm -f "$lint_log"' EXIT
npm run -s lint > "$lint_log" 2>&1 &
lint=$!
npm run -s workflows
workflows=$?
wait "$lint"
lint_status=$?
echo "--- npm run lint"
cat "$lint_log"
[ "$lint_status" -ne 0 ] && exit "$lint_status"
[ "$tests" -ne 0 ] && exit "$tests"
exit "$workflows"
