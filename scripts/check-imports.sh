#!/usr/bin/env bash
# Keeps the layering honest (see Package.swift):
#  - only Sources/ReorderTransport may import CLibWebSockets (the one module that talks to lws);
#  - only Sources/ReorderAuth may import CJWT (the one module that talks to libjwt and libcrypto);
#  - Sources/ReorderCRDT imports nothing at all (not even Foundation);
#  - the transport holds no routing: no `/ws/` path and no rooms in its code (comments aside);
#    upgrades and HTTP routes are the server's (WebSocketServerHandler.admit / route).
#  - Sources/ReorderRooms imports neither ReorderStore nor CSQLite (storage is its RoomStore port).
# Exits 1 and lists the offending lines otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
import_re='^[[:space:]]*(@[A-Za-z_]+([(][^)]*[)])?[[:space:]]+)*import[[:space:]]+([a-z]+[[:space:]]+)?'

offenders=$(grep -rnE "${import_re}CLibWebSockets\b" Sources Tests --include='*.swift' \
  | grep -v '^Sources/ReorderTransport/' || true)
if [[ -n "$offenders" ]]; then
  echo "check-imports: only Sources/ReorderTransport may import CLibWebSockets:" >&2
  echo "$offenders" >&2
  status=1
fi

offenders=$(grep -rnE "${import_re}CJWT\b" Sources Tests --include='*.swift' \
  | grep -v '^Sources/ReorderAuth/' || true)
if [[ -n "$offenders" ]]; then
  echo "check-imports: only Sources/ReorderAuth may import CJWT:" >&2
  echo "$offenders" >&2
  status=1
fi

crdt_imports=$(grep -rnE "${import_re}[A-Za-z_]" Sources/ReorderCRDT --include='*.swift' || true)
if [[ -n "$crdt_imports" ]]; then
  echo "check-imports: Sources/ReorderCRDT must import nothing:" >&2
  echo "$crdt_imports" >&2
  status=1
fi

routing=$(grep -rnE '/ws/|\broom|Room' Sources/ReorderTransport --include='*.swift' \
  | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [[ -n "$routing" ]]; then
  echo "check-imports: Sources/ReorderTransport must not hold room routing (the server's job):" >&2
  echo "$routing" >&2
  status=1
fi

rooms_storage=$(grep -rnE "${import_re}(ReorderStore|CSQLite)\b" Sources/ReorderRooms --include='*.swift' || true)
if [[ -n "$rooms_storage" ]]; then
  echo "check-imports: Sources/ReorderRooms must not import ReorderStore or CSQLite (use the RoomStore port):" >&2
  echo "$rooms_storage" >&2
  status=1
fi

if [[ $status -eq 0 ]]; then
  echo "check-imports: ok"
fi
exit $status
