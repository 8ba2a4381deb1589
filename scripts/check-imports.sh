#!/usr/bin/env bash
# Keeps the layering honest (see Package.swift):
#  - only Sources/ReorderTransport may import CLibWebSockets (the one module that talks to lws);
#  - only Sources/ReorderAuth may import CJWT (the one module that talks to libjwt and libcrypto);
#  - only Sources/ReorderRedis may import CHiredis (the one module that talks to hiredis);
#  - only Sources/ReorderLoad may import CEpoll (glibc's epoll, for the load tool's own client);
#  - Sources/ReorderCRDT imports nothing at all (not even Foundation);
#  - the transport holds no routing: no `/ws/` path and no rooms in its code (comments aside);
#    upgrades and HTTP routes are the server's (WebSocketServerHandler.admit / route).
#  - Sources/ReorderRooms imports neither ReorderStore nor CSQLite (storage is its RoomStore port).
# Exits 1 and lists the offending lines otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
import_re='^[[:space:]]*(@[A-Za-z_]+([(][^)]*[)])?[[:space:]]+)*import[[:space:]]+([a-z]+[[:space:]]+)?'

# report RULE LINES: fails the check with RULE when LINES (grep output) is not empty.
report() {
  if [[ -n "$2" ]]; then
    echo "check-imports: $1:" >&2
    echo "$2" >&2
    status=1
  fi
}

report "only Sources/ReorderTransport may import CLibWebSockets" \
  "$(grep -rnE "${import_re}CLibWebSockets\b" Sources Tests --include='*.swift' | grep -v '^Sources/ReorderTransport/' || true)"
report "only Sources/ReorderAuth may import CJWT" \
  "$(grep -rnE "${import_re}CJWT\b" Sources Tests --include='*.swift' | grep -v '^Sources/ReorderAuth/' || true)"
report "only Sources/ReorderRedis may import CHiredis" \
  "$(grep -rnE "${import_re}CHiredis\b" Sources Tests --include='*.swift' | grep -v '^Sources/ReorderRedis/' || true)"
report "only Sources/ReorderLoad may import CEpoll" \
  "$(grep -rnE "${import_re}CEpoll\b" Sources Tests --include='*.swift' | grep -v '^Sources/ReorderLoad/' || true)"
report "Sources/ReorderCRDT must import nothing" \
  "$(grep -rnE "${import_re}[A-Za-z_]" Sources/ReorderCRDT --include='*.swift' || true)"
report "Sources/ReorderTransport must not hold room routing (the server's job)" \
  "$(grep -rnE '/ws/|\broom|Room' Sources/ReorderTransport --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)"
report "Sources/ReorderRooms must not import ReorderStore or CSQLite (use the RoomStore port)" \
  "$(grep -rnE "${import_re}(ReorderStore|CSQLite)\b" Sources/ReorderRooms --include='*.swift' || true)"

if [[ $status -eq 0 ]]; then
  echo "check-imports: ok"
fi
exit $status
