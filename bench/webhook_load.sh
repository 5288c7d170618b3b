#!/usr/bin/env bash
# Webhook load benchmark (see bench/webhook.ts). Installs wrk from Debian when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then apt-get update -qq && apt-get install -y -qq wrk; else sudo apt-get update -qq && sudo apt-get install -y -qq wrk; fi
fi
exec deno run -A --unstable-kv bench/webhook.ts "$@"
