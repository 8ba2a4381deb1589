# Shared by scripts/capacity.sh and scripts/load-100k.sh (sourced, not run): a work directory,
# redis-servers and Redis Clusters on free ports, `reorder serve` nodes, all stopped by PID on exit.
# The caller sets WORK_NAME before sourcing; LOAD_BIN names the reorder binary to use instead of
# building the release one.
if [ -n "${LOAD_BIN:-}" ]; then
  BIN=$LOAD_BIN
else
  swift build -c release --product reorder >&2
  BIN=.build/release/reorder
fi
command -v redis-server >/dev/null && command -v redis-cli >/dev/null \
  || { echo "$0: needs redis-server and redis-cli (scripts/install-deps.sh test)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/reorder-${WORK_NAME:-cluster}.XXXXXX")
PIDS=()
REDIS_PIDS=()
# shellcheck source=scripts/lib-stop.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib-stop.sh"
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
  echo "$0: no free port" >&2
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
  echo "$0: redis-server $name did not start: $(tail -3 "$WORK/$name.log")" >&2
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
  echo "$0: node $name did not start: $(tail -5 "$WORK/$name.log")" >&2
  exit 1
}


# start_cluster MASTERS: a Redis Cluster of MASTERS masters (no replicas); sets CLUSTER_PORTS.
start_cluster() {
  CLUSTER_PORTS=()
  for m in $(seq 1 "$1"); do
    start_redis "master$m" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --cluster-require-full-coverage no
    CLUSTER_PORTS+=("$REDIS_PORT")
  done
  redis-cli --cluster create "${CLUSTER_PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >/dev/null
  for _ in $(seq 1 100); do
    local ok=1
    for port in "${CLUSTER_PORTS[@]}"; do
      redis-cli -p "$port" cluster info | grep -q cluster_state:ok || ok=0
    done
    [ "$ok" = 1 ] && return
    sleep 0.2
  done
  echo "$0: the Redis Cluster did not reach cluster_state:ok" >&2
  exit 1
}

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

