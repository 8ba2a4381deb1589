#!/usr/bin/env bash
# What the HTTP API's writes cost in cluster mode against one node, side by side in one run
# (docs/CLUSTER.md, "The API in cluster mode"): redis-server (appendonly yes, appendfsync always)
# on a free port, one `reorder serve --redis` node and one node on SQLite alone, both release
# builds; then on each, in turn, API_ROUNDS times (default 5): PUT of a 100-item board, PUT of a
# 9,999-item board, POST of 1,000 moves (3 requests of it, each on the board the one before left),
# GET of 1,000 ops. Prints the median seconds of each and the cluster/one-node ratio, and writes
# reports/api-cost.json. Everything on 127.0.0.1; stops what it started by PID.
#
#   swift build -c release --product reorder && LOAD_BIN=.build/release/reorder scripts/api-cost.sh
#   API_ROUNDS=9 scripts/api-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."

WORK_NAME=api-cost
# shellcheck source=scripts/lib-cluster.sh
source scripts/lib-cluster.sh

start_redis redis
serve cluster --redis "redis://127.0.0.1:$REDIS_PORT"
CLUSTER_PORT=$NODE_PORT
serve single
SINGLE_PORT=$NODE_PORT
mkdir -p reports

python3 - "$CLUSTER_PORT" "$SINGLE_PORT" "$API_KEY" "${API_ROUNDS:-5}" <<'EOF'
import http.client, json, statistics, sys, time

cluster_port, single_port, key, rounds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
headers = {"Authorization": "Bearer " + key, "Content-Type": "application/json"}


def call(port, method, path, body=None, expect=(200, 201)):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    data = None if body is None else json.dumps(body).encode()
    started = time.monotonic()
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    payload = response.read()
    took = time.monotonic() - started
    connection.close()
    if response.status not in expect:
        sys.exit(f"api-cost: {method} {path} answered {response.status}: {payload[:300]!r}")
    return took, json.loads(payload) if payload else None


def board(items):
    return {"lists": [{"id": "L", "title": "L", "layout": "list",
                       "items": [{"id": f"i{n}", "fields": {"title": f"item {n}"}} for n in range(items)]}]}


def moves(request, count, items):
    # Each move takes an item to the front, after the one moved before it: every op depends on
    # the one before (validated against the board with it applied).
    ops = []
    for n in range(count):
        item = f"i{(request * count + n) % items}"
        after = f"i{(request * count + n - 1) % items}" if n > 0 else None
        op = {"kind": "move", "item": item, "list": "L"}
        if after is not None and after != item:
            op["after"] = after
        ops.append({"id": f"r{request}-{n}", "op": op})
    return {"ops": ops}


def one_round(port, tag):
    figures = {}
    figures["put_100"], _ = call(port, "PUT", f"/api/v1/boards/{tag}-small", board(100))
    figures["put_9999"], _ = call(port, "PUT", f"/api/v1/boards/{tag}-large", board(9_999))
    room = f"{tag}-ops"
    call(port, "PUT", f"/api/v1/boards/{room}", board(1_000))
    took = []
    for request in range(3):
        seconds, answer = call(port, "POST", f"/api/v1/boards/{room}/ops", moves(request, 1_000, 1_000))
        refused = [r for r in answer["results"] if r["type"] != "applied"]
        if refused:
            sys.exit(f"api-cost: {len(refused)} ops refused, first {refused[0]}")
        took.append(seconds)
    figures["post_1000_moves"] = statistics.median(took)
    figures["get_1000_ops"], answer = call(port, "GET", f"/api/v1/boards/{room}/ops?since=3001&limit=1000")
    return figures


results = {"cluster": [], "single": []}
for n in range(rounds):
    # Alternate which target goes first, so neither always runs on a machine the other warmed.
    order = [("cluster", cluster_port), ("single", single_port)]
    if n % 2:
        order.reverse()
    for name, port in order:
        results[name].append(one_round(port, f"{name}{n}"))

names = ["put_100", "put_9999", "post_1000_moves", "get_1000_ops"]
labels = {"put_100": "PUT of 100 items", "put_9999": "PUT of 9,999 items",
          "post_1000_moves": "POST …/ops of 1,000 moves", "get_1000_ops": "GET …/ops of 1,000 ops"}
table = {}
for name in names:
    c = statistics.median(r[name] for r in results["cluster"])
    s = statistics.median(r[name] for r in results["single"])
    table[name] = {"cluster_seconds": c, "single_seconds": s, "ratio": c / s if s > 0 else None}
print(f"{'median of ' + str(rounds) + ' rounds':32} {'cluster':>10} {'one node':>10} {'ratio':>7}")
for name in names:
    row = table[name]
    print(f"{labels[name]:32} {row['cluster_seconds']:10.3f} {row['single_seconds']:10.3f} {row['ratio']:7.2f}")
with open("reports/api-cost.json", "w") as out:
    json.dump({"rounds": rounds, "median": table, "runs": results}, out, indent=2)
EOF
echo "api-cost: reports/api-cost.json"
