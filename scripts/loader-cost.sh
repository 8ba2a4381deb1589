#!/usr/bin/env bash
# What one load of the big board costs the server's service thread, measured as CPU (perf samples),
# which other work on a shared machine does not change the way it changes latency (issue 11,
# docs/LOAD.md "Isolation and f: welcomes in fragments, …").
#
#   LOAD_BIG_DATA=/tmp/reorder-big LOAD_ONLY=isolation scripts/load.sh   # seeds the board once
#   scripts/loader-cost.sh                         # .build/release/reorder on /tmp/reorder-big
#   scripts/loader-cost.sh BIN DATA [SECONDS]
#
# Starts `reorder serve` (127.0.0.1, a free port, --room-idle-seconds 0) on a copy of DATA, records
# it with `perf record --call-graph dwarf` while `reorder load` has one idle client and a loader
# that joins and leaves the board `big0` every 100 ms for SECONDS (default 10), stops the server by
# PID, and prints the service thread's samples per welcome and what they were spent in. Needs
# perf (Debian package linux-perf) and permission to record the server (root, or
# kernel.perf_event_paranoid <= 1).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/reorder}
DATA=${2:-/tmp/reorder-big}
SECS=${3:-10}
HZ=1999
[ -x "$BIN" ] || { echo "loader-cost.sh: no executable $BIN (swift build -c release --product reorder)" >&2; exit 1; }
[ -f "$DATA/reorder.sqlite3" ] || { echo "loader-cost.sh: $DATA holds no seeded board (see the usage above)" >&2; exit 1; }
command -v perf >/dev/null || { echo "loader-cost.sh: perf not found (apt install linux-perf)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/reorder-loader-cost.XXXXXX)
SERVER_PID=""
PERF_PID=""
cleanup() {
  [ -n "$PERF_PID" ] && kill -INT "$PERF_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cp -r "$DATA" "$WORK/data"
: >"$WORK/server.log"
"$BIN" serve --host 127.0.0.1 --port 0 --web web --log-level warn --data "$WORK/data" \
  --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000 --max-ops-per-second 100000 \
  --max-items-per-room 20000 --max-connections-per-room 5000 --room-idle-seconds 0 --presence-max-hz 1000 \
  >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 100); do
  PORT=$(sed -n 's|^Reorder is listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/server.log" | head -n 1 || true)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || { echo "loader-cost.sh: the server did not start; its log:" >&2; cat "$WORK/server.log" >&2; exit 1; }
perf record -F "$HZ" --call-graph dwarf,16384 -o "$WORK/perf.data" -p "$SERVER_PID" >/dev/null 2>&1 &
PERF_PID=$!
sleep 1
timeout --signal=TERM --kill-after=5 $((SECS + 60)) "$BIN" load --url "ws://127.0.0.1:$PORT" --label loader-cost \
  --room-prefix cost --clients 1 --draggers 0 --duration "$SECS" --drain 0 --loader-room big0 \
  --loader-interval-ms 100 --json "$WORK/load.json" >"$WORK/load.out" 2>&1 || true
kill -INT "$PERF_PID"
wait "$PERF_PID" 2>/dev/null || true
PERF_PID=""
grep "loader " "$WORK/load.out" >&2 || true
perf script -i "$WORK/perf.data" -F tid,ip,sym,dso 2>/dev/null >"$WORK/stacks.txt"
python3 - "$WORK/stacks.txt" "$BIN" "$WORK/load.json" "$HZ" <<'EOF'
# Groups the service thread's samples (the thread whose stacks hold ServiceLoop.run) by the first
# rule that matches a frame of the stack; symbols of the binary are resolved with addr2line.
import collections, json, subprocess, sys
stacks, binary, result, hz = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
samples, cur, tid = [], None, None
for line in open(stacks, errors="replace"):
    line = line.rstrip("\n")
    if not line.strip():
        if cur is not None: samples.append((tid, cur)); cur = None
        continue
    if not line.startswith("\t"):
        if cur is not None: samples.append((tid, cur))
        tid, cur = line.split()[0], []
        continue
    if cur is None: cur = []
    parts = line.split()
    cur.append((parts[0], " ".join(parts[1:])))
if cur: samples.append((tid, cur))
mine = sorted({int(ip, 16) for _, s in samples for ip, where in s if binary.split("/")[-1] in where})
names = {}
for i in range(0, len(mine), 2000):
    chunk = mine[i:i + 2000]
    out = subprocess.run(["addr2line", "-f", "-e", binary] + [hex(a) for a in chunk], capture_output=True, text=True).stdout.splitlines()
    plain = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(out[0::2]), capture_output=True, text=True).stdout.splitlines()
    names.update(zip(chunk, plain))
def frames(s): return [names.get(int(ip, 16), where) if binary.split("/")[-1] in where else where for ip, where in s]
threads = collections.Counter(t for t, s in samples if any("ServiceLoop.run" in f for f in frames(s)))
if not threads: sys.exit("loader-cost.sh: no samples of the service thread")
service = threads.most_common(1)[0][0]
rules = [("freeing a room", "destroy for Room"), ("building the welcome", "ServerMessage.welcome"),
         ("copying messages into the queue", "WebSocketServer.send("), ("websocket writes (lws_write)", "lws_write"),
         ("installing the loaded room", "RoomRegistry.loaded"), ("waiting in poll()", "__poll"), ("everything else", "")]
counts, total = collections.Counter(), 0
for t, s in samples:
    if t != service: continue
    total += 1
    fs = frames(s)
    for label, key in rules:
        if key == "" or any(key in f for f in fs): counts[label] += 1; break
welcomed = json.load(open(result)).get("loader", {}).get("welcomed", 0)
ms = 1000.0 / hz
print(f"service thread: {total} samples at {hz} Hz = {total * ms:.0f} ms for {welcomed} welcomes"
      + (f" = {total * ms / welcomed:.2f} ms per load" if welcomed else ""))
for label, _ in rules:
    per = f", {counts[label] * ms / welcomed:.2f} ms per load" if welcomed else ""
    print(f"  {label}: {counts[label]} samples{per}")
EOF
