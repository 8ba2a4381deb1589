#!/usr/bin/env bash
# 100,000 websockets on this machine (docs/CLUSTER.md, "Capacity"): NODES nodes `reorder serve
# --redis-cluster` over a 3-master Redis Cluster (appendfsync always), and PROCESSES load
# processes, each from a source address of its own (127.0.0.2, 127.0.0.3, … so that ephemeral
# ports do not run out) with its share of the rooms:
#   CONNECTIONS websockets (default 100,000) in rooms of 100, every room's members on one node
#   (AFFINITY=1, the default: as behind a load balancer that hashes the room path, deploy/) or
#   spread over every node (AFFINITY=0); one member dragging at 30/s in each of DRAG_ROOMS rooms (default 100); one
#   committed move per member per 10 minutes in total (CONNECTIONS / 600 per second); DURATION s
#   of traffic (default 60); coverage counted within 250 ms.
# Reports: every process' JSON, the nodes' memory per connection (RSS after the joins, before the
# traffic, over the empty nodes), CPU per node and per Redis shard over the traffic; written to
# reports/load-100k.json and printed as a Markdown table. Measure alone: nothing else running.
# NODE_FLAGS adds flags to every node's `reorder serve` (say `--presence-hz 15 --presence-max-hz 15`).
# LOAD_BIN=path uses that build instead of building the release one. Stops what it started by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK_NAME=load-100k
CONNECTIONS=${CONNECTIONS:-100000}
NODES=${NODES:-6}
PROCESSES=${PROCESSES:-6}
DRAG_ROOMS=${DRAG_ROOMS:-100}
DURATION=${DURATION:-60}
AFFINITY=${AFFINITY:-1}
NODE_FLAGS=${NODE_FLAGS:-}
ROOM_SIZE=100

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
per_node=$(((CONNECTIONS + NODES - 1) / NODES))
per_process=$(((CONNECTIONS + PROCESSES - 1) / PROCESSES))
for need in "$per_node" "$per_process"; do
  if [ "$(ulimit -n)" != unlimited ] && [ "$((need + 500))" -gt "$(ulimit -n)" ]; then
    echo "load-100k.sh: $need connections per process need more than the open-file limit $(ulimit -n):" \
      "raise NODES / PROCESSES" >&2
    exit 1
  fi
done
rooms=$((CONNECTIONS / ROOM_SIZE))
rooms_per_process=$((rooms / PROCESSES))
[ "$rooms_per_process" -ge 1 ] || { echo "load-100k.sh: fewer rooms than processes" >&2; exit 1; }

source scripts/lib-cluster.sh

echo "== a 3-master Redis Cluster and $NODES nodes" >&2
start_cluster 3
SEEDS="redis://127.0.0.1:${CLUSTER_PORTS[0]},redis://127.0.0.1:${CLUSTER_PORTS[1]}"
URLS=""
NODE_PIDS=()
for n in $(seq 1 "$NODES"); do
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  serve "n$n" --redis-cluster "$SEEDS" --max-rooms 100000 ${NODE_FLAGS:-}
  URLS="${URLS:+$URLS,}ws://127.0.0.1:$NODE_PORT"
  NODE_PIDS+=("$NODE_PID")
