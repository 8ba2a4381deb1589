#!/usr/bin/env bash
# What scraping /metrics costs (issue 13): load scenario b (1 room × 1,000 clients, 10 draggers ×
# 30 updates/s, 10 s; see docs/LOAD.md) on a fresh server per round, rounds alternating without and
# with a scraper that GETs /metrics once a second, in the order off on on off … so that drift on a
# shared machine falls on both sides; the server's CPU seconds (utime + stime from /proc/PID/stat,
# less sensitive to other work on the machine than wall time) are compared. Then the cost of one
# scrape alone: 200 scrapes back to back of a server holding 1,000 idle clients.
#
#   scripts/load-scrape.sh              # 8 rounds (about 4 minutes)
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
stop() {
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
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

# scraper: GET /metrics once a second until stopped; counts successful scrapes in $WORK/scrapes.
scraper() {
  : >"$WORK/scrapes"
  (while true; do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics" && echo >>"$WORK/scrapes"
    sleep 1
  done) &
  SCRAPER_PID=$!
}

printf 'round\tscraper\tserver_cpu_s\tscrapes\tdelivered_per_s\n'
for round in $(seq 1 "$ROUNDS"); do
  case $((round % 4)) in 1 | 0) mode=off ;; *) mode=on ;; esac
  serve
  [ "$mode" = on ] && scraper
  before=$(ticks "$SERVER_PID")
  timeout --signal=TERM --kill-after=5 120 "$BIN" load --url "ws://127.0.0.1:$PORT" --server-pid "$SERVER_PID" \
    --label b --room-prefix b --clients 1000 --draggers 10 --drag-rate 30 --duration 10 \
    --json "$WORK/b.json" >"$WORK/load.log" 2>&1 || echo "load-scrape.sh: round $round's load failed" >&2
  after=$(ticks "$SERVER_PID")
  scrapes=0
  if [ "$mode" = on ]; then
    stop $SCRAPER_PID
    SCRAPER_PID=""
    scrapes=$(wc -l <"$WORK/scrapes")
  fi
  delivered=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(round(r.get('delivered_per_second', r.get('deliveredPerSecond', 0))))" "$WORK/b.json" 2>/dev/null || echo "?")
  stop $SERVER_PID
  SERVER_PID=""
  printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$(awk -v t="$((after - before))" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }')" "$scrapes" "$delivered"
done

# One scrape alone: a server holding 1,000 idle clients (so /proc/self/fd lists ~1,000 entries).
serve
"$BIN" load --url "ws://127.0.0.1:$PORT" --server-pid "$SERVER_PID" --label idle --room-prefix idle \
  --clients 1000 --draggers 0 --duration 25 >"$WORK/idle.log" 2>&1 &
LOADER_PID=$!
sleep 10
before=$(ticks "$SERVER_PID")
for _ in $(seq 1 200); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"; done
after=$(ticks "$SERVER_PID")
awk -v t="$((after - before))" -v hz="$HZ" 'BEGIN { printf "one scrape (1,000 idle clients, 200 scrapes): %.2f ms of server CPU\n", 1000 * t / hz / 200 }'
stop $LOADER_PID
LOADER_PID=""
