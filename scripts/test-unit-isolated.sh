#!/bin/sh
# `npm run test:unit` where no service can answer: the proof that the unit suite needs none.
# It runs in a network namespace of its own, whose only interface is a loopback with nothing
# listening (so PostgreSQL's, Redis's and NATS's ports are closed, whatever a test hard-codes),
# with every service URL pointed at a closed port, and with a `kcat` first on PATH that refuses
# to start (kcat hosts the Kafka mock broker). Arguments go to vitest (e.g. --reporter=dot).
# Needs util-linux's `unshare` and iproute2's `ip`, and root or unprivileged user namespaces.
set -eu
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
printf '#!/bin/sh\necho "kcat: not available to unit tests (test:unit:isolated)" >&2\nexit 1\n' > "$stub/kcat"
chmod +x "$stub/kcat"

closed=127.0.0.1:9
if [ "$(id -u)" -eq 0 ]; then ns='unshare --net'; else ns='unshare --map-root-user --net --mount'; fi
# shellcheck disable=SC2016 # expanded by the inner shell
exec $ns env PATH="$stub:$PATH:/usr/sbin:/sbin" \
  DATABASE_URL="postgres://weir@$closed/weir" WEIR_TEST_PG_URL="postgres://postgres@$closed/postgres" \
  REDIS_URL="redis://$closed" NATS_URL="nats://$closed" \
  sh -c 'ip link set lo up && exec npm run -s test:unit -- "$@"' sh "$@"
