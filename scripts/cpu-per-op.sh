#!/usr/bin/env bash
# CPU per committed move, side by side in one run (docs/LOAD.md, "Durable moves"): the same fixed
# rate of committed moves into one room, 2 clients, on
#   cluster   2 nodes `reorder serve --redis` over one redis-server (appendonly yes, appendfsync always),
#   one       one node alone (SQLite),
# and, per backend, the CPU seconds of every thread of every process (from /proc) divided by the
# moves acknowledged: which thread pays what per op, and the sum that bounds h-ramp on 2 cores.
#   scripts/cpu-per-op.sh                 # 15,000 moves/s (below either saturation) for 8 s
#   RATE=20000 SECONDS_RUN=10 scripts/cpu-per-op.sh
# Writes reports/cpu-per-op.txt. Measure alone: nothing else running. LOAD_BIN=path uses that build
# instead of building the release one. Stops what it started by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK_NAME=cpu-per-op
RATE=${RATE:-15000}
SECONDS_RUN=${SECONDS_RUN:-8}

source scripts/lib-cluster.sh

# threads PID…: "<pid>/<thread name>/<thread id> <CPU seconds>" for every thread of the processes.
threads() {
  local ticks
  ticks=$(getconf CLK_TCK)
  for pid in "$@"; do
    for task in /proc/"$pid"/task/*; do
      awk -v pid="$pid" -v k="$ticks" -v name="$(cat "$task/comm")" -v tid="${task##*/}" \
        '{ printf "%s/%s/%s %.3f\n", pid, name, tid, ($14 + $15) / k }' "$task/stat"
    done
  done
}

# measure LABEL URL PIDS…: runs the load against URL, then prints each thread's CPU per acked move.
measure() {
  local label=$1 url=$2
  shift 2
  local before after acked
  before=$(threads "$@")
  "$BIN" load --url "$url" --server-pid "$1" --label "$label" --room-prefix "cpu_$label" --clients 2 --draggers 0 \
    --move-rate "$RATE" --duration "$SECONDS_RUN" --drain 3 --json "$WORK/$label.json" >"$WORK/$label.log" 2>&1
  after=$(threads "$@")
  acked=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["counters"]["movesAcknowledged"])' "$WORK/$label.json")
  echo "$label: $acked moves acked at $RATE/s offered"
  # Threads by process, name and id (the background loops are named after their part, e.g.
  # reorder-redis-a and reorder-store-w; the service thread is the busiest "reorder"); those under
  # 1 µs per op left out.
  join -j1 <(echo "$before" | sort) <(echo "$after" | sort) \
    | awk -v n="$acked" '{ d = ($3 - $2) * 1e6 / n; total += d; if (d >= 1) printf "  %-34s %6.1f µs/op\n", $1, d }
      END { printf "  %-34s %6.1f µs/op\n", "total", total }'
}

echo "== redis-server, 2 cluster nodes, one node" >&2
start_redis redis
REDIS_PID=${REDIS_PIDS[-1]}
serve n1 --redis "redis://127.0.0.1:$REDIS_PORT"
N1_PID=$NODE_PID N1_PORT=$NODE_PORT
serve n2 --redis "redis://127.0.0.1:$REDIS_PORT"
N2_PID=$NODE_PID N2_PORT=$NODE_PORT
serve one
ONE_PID=$NODE_PID ONE_PORT=$NODE_PORT

mkdir -p reports
{
  echo "CPU per committed move: $RATE moves/s offered by 2 clients for $SECONDS_RUN s ($(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
  measure cluster "ws://127.0.0.1:$N1_PORT,ws://127.0.0.1:$N2_PORT" "$N1_PID" "$N2_PID" "$REDIS_PID"
  measure one "ws://127.0.0.1:$ONE_PORT" "$ONE_PID"
} | tee reports/cpu-per-op.txt
