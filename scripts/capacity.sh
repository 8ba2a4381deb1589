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
WORK_NAME=capacity

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

source scripts/lib-cluster.sh

echo "== a 3-master Redis Cluster, one Redis, 3 + 3 + 1 nodes" >&2
start_cluster 3
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
