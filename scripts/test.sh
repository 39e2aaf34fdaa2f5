#!/usr/bin/env bash
# `npm test`: what CI runs. The system packages first, then vitest, then the Arazzo workflows.
#
# The lint (Redocly, then tsc), the drift check of generated/ and packages/ and the breaking-change
# gate are not run here a second time: vitest runs them once, in test/toolkit/ci-kit.test.ts, which
# runs the CI kit's steps (.github/actions/contract) exactly as GitHub Actions runs them, in a copy of
# this tree (the same files, tracked and untracked, with this repository's history), and fails with
# each step's output. So `npm test` fails when any of them fails, and the commands the CI kit gives
# users are the very ones this repository's CI passes (docs/testing.md, docs/ci.md). A stale
# generated/ is named by that test's drift step (other tests that read generated/ may fail with it).
#
# The Arazzo workflows run beside vitest (vitest keeps the two cores about 85% busy, and the
# workflows' servers listen on ports of their own): their output is printed whole after vitest's.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1

workflows_log="$(mktemp)"
trap 'rm -f "$workflows_log"' EXIT
npm run -s workflows > "$workflows_log" 2>&1 &
workflows_pid=$!
npx vitest run
tests=$?
wait "$workflows_pid"
workflows=$?
echo "--- npm run workflows"
cat "$workflows_log"
[ "$tests" -ne 0 ] && exit "$tests"
exit "$workflows"
