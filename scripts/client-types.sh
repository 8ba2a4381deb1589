#!/usr/bin/env bash
# The TypeScript declarations of the embeddable client (web/js/reorder-client/*.d.ts), made from
# its JSDoc by tsc (Debian's node-typescript, a dev-only tool) — which also type-checks the module.
#   scripts/client-types.sh          # regenerate the .d.ts files beside the modules
#   scripts/client-types.sh --check  # regenerate into a temporary directory and fail (exit 1) when
#                                    # they differ from the kept ones, the module has a type error,
#                                    # or Tests/client-types/use.ts (an app on them) does not compile
set -euo pipefail
cd "$(dirname "$0")/.."

module=web/js/reorder-client
command -v tsc >/dev/null || { echo "client-types: tsc not found (apt install node-typescript)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# From a copy of the modules alone: beside kept .d.ts files tsc would read those instead.
mkdir "$work/src" "$work/out"
cp "$module"/*.js "$work/src/"
out="$work/out"
tsc --declaration --allowJs --checkJs --emitDeclarationOnly --strict false --noImplicitAny false \
  --target es2020 --module es2020 --moduleResolution node --lib es2020,dom --skipLibCheck \
  --outDir "$out" "$work/src/index.js"

if [[ "${1:-}" == --check ]]; then
  status=0
  for made in "$out"/*.d.ts; do
    kept="$module/$(basename "$made")"
    if ! diff -u "$kept" "$made" >&2; then status=1; fi
  done
  for kept in "$module"/*.d.ts; do
    [[ -e "$out/$(basename "$kept")" ]] || { echo "client-types: $kept is made by no module" >&2; status=1; }
  done
  # An app on the kept declarations, with --strict: they type the API and refuse misuse.
  tsc --noEmit --strict --target es2020 --module es2020 --moduleResolution node --lib es2020,dom \
    Tests/client-types/use.ts || status=1
  ((status == 0)) && echo "client-types: ok"
  exit $status
fi
cp "$out"/*.d.ts "$module"/
echo "client-types: wrote $(ls "$out" | wc -l) declaration files to $module"
