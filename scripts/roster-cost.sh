#!/usr/bin/env bash
# What presence bookkeeping costs Redis in cluster mode (docs/CLUSTER.md, "Rosters"): redis-server
# on a free port with a throwaway directory, and for each session count (ROSTER_SESSIONS, default
# "1000 10000") 2 fresh nodes `reorder serve --redis` and that many idle members over ROSTER_ROOMS
# rooms (default 100), half on each node; once every member has joined, the Redis commands executed
# over ROSTER_WINDOW seconds (default 10), from `INFO commandstats` (commands run inside functions
# counted too), per second, by command. Nothing else talks to that Redis, and idle members send
# nothing, so what it counts is the rosters' upkeep (and a PING per node per refresh). Prints one
# table and writes reports/roster-cost.json. Everything on 127.0.0.1; stops what it started by PID.
#
#   scripts/roster-cost.sh
#   ROSTER_SESSIONS="1000" ROSTER_ROOMS=10 scripts/roster-cost.sh
#   ROSTER_BIN=.build/debug/reorder scripts/roster-cost.sh   # that binary instead of building release
set -euo pipefail
cd "$(dirname "$0")/.."

SESSIONS=${ROSTER_SESSIONS:-1000 10000}
ROOMS=${ROSTER_ROOMS:-100}
WINDOW=${ROSTER_WINDOW:-10}
BIN=${ROSTER_BIN:-}
if [ -z "$BIN" ]; then
  swift build -c release --product reorder >&2
  BIN=.build/release/reorder
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d /tmp/reorder-roster.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" --save "" --appendonly no --daemonize no \
  >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
disown "$!"
for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done

start_node() { # start_node NAME: prints the node's port; its PID goes to $WORK/NAME.pid
  "$BIN" serve --port 0 --data ":memory:" --web "" --redis "redis://127.0.0.1:$REDIS_PORT" --drain-seconds 1 \
    --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 \
    >"$WORK/$1.log" 2>&1 &
  echo "$!" >"$WORK/$1.pid" # run in $(…): the caller records it
  disown "$!"
  for _ in $(seq 200); do
    port=$(sed -n 's|^Reorder is listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$WORK/$1.log" | head -1)
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "roster-cost.sh: node $1 did not start" >&2
  exit 1
}

connections() { curl -s "http://127.0.0.1:$1/metrics" | sed -n 's/^reorder_connections \([0-9]*\)/\1/p'; }
connected() { echo $(($(connections "$PORT_A") + $(connections "$PORT_B"))); }
stats() { redis-cli -p "$REDIS_PORT" INFO commandstats | tr -d '\r' | sed -n 's/^cmdstat_\([a-z|]*\):calls=\([0-9]*\).*/\1 \2/p'; }

RESULTS=()
for n in $SESSIONS; do
  # Fresh nodes for each count: the rooms of the count before are not followed any more.
  PORT_A=$(start_node "a$n")
  PORT_B=$(start_node "b$n")
  nodes=("$(cat "$WORK/a$n.pid")" "$(cat "$WORK/b$n.pid")")
  PIDS+=("${nodes[@]}")
  duration=$((WINDOW + 40))
  "$BIN" load --url "ws://127.0.0.1:$PORT_A,ws://127.0.0.1:$PORT_B" --clients "$n" --rooms "$ROOMS" \
    --room-prefix "roster$n-" --draggers 0 --move-rate 0 --seed-items 1 --duration "$duration" --quiet \
    --connect-timeout 60 --json "$WORK/load-$n.json" >"$WORK/load-$n.log" 2>&1 &
  load=$!
  PIDS+=($load)
  # Every member connected (both nodes' /metrics), then a refresh more for the rosters.
  for _ in $(seq 600); do [ "$(connected)" -ge "$n" ] && break; sleep 0.1; done
  sleep 4
  before=$(stats)
  sleep "$WINDOW"
  after=$(stats)
  online=$(connected)
  kill -9 "$load" "${nodes[@]}" 2>/dev/null || true
  RESULTS+=("$(python3 - "$n" "$ROOMS" "$WINDOW" "$online" <<PY
import json, sys
n, rooms, window, connected = (int(a) for a in sys.argv[1:5])
def parse(text):
    return {k: int(v) for k, v in (line.split() for line in text.strip().splitlines() if line.strip())}
before, after = parse("""$before"""), parse("""$after""")
rates = {k: (after[k] - before.get(k, 0)) / window for k in after if after[k] != before.get(k, 0)}
print(json.dumps({"sessions": n, "connected": connected, "rooms": rooms, "nodes": 2, "window_seconds": window,
                  "commands_per_second": round(sum(rates.values()), 1),
                  "by_command": {k: round(v, 1) for k, v in sorted(rates.items(), key=lambda kv: -kv[1])}}))
PY
)")
done

mkdir -p reports
printf '%s\n' "${RESULTS[@]}" | python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin if line.strip()]
json.dump(rows, open("reports/roster-cost.json", "w"), indent=1)
print("| sessions | connected | rooms | nodes | Redis commands/s | by command |")
print("|--:|--:|--:|--:|--:|---|")
for r in rows:
    top = ", ".join(f"{k} {v:g}" for k, v in list(r["by_command"].items())[:6])
    cells = (r["sessions"], r["connected"], r["rooms"], r["nodes"], r["commands_per_second"])
    print("| {:,} | {:,} | {} | {} | {:g} | ".format(*cells) + top + " |")
'
