#!/usr/bin/env bash
# What background work of any kind does to scenario a on this machine, beside what a room load does
# (issue 11's isolation run, docs/LOAD.md "Isolation: what any background work costs here").
#
#   LOAD_BIG_DATA=/tmp/reorder-big LOAD_ONLY=isolation scripts/load.sh   # seeds the board once
#   scripts/isolation-calibration.sh               # .build/release/reorder on /tmp/reorder-big
#   scripts/isolation-calibration.sh BIN DATA [ROUNDS]
#
# For each round (default 2) and each case, starts `reorder serve` as load.sh's isolation server
# does (127.0.0.1, a free port, --room-idle-seconds 0) on a copy of DATA, runs scenario a (1 room ×
# 100 clients, 10 draggers × 30/s, 10 s) against it, stops the server by PID, and prints a's drag
# latency. The cases: nothing beside a; the loader (joins and leaves the big board every 100 ms);
# a stand-in process at nice 10 that every 100 ms copies memory between two buffers for a while
# (`hog PERIOD_MS BUSY_MS MB`), which shares nothing with the server but the cores and caches.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/reorder}
DATA=${2:-/tmp/reorder-big}
ROUNDS=${3:-2}
[ -x "$BIN" ] || { echo "isolation-calibration.sh: no executable $BIN (swift build -c release --product reorder)" >&2; exit 1; }
[ -f "$DATA/reorder.sqlite3" ] || { echo "isolation-calibration.sh: $DATA holds no seeded board (see the usage above)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/reorder-isolation-calibration.XXXXXX)
SERVER_PID=""
HOG_PID=""
cleanup() {
  [ -n "$HOG_PID" ] && kill "$HOG_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# hog PERIOD_MS BUSY_MS MB SECONDS: the stand-in for a load.
hog() {
  python3 - "$@" <<'PY'
import os, sys, time
period, busy, size, seconds = float(sys.argv[1]) / 1e3, float(sys.argv[2]) / 1e3, float(sys.argv[3]), float(sys.argv[4])
os.nice(10)
a = bytearray(int(size * (1 << 20)))
b = bytearray(len(a))
end, turn = time.monotonic() + seconds, time.monotonic()
while time.monotonic() < end:
    stop = time.monotonic() + busy
    while time.monotonic() < stop:
        b[:] = a
        a[:] = b
    turn += period
    time.sleep(max(0.0, turn - time.monotonic()))
PY
}

# one LABEL [loader|hog ARGS…]: a with that beside it; prints LABEL and a's drag latency.
one() {
  local label=$1
  shift
  rm -rf "$WORK/data" && cp -r "$DATA" "$WORK/data"
  "$BIN" serve --host 127.0.0.1 --port 0 --web '' --log-level warn --data "$WORK/data" \
    --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 --max-ops-per-second 100000 \
    --max-items-per-room 20000 --max-connections-per-room 5000 --room-idle-seconds 0 --presence-max-hz 1000 \
    >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  local port=""
  for _ in $(seq 1 100); do
    port=$(sed -n 's|^Reorder is listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/server.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "isolation-calibration.sh: the server did not start:" >&2; cat "$WORK/server.log" >&2; exit 1; }
  local extra=()
  [ "${1:-}" = loader ] && extra=(--loader-room big0 --loader-interval-ms 100)
  "$BIN" load --url "ws://127.0.0.1:$port" --label a --clients 100 --draggers 10 --drag-rate 30 --duration 10 \
    --quiet "${extra[@]}" >"$WORK/load.out" 2>&1 &
  local load_pid=$!
  if [ "${1:-}" = hog ]; then
    sleep 1.5 # the clients connect first
    hog "$2" "$3" "$4" 11 &
    HOG_PID=$!
  fi
  wait "$load_pid" || true
  [ -n "$HOG_PID" ] && { kill "$HOG_PID" 2>/dev/null || true; wait "$HOG_PID" 2>/dev/null || true; HOG_PID=""; }
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  printf '%-44s %s\n' "$label" "$(grep -E 'drag latency' "$WORK/load.out" | sed 's/^ *drag latency *//')"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "== round $round"
  one "nothing"
  one "loader (the big board every 100 ms)" loader
  one "hog: 32 ms of 2 × 16 MB copies / 100 ms" hog 100 32 16
  one "hog: 32 ms of 2 × 256 KB copies / 100 ms" hog 100 32 0.25
  one "hog: 5 ms of 2 × 16 MB copies / 100 ms" hog 100 5 16
done
