#!/usr/bin/env bash
# The standard load matrix of issue 6, side by side with libwebsockets' own C mirror server.
#
#   scripts/load.sh            # full matrix, about 5 minutes (bounded: < 15 minutes); rewrites the
#                              # results table of docs/LOAD.md (scripts/load-table.py)
#   LOAD_SCALE=0.3 scripts/load.sh   # shorter runs (durations × 0.3), for a smoke test
#   LOAD_ONLY="a a-mirror d" scripts/load.sh   # only these runs of the matrix (labels as in the table)
#   LOAD_ONLY="f join isolation" scripts/load.sh  # issue 11: the room of 10,000, the join cost, load isolation
#                                    # (each a group: f; join-1x4000 join-40x100; iso-off-N iso-on-N)
#   LOAD_BIG_DATA=/tmp/reorder-big scripts/load.sh   # keep the seeded big board there and reuse it next time
#   LOAD_ISO_ROUNDS=6 LOAD_ONLY=isolation scripts/load.sh   # more alternating off/on rounds (default 2)
#   LOAD_SERVER_FLAGS="--presence-budget 60000" scripts/load.sh   # extra server flags
#   LOAD_SERVER_FLAGS="--presence-max-hz 30" scripts/load.sh   # presence at a fixed 30 Hz
#   LOAD_ONLY="g h" scripts/load.sh  # cluster mode, 2 nodes sharing rooms through Redis, beside
#                                    # one node (g g-1node; h h-1node h-5k h-5k-1node h-ramp h-ramp-1node); needs a
#                                    # build whose `reorder serve` has --redis, and fails clearly if not
#   LOAD_ONLY=slow scripts/load.sh  # issue 15: b beside b with 10 % slow readers at 10 KB/s, alternating
#                                    # (LOAD_SLOW_ROUNDS rounds, default 3); ratios on stderr and in
#                                    # reports/slow.txt
#   LOAD_BIN=.build/debug/reorder scripts/load.sh   # use that binary instead of building release
#                                    # (a smoke test of the script; its figures are not comparable)
#
# The server runs on its default flags plus `LOAD_SERVER_FLAGS` (none by default): presence paced by
# load (docs/PROTOCOL.md, "Presence pacing"), which run a compares with a bare relay.
#   LOAD_NICE=-10 scripts/load.sh    # run server, mirror and load tool at that niceness (root), so
#                                    # that other work on a shared machine disturbs them less
#
# Builds `reorder` in release mode, starts `reorder serve` on a free port with a throwaway data
# directory, and `libwebsockets-test-server` (Debian package libwebsockets-test-server) on another
# free port on loopback; runs idle + a–e against the server and a–c against the mirror; then, each on
# a server of its own (so "beyond the empty server" means that): f (1 room × 10,000 clients), the
# join pair (4,000 clients into 1 room, into 40 rooms), and the isolation rounds (a without and with
# a loader joining a seeded board of 10,000 items and 100,000 moves every 100 ms, on a server that
# unloads idle rooms at once); stops every server by PID; prints one table on stdout (each run's own report and progress go to stderr) and writes
# reports/load.json and reports/load.html (one JSON per run in reports/runs/). Last, the cluster
# part: redis-server on a free port with a throwaway directory, 2 nodes `reorder serve --redis`, and
# one plain node (SQLite) with the same flags; g and h on both. Everything goes to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."

SCALE=${LOAD_SCALE:-1}
SERVER_FLAGS=${LOAD_SERVER_FLAGS-}
MIRROR_BIN=${LOAD_MIRROR_BIN:-/usr/bin/libwebsockets-test-server}
REPORTS=reports
RUNS=$REPORTS/runs
SCRIPT_DEADLINE=$((SECONDS + 870)) # the whole matrix stays under 15 minutes
PRIO=()
if [ -n "${LOAD_NICE:-}" ]; then PRIO=(nice -n "$LOAD_NICE"); fi

seconds() { awk -v s="$1" -v k="$SCALE" 'BEGIN { v = s * k; if (v < 1) v = 1; printf "%g", v }'; }

# 1,000 clients need 1,000+ descriptors on each side; f's 10,000 need 10,300 in each process.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 2200 ]; then
  echo "load.sh: the open-file limit is $(ulimit -n); 1,000 clients need about 2,200 (raise ulimit -Hn)" >&2
  exit 1
