#!/usr/bin/env bash
# workerd for miniflare on the real clock: libfaketime deadlocks workerd as it starts (even
# `workerd --version` hangs), so a suite run under `faketime` points MINIFLARE_WORKERD_PATH here. Only the
# Workers runtime keeps the real date; Deno and every other child run on the moved clock (docs/testing.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
shopt -s nullglob
bins=("$root"/node_modules/.deno/@cloudflare+workerd-linux-64@*/node_modules/@cloudflare/workerd-linux-64/bin/workerd)
if [ "${#bins[@]}" -eq 0 ]; then
  echo "workerd_real_clock.sh: no workerd under $root/node_modules (run a Cloudflare test once without faketime)" >&2
  exit 1
fi
unset LD_PRELOAD FAKETIME DONT_FAKE_MONOTONIC
exec "${bins[-1]}" "$@"
