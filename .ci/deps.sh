#!/usr/bin/env bash
# What the test suite needs besides Deno: Debian's redis-server (the Redis backend tests), rabbitmq-server and
# nats-server (the RabbitMQ and NATS source tests); each test starts its own on a loopback port. Installed
# with apt when missing; run by `deno task ci`, so the README's test command works on a fresh machine. Prints
# one line and exits non-zero when they cannot be had.
set -uo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
{ command -v rabbitmq-server >/dev/null 2>&1 || [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; } || missing+=(rabbitmq-server)
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The Redis, RabbitMQ and NATS tests need ${missing[*]} on PATH (Debian: apt-get install -y ${missing[*]})"
  exit 1
fi
echo "Installing ${missing[*]} from Debian"
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 || {
  echo "Cannot install ${missing[*]}"
  exit 1
}
# Debian starts the system's own RabbitMQ node on install; the tests run private nodes and need none.
command -v systemctl >/dev/null 2>&1 && systemctl stop rabbitmq-server >/dev/null 2>&1
exit 0
