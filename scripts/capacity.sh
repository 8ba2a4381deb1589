#!/usr/bin/env bash
# Redis Cluster capacity, side by side in one run (docs/CLUSTER.md, "Capacity"): the same load on
#   cluster3  3 nodes `reorder serve --redis-cluster` over a 3-master Redis Cluster,
#   redis3    3 nodes `reorder serve --redis` over one redis-server,
#   one       one node alone (SQLite),
# each Redis with appendonly yes + appendfsync always. Scenarios (the load tool, clients
# round-robin over the nodes):
#   g         1 room × 999 clients, 10 draggers × 30/s, 10 s
#   h         1 room × 48 clients, 2,000 committed moves/s in total, 10 s
#   h-rooms   30 rooms × 4 clients, 3,000 committed moves/s in total, 10 s (rooms over the shards)
#   list      200 calls of GET /api/v1/boards?limit=100 on the first node (after the runs: 31 boards)
# Per run and backend: each Redis' commands and CPU seconds (INFO), so per shard; the nodes' CPU.
# Writes reports/capacity.json and prints a Markdown table. Measure alone: nothing else running.
# LOAD_BIN=path uses that build instead of building the release one. Stops what it started by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${LOAD_BIN:-}" ]; then
  BIN=$LOAD_BIN
else
  swift build -c release --product reorder >&2
  BIN=.build/release/reorder
fi
command -v redis-server >/dev/null && command -v redis-cli >/dev/null \
  || { echo "capacity.sh: needs redis-server and redis-cli (scripts/install-deps.sh test)" >&2; exit 1; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d "${TMPDIR:-/tmp}/reorder-capacity.XXXXXX")
PIDS=()
REDIS_PIDS=()
stop() {
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
cleanup() {
  stop "${PIDS[@]}"
  stop "${REDIS_PIDS[@]}"
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free port whose +10,000 (a cluster bus) is free too.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 35000))
    ss -ltnH "sport = :$port" | grep -q . && continue
    ss -ltnH "sport = :$((port + 10000))" | grep -q . && continue
    echo "$port"
    return
  done
  echo "capacity.sh: no free port" >&2
  exit 1
}

