#!/usr/bin/env bash
# Installs what Reorder needs on Debian 12, only where it is missing.
#   scripts/install-deps.sh run    # build + serve: libwebsockets, libssl, sqlite, libjwt, hiredis,
#                                  #   pkg-config
#   scripts/install-deps.sh test   # + redis-server (cluster tests start their own), openssl CLI,
#                                  #   chromium + chromedriver, nginx (the proxy recipe test), systemd (systemd-analyze
#                                  #   verify checks deploy/reorder.service), haproxy (the room affinity test runs
#                                  #   deploy/haproxy.cfg), pytest + selenium +
#                                  #   prometheus_client (the /metrics test parses with it),
#                                  #   openapi-spec-validator (docs/openapi.json),
#                                  #   PyJWT and node + jose (docs/AUTH.md's minting examples),
#                                  #   node-typescript (the client's .d.ts: scripts/client-types.sh)
#   scripts/install-deps.sh load   # + libwebsockets-test-server (the C baseline), redis-server (the
#                                  #   cluster scenarios)
#   scripts/install-deps.sh soak   # + redis-server (the soak's cluster modes start their own; with
#                                  #   redis-tools' redis-cli, which makes the Redis Cluster)
set -euo pipefail

purpose="${1:-run}"
packages=(pkg-config libwebsockets-dev libwebsockets-evlib-ev libev-dev libssl-dev libsqlite3-dev libjwt-dev libhiredis-dev)
case "$purpose" in
  run) ;;
  test) packages+=(redis-server openssl chromium chromium-driver python3-jwt nodejs node-jose node-typescript systemd nginx haproxy) ;;
  load) packages+=(libwebsockets-test-server redis-server) ;;
  soak) packages+=(redis-server) ;;
  *) echo "usage: $0 run|test|load|soak" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ "$purpose" = test ]; then
  if ! python3 -c "import pytest, selenium, prometheus_client, openapi_spec_validator" 2>/dev/null; then
    if python3 -m pip --version >/dev/null 2>&1; then
      echo "install-deps: installing pytest, selenium, prometheus_client and openapi-spec-validator (PyPI)" >&2
      python3 -m pip install --quiet pytest selenium prometheus_client openapi-spec-validator \
        || python3 -m pip install --quiet --break-system-packages pytest selenium prometheus_client \
          openapi-spec-validator
    else
      # Debian's own python3 has no pip: take Debian's packages instead.
      echo "install-deps: installing python3-pytest, python3-selenium and python3-prometheus-client (apt)" >&2
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
        python3-pytest python3-selenium python3-prometheus-client python3-pip >&2
      # Debian 12 has no openapi-spec-validator package: PyPI through Debian's pip.
      python3 -m pip install --quiet --break-system-packages openapi-spec-validator
    fi
  fi
fi
