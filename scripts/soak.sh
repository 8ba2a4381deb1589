#!/usr/bin/env bash
# The kill-and-restart soak (docs/RELIABILITY.md): `make soak` builds the release server, then this
# runs scripts/soak.py with SOAK_CYCLES (default 100) per mode and SOAK_MODE (default both: the
# single server, then the cluster of redis-server and 3 nodes; single or cluster runs one;
# redis-cluster runs 3 nodes over a 3-master Redis Cluster, killing masters and nodes). Writes
# reports/soak.json (a list, one object per mode); exits non-zero when, in any mode, anything
# acknowledged was lost or duplicated, a log has a gap, or a board diverged.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import websockets' 2>/dev/null || python3 -m pip install --quiet 'websockets>=12'
exec python3 scripts/soak.py --mode "${SOAK_MODE:-both}" --cycles "${SOAK_CYCLES:-100}" "$@"