# start_redis NAME [extra flags…]: a redis-server in $WORK/NAME; sets REDIS_PORT.
start_redis() {
  local name=$1
  shift
  mkdir -p "$WORK/$name"
  REDIS_PORT=$(free_port)
  (cd "$WORK/$name" && exec redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$WORK/$name" \
    --appendonly yes --appendfsync always --save "" --maxmemory-policy noeviction "$@" >"$WORK/$name.log" 2>&1) &
  REDIS_PIDS+=($!)
  disown "$!"
  for _ in $(seq 1 50); do
    [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && return
    sleep 0.1
  done
  echo "capacity.sh: redis-server $name did not start: $(tail -3 "$WORK/$name.log")" >&2
  exit 1
}

# serve NAME FLAGS…: a node; sets NODE_PORT, NODE_PID.
openssl rand -hex 32 >"$WORK/api-keys"
API_KEY=$(cat "$WORK/api-keys")
serve() {
  local name=$1
  shift
  mkdir -p "$WORK/data-$name" "$WORK/web"
  : >"$WORK/$name.log"
  "$BIN" serve --host 127.0.0.1 --port 0 --web "$WORK/web" --log-level warn --data "$WORK/data-$name" \
    --node-id "$name" --api-key-file "$WORK/api-keys" --max-connections-per-ip 1000000 \
    --max-handshakes-per-ip 1000000 --max-ops-per-second 100000 --max-connections-per-room 5000 \
    --room-idle-seconds 600 --drain-seconds 1 "$@" >"$WORK/$name.log" 2>&1 &
  NODE_PID=$!
  disown "$NODE_PID" # stopped by PID; no job notice when one needs a KILL
  PIDS+=("$NODE_PID")
  NODE_PORT=""
  for _ in $(seq 1 100); do
    NODE_PORT=$(sed -n 's|^Reorder is listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/$name.log" | head -n 1)
    [ -n "$NODE_PORT" ] && return
    sleep 0.1
  done
  echo "capacity.sh: node $name did not start: $(tail -5 "$WORK/$name.log")" >&2
  exit 1
}

echo "== a 3-master Redis Cluster, one Redis, 3 + 3 + 1 nodes" >&2
CLUSTER_PORTS=()
for m in 1 2 3; do
  start_redis "master$m" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --cluster-require-full-coverage no
  CLUSTER_PORTS+=("$REDIS_PORT")
done
redis-cli --cluster create "${CLUSTER_PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >/dev/null
for _ in $(seq 1 100); do
  ok=1
  for port in "${CLUSTER_PORTS[@]}"; do
    redis-cli -p "$port" cluster info | grep -q cluster_state:ok || ok=0
  done
  [ "$ok" = 1 ] && break
  sleep 0.2
done
start_redis single
SINGLE_PORT=$REDIS_PORT
SEEDS="redis://127.0.0.1:${CLUSTER_PORTS[0]},redis://127.0.0.1:${CLUSTER_PORTS[1]}"
declare -A URLS NODE_PIDS
for backend in cluster3 redis3; do
  urls=""
  pids=""
  for n in 1 2 3; do
    if [ "$backend" = cluster3 ]; then
      serve "c$n" --redis-cluster "$SEEDS"
    else
      serve "r$n" --redis "redis://127.0.0.1:$SINGLE_PORT"
    fi
    urls="${urls:+$urls,}ws://127.0.0.1:$NODE_PORT"
    pids="${pids:+$pids }$NODE_PID"
  done
  URLS[$backend]=$urls
  NODE_PIDS[$backend]=$pids
done
serve one
URLS[one]="ws://127.0.0.1:$NODE_PORT"
NODE_PIDS[one]=$NODE_PID
declare -A REDIS_OF=([cluster3]="${CLUSTER_PORTS[*]}" [redis3]="$SINGLE_PORT" [one]="")

# figures PORTS…: "port commands cpu_seconds" per Redis.
figures() {
  for port in "$@"; do
    redis-cli -p "$port" info all | tr -d '\r' | awk -F: -v port="$port" '
      $1 == "total_commands_processed" { commands = $2 }
      $1 == "used_cpu_sys" || $1 == "used_cpu_user" { cpu += $2 }
      END { printf "%s %d %.3f\n", port, commands, cpu }'
  done
}
# node_cpu PIDS…: the nodes' CPU seconds so far (utime + stime from /proc).
node_cpu() {
  local total=0 ticks
  ticks=$(getconf CLK_TCK)
  for pid in "$@"; do
    total=$(awk -v t="$total" -v k="$ticks" '{ printf "%.3f", t + ($14 + $15) / k }' "/proc/$pid/stat")
  done
  echo "$total"
}

mkdir -p reports "$WORK/runs"
RESULTS="$WORK/results.jsonl"
: >"$RESULTS"
run() { # run SCENARIO BACKEND FLAGS…
  local scenario=$1 backend=$2
  shift 2
  local redis_ports=${REDIS_OF[$backend]} before after cpu_before cpu_after
  before=$(figures $redis_ports)
  cpu_before=$(node_cpu ${NODE_PIDS[$backend]})
  echo "== $scenario on $backend" >&2
  "$BIN" load --url "${URLS[$backend]}" --label "$scenario-$backend" --quiet --json "$WORK/runs/$scenario-$backend.json" \
    --room-prefix "$scenario-" "$@" >/dev/null
  cpu_after=$(node_cpu ${NODE_PIDS[$backend]})
  after=$(figures $redis_ports)
  python3 - "$scenario" "$backend" "$WORK/runs/$scenario-$backend.json" "$cpu_before" "$cpu_after" \
    "$before" "$after" >>"$RESULTS" <<'EOF'
import json, sys
scenario, backend, path, cpu0, cpu1, before, after = sys.argv[1:8]
run = json.load(open(path))
def parse(text):
    return {line.split()[0]: (int(line.split()[1]), float(line.split()[2])) for line in text.splitlines() if line.strip()}
b, a = parse(before), parse(after)
seconds = run["trafficSeconds"]
shards = [{"port": int(p), "commands_per_s": round((a[p][0] - b[p][0] - 1) / seconds),
           "cpu_percent": round(100 * (a[p][1] - b[p][1]) / seconds, 1)} for p in sorted(a)]
c = run["counters"]
print(json.dumps({
    "scenario": scenario, "backend": backend, "clients": run["clients"], "rooms": run["rooms"],
    "acked_per_s": round(run["acknowledgedPerSecond"]), "ack_p50_ms": run["ackLatency"]["p50"],
    "ack_p99_ms": run["ackLatency"]["p99"], "coverage": run["coverage"], "drag_p99_ms": run["dragLatency"]["p99"],
    "gaps": c["appliedGaps"], "duplicates": c["appliedDuplicates"], "rejected": c["rejected"],
    "nodes_cpu_percent": round(100 * (float(cpu1) - float(cpu0)) / seconds, 1), "shards": shards}))
EOF
}
list_calls() { # list_calls BACKEND: 200 board-list calls on the first node
  local backend=$1 port
  port=$(echo "${URLS[$backend]}" | cut -d, -f1 | sed 's|.*:||')
  python3 - "$backend" "$port" "$API_KEY" >>"$RESULTS" <<'EOF'
import http.client, json, sys, time
backend, port, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times, boards = [], 0
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
for _ in range(200):
    started = time.monotonic()
    connection.request("GET", "/api/v1/boards?limit=100", headers={"Authorization": "Bearer " + key})
    reply = connection.getresponse()
    body = reply.read()
    times.append((time.monotonic() - started) * 1000)
    assert reply.status == 200, (reply.status, body[:200])
    boards = len(json.loads(body)["boards"])
times.sort()
print(json.dumps({"scenario": "list", "backend": backend, "boards": boards, "calls": len(times),
                  "p50_ms": round(times[len(times) // 2], 2), "p99_ms": round(times[int(len(times) * 0.99) - 1], 2)}))
EOF
}

for backend in cluster3 redis3 one; do
  run g "$backend" --clients 999 --draggers 10 --drag-rate 30 --duration 10
  run h "$backend" --clients 48 --draggers 0 --move-rate 2000 --duration 10 --drain 3
  run h-rooms "$backend" --clients 120 --rooms 30 --draggers 0 --move-rate 3000 --duration 10 --drain 3
done
sleep 3 # the lease holders' summaries of the last runs
for backend in cluster3 redis3 one; do list_calls "$backend"; done

python3 - "$RESULTS" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
json.dump({"results": rows}, open("reports/capacity.json", "w"), indent=1)
print("| scenario | backend | acked/s | ack p50 / p99 ms | drag coverage / p99 ms | nodes' CPU | per Redis: commands/s, CPU |")
print("|---|---|--:|--:|--:|--:|---|")
for r in rows:
    if r["scenario"] == "list":
        continue
    shards = "; ".join(f"{s['commands_per_s']:,}/s, {s['cpu_percent']} %" for s in r["shards"]) or "–"
    drag = f"{r['coverage'] * 100:.2f} % / {r['drag_p99_ms']}" if r["scenario"] == "g" else "–"
    ack = f"{r['ack_p50_ms']} / {r['ack_p99_ms']}" if r["acked_per_s"] else "–"
    print(f"| {r['scenario']} | {r['backend']} | {r['acked_per_s']:,} | {ack} | {drag} | {r['nodes_cpu_percent']} % | {shards} |")
print()
print("| board list (200 calls, limit 100) | boards | p50 ms | p99 ms |")
print("|---|--:|--:|--:|")
for r in rows:
    if r["scenario"] == "list":
        print(f"| {r['backend']} | {r['boards']} | {r['p50_ms']} | {r['p99_ms']} |")
EOF
echo "reports/capacity.json" >&2
