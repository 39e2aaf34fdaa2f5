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
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-deps.sh || exit 1

npx vitest run
tests=$?
npm run -s workflows
workflows=$?
[ "$tests" -ne 0 ] && exit "$tests"
exit "$workflows"
