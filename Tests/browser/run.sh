#!/usr/bin/env bash
# Runs the browser suite (pytest + Selenium, headless Chromium). Exits non-zero on any failure.
#   Tests/browser/run.sh                 all tests
#   Tests/browser/run.sh -k ghost        pytest arguments pass through
# Needs: /usr/bin/chromium, /usr/bin/chromedriver (Debian chromium, chromium-driver), python3 with
# pytest and selenium, and the server binary (.build/debug/reorder, built here if missing, or
# $REORDER_BIN).
set -euo pipefail
cd "$(dirname "$0")/../.."

for bin in "${CHROMIUM_BIN:-/usr/bin/chromium}" "${CHROMEDRIVER_BIN:-/usr/bin/chromedriver}"; do
  if [ ! -x "$bin" ]; then
    echo "browser tests: $bin is missing (apt-get install chromium chromium-driver)" >&2
    exit 2
  fi
done
if ! python3 -c "import pytest, selenium" 2>/dev/null; then
  echo "browser tests: python3 needs pytest and selenium (pip install pytest selenium)" >&2
  exit 2
fi
if [ -z "${REORDER_BIN:-}" ] && [ ! -x .build/debug/reorder ]; then
  swift build --product reorder
fi
# Measurements (-m perf) run only when asked: make bench-web.
if [[ " $* " != *" -m "* ]]; then set -- -m "not perf" "$@"; fi
exec python3 -m pytest -q -p no:cacheprovider Tests/browser "$@"
