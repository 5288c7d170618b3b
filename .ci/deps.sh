#!/usr/bin/env bash
# What the test suite needs besides Deno: Debian's redis-server (the Redis backend tests start their own on a
# loopback port). Installed with apt when missing; run by `deno task ci`, so the README's test command works
# on a fresh machine. Prints one line and exits non-zero when it cannot be had.
set -uo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The Redis backend tests need redis-server on PATH (Debian: apt-get install -y redis-server)"
  exit 1
fi
echo "Installing redis-server from Debian"
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null 2>&1 || {
  echo "Cannot install redis-server"
  exit 1
}