fi
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 10300 ]; then
  echo "load.sh: the open-file limit is $(ulimit -n); f (10,000 clients) needs about 10,300 per process" >&2
fi

if [ -n "${LOAD_BIN:-}" ]; then
  BIN=$LOAD_BIN
  echo "== using $BIN (LOAD_BIN; not a release build unless it is one)" >&2
else
  echo "== building reorder (release)" >&2
  swift build -c release --product reorder >&2
  BIN=.build/release/reorder
fi

# Cluster mode (issue 14) is `reorder serve --redis redis://HOST:PORT`; a build without it cannot run
# g or h, and says so instead of passing them by.
CLUSTER_LABELS="g g-1node h h-1node h-5k h-5k-1node h-ramp h-ramp-1node"
HAS_REDIS=0
SERVE_HELP=$("$BIN" serve --help 2>&1 || true) # whole, so that grep -q stopping early breaks no pipe
if grep -q -- '--redis ' <<<"$SERVE_HELP"; then HAS_REDIS=1; fi
NO_REDIS="load.sh: this build has no --redis (\`reorder serve --help\`): the cluster scenarios g and h need cluster mode (issue 14)"
if [ "$HAS_REDIS" = 0 ] && [ -n "${LOAD_ONLY:-}" ]; then
  only_cluster=1
  for word in $LOAD_ONLY; do
    [[ " $CLUSTER_LABELS " == *" $word "* ]] || only_cluster=0
  done
  if [ "$only_cluster" = 1 ]; then
    echo "$NO_REDIS" >&2
    exit 1
  fi
