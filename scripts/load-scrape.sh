#!/usr/bin/env bash
# What scraping /metrics costs (issue 13): load scenario b (1 room × 1,000 clients, 10 draggers ×
# 30 updates/s, 10 s; see docs/LOAD.md) on a fresh server per round, rounds alternating without and
# with a scraper that GETs /metrics once a second over one kept-alive connection (as Prometheus
# does), in the order off on on off … so that drift on a shared machine falls on both sides; the
# server's CPU seconds (utime + stime from /proc/PID/stat, less sensitive to other work on the
# machine than wall time) are compared, also per million drag updates delivered. Then the cost of
# one scrape alone: 500 scrapes back to back (and 500 of /healthz) of a server holding 1,000 idle
# clients.
#
#   scripts/load-scrape.sh              # 8 rounds (about 3 minutes)
#   ROUNDS=4 scripts/load-scrape.sh
#
# Builds `reorder` in release mode; everything goes to 127.0.0.1; every server is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-8}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "== building reorder (release)" >&2
swift build -c release --product reorder >&2
BIN=.build/release/reorder
WORK=$(mktemp -d "${TMPDIR:-/tmp}/reorder-scrape.XXXXXX")
SERVER_PID=""
SCRAPER_PID=""
LOADER_PID=""
# shellcheck source=scripts/lib-stop.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib-stop.sh"
cleanup() {
  stop $SCRAPER_PID $LOADER_PID $SERVER_PID
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server's CPU time so far, in clock ticks.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

# serve: a fresh server (load.sh's flags); sets SERVER_PID and PORT.
serve() {
  rm -rf "$WORK/data" && mkdir -p "$WORK/data" "$WORK/web"
  : >"$WORK/server.log"
  "$BIN" serve --host 127.0.0.1 --port 0 --web "$WORK/web" --log-level warn --data "$WORK/data" \
    --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 --max-ops-per-second 100000 \
    --max-connections-per-room 5000 --room-idle-seconds 600 --presence-max-hz 1000 >"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|^Reorder is listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/server.log" | head -n 1)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  [ -n "$PORT" ] || { cat "$WORK/server.log" >&2; exit 1; }
}

# scraper: GET /metrics once a second over one kept-alive connection (as Prometheus scrapes) until
# stopped; one line in $WORK/scrapes per 200 answer.
scraper() {
  : >"$WORK/scrapes"
  python3 - "$PORT" "$WORK/scrapes" <<'PY' &
import http.client, sys, time
port, log = int(sys.argv[1]), sys.argv[2]
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
while True:
    started = time.monotonic()
    try:
        connection.request("GET", "/metrics")
        answer = connection.getresponse()
        answer.read()
        if answer.status == 200:
            with open(log, "a") as f:
                f.write("\n")
    except (OSError, http.client.HTTPException):
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
PY
  SCRAPER_PID=$!
}

# requests PATH N: N GETs of PATH over one kept-alive connection ("none": N pauses of 2 ms).
requests() {
  python3 - "$PORT" "$1" "$2" <<'PY'
import http.client, sys, time
connection = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
for _ in range(int(sys.argv[3])):
    if sys.argv[2] == "none":
        time.sleep(0.002)
        continue
    connection.request("GET", sys.argv[2])
    connection.getresponse().read()
PY
}

printf 'round\tscraper\tserver_cpu_s\twall_s\tscrapes\tdelivered_per_s\tcpu_s_per_M_delivered\n'
for round in $(seq 1 "$ROUNDS"); do
  case $((round % 4)) in 1 | 0) mode=off ;; *) mode=on ;; esac
  serve
  [ "$mode" = on ] && scraper
  before=$(ticks "$SERVER_PID")
  started=$(date +%s.%N)
  timeout --signal=TERM --kill-after=5 120 "$BIN" load --url "ws://127.0.0.1:$PORT" --server-pid "$SERVER_PID" \
    --label b --room-prefix b --clients 1000 --draggers 10 --drag-rate 30 --duration 10 \
    --json "$WORK/b.json" >"$WORK/load.log" 2>&1 || echo "load-scrape.sh: round $round's load failed" >&2
  after=$(ticks "$SERVER_PID")
  wall=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  scrapes=0
  if [ "$mode" = on ]; then
    stop $SCRAPER_PID
    SCRAPER_PID=""
    scrapes=$(wc -l <"$WORK/scrapes")
  fi
  delivered=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(round(r.get('delivered_per_second', r.get('deliveredPerSecond', 0))))" "$WORK/b.json" 2>/dev/null || echo "?")
  stop $SERVER_PID
  SERVER_PID=""
  cpu=$(awk -v t="$((after - before))" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')
  per=$(awk -v c="$cpu" -v d="$delivered" 'BEGIN { if (d > 0) printf "%.3f", c / (d * 10 / 1e6); else print "?" }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$cpu" "$wall" "$scrapes" "$delivered" "$per"
done

# One scrape alone: a server holding 1,000 idle clients (as many sockets as in b), 500 requests
# back to back on one connection; /healthz is the cost of any HTTP request, "none" the idle server.
serve
"$BIN" load --url "ws://127.0.0.1:$PORT" --server-pid "$SERVER_PID" --label idle --room-prefix idle \
  --clients 1000 --draggers 0 --duration 60 >"$WORK/idle.log" 2>&1 &
LOADER_PID=$!
sleep 12
for path in none /healthz /metrics none /healthz /metrics; do
  before=$(ticks "$SERVER_PID")
  requests "$path" 500
  after=$(ticks "$SERVER_PID")
  awk -v p="$path" -v t="$((after - before))" -v hz="$HZ" \
    'BEGIN { printf "%s × 500 (1,000 idle clients): %.2f ms of server CPU each\n", p, 1000 * t / hz / 500 }'
done
stop $LOADER_PID
LOADER_PID=""
