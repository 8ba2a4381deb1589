#!/usr/bin/env bash
# Keeps the layering honest (see Package.swift):
#  - only Sources/ReorderTransport may import CLibWebSockets (the one module that talks to lws);
#  - only Sources/ReorderAuth may import CJWT (the one module that talks to libjwt and libcrypto);
#  - only Sources/ReorderRedis may import CHiredis (the one module that talks to hiredis);
#  - only Sources/ReorderLoad may import CEpoll (glibc's epoll, for the load tool's own client);
#  - Sources/ReorderCRDT imports nothing at all (not even Foundation);
#  - the transport holds no routing: no `/ws/` path and no rooms in its code (comments aside);
#    upgrades and HTTP routes are the server's (WebSocketServerHandler.admit / route).
#  - Sources/ReorderRooms imports neither ReorderStore nor CSQLite (storage is its RoomStore port);
#  - every module imports only the modules its row of Package.swift's table names (`allowed` below),
#    besides the toolchain's Foundation, Glibc (Darwin), Dispatch and Synchronization;
#  - no module under Sources imports a test helper (EmbeddedTransport, TestSupport, TestRandom,
#    TestTokens); the in-process transport, like the real one, holds no room routing.
#  - the server starts no thread loop of its own: its background loops are `WorkerThread`s
#    (ReorderBasics); only lws' service loop and the fan-out helper (ParallelSender) are threads of
#    their own (the load tool and the bench are not the server).
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
report "Sources/ReorderTransport and Tests/EmbeddedTransport must not hold room routing (the server's job)" \
  "$(grep -rnE '/ws/|\broom|Room' Sources/ReorderTransport Tests/EmbeddedTransport --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)"
report "Sources/ReorderRooms must not import ReorderStore or CSQLite (use the RoomStore port)" \
  "$(grep -rnE "${import_re}(ReorderStore|CSQLite)\b" Sources/ReorderRooms --include='*.swift' || true)"
report "no module under Sources may import a test helper" \
  "$(grep -rnE "${import_re}(EmbeddedTransport|TestSupport|TestRandom|TestTokens)\b" Sources --include='*.swift' || true)"
report "the server's background loops are WorkerThreads (ReorderBasics); a Thread of its own only for lws' service loop and the fan-out helper" \
  "$(grep -rnE '\bThread *\{|\bThread\(block' Sources --include='*.swift' \
    | grep -vE '^Sources/(ReorderBasics|ReorderLoad|reorder-bench)/|^Sources/ReorderTransport/(ServiceLoop|ParallelSender)\.swift:' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)"

# The layering table of Package.swift's header, one module per line: the modules it may import.
allowed="
ReorderCRDT:
ReorderBasics:
ReorderTransport: CLibWebSockets ReorderBasics
ReorderStore: CSQLite ReorderBasics
ReorderRooms: ReorderCRDT ReorderBasics
ReorderAuth: CJWT
ReorderRedis: CHiredis ReorderBasics
ReorderWebhooks: ReorderRooms ReorderTransport ReorderAuth ReorderMetrics ReorderBasics
ReorderMetrics: ReorderBasics
ReorderCluster: ReorderRooms ReorderRedis ReorderWebhooks ReorderAPI ReorderMetrics ReorderBasics
ReorderLocal: ReorderRooms ReorderStore ReorderWebhooks ReorderAPI ReorderBasics
ReorderAPI: ReorderRooms ReorderTransport ReorderMetrics ReorderBasics
ReorderServer: ReorderTransport ReorderRooms ReorderStore ReorderCRDT ReorderBasics ReorderAuth ReorderRedis ReorderWebhooks ReorderMetrics ReorderCluster ReorderLocal ReorderAPI
ReorderLoad: ReorderTransport ReorderBasics CEpoll
reorder: ReorderServer ReorderLoad ReorderAuth ReorderBasics
reorder-bench: ReorderCRDT ReorderStore ReorderRedis
"
toolchain="Foundation Glibc Darwin Dispatch Synchronization"
while IFS=: read -r module modules; do
  [[ -z "$module" ]] && continue
  [[ -d "Sources/$module" ]] || { report "Package.swift's table names a module with no sources" "$module"; continue; }
  ok=" $modules $toolchain "
  offending="$(grep -rnE "${import_re}[A-Za-z_]+" "Sources/$module" --include='*.swift' | awk -v ok="$ok" '{
    line = $0; sub(/^[^:]+:[0-9]+:/, "", line); n = split(line, w, /[[:space:]]+/); m = ""
    for (i = 1; i <= n; i++) if (w[i] == "import") {
      m = w[i + 1]; if (m ~ /^(struct|class|enum|func|var|let|typealias|protocol)$/) m = w[i + 2]; break
    }
    if (index(ok, " " m " ") == 0) print $0
  }' || true)"
  report "Sources/$module imports a module its row of the layering table does not name" "$offending"
done <<<"$allowed"
for dir in Sources/*/; do
  module="$(basename "$dir")"
  [[ "$module" == C* ]] && continue
  grep -q "^$module:" <<<"$allowed" || report "a module missing from the layering table" "$module"
done

if [[ $status -eq 0 ]]; then
  echo "check-imports: ok"
fi
exit $status
