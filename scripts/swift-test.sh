#!/usr/bin/env bash
# Runs the Swift test suites (XCTest, then Swift Testing) and, when any fails, repeats every
# failure line at the end: CI shows only the output's tail, where a failure printed minutes
# earlier among thousands of passing lines would be lost.
set -uo pipefail
cd "$(dirname "$0")/.."
log=.build/swift-test.log
mkdir -p .build
"${SWIFT:-swift}" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "== swift test failed (exit $status); its failures, from $log =="
  grep -E '✘|: error: |Fatal error|Test Case .* failed' "$log" | grep -v '✘ Test run with' | head -60
fi
exit "$status"