fi
FAILED="" # why the cluster part could not run, if it could not

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reorder-load.XXXXXX")
SERVER_PID=""
MIRROR_PID=""
EXTRA_PID="" # the server of f, the join pair or the isolation rounds, while one runs
REDIS_PID=""
CLUSTER_PIDS="" # the nodes of the cluster part and its one-node twin
# stop PID…: TERM, then KILL after 5 s.
# shellcheck source=scripts/lib-stop.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib-stop.sh"
cleanup() {
  # The nodes before Redis, so that none sees it go away and reconnects in a loop meanwhile.
  stop $SERVER_PID $MIRROR_PID $EXTRA_PID $CLUSTER_PIDS ${STARTED_PID:-}
  stop $REDIS_PID
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$WORK/data" "$WORK/web" "$RUNS"
rm -f "$RUNS"/*.json "$REPORTS/redis.txt"

# serve LOG FLAGS…: starts `reorder serve` on a free port; sets STARTED_PID and STARTED_PORT.
serve() {
  local log=$1
  shift
  : >"$log" # exists before the server writes to it: the port is read from it below
  # Every load client comes from 127.0.0.1: the per-address limits (256 connections, 50
  # handshakes/s) are lifted for the runs.
  "${PRIO[@]}" "$BIN" serve --host 127.0.0.1 --port 0 --web "$WORK/web" --log-level warn \
    --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 "$@" >"$log" 2>&1 &
  STARTED_PID=$!
  disown "$STARTED_PID" # stopped by PID below; no job notices when one needs a KILL
  STARTED_PORT=""
  for _ in $(seq 1 100); do
    STARTED_PORT=$(sed -n 's|^Reorder is listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log" | head -n 1 || true)
    [ -n "$STARTED_PORT" ] && break
    kill -0 "$STARTED_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$STARTED_PORT" ]; then
    echo "load.sh: the server did not report its port; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
}

# wanted LABEL [GROUP]: whether LOAD_ONLY (if set) names the run or its group.
wanted() {
  [ -z "${LOAD_ONLY:-}" ] || [[ " $LOAD_ONLY " == *" $1 "* ]] || { [ -n "${2:-}" ] && [[ " $LOAD_ONLY " == *" $2 "* ]]; }
}

echo "== starting reorder serve" >&2
# --room-idle-seconds 600: one run's rooms stay loaded through the later runs. With the default 30 s,
# the rooms of a–c were unloaded (final snapshot, freeing a 1,000-member room) in the middle of d and
# e, and e's ack p99 went from 3–5 ms to 28–53 ms (docs/LOAD.md, "What limits it").
serve "$WORK/server.log" --data "$WORK/data" --max-ops-per-second 100000 --max-connections-per-room 5000 \
  --room-idle-seconds 600 $SERVER_FLAGS
SERVER_PID=$STARTED_PID
STARTED_PID=""
PORT=$STARTED_PORT
echo "   server pid $SERVER_PID on port $PORT, flags: ${SERVER_FLAGS:-(defaults)}" >&2

MIRROR_PORT=""
if [ -x "$MIRROR_BIN" ]; then
  echo "== starting $MIRROR_BIN" >&2
  for _ in $(seq 1 20); do
    candidate=$((20000 + RANDOM % 30000))
    ss -ltnH "sport = :$candidate" 2>/dev/null | grep -q . && continue
    "${PRIO[@]}" "$MIRROR_BIN" --port="$candidate" -i lo -d 1 >"$WORK/mirror.log" 2>&1 &
    MIRROR_PID=$!
    for _ in $(seq 1 30); do
      ss -ltnpH "sport = :$candidate" 2>/dev/null | grep -q "pid=$MIRROR_PID," && MIRROR_PORT=$candidate && break
      kill -0 "$MIRROR_PID" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$MIRROR_PORT" ] && break
    kill "$MIRROR_PID" 2>/dev/null || true
    MIRROR_PID=""
  done
  if [ -n "$MIRROR_PORT" ]; then
    echo "   mirror pid $MIRROR_PID on port $MIRROR_PORT" >&2
  else
    echo "load.sh: could not start the mirror baseline; continuing without it" >&2
  fi
else
  echo "load.sh: $MIRROR_BIN not found (apt install libwebsockets-test-server); no baseline" >&2
fi

# run LABEL TITLE [flags…]: one bounded run against the server (RUN_PORT, RUN_PID when set: the
# server of f, the join pair or the isolation rounds); X-mirror runs go to the mirror.
run() {
  local label=$1 title=$2
  shift 2
  wanted "$label" "${RUN_GROUP:-}" || return 0
  local left=$((SCRIPT_DEADLINE - SECONDS))
  if [ "$left" -lt 20 ]; then
    echo "load.sh: skipping $label, the matrix is out of time" >&2
    return 0
  fi
  local target=(--url "${RUN_URL:-ws://127.0.0.1:${RUN_PORT:-$PORT}}" --server-pid "${RUN_PID:-$SERVER_PID}")
  case $label in
    *-mirror)
      [ -n "$MIRROR_PORT" ] || return 0
      target=(--mirror --url "ws://127.0.0.1:$MIRROR_PORT" --server-pid "$MIRROR_PID")
      ;;
  esac
  echo "== $label: $title" >&2
  timeout --signal=TERM --kill-after=5 "$((left < 150 ? left : 150))" \
    "${PRIO[@]}" "$BIN" load "${target[@]}" --label "$label" --title "$title" --room-prefix "${label//-/_}" \
    --json "$RUNS/$label.json" "$@" >&2 || echo "load.sh: run $label failed (status $?)" >&2
}

for side in "" "-mirror"; do
  run "a$side" "1 room × 100 clients, 10 draggers × 30/s" \
    --clients 100 --draggers 10 --drag-rate 30 --duration "$(seconds 10)"
done
# After a: a is the one run that compares latency within a millisecond, and 1,000 clients joining
# and leaving just before it left our server (not the fresh mirror) slower for a while (a's p99
# 1.6 → 1.8 ms, CPU 18 → 21 %). The idle figure is memory beyond the server as it was just before.
run idle "1 room × 1,000 idle clients (memory per connection)" \
  --clients 1000 --draggers 0 --duration 1 --drain 0
for side in "" "-mirror"; do
  run "b$side" "1 room × 1,000 clients, 10 draggers × 30/s" \
    --clients 1000 --draggers 10 --drag-rate 30 --duration "$(seconds 10)"
done
for side in "" "-mirror"; do
  run "c$side" "1 room × 1,000 clients, +10 draggers × 30/s every 3 s until deliveries stop rising" \
    --clients 1000 --draggers 10 --drag-rate 30 --ramp --ramp-step 10 --ramp-step-seconds 3 \
    --duration "$(seconds 30)"
done
run d "100 rooms × 10 clients, every client dragging at 10/s" \
  --clients 1000 --rooms 100 --draggers -1 --drag-rate 10 --duration "$(seconds 10)" --drain 3
run e "1 room × 50 clients, 2,000 committed moves/s in total (durable)" \
  --clients 50 --draggers 0 --move-rate 2000 --duration "$(seconds 10)" --drain 3
# The ramp measures the room's durable commit rate, so it keeps the fan-out small: every `applied`
# goes to every member, and 20,000 moves/s to 50 members would be a million frames/s to read (with 5
# members the readers, not the commits, gave out first at ~16k/s on a busy machine).
run e-ramp "1 room × 2 clients, moves/s ×1.5 every 2 s from 2,000 until acks stop rising" \
  --clients 2 --draggers 0 --move-rate 2000 --ramp --ramp-factor 1.5 --ramp-step-seconds 2 \
  --duration "$(seconds 24)" --drain 3

# --- issue 11 -----------------------------------------------------------------------------------
# Each on a fresh server of its own: memory "beyond the empty server" is that, and no run queues
# behind the leaves of the one before (a room of thousands leaving is quadratic on today's server).
# cpu_ticks PID…: the CPU time (user + system, in 1/100 s) the running ones of these processes used.
cpu_ticks() {
  local total=0 pid
  for pid in "$@"; do
    [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || continue
    total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
  done
  echo "$total"
}

# quiet_servers: waits (at most 10 s) until the shared server and the mirror together use at most 5 %
# of a core over a second, and says which did not: a run on a server of its own must not share the
# cores with an earlier run's server still at work (an idle server that kept ticking was found so).
quiet_servers() {
  local waited=0 server mirror
  while [ "$waited" -lt 10 ]; do
    server=$(cpu_ticks "$SERVER_PID")
    mirror=$(cpu_ticks "$MIRROR_PID")
    sleep 1
    server=$(($(cpu_ticks "$SERVER_PID") - server))
    mirror=$(($(cpu_ticks "$MIRROR_PID") - mirror))
    [ $((server + mirror)) -le 5 ] && break
    waited=$((waited + 1))
  done
  [ "$waited" -eq 0 ] || echo "   waited $waited s for the earlier runs' servers to go idle (CPU in the last second: server $server %, mirror $mirror %)" >&2
}

# fresh_server GROUP FLAGS…: stops the previous extra server and starts one for GROUP.
fresh_server() {
  local group=$1
  shift
  [ -n "$EXTRA_PID" ] && stop "$EXTRA_PID"
  EXTRA_PID=""
  quiet_servers
  serve "$WORK/server-$group.log" "$@"
  EXTRA_PID=$STARTED_PID
  RUN_PID=$STARTED_PID
  STARTED_PID="" # cleanup stops a server through this only while serve() is waiting for its port
  RUN_PORT=$STARTED_PORT
  echo "   $group: server pid $RUN_PID on port $RUN_PORT" >&2
}
BIG_FLAGS=(--max-ops-per-second 100000 --max-connections-per-room 20000 --room-idle-seconds 600 $SERVER_FLAGS)

# f: the clients connect as fast as 250 handshakes in flight allow (far below the listen backlog, so
# the accept queue is not what is measured; against the C mirror the tool alone connects 10,000 in
# about 4 s this way, 6 s with the default 100 in flight, too close to f's 10 s). The join pair keeps
# the default 100: 250 did not make join-40x100 faster, so the tool is not its limit. The report
# gives first → last welcome and the connect latency. --partial: a server that cannot take them all in time still gets measured.
# --measure-receivers 1000: every 10th client accounts each drag update (3M update deliveries/s
# offered would make the tool, not the server, the limit); the others count frames.
if wanted f; then
  rm -rf "$WORK/data-f" && mkdir -p "$WORK/data-f"
  fresh_server f --data "$WORK/data-f" "${BIG_FLAGS[@]}"
  run f "1 room × 10,000 clients, 10 draggers × 30/s" \
    --clients 10000 --draggers 10 --drag-rate 30 --duration "$(seconds 10)" --coverage-window-ms 250 \
    --measure-receivers 1000 --connect-concurrency 250 --connect-timeout 60 --settle-timeout 20 --drain 5 --partial
fi

# The join pair: connecting only (no room preparation, no traffic), 4,000 clients either way.
RUN_GROUP=join
for shape in "1 4000" "40 100"; do
  read -r rooms size <<<"$shape"
  label="join-${rooms}x${size}"
  wanted "$label" join || continue
  rm -rf "$WORK/data-$label" && mkdir -p "$WORK/data-$label"
  fresh_server "$label" --data "$WORK/data-$label" "${BIG_FLAGS[@]}"
  run "$label" "join only: $rooms room$([ "$rooms" = 1 ] || echo s) × $size clients" \
    --clients 4000 --rooms "$rooms" --draggers 0 --join-only --connect-timeout 60 --settle-timeout 20 --partial
done
RUN_GROUP=""

# Isolation: a board of 10,000 items and 100,000 moves (× LOAD_SCALE), seeded once through the
# protocol into a data directory (LOAD_BIG_DATA keeps it for the next time); then a server on it
# that unloads a room as soon as it is empty, and scenario a without and with a loader joining and
# leaving that board every 100 ms, alternating.
if wanted isolation; then
  BIG_MOVES=$(awk -v k="$SCALE" 'BEGIN { v = int(100000 * k); if (v < 1000) v = 1000; print v }')
  BIG_DATA=${LOAD_BIG_DATA:-$WORK/data-big}
  BIG_LIMITS=(--max-items-per-room 20000 --max-connections-per-room 5000)
  if [ ! -f "$BIG_DATA/.seeded-10000-$BIG_MOVES" ]; then
    echo "== seeding the big board: 10,000 items, $BIG_MOVES moves" >&2
    rm -rf "$BIG_DATA" && mkdir -p "$BIG_DATA"
    fresh_server seed --data "$BIG_DATA" --max-ops-per-second 1000000 "${BIG_LIMITS[@]}" --room-idle-seconds 600
    timeout --signal=TERM --kill-after=5 300 "${PRIO[@]}" "$BIN" load --url "ws://127.0.0.1:$RUN_PORT" \
      --label seed-big --room-prefix big --clients 1 --draggers 0 --seed-only --seed-items 10000 \
      --seed-moves "$BIG_MOVES" --connect-timeout 280 --server-pid "$RUN_PID" >&2 \
      && touch "$BIG_DATA/.seeded-10000-$BIG_MOVES" || echo "load.sh: seeding the big board failed" >&2
  fi
  fresh_server isolation --data "$BIG_DATA" --max-ops-per-second 100000 "${BIG_LIMITS[@]}" --room-idle-seconds 0 \
    $SERVER_FLAGS
  RUN_GROUP=isolation
  for round in $(seq 1 "${LOAD_ISO_ROUNDS:-2}"); do
    run "iso-off-$round" "a: 1 room × 100 clients, 10 draggers × 30/s (round $round, no loader)" \
      --clients 100 --draggers 10 --drag-rate 30 --duration "$(seconds 10)"
    run "iso-on-$round" "a while a loader joins and leaves the big board every 100 ms (round $round)" \
      --clients 100 --draggers 10 --drag-rate 30 --duration "$(seconds 10)" --loader-room big0 \
      --loader-interval-ms 100
  done
  RUN_GROUP=""
fi

# --- issue 15: slow readers ---------------------------------------------------------------------
# b, then b with 10 % of the clients (never a dragger nor the room's first) reading their socket at
# 10 KB/s at most (`--slow-readers 0.1 --slow-read-bytes-per-second 10240`: they stop reading, so
# the server sees TCP backpressure), alternating for LOAD_SLOW_ROUNDS rounds (default 3) on one
# fresh server of their own. 20 s runs (b's length doubled), so that the slow readers' 4008 close
# (after --slow-reader-seconds, 10 s) falls inside them. Prints, per round and as the median over
# the rounds, the others' drag p99 and coverage with slow readers over without, and what the slow
# ones got.
if wanted slow; then
  rm -rf "$WORK/data-slow" && mkdir -p "$WORK/data-slow"
  fresh_server slow --data "$WORK/data-slow" "${BIG_FLAGS[@]}"
  RUN_GROUP=slow
  SLOW_ROUNDS=${LOAD_SLOW_ROUNDS:-3}
  for round in $(seq 1 "$SLOW_ROUNDS"); do
    run "slow-b-$round" "b: 1 room × 1,000 clients, 10 draggers × 30/s, 20 s (round $round)" \
      --clients 1000 --draggers 10 --drag-rate 30 --duration "$(seconds 20)"
    run "slow-b10-$round" "b with 10 % slow readers at 10 KB/s, 20 s (round $round)" \
      --clients 1000 --draggers 10 --drag-rate 30 --duration "$(seconds 20)" \
      --slow-readers 0.1 --slow-read-bytes-per-second 10240
    # The server's count of 4008 closes so far (cumulative over the rounds): a slow reader sees its
    # close only once it has read what its own receive buffer holds, often after the run.
    curl -s "http://127.0.0.1:$RUN_PORT/metrics" | awk -F' ' '/^reorder_disconnects_total\{code="4008"\}/ { print $2 }' \
      >"$RUNS/slow-b10-$round.closes" || true
  done
  RUN_GROUP=""
  if command -v jq >/dev/null; then
    echo "== slow readers: the others' figures with 10 % slow readers / without (b), per round" >&2
    for round in $(seq 1 "$SLOW_ROUNDS"); do
      base=$RUNS/slow-b-$round.json slow=$RUNS/slow-b10-$round.json
      [ -f "$base" ] && [ -f "$slow" ] || continue
      jq -n -r --slurpfile b "$base" --slurpfile s "$slow" --arg round "$round" '
        ($b[0]) as $b | ($s[0]) as $s | ($s.slowReaders // {}) as $r |
        "round \($round): p99 \($b.dragLatency.p99 * 100 | round / 100) → \($s.dragLatency.p99 * 100 | round / 100) ms "
        + "(×\(($s.dragLatency.p99 / $b.dragLatency.p99) * 100 | round / 100)), p50 \($b.dragLatency.p50) → \($s.dragLatency.p50) ms, "
        + "coverage \($b.coverage * 10000 | round / 100) → \($s.coverage * 10000 | round / 100) % "
        + "(×\(($s.coverage / $b.coverage) * 1000 | round / 1000)); slow: \($r.clients // 0) clients, "
        + "\(($r.framesPerSecondPerClient // 0) * 10 | round / 10) frames/s each (others \(($r.otherFramesPerSecondPerClient // 0) * 10 | round / 10)), "
        + "update age p50 \($r.dragAge.p50 // "-") p99 \($r.dragAge.p99 // "-") ms, closed \($r.closedByCode // {} | tostring)"'
      echo "   server: $(cat "$RUNS/slow-b10-$round.closes" 2>/dev/null || echo '?') slow readers closed 4008 so far (of $((100 * round)) over $round rounds)"
    done | tee "$REPORTS/slow.txt" >&2
    jq -s -r '
      def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor]
        else (.[length / 2 - 1] + .[length / 2]) / 2 end;
      map(select(.label | startswith("slow-b"))) as $runs
      | [$runs[] | select(.label | startswith("slow-b-"))] as $base
      | [$runs[] | select(.label | startswith("slow-b10-"))] as $slow
      | "median over \($slow | length) rounds: others'"'"' p99 \($base | map(.dragLatency.p99) | median) → "
        + "\($slow | map(.dragLatency.p99) | median) ms (ratio \(($slow | map(.dragLatency.p99) | median) / ($base | map(.dragLatency.p99) | median) * 100 | round / 100)), "
        + "coverage \($base | map(.coverage) | median * 10000 | round / 100) → \($slow | map(.coverage) | median * 10000 | round / 100) % "
        + "(ratio \(($slow | map(.coverage) | median) / ($base | map(.coverage) | median) * 1000 | round / 1000))"' \
      "$RUNS"/slow-b-*.json "$RUNS"/slow-b10-*.json | tee -a "$REPORTS/slow.txt" >&2
  else
    echo "load.sh: jq not found (apt install jq): no slow-reader ratios; see $RUNS/slow-b*.json" >&2
  fi
fi
[ -n "$EXTRA_PID" ] && stop "$EXTRA_PID"
EXTRA_PID=""

# --- issue 14: cluster mode ---------------------------------------------------------------------
# redis-server on a free port with a throwaway directory (every append fsynced: `applied` then means
# on disk in Redis, as SQLite's synchronous=FULL does on one node), 2 nodes `reorder serve --redis`
# with data directories and node ids of their own, and one plain node (SQLite) with the same flags.
# Each scenario runs on the cluster (clients round-robin over both nodes: 500 + 500 in g) and then
# on the one node, alternating, so that drift in the machine falls on both; the summary gives the
# ratios. The load tool samples node 1's CPU and RSS (--server-pid takes one process); Redis'
# commands and CPU per run go to reports/redis.txt.
cluster_wanted=0
for label in $CLUSTER_LABELS; do
  if wanted "$label" "${label%%-*}"; then cluster_wanted=1; fi
done
# redis_figures: "<commands processed> <CPU seconds>" of the cluster's redis-server, from INFO (whose
# own call counts as one command: pair() takes it off).
redis_figures() {
  { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" info all 2>/dev/null || true; } | tr -d '\r' | awk -F: '
    $1 == "total_commands_processed" { commands = $2 }
    $1 == "used_cpu_sys" || $1 == "used_cpu_user" { cpu += $2 }
    END { printf "%d %.3f", commands, cpu }'
}
if [ "$cluster_wanted" = 1 ] && [ "$HAS_REDIS" = 0 ]; then
  FAILED=$NO_REDIS
  echo "$FAILED" >&2
elif [ "$cluster_wanted" = 1 ] && ! command -v redis-server >/dev/null; then
  FAILED="load.sh: redis-server not found (apt install redis-server): no cluster scenarios g and h"
  echo "$FAILED" >&2
elif [ "$cluster_wanted" = 1 ]; then
  echo "== starting redis-server" >&2
  mkdir -p "$WORK/redis" "$WORK/data-n1" "$WORK/data-n2" "$WORK/data-1node"
  REDIS_PORT=""
  for _ in $(seq 1 20); do
    candidate=$((20000 + RANDOM % 30000))
    ss -ltnH "sport = :$candidate" 2>/dev/null | grep -q . && continue
    "${PRIO[@]}" redis-server --bind 127.0.0.1 --port "$candidate" --dir "$WORK/redis" --appendonly yes \
      --appendfsync always --save "" --daemonize no --logfile "$WORK/redis.log" &
    REDIS_PID=$!
    disown "$REDIS_PID"
    for _ in $(seq 1 50); do
      # PONG, and from this process (not another server that took the port meanwhile).
      if [ "$(redis-cli -h 127.0.0.1 -p "$candidate" ping 2>/dev/null)" = PONG ] \
        && redis-cli -h 127.0.0.1 -p "$candidate" info server 2>/dev/null | tr -d '\r' | grep -qx "process_id:$REDIS_PID"
      then
        REDIS_PORT=$candidate
        break
      fi
      kill -0 "$REDIS_PID" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$REDIS_PORT" ] && break
    stop "$REDIS_PID"
    REDIS_PID=""
  done
  if [ -z "$REDIS_PORT" ]; then
    echo "load.sh: could not start redis-server; its log:" >&2
    cat "$WORK/redis.log" >&2 2>/dev/null || true
    exit 1
  fi
  echo "   redis pid $REDIS_PID on port $REDIS_PORT (appendonly, appendfsync always, dir $WORK/redis)" >&2
  CLUSTER_FLAGS=(--max-ops-per-second 100000 --max-connections-per-room 5000 --room-idle-seconds 600 $SERVER_FLAGS)
  serve "$WORK/server-n1.log" --redis "redis://127.0.0.1:$REDIS_PORT" --data "$WORK/data-n1" --node-id n1 \
    "${CLUSTER_FLAGS[@]}"
  N1_PID=$STARTED_PID
  N1_PORT=$STARTED_PORT
  CLUSTER_PIDS="$N1_PID"
  serve "$WORK/server-n2.log" --redis "redis://127.0.0.1:$REDIS_PORT" --data "$WORK/data-n2" --node-id n2 \
    "${CLUSTER_FLAGS[@]}"
  N2_PID=$STARTED_PID
  N2_PORT=$STARTED_PORT
  CLUSTER_PIDS="$CLUSTER_PIDS $N2_PID"
  serve "$WORK/server-1node.log" --data "$WORK/data-1node" --node-id n0 "${CLUSTER_FLAGS[@]}"
  ONE_PID=$STARTED_PID
  ONE_PORT=$STARTED_PORT
  CLUSTER_PIDS="$CLUSTER_PIDS $ONE_PID"
  STARTED_PID=""
  echo "   cluster: n1 pid $N1_PID on port $N1_PORT, n2 pid $N2_PID on port $N2_PORT; one node: pid $ONE_PID on port $ONE_PORT" >&2
  : >"$REPORTS/redis.txt"
  # pair LABEL TITLE FLAGS…: LABEL on the cluster, then LABEL-1node on the one node.
  # settle: waits (at most 30 s) until the nodes, the one node and Redis are idle (under 5 % of a
  # core for a second), so that a run does not share the machine with the backlog of the one
  # before it (an overloaded ramp leaves ops in flight when it ends).
  settle() {
    local pids="$CLUSTER_PIDS $REDIS_PID" quiet=0 before after
    cpu_of() { local p total=0; for p in $pids; do
      total=$((total + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$total"; }
    for _ in $(seq 1 60); do
      before=$(cpu_of)
      sleep 0.5
      after=$(cpu_of)
      # Clock ticks (100/s): under 3 ticks in 0.5 s is under 6 % of a core.
      if [ $((after - before)) -lt 3 ]; then quiet=$((quiet + 1)); else quiet=0; fi
      [ "$quiet" -ge 2 ] && return 0
    done
    echo "load.sh: the servers were still busy after 30 s; running anyway" >&2
  }
  pair() {
    local label=$1 title=$2
    shift 2
    local before after
    if wanted "$label" "$RUN_GROUP"; then settle; fi
    before=$(redis_figures)
    RUN_URL="ws://127.0.0.1:$N1_PORT,ws://127.0.0.1:$N2_PORT" RUN_PID=$N1_PID \
      run "$label" "$title, 2 nodes through Redis" "$@"
    after=$(redis_figures)
    if wanted "$label" "$RUN_GROUP"; then
      echo "$label $before $after" | awk '{ printf "%s: redis commands %d, redis CPU %.2f s\n", $1, $4 - $2 - 1, $5 - $3 }' \
        | tee -a "$REPORTS/redis.txt" >&2
    fi
    if wanted "$label-1node" "$RUN_GROUP"; then settle; fi
    RUN_URL="ws://127.0.0.1:$ONE_PORT" RUN_PID=$ONE_PID run "$label-1node" "$title, one node (SQLite)" "$@"
  }
  RUN_GROUP=g
  pair g "1 room × 1,000 clients, 10 draggers × 30/s" \
    --clients 1000 --draggers 10 --drag-rate 30 --duration "$(seconds 10)"
  RUN_GROUP=h
  pair h "1 room × 50 clients, 2,000 committed moves/s in total (durable)" \
    --clients 50 --draggers 0 --move-rate 2000 --duration "$(seconds 10)" --drain 3
  # Issue 24's side-by-side figure: 5,000 committed moves/s from 4 clients (2 on each node), each
  # sent on the clock, not after the previous ack.
  pair h-5k "1 room × 4 clients, 5,000 committed moves/s in total (durable)" \
    --clients 4 --draggers 0 --move-rate 5000 --duration "$(seconds 10)" --drain 3
  # As e-ramp: few clients (one per node), so that the fan-out of `applied` does not hide the rate.
  pair h-ramp "1 room × 2 clients, moves/s ×1.5 every 2 s from 2,000 until acks stop rising" \
    --clients 2 --draggers 0 --move-rate 2000 --ramp --ramp-factor 1.5 --ramp-step-seconds 2 \
    --duration "$(seconds 24)" --drain 3
  RUN_GROUP=""
  stop $CLUSTER_PIDS
  CLUSTER_PIDS=""
  stop "$REDIS_PID"
  REDIS_PID=""
fi

echo "== summary" >&2
"$BIN" load --summarize "$RUNS" --json "$REPORTS/load.json" --html "$REPORTS/load.html"
echo "" >&2
echo "reports: $REPORTS/load.json, $REPORTS/load.html (one JSON per run in $RUNS/)" >&2
# docs/LOAD.md's results table is the latest full run's: a full matrix (no LOAD_ONLY, LOAD_SCALE 1,
# the release build) rewrites it; any other run prints its table and leaves the page alone
# (LOAD_DOCS=1 writes it anyway, LOAD_DOCS=0 never).
export LOAD_SERVER_FLAGS_USED="$SERVER_FLAGS" LOAD_BINARY_USED="the release build"
if [ -n "${LOAD_BIN:-}" ]; then LOAD_BINARY_USED="\`$LOAD_BIN\`"; fi
if [ "${LOAD_DOCS:-}" = 1 ] || { [ "${LOAD_DOCS:-}" != 0 ] && [ -z "${LOAD_ONLY:-}" ] && [ "$SCALE" = 1 ] \
  && [ -z "${LOAD_BIN:-}" ] && [ -z "$FAILED" ]; }; then
  python3 scripts/load-table.py "$REPORTS/load.json" docs/LOAD.md
else
  echo "load.sh: not a full matrix on the release build: docs/LOAD.md left as it is; its table would be:" >&2
  python3 scripts/load-table.py --print "$REPORTS/load.json" >&2
fi
if [ -n "$FAILED" ]; then
  echo "$FAILED" >&2
  exit 1
fi
