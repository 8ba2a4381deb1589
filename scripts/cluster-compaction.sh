#!/bin/sh
# Storage of one cluster room after many moves (issue 24: ≤ 10 MB after 1,000,000 moves on 1,000
# items). Starts its own redis-server (appendonly yes, appendfsync always) and two `reorder serve
# --redis` nodes on free ports in a temporary directory, seeds one room through them with the load
# tool (`reorder load --seed-only`: 1,000 items, then the moves, made by its seeding client on the
# first node with up to 256 in flight, so ops cross each compaction boundary while others are out),
# then reports Redis' `MEMORY USAGE` of every key of the room and the AOF's size after
# `BGREWRITEAOF`, and fails when either is above the bound. Stops everything it started, by PID.
#
#   swift build -c release --product reorder
#   scripts/cluster-compaction.sh       # MOVES=1000000 ITEMS=1000 BOUND=10000000 FSYNC=always CHUNK=100000
#   REORDER=.build/debug/reorder MOVES=20000 scripts/cluster-compaction.sh
set -eu

REORDER=${REORDER:-.build/release/reorder}
MOVES=${MOVES:-1000000}
ITEMS=${ITEMS:-1000}
BOUND=${BOUND:-10000000}
FSYNC=${FSYNC:-always}
CHUNK=${CHUNK:-100000}
REORDER=$(cd "$(dirname "$REORDER")" && pwd)/$(basename "$REORDER")
[ -x "$REORDER" ] || { echo "no $REORDER: swift build -c release --product reorder" >&2; exit 2; }

dir=$(mktemp -d)
redis=""
nodes=""
# The nodes first (SIGTERM: each drains and stops; SIGKILL after 60 s), then Redis; only the PIDs
# started here.
cleanup() {
  for pid in $nodes; do kill "$pid" 2>/dev/null || true; done
  for pid in $nodes; do
    n=0
    while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  [ -n "$redis" ] && kill "$redis" 2>/dev/null && wait "$redis" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
a_port=$(free_port)
b_port=$(free_port)
cli() { redis-cli -p "$redis_port" "$@"; }

redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$dir" --appendonly yes --appendfsync "$FSYNC" \
  --maxmemory-policy noeviction --save '' >"$dir/redis.log" 2>&1 &
redis=$!
until cli ping >/dev/null 2>&1; do sleep 0.1; done
for node in a b; do
  port=$a_port
  [ "$node" = b ] && port=$b_port
  "$REORDER" serve --port "$port" --data "$dir/node-$node" --redis "redis://127.0.0.1:$redis_port" \
    --max-ops-per-second 1000000 >"$dir/node-$node.log" 2>&1 &
  nodes="$nodes $!"
  until curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.2; done
done

# In runs of at most CHUNK moves (the load tool prepares a room within --connect-timeout, ≤ 600 s;
# the items are made by the first run and found by the later ones).
done_moves=0
while [ "$done_moves" -lt "$MOVES" ]; do
  chunk=$((MOVES - done_moves))
  [ "$chunk" -gt "$CHUNK" ] && chunk=$CHUNK
  "$REORDER" load --url "ws://127.0.0.1:$a_port,ws://127.0.0.1:$b_port" --clients 2 --draggers 0 --quiet \
    --connect-timeout 600 --room-prefix compaction --seed-items "$ITEMS" --seed-moves "$chunk" --seed-only \
    >"$dir/load.log" 2>&1 || { cat "$dir/load.log" >&2; exit 1; }
  done_moves=$((done_moves + chunk))
done

# The lease holder snapshots and trims at the boundary after the last full interval: let it.
sleep 3
room_keys=$(cli --scan --pattern 'reorder:{*')
memory=0
printf '%-40s %12s\n' key 'MEMORY USAGE'
for key in $room_keys; do
  bytes=$(cli memory usage "$key" samples 0)
  memory=$((memory + bytes))
  printf '%-40s %12s\n' "$key" "$bytes"
done
seq=$(cli --scan --pattern 'reorder:{*}:meta' | head -1 | xargs -I{} redis-cli -p "$redis_port" hget {} seq)
entries=$(cli --scan --pattern 'reorder:{*}:log' | head -1 | xargs -I{} redis-cli -p "$redis_port" xlen {})
snapshot=$(cli --scan --pattern 'reorder:{*}:snapshot' | head -1 | xargs -I{} redis-cli -p "$redis_port" hstrlen {} bytes)

stale=$(cli info errorstats | tr -d '\r' | sed -n 's/^errorstat_STALE:count=//p')
stale=${stale:-0}

cli bgrewriteaof >/dev/null
while cli info persistence | grep -Eq '^aof_rewrite_(in_progress|scheduled):1'; do sleep 0.2; done
aof=$(du -sb "$dir/appendonlydir" | cut -f1)

printf '%-40s %12s\n' 'all keys of the room' "$memory" 'AOF after BGREWRITEAOF' "$aof" \
  'log seq' "$seq" 'log entries kept' "$entries" 'snapshot bytes' "$snapshot" 'appends refused STALE' "$stale"
printf '{"moves":%s,"items":%s,"seq":%s,"entries":%s,"snapshot_bytes":%s,"stale":%s,"memory_usage":%s,"aof_bytes":%s,"bound":%s}\n' \
  "$MOVES" "$ITEMS" "$seq" "$entries" "$snapshot" "$stale" "$memory" "$aof" "$BOUND"
if [ "$memory" -gt "$BOUND" ] || [ "$aof" -gt "$BOUND" ]; then
  echo "above the bound of $BOUND bytes" >&2
  exit 1
fi
