#!/usr/bin/env bash
# The kill-and-restart soak (docs/RELIABILITY.md): `make soak` builds the release server, then this
# runs scripts/soak.py with SOAK_CYCLES (default 100) and SOAK_MODE (default single; cluster comes
# with the cluster). Writes reports/soak.json; exits non-zero when anything acknowledged was lost or
# duplicated, the log has a gap, or a client's board diverged.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install --quiet 'websockets>=12'
exec python3 scripts/soak.py --mode "${SOAK_MODE:-single}" --cycles "${SOAK_CYCLES:-100}" "$@"