done
rss() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }
cpu() { awk -v k="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / k }' "/proc/$1/stat"; }
declare -A RSS_EMPTY
for pid in "${NODE_PIDS[@]}"; do RSS_EMPTY[$pid]=$(rss "$pid"); done

echo "== $PROCESSES load processes: $CONNECTIONS clients in $rooms rooms of $ROOM_SIZE" >&2
mkdir -p reports "$WORK/runs"
LOADERS=()
for k in $(seq 1 "$PROCESSES"); do
  clients=$((rooms_per_process * ROOM_SIZE))
  draggers=$((DRAG_ROOMS / PROCESSES))
  [ "$k" -le $((DRAG_ROOMS % PROCESSES)) ] && draggers=$((draggers + 1))
  affinity=()
  [ "$AFFINITY" = 1 ] && affinity=(--affinity)
  "$BIN" load --url "$URLS" "${affinity[@]}" --source-address "127.0.0.$((k + 1))" --label "100k-$k" --quiet \
    --clients "$clients" --rooms "$rooms_per_process" --room-prefix "p$k-" --draggers "$draggers" --drag-rate 30 \
    --move-rate "$(awk -v c="$clients" 'BEGIN { printf "%.2f", c / 600 }')" --seed-items 10 \
    --duration "$DURATION" --drain 3 --coverage-window-ms 250 --connect-timeout 600 --settle-timeout 120 \
    --connect-rate 250 --start-gate "$WORK/start" --partial --json "$WORK/runs/100k-$k.json" >"$WORK/load-$k.log" 2>&1 &
  LOADERS+=($!)
done
PIDS+=("${LOADERS[@]}")

# The traffic starts once every process has joined and seeded (the nodes' connection counts
# tell; a process logs nothing with --quiet): the processes wait for the start file, and the
# CPU figures are sampled from then.
joined=0
for _ in $(seq 1 1200); do
  total=0
  for n in $(seq 1 "$NODES"); do
    port=$(echo "$URLS" | cut -d, -f"$n" | sed 's|.*:||')
    count=$({ curl -fs -m 5 "http://127.0.0.1:$port/healthz" || true; } | sed -n 's/.*"connections":\([0-9]*\).*/\1/p')
    total=$((total + ${count:-0}))
  done
  if [ "$total" -ge "$((rooms_per_process * PROCESSES * ROOM_SIZE))" ]; then
    joined=1
    break
  fi
  running=0
  for pid in "${LOADERS[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
  [ "$running" = 1 ] || break # every process gave up joining (or finished with --partial)
  sleep 0.5
done
[ "$joined" = 1 ] || echo "load-100k.sh: not every client joined within 10 minutes ($total)" >&2
sleep 5 # the seeding of the rooms, and the join traffic settling
declare -A RSS_JOINED CPU_BEFORE
for pid in "${NODE_PIDS[@]}"; do
  RSS_JOINED[$pid]=$(rss "$pid")
  CPU_BEFORE[$pid]=$(cpu "$pid")
done
REDIS_BEFORE=$(figures "${CLUSTER_PORTS[@]}")
IDLE_BEFORE=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
started=$(date +%s.%N)
touch "$WORK/start" # every process waits for it (--start-gate): the traffic starts together
echo "== joined: $total connections; traffic for $DURATION s" >&2
failed=0
for pid in "${LOADERS[@]}"; do wait "$pid" || failed=1; done
elapsed=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }')
REDIS_AFTER=$(figures "${CLUSTER_PORTS[@]}")
IDLE_AFTER=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
machine_idle=$(echo "$IDLE_BEFORE $IDLE_AFTER" | awk '{ printf "%.1f", 100 * ($3 - $1) / ($4 - $2) }')
nodes_json="["
for pid in "${NODE_PIDS[@]}"; do
  nodes_json+="{\"pid\":$pid,\"rss_empty\":${RSS_EMPTY[$pid]},\"rss_joined\":${RSS_JOINED[$pid]},"
  nodes_json+="\"cpu_seconds\":$(awk -v a="${CPU_BEFORE[$pid]}" -v b="$(cpu "$pid")" 'BEGIN { printf "%.3f", b - a }')},"
done
nodes_json="${nodes_json%,}]"
[ "$failed" = 0 ] || { echo "load-100k.sh: a load process failed; its log:" >&2; tail -5 "$WORK"/load-*.log >&2; }

