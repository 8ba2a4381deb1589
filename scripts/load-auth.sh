#!/usr/bin/env bash
# Join storm with and without room tokens, side by side (issue 12: at most 10% longer with HS256).
#   scripts/load-auth.sh            # 4 rounds: 1,000 clients join one room, alternately without
#                                   # tokens and with an HS256 token each; prints one table
#   ROUNDS=6 CLIENTS=2000 scripts/load-auth.sh
# Each round gets a fresh server on a free loopback port (a throwaway data directory); every server
# started is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
CLIENTS=${CLIENTS:-1000}
swift build -c release --product reorder >&2
BIN=.build/release/reorder
WORK=$(mktemp -d /tmp/reorder-load-auth.XXXXXX)
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
openssl rand -hex 32 >"$WORK/secret"

# round MODE: one server, one join-only run; prints "MODE seconds".
round() {
  local mode=$1 flags=() load_flags=()
  if [ "$mode" = tokens ]; then
    flags=(--auth-secret-file "$WORK/secret")
    load_flags=(--auth-secret-file "$WORK/secret")
  fi
  : >"$WORK/server.log"
  "$BIN" serve --host 127.0.0.1 --port 0 --data :memory: --web '' --log-level warn \
    --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 "${flags[@]}" >"$WORK/server.log" 2>&1 &
  PID=$!
  local port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's|^Reorder is listening on http://127.0.0.1:\([0-9]*\)/$|\1|p' "$WORK/server.log")
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || { cat "$WORK/server.log" >&2; exit 1; }
  "$BIN" load --url "ws://127.0.0.1:$port" --clients "$CLIENTS" --rooms 1 --draggers 0 --join-only --quiet \
    --label "join-$mode" --json "$WORK/$mode.json" "${load_flags[@]}" >"$WORK/$mode.txt" 2>&1
  kill "$PID"
  wait "$PID" 2>/dev/null || true
  PID=""
  python3 -c 'import json, sys; run = json.load(open(sys.argv[1])); print(sys.argv[2], run["join"]["joinSeconds"], run["join"]["connected"])' \
    "$WORK/$mode.json" "$mode"
}

results=()
for i in $(seq 1 "$ROUNDS"); do
  mode=$([ $((i % 2)) -eq 1 ] && echo none || echo tokens)
  results+=("$(round "$mode")")
  echo "round $i: ${results[-1]} s" >&2
done
printf '%s\n' "${results[@]}" | python3 -c '
import sys, statistics
rows = [line.split() for line in sys.stdin if line.strip()]
by = {}
for mode, seconds, connected in rows:
    by.setdefault(mode, []).append(float(seconds))
none, tokens = statistics.median(by["none"]), statistics.median(by["tokens"])
print("| join storm (%s clients, 1 room) | rounds | median first attempt to last welcome s |" % sys.argv[1])
print("|---|--:|--:|")
print("| without tokens | %d | %.2f |" % (len(by["none"]), none))
print("| with HS256 tokens | %d | %.2f |" % (len(by["tokens"]), tokens))
print("")
print("with / without: %.2fx (target <= 1.10x)" % (tokens / none))
' "$CLIENTS"
