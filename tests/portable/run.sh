#!/usr/bin/env bash
# The portable suite: builds the package as JSR serves it to Node and Bun (tests/portable/build_package.ts),
# installs it with npm into a throwaway application (app.package.json: the package plus Hono), and runs
# run.mjs under each runtime given. Prints each runtime's "portable <runtime>: N passed, N failed" line.
#
# Usage: tests/portable/run.sh <runtime binary>...   (e.g. node, bun; needs deno, npm and redis-server)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

deno run --quiet --lock="$root/tests/npm/deno.lock" --allow-read --allow-write --allow-run --allow-env "$here/build_package.ts" "$work/package" || exit 1
mkdir -p "$work/app"
# A packed copy (not a link), so that the package resolves its npm dependencies from the app as installed.
(cd "$work" && npm pack ./package --silent >/dev/null && mv gw-gateway-*.tgz app/gw-gateway.tgz) || exit 1
cp "$here/app.package.json" "$work/app/package.json"
cp "$here"/*.mjs "$work/app/"
(cd "$work/app" && npm install --no-audit --no-fund --silent >/dev/null) || { echo "Cannot install the portable app"; exit 1; }

status=0
for runtime in "$@"; do
  (cd "$work/app" && "$runtime" run.mjs) || status=1
done
exit $status