python3 - "$WORK/runs" "$nodes_json" "$REDIS_BEFORE" "$REDIS_AFTER" "$elapsed" "$NODES" "$AFFINITY" "$machine_idle" "$NODE_FLAGS" <<'EOF'
import glob, json, sys
runs_dir, nodes, before, after, elapsed, node_count, affinity, machine_idle, node_flags = sys.argv[1:10]
AFFINITY = affinity == "1"
runs = [json.load(open(p)) for p in sorted(glob.glob(runs_dir + "/*.json"))]
nodes, elapsed = json.loads(nodes), float(elapsed)
def parse(text):
    return {l.split()[0]: (int(l.split()[1]), float(l.split()[2])) for l in text.splitlines() if l.strip()}
b, a = parse(before), parse(after)
connected = sum(r["counters"]["connected"] for r in runs)
clients = sum(r["clients"] for r in runs)
expected = sum(r["counters"]["dragUpdatesExpected"] for r in runs)
covered = sum(r["counters"]["dragUpdatesCovered"] for r in runs)
delivered = sum(r["counters"]["dragUpdatesDelivered"] for r in runs)
seconds = max(r["trafficSeconds"] for r in runs)
per_node_connections = connected / int(node_count)
result = {
    "clients": clients, "connected": connected, "rooms": sum(r["rooms"] for r in runs), "affinity": AFFINITY,
    "processes": len(runs), "nodes": int(node_count), "traffic_seconds": seconds,
    "coverage": covered / expected if expected else 0,
    "drag_updates_delivered_per_s": round(delivered / seconds) if seconds else 0,
    "drag_p99_ms_worst_process": max(r["dragLatency"]["p99"] for r in runs),
    "ack_p99_ms_worst_process": max(r["ackLatency"]["p99"] for r in runs),
    "acked_per_s": round(sum(r["acknowledgedPerSecond"] for r in runs)),
    "gaps": sum(r["counters"]["appliedGaps"] for r in runs),
    "unexpected_closes": sum(r["counters"]["unexpectedCloses"] for r in runs),
    "node_bytes_per_connection": round(sum(n["rss_joined"] - n["rss_empty"] for n in nodes) / max(1, connected)),
    "node_cpu_percent": [round(100 * n["cpu_seconds"] / elapsed, 1) for n in nodes],
    "machine_idle_percent": float(machine_idle), "node_flags": node_flags,
    "load_process_cpu_percent": [round((r.get("loadClient") or {}).get("cpuPercent", 0), 1) for r in runs],
    "load_process_cpu_wait_percent": [round((r.get("loadClient") or {}).get("runQueueWaitPercent", 0), 1) for r in runs],
    "shards": [{"port": int(p), "commands_per_s": round((a[p][0] - b[p][0] - 1) / elapsed),
                "cpu_percent": round(100 * (a[p][1] - b[p][1]) / elapsed, 1)} for p in sorted(a)],
}
json.dump(result, open("reports/load-100k.json", "w"), indent=1)
cpus = ", ".join(f"{c} %" for c in result["node_cpu_percent"])
shards = "; ".join(f"{s['commands_per_s']:,}/s, {s['cpu_percent']} %" for s in result["shards"])
print("| connections (joined) | rooms | nodes × processes | drag updates delivered/s | coverage ≤ 250 ms"
      " | drag p99 ms | ack p99 ms | node memory per connection | CPU per node | per Redis shard: commands/s, CPU |")
print("|--:|--:|--:|--:|--:|--:|--:|--:|---|---|")
print(f"| {result['clients']:,} ({connected:,}) | {result['rooms']:,} | {node_count} × {len(runs)}"
      f" | {result['drag_updates_delivered_per_s']:,} | {result['coverage'] * 100:.2f} %"
      f" | {result['drag_p99_ms_worst_process']} | {result['ack_p99_ms_worst_process']}"
      f" | {result['node_bytes_per_connection'] / 1024:.1f} KB | {cpus} | {shards} |")
EOF
echo "reports/load-100k.json" >&2
exit "$failed"
